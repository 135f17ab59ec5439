"""The NVUE twin's grammar is NVIDIA's NVUE command reference of the release it runs, as
tools/nvue_reference.py reads it: the generator is tested on pages written in the reference's own
Markdown shape; the committed table names the release, the commit and each page it came from;
every NVUE config fabricctl renders (each example, each golden, the day-0 startup files) uses
only paths that table lists; and the twin refuses the forms releases before 5.15 used."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from fabricctl.lab.devices.nvue import render
from fabricctl.lab.devices.nvue.cli import NvueError, commands, validate
from fabricctl.lab.devices.nvue.tree import get_path, load_yaml
from fabricctl.lab.editor import InvalidInput
from fabricctl.lab.reference import parse_reference, reference
from fabricctl.platforms import get_platform

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "fabricctl" / "lab" / "devices" / "nvue" / "commands.yaml"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nvue_reference", REPO / "tools" / "nvue_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["nvue_reference"] = module
    spec.loader.exec_module(module)
    return module


# Pages in the reference's Markdown shape; the entries and their wording are made up for the test.
INTERFACE = """---
title: Interface
---
## <h>nv set interface \\<interface-id\\> ipv4 address \\<ip-prefix-id\\></h>

{{%notice note%}}
In Cumulus Linux 5.14 and earlier the command is `nv set interface <interface-id> ip address`.
{{%/notice%}}

### Version History

Introduced in Cumulus Linux 5.0.0

## <h>nv set interface \\<interface-id\\> link mtu</h>

A frame size. You can set a value between 552 and 9216. The default setting is 9216.

### Version History

Introduced in Cumulus Linux 5.0.0

### Example

```
cumulus@switch:~$ nv set interface swp1 link mtu 9000
```

## <h>nv set interface \\<interface-id\\> link state</h>

You can specify `up` or `down`.

## <h>nv set interface \\<interface-id\\> link fast-path</h>

{{%notice note%}}
In Cumulus Linux 5.14 and earlier, you specify `on` or `off`.
{{%/notice%}}

## <h>nv set interface \\<interface-id\\> link retired</h>

{{%notice note%}}
Cumulus Linux 5.15 and later no longer supports this command.
{{%/notice%}}

<!--
## <h>nv set interface \\<interface-id\\> link hidden</h>
-->

## <h>nv set evpn vni \\<vni-id\\> rd \\<rd-id\\></h>

### Example

```
cumulus@switch:~$ nv set evpn vni 10 rd 10.0.0.1:10
```

## <h>nv show interface \\<interface-id\\></h>
"""
CHANGES = """---
title: New and Changed NVUE Commands
version: "5.15"
---
| CL5.14.0 and Earlier | CL5.15 and Later |
| --- | --- |
| `nv set interface <interface-id> ip vrf <vrf-name>` | `nv set interface <interface-id> vrf <vrf-name>` |
| `nv set router vrr enable on\\|off` | `nv set router vrr stateenabled\\|disabled` |
| `nv set interface <interface-id> ip igmp version (2\\|3)` | `nv set interface <interface-id> ipv4 igmp version (2\\|3)` |
| `nv set interface <interface-id> ip igmp fast-leave enabled\\|disabled` | `nv set interface <interface-id> ipv4 igmp fast-leave enabled\\|disabled` |
| `nv set interface <interface-id> ip igmp fast-leave on\\|off` | `nv set interface <interface-id> ip igmp fast-leave enabled\\|disabled` |
| `nv show interface <interface-id> ip` | `nv show interface <interface-id> ipv4` |
"""
ERRATA = """\
- id: erratum
  path: vrf <vrf-id> table
  value: "{auto|<int:1001-1255>}"
  url: https://example.invalid/vrf
  section: the page that settles it
  device: NVIDIA Cumulus Linux 5.17
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git checkout laid out as CumulusNetworks/docs is."""
    docs = tmp_path / "docs"
    pages = docs / "content" / "cumulus-linux-517" / "NVUE-Command-Reference" / "Set-and-Unset-Commands"
    pages.mkdir(parents=True)
    (pages / "Interface.md").write_text(INTERFACE, encoding="utf-8")
    changes = docs / "content" / "cumulus-linux-515" / "Whats-New" / "New-and-Changed-NVUE-Commands.md"
    changes.parent.mkdir(parents=True)
    changes.write_text(CHANGES, encoding="utf-8")
    if shutil.which("git"):
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
        env["GIT_COMMITTER_EMAIL"] = "t@t"
        for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "pages"]):
            subprocess.run(["git", "-C", str(docs), *args], check=True, env=env)
    return docs


def test_the_generator_reads_paths_values_releases_and_renames_from_the_pages(
    checkout: Path, tmp_path: Path
) -> None:
    gen = _generator()
    errata = tmp_path / "errata.yaml"
    errata.write_text(ERRATA, encoding="utf-8")
    text = gen.generate(checkout, "5.17", errata=errata)
    data = yaml.safe_load(text)
    rules = {c["cmd"]: c for c in data["views"]["set"]["commands"]}
    assert rules["interface <name> ipv4 address <prefix>"]["before"] == "interface <interface-id> ip address"
    assert "key" not in rules["interface <name> ipv4 address <prefix>"]  # a collection member
    mtu = rules["interface <name> link mtu <int:552-9216>"]
    assert (mtu["key"], mtu["default"], mtu["since"], mtu["src"]) == (4, "9216", "5.0.0", ["ref-interface"])
    assert rules["interface <name> link state {up|down}"]["resets"] == ["*"]  # `state: {up: {}}`
    assert "interface <name> link fast-path {enabled|disabled}" in rules  # on/off became enabled/disabled
    assert rules["evpn vni <int:1-16777214> rd <word>"]["key"] == 4  # `rd: <value>`, a scalar
    assert rules["interface <name> vrf <name>"]["since"] == "5.15"
    assert rules["router vrr state {enabled|disabled}"]["src"] == ["cl515-changed"]  # a glued typo split
    assert "interface <name> ipv4 igmp version {2|3}" in rules
    # a row of another tab still spelling the old path does not bring it back
    assert "interface <name> ipv4 igmp fast-leave {enabled|disabled}" in rules
    assert rules["vrf <name> table {auto|<int:1001-1255>}"]["src"] == ["erratum"]
    unknown = [c for c in rules if re.search(r"retired|hidden|\bip (?:igmp|vrf)\b|show", c)]
    assert unknown == []  # no longer supported, commented out, renamed away, or not a set path
    page = data["sources"]["ref-interface"]
    assert page["path"].endswith("Set-and-Unset-Commands/Interface.md")
    blob = gen.git_blob((checkout / page["path"]).read_bytes())
    assert page["blob"] == blob
    if shutil.which("git"):
        head = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        assert data["generated"]["commit"] == head.stdout.strip()
        listed = subprocess.run(
            ["git", "-C", str(checkout), "ls-files", "-s", page["path"]], capture_output=True, text=True
        )
        assert listed.stdout.split()[1] == blob  # the id a checkout gives the page
    parse_reference("nvue", data)  # the lab loads what it writes


def test_the_committed_table_names_its_release_commit_pages_and_history() -> None:
    ref = reference("nvue")
    assert ref.release == get_platform("nvue").release().name == "5.17"
    assert ref.generated is not None and ref.generated["by"] == "tools/nvue_reference.py"
    assert ref.generated["repository"] == "CumulusNetworks/docs"
    for sid, src in ref.sources.items():
        assert src.url.startswith("https://docs.nvidia.com/networking-ethernet-software/"), sid
        assert (src.path and len(src.blob) == 40) or sid.startswith("cl5"), sid
    renamed = {r.pattern: h for r, h in ref.history.items() if h[1]}
    assert renamed["interface <name> ipv4 address <prefix>"][1] == "interface <interface-id> ip address"
    assert TABLE.read_text(encoding="utf-8").startswith("# Generated by tools/nvue_reference.py")


@pytest.mark.skipif(
    not os.environ.get("FABRICCTL_CUMULUS_DOCS"),
    reason="needs a checkout of CumulusNetworks/docs (FABRICCTL_CUMULUS_DOCS=<path>)",
)
def test_the_committed_table_is_what_the_generator_makes_of_the_checkout() -> None:
    gen = _generator()
    assert gen.generate(Path(os.environ["FABRICCTL_CUMULUS_DOCS"]), "5.17") == TABLE.read_text(
        encoding="utf-8"
    ), "regenerate: python tools/nvue_reference.py --docs $FABRICCTL_CUMULUS_DOCS"


# --- every NVUE config fabricctl renders, through the table -------------------------------------


def _problems(text: str) -> set[str]:
    """Where a config leaves the table: a path it does not list, or a scalar where NVUE keeps an
    object of one member (`state: up: {}`)."""
    grammar = reference("nvue").grammar
    tree = load_yaml(text)
    out: set[str] = set()
    for line in commands(tree, {}):
        words = shlex.split(line)[2:]
        try:
            rule = validate(grammar, words, negated=False)
        except NvueError as exc:
            out.add(re.sub(r"\d+", "N", str(exc)))
            continue
        key = rule.key if rule is not None and rule.resets == ("*",) else None
        if key is not None and not isinstance(get_path(tree, words[:key]), dict):
            out.add(f"{' '.join(words[:key])}: a scalar, not `{words[-1]}: {{}}`")
    return out


#: The examples with NVUE switches (examples/day0 holds no switch before its racks are added: the
#: day-0 test below adds them).
NVUE_EXAMPLES = [REPO / "examples" / "nvue-small", REPO / "examples" / "mixed-pods"]


def _nvue_configs() -> dict[str, str]:
    from fabricctl import pipeline

    out = {}
    for root in NVUE_EXAMPLES:
        nvue = {n: i for n, i in pipeline.compile(root).intents.items() if i.platform == "nvue"}
        for name, text in pipeline.render(nvue, root).items():
            out[f"{root.name}/{name}"] = text
    for golden in sorted((REPO / "tests" / "golden").glob("*/*.cfg")):
        if golden.read_text(encoding="utf-8").startswith("- header:"):
            out[f"golden {golden.parent.name}/{golden.name}"] = golden.read_text(encoding="utf-8")
    return out


def test_every_example_and_golden_uses_only_paths_the_reference_lists() -> None:
    configs = _nvue_configs()
    assert {k.split("/")[0] for k in configs} >= {"nvue-small", "mixed-pods", "golden nvue-small"}
    problems = {where: sorted(p) for where, text in configs.items() if (p := _problems(text))}
    assert problems == {}


def test_the_day0_startup_files_use_only_paths_the_reference_lists(tmp_path: Path) -> None:
    from fabricctl.deploy.ztp import render_ztp
    from tests.day0.helpers import day0_pod

    result = render_ztp(day0_pod(tmp_path / "pod", "nvue"), lab=True, out=tmp_path / "ztp")
    startups = [p for p in result.files if p.name.endswith(".nvue.yaml")]
    assert startups
    assert {p.name: sorted(_problems(p.read_text(encoding="utf-8"))) for p in startups} == {
        p.name: [] for p in startups
    }


# --- the twin refuses what 5.17 refuses -----------------------------------------------------------

PRE_515 = [
    ("interface swp1 ip address 10.0.0.0/31", "Error: Invalid Command: set interface swp1 ip address"),
    ("interface swp1 ip vrf RED", "Error: Invalid Command"),
    ("interface vlan10 ip vrr address 10.1.10.1/24", "Error: Invalid Command"),
    ("evpn enable on", "Error: Invalid Command"),
    ("router vrr enable on", "Error: Invalid Command"),
    ("vrf default router bgp neighbor 10.0.0.1 bfd enable on", "Error: Invalid Command"),
    ("interface vlan10 ipv4 vrr state up", "Error: Invalid value 'up' for interface vlan10 ipv4 vrr state"),
    ("nve vxlan arp-nd-suppress on", "Error: Invalid value 'on' for nve vxlan arp-nd-suppress"),
]


@pytest.mark.parametrize(("path", "error"), PRE_515, ids=[p for p, _ in PRE_515])
def test_the_table_refuses_the_forms_of_releases_before_5_15(path: str, error: str) -> None:
    with pytest.raises(NvueError, match=re.escape(error)):
        validate(reference("nvue").grammar, path.split(), negated=False)


def test_a_value_refused_names_what_nvue_takes_there() -> None:
    with pytest.raises(NvueError) as err:
        validate(reference("nvue").grammar, ["interface", "swp1", "link", "mtu", "100"], negated=False)
    assert str(err.value) == (
        "Error: Invalid value '100' for interface swp1 link mtu: expected <arg> (integer:552 - 9216)"
    )


def test_a_startup_file_in_the_pre_515_forms_does_not_load() -> None:
    """NVIDIA's EVPN example startup.yaml (its older `ip vrr ... enable: on` forms) is refused as
    a `nv config replace` or a ZTP boot would be on 5.17."""
    capture = (REPO / "tests" / "captures" / "nvue" / "border01-startup.yaml").read_text(encoding="utf-8")
    with pytest.raises(InvalidInput):
        render.parse(capture)
