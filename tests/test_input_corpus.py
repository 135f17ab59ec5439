"""Every command over a corpus of broken and hostile inputs (invariant 7).

Each case breaks a copy of eos-small in one way; every command that reads the fabric must then
exit 1 with an error that names the file (relative to --root) or the flag, with no traceback, no
machine path, none of the broken file's contents (each case plants a marker that must never be
printed), nothing written and nothing contacted. Flag cases do the same per command.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from fabricctl.cli import main
from fabricctl.model.bounds import MAX_TENANT_FILE_BYTES
from tests.conftest import EOS_SMALL, copy_fabric

MARKER = "Zq7-marker-never-printed"
COMMANDS = [
    "validate",
    "render",
    "verify",
    "verify --format json",
    "show tenants",
    "show allocations",
    "plan --lab",
    "apply --lab --auto-approve",
    "drift --lab",
    "tenant new probe --gpus 1",
]
TENANT = """---
name: alpha
id: 30
description: Alpha team
isolation: l3
address_block: 172.20.30.0/28
gpus:
  - server: node07
    nics: [0, 1]
"""

#: A case breaks the fabric at `root` (a scratch folder `outside` is beside it) and returns the
#: file, relative to the root, that the error must name.
Case = Callable[[Path, Path], str]


def _tenant(root: Path, text: str, name: str = "alpha.yaml") -> str:
    (root / "tenants" / name).write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return f"tenants/{name}"


def _edit(root: Path, rel: str, old: str, new: str) -> str:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")
    return rel


def _symlink_to_passwd(root: Path, outside: Path) -> str:
    target = outside / "passwd"
    target.write_text(f"root:x:0:0:{MARKER}:/root:/bin/bash\n", encoding="utf-8")
    (root / "tenants" / "evil.yaml").symlink_to(target)
    return "tenants/evil.yaml"


def _symlink_loop(root: Path, outside: Path) -> str:
    (root / "tenants" / "a.yaml").symlink_to(root / "tenants" / "b.yaml")
    (root / "tenants" / "b.yaml").symlink_to(root / "tenants" / "a.yaml")
    return "tenants/a.yaml"


def _fifo(root: Path, outside: Path) -> str:
    os.mkfifo(root / "tenants" / "pipe.yaml")
    return "tenants/pipe.yaml"


def _tenants_folder_elsewhere(root: Path, outside: Path) -> str:
    (root / "tenants").rename(outside / "tenants")
    (root / "tenants").symlink_to(outside / "tenants")
    return "tenants"


def _billion_laughs(root: Path, outside: Path) -> str:
    lines = [f"lol0: &lol0 [{MARKER}, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"lol{i}: &lol{i} [{', '.join([f'*lol{i - 1}'] * 9)}]" for i in range(1, 10)]
    return _tenant(root, "\n".join(lines) + "\n")


CASES: dict[str, Case] = {
    "symlink-to-passwd": _symlink_to_passwd,
    "symlink-loop": _symlink_loop,
    "fifo": _fifo,
    "tenants-folder-outside-root": _tenants_folder_elsewhere,
    "not-a-mapping": lambda root, _: _tenant(root, f"root:x:0:0:{MARKER}:/root:/bin/bash\n"),
    "billion-laughs": _billion_laughs,
    "nested-5000": lambda root, _: _tenant(root, f"# {MARKER}\nname: " + "[" * 5000 + "]" * 5000 + "\n"),
    "merge-key": lambda root, _: _tenant(root, f"<<: {{id: 30, description: {MARKER}}}\n" + TENANT[4:]),
    "nul-byte": lambda root, _: _tenant(root, TENANT.replace("Alpha team", f"Alpha\0{MARKER}")),
    "invalid-utf8": lambda root, _: _tenant(root, TENANT.encode() + b"# \xff\xfe " + MARKER.encode()),  # type: ignore[arg-type]
    "lone-carriage-return": lambda root, _: _tenant(
        root, TENANT.replace("id: 30\n", f"id: 30\r{MARKER}: 1\n")
    ),
    "oversize-file": lambda root, _: _tenant(root, TENANT + f"# {MARKER}\n" * (MAX_TENANT_FILE_BYTES // 20)),
    "raw-line-separator-in-model": lambda root, _: _edit(
        root, "inventory/groups.yaml", "model: 7060X5-64", f"model: 7060X5-64\u2028{MARKER}"
    ),
    "escaped-line-separator-in-model": lambda root, _: _edit(
        root, "inventory/groups.yaml", "model: 7060X5-64", f'model: "7060X5-64\\u2028peer {MARKER}"'
    ),
    "escape-sequence-in-site": lambda root, _: _edit(
        root, "inventory/defaults.yaml", "site: icc-1", f'site: "icc-1\\x1b[2J{MARKER}"'
    ),
    "password-not-text": lambda root, _: _edit(
        root, "inventory/defaults.yaml", "port: 22", f"port: 22\npassword: {{secret: {MARKER}}}"
    ),
    "broken-defaults": lambda root, _: _edit(
        root, "inventory/defaults.yaml", "port: 22", f"port: [22\n# {MARKER}"
    ),
    "groups-data-a-list": lambda root, _: _edit(
        root, "inventory/groups.yaml", "    model: 7060X5-64", "    - x"
    ),
    "tenant-named-mgmt": lambda root, _: _tenant(
        root, TENANT.replace("name: alpha", "name: mgmt"), "mgmt.yaml"
    ),
    "upper-case-suffix": lambda root, _: _tenant(root, TENANT.replace("id: 30", "id: true"), "alpha.YAML"),
    "server-range-huge": lambda root, _: _tenant(
        root, TENANT.replace("  - server: node07\n    nics: [0, 1]", "  - servers: [gpu100-gpu999999999999]")
    ),
    "shared-with-twice": lambda root, _: _edit(
        root, "tenants/storage.yaml", "[team-llm, team-hpc]", "[team-llm, team-hpc, team-llm]"
    ),
    "block-multicast": lambda root, _: _tenant(root, TENANT.replace("172.20.30.0/28", "239.0.0.0/28")),
    "port-range-quadratic": lambda root, _: _edit(
        root, "inventory/fabric.yaml", "spine_downlink_ports: 1-16", "spine_downlink_ports: 1-200000,1"
    ),
    "gpu-ports-huge": lambda root, _: _edit(
        root, "inventory/fabric.yaml", "leaf_gpu_ports: 9-16", "leaf_gpu_ports: 33-999999999"
    ),
    "pools-overlap": lambda root, _: _edit(root, "inventory/fabric.yaml", "10.64.0.128/26", "10.64.0.64/26"),
    "gateway-mac-multicast": lambda root, _: _edit(root, "inventory/fabric.yaml", '"00:1c', '"01:1c'),
    "vni-bases-equal": lambda root, _: _edit(
        root, "inventory/fabric.yaml", "l2vni_base: 10000", "l2vni_base: 50000"
    ),
    "leaf-asn-overflow": lambda root, _: _edit(
        root, "inventory/fabric.yaml", "leaf_asn_base: 65210", "leaf_asn_base: 4294967293"
    ),
    "index-boolean": lambda root, _: _edit(root, "inventory/hosts.yaml", "index: 3", "index: true"),
}

#: Flag mistakes, per command: (arguments, the flag the error must name).
FLAG_CASES: list[tuple[str, str]] = [
    ("render --limit ,", "--limit"),
    ("render --out tenants/team-llm.yaml/out", "tenants/team-llm.yaml/out"),
    ("render --limit 'leaf1\x1b[2J'", "--limit"),
    ("plan --lab -o tenants/team-llm.yaml/plan.json", "tenants/team-llm.yaml/plan.json"),
    ("plan --lab -o tenants/plan.yaml", "tenants/plan.yaml"),
    ("plan --lab --timeout nan", "--timeout"),
    ("plan --lab --parallelism 0", "--parallelism"),
    ("plan --lab --artifact-url 'a\nb'", "--artifact-url"),
    ("apply --lab --auto-approve --confirm-timeout 100000000000000000000", "--confirm-timeout"),
    ("apply --lab --auto-approve --parallelism 0", "--parallelism"),
    ("apply --lab --auto-approve --timeout inf", "--timeout"),
    ("drift --lab --limit ,", "--limit"),
    ("drift --lab --timeout -1", "--timeout"),
    ("show tenants --bogus", "--bogus"),
    ("verify --configs no-such-folder", "no-such-folder"),
    ("schema bogus", "bogus"),
    ("validate --root no-such-fabric", "--root"),
]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`fabricctl <argv>` in-process, as the console script ends (verify and drift exit via SystemExit)."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


TRACEBACK = re.compile(r"Traceback|File \".*\", line \d+")


def _check(out: str, err: str, code: int, names: str, root: Path, tmp: Path, attempts: list[object]) -> None:
    text = out + err
    assert code == 1, f"exit {code}: {text}"
    assert names in text, f"the error must name {names}: {text}"
    assert not TRACEBACK.search(text), text
    assert MARKER not in text, f"file contents echoed: {text}"
    for machine in {str(tmp), str(tmp.resolve()), str(root.resolve()), "/etc/", os.path.expanduser("~")}:
        assert machine not in text, f"machine path {machine} in: {text}"
    assert not attempts, f"contacted {attempts}"
    assert not (root / "out").exists(), "nothing may be written on bad input"


@pytest.mark.parametrize("case", list(CASES))
def test_every_command_refuses_broken_input(
    case: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_network: list[object],
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    outside = tmp_path / "outside"
    outside.mkdir()
    names = CASES[case](root, outside)
    monkeypatch.chdir(root)
    for command in COMMANDS:
        code, out, err = run_cli([*command.split(), "--root", "."], capsys)
        _check(out, err, code, names, root, tmp_path, no_network)
        if command != "verify --format json":  # JSON keeps it in one "error" string
            assert re.search(rf"^{re.escape(names)}(:\d+)?: ", out + err, re.M), (command, out + err)


@pytest.mark.parametrize(("argv", "flag"), FLAG_CASES, ids=[a for a, _ in FLAG_CASES])
def test_every_command_refuses_bad_flags(
    argv: str,
    flag: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_network: list[object],
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    monkeypatch.chdir(root)
    args = shlex.split(argv)
    if args[0] not in ("schema",) and "--root" not in args:
        args += ["--root", "."]
    code, out, err = run_cli(args, capsys)
    _check(out, err, code, flag, root, tmp_path, no_network)
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1, (out, err)
