"""Arista's own renderer as an oracle for the EOS templates (DESIGN: truth from outside).

The lab grammar and the templates are written by the same people, so they can agree on a line
EOS would print differently. Here every EOS switch of every shipped fabric is rendered twice from
the same DeviceIntent: by fabricctl's templates and by pyavd (`eos_cli_config_gen`, through
tests/avd_oracle.py). Read as config trees (parent path + line, order-insensitive like
fabricctl's own diff), every line fabricctl emits must be one pyavd renders (wrong syntax, value
format or parent) and every line pyavd renders must be one fabricctl emits (a forgotten line). A
difference passes only when an allow-list entry below names it and says why.

pyavd is a test dependency (the `test` extra, which CI installs): without it this module fails
to import, it never skips.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path
from typing import get_args

import pytest
import yaml

from fabricctl import pipeline
from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.platforms.eos.qos import EosQosTuning
from fabricctl.render import BUILTIN_TEMPLATES
from tests import avd_oracle
from tests.conftest import EOS_SMALL, REPO, copy_fabric, render_one

#: Every shipped fabric: the repository's own and each example (the EOS switches of each are compared).
#: Every example with switches (examples/day0 is a pod before its first rack: none to compare).
FABRICS = [
    root
    for root in (REPO, *sorted((REPO / "examples").iterdir()))
    if (root / "inventory").is_dir()
    and yaml.safe_load((root / "inventory" / "hosts.yaml").read_text(encoding="utf-8"))
]

#: Our lines pyavd does not render: (regex on "parent > ... > line", why that is right).
OURS_ONLY: list[tuple[str, str]] = []

#: pyavd lines we do not emit: (regex, why fabricctl leaves them out).
AVD_ONLY: list[tuple[str, str]] = [
    (r"hostname \S+", "fabricctl does not own the hostname (platforms/eos/rules.py: never touched)"),
]


def _unexplained(lines: list[str], allowed: list[tuple[str, str]]) -> list[str]:
    return [line for line in lines if not any(re.fullmatch(rx, line) for rx, _ in allowed)]


def _eos_intents(compiled: Compiled) -> dict[str, DeviceIntent]:
    return {n: i for n, i in compiled.intents.items() if i.platform == "eos"}


@pytest.fixture(scope="module")
def compiled() -> dict[Path, Compiled]:
    return {root: pipeline.compile(root) for root in FABRICS}


@pytest.fixture(scope="module")
def renderings(compiled: dict[Path, Compiled]) -> dict[str, tuple[str, str]]:
    """'<fabric>/<switch>' -> (fabricctl's config, pyavd's config) for every EOS switch."""
    out = {}
    for root, comp in compiled.items():
        intents = _eos_intents(comp)
        for name, ours in pipeline.render(intents, root).items():
            out[f"{root.name}/{name}"] = (ours, avd_oracle.render(intents[name]))
    return out


def test_pyavd_is_the_pinned_release() -> None:
    """The oracle is pyavd exactly as pinned in the test extra: a new release is a reviewed change."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = [d for d in extras["optional-dependencies"]["test"] if d.startswith("pyavd")]
    assert pins == [f"pyavd=={importlib.metadata.version('pyavd')}"]


def test_every_shipped_eos_switch_is_compared(renderings: dict[str, tuple[str, str]]) -> None:
    assert EOS_SMALL in FABRICS
    assert {k for k in renderings if k.startswith("eos-small/")} == {
        f"eos-small/{n}" for n in ("spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4")
    }


def test_structured_config_is_valid_avd(compiled: dict[Path, Compiled]) -> None:
    """No schema violation (validate raises) and no deprecated key: the mapping keeps up with pyavd."""
    warnings = {
        f"{root.name}/{name}": avd_oracle.validate(avd_oracle.structured_config(intent))[1]
        for root, comp in compiled.items()
        for name, intent in _eos_intents(comp).items()
    }
    assert warnings and all(w == [] for w in warnings.values()), warnings


def test_our_lines_are_avd_lines(renderings: dict[str, tuple[str, str]]) -> None:
    missing = {
        switch: _unexplained(avd_oracle.compare(ours, avd), OURS_ONLY)
        for switch, (ours, avd) in renderings.items()
    }
    assert all(m == [] for m in missing.values()), f"lines pyavd does not render: {missing}"


def test_avd_lines_are_our_lines(renderings: dict[str, tuple[str, str]]) -> None:
    extra = {
        switch: _unexplained(avd_oracle.compare(avd, ours), AVD_ONLY)
        for switch, (ours, avd) in renderings.items()
    }
    assert all(e == [] for e in extra.values()), f"pyavd lines we do not emit: {extra}"


def test_allow_lists_are_still_needed(renderings: dict[str, tuple[str, str]]) -> None:
    """An entry that no difference matches any more is stale: delete it."""
    ours_only = [m for ours, avd in renderings.values() for m in avd_oracle.compare(ours, avd)]
    avd_only = [m for ours, avd in renderings.values() for m in avd_oracle.compare(avd, ours)]
    stale = [rx for rx, _ in OURS_ONLY if not any(re.fullmatch(rx, m) for m in ours_only)]
    stale += [rx for rx, _ in AVD_ONLY if not any(re.fullmatch(rx, m) for m in avd_only)]
    assert stale == []


#: A switch drained whole and a link drained (maintenance.yaml): no shipped fabric holds a drain.
DRAINED = "drained:\n  - switch: spine1\n  - switch: leaf2\n    port: Ethernet5\n"


def test_drained_switches_are_avd_lines(tmp_path: Path) -> None:
    """The graceful-shutdown lines (a BGP group quiesced by a maintenance unit, communities sent
    to the drained peers) are the lines Arista's renderer writes for the same drain."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    (root / "maintenance.yaml").write_text(DRAINED, encoding="utf-8")
    comp = pipeline.compile(root)
    drained = {n for n, i in comp.intents.items() if i.bgp.graceful_shutdown_peers}
    assert drained == {"spine1", "spine2", "leaf2"}  # the switch, and both ends of the link
    for name in sorted(drained):
        intent = comp.intents[name]
        ours, avd = render_one(intent, root), avd_oracle.render(intent)
        assert "quiesce" in ours, name
        assert _unexplained(avd_oracle.compare(ours, avd), OURS_ONLY) == [], name
        assert _unexplained(avd_oracle.compare(avd, ours), AVD_ONLY) == [], name


#: The edges of every EOS QoS value fabric.yaml may set: each must be a value pyavd accepts.
_FIELDS = EosQosTuning.model_fields
TUNING_EDGES = [
    *({"watchdog_action": a} for a in get_args(_FIELDS["watchdog_action"].annotation)),
    *({"ecn_unit": u} for u in get_args(_FIELDS["ecn_unit"].annotation)),
    {"watchdog_timeout": 0.01, "watchdog_polling_interval": 0.001, "watchdog_recovery_time": 0.01},
    {"watchdog_timeout": 60, "watchdog_polling_interval": 10, "watchdog_recovery_time": 600},
    {"ecn_minimum": 1, "ecn_maximum": 2, "ecn_max_mark_probability": 1, "ecn_weight": 0},
    {"ecn_max_mark_probability": 100, "ecn_weight": 15},
]


@pytest.mark.parametrize("edge", TUNING_EDGES, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
def test_every_tuning_value_fabricctl_takes_is_one_pyavd_takes(
    edge: dict[str, object], compiled: dict[Path, Compiled]
) -> None:
    intent = compiled[EOS_SMALL].intents["leaf1"]
    tuning = EosQosTuning.model_validate({**intent.qos.tuning, **edge}).model_dump()
    qos = intent.qos.model_copy(update={"tuning": tuning})
    avd_oracle.validate(avd_oracle.structured_config(intent.model_copy(update={"qos": qos})))


def test_vxlan_qos_lines_are_avd_lines_where_the_model_takes_them(compiled: dict[Path, Compiled]) -> None:
    """No shipped EOS model takes `vxlan qos` (Arista lists the 7050X3 family only), so a VTEP
    whose model does is rendered here: every tunnel QoS line both ways against pyavd."""
    intent = compiled[EOS_SMALL].intents["leaf1"]
    assert intent.vtep is not None and intent.vtep.tunnel_qos == []
    vtep = intent.vtep.model_copy(update={"tunnel_qos": list(avd_oracle.VTEP_QOS)})
    intent = intent.model_copy(update={"vtep": vtep})
    ours, avd = render_one(intent, EOS_SMALL), avd_oracle.render(intent)
    assert "vxlan qos ecn propagation" in ours
    assert _unexplained(avd_oracle.compare(ours, avd), OURS_ONLY) == []
    assert _unexplained(avd_oracle.compare(avd, ours), AVD_ONLY) == []


# --- the oracle can fail -----------------------------------------------------------------------

#: The anycast MAC as `hhhh.hhhh.hhhh`: EOS takes that form but prints the colon form.
_DOTTED_MAC = "{% set d = anycast_gateway_mac | replace(':', '') %}{{ d[0:4] }}.{{ d[4:8] }}.{{ d[8:12] }}"
#: Single-line template edits (file, line as shipped, line as mutated; "" deletes it), each a
#: wrong or forgotten line; the oracle must catch every one.
MUTANTS = [
    ("qos.j2", "   tx-queue {{ qos.lossless_class }}\n", "   uc-tx-queue {{ qos.lossless_class }}\n"),
    ("qos.j2", "priority {{ qos.lossless_class }} no-drop", "priority {{ qos.lossless_class }} nodrop"),
    ("qos.j2", "qos map dscp {{ dscp }} to traffic-class", "qos map dscp {{ dscp }} traffic-class"),
    ("bgp.j2", "EVPN-OVERLAY send-community\n", "EVPN-OVERLAY send-community extended\n"),
    ("bgp.j2", "route-target import evpn {{ rt }}", "route-target import {{ rt }}"),
    ("bgp.j2", "      network {{ net }}\n", "   network {{ net }}\n"),
    ("evpn.j2", "{{ anycast_gateway_mac | mac }}", "{{ anycast_gateway_mac | upper }}"),
    ("evpn.j2", "{{ anycast_gateway_mac | mac }}", _DOTTED_MAC),
    ("evpn.j2", "   vxlan udp-port {{ vtep.udp_port }}\n", ""),
    ("tenants.j2", "   ip address virtual {{ vlan.gateway }}", "   ip virtual address {{ vlan.gateway }}"),
    ("interfaces.j2", "   shutdown\n", ""),
    ("acl.j2", "   counters per-entry\n", ""),
    ("underlay.j2", "   ip address {{ lo.ipv4 }}", "   ip address {{ lo.ipv4 | cidr_ip }}"),
]


@pytest.mark.parametrize(
    ("template", "line", "mutant"), MUTANTS, ids=[f"{n:02}-{m[0]}" for n, m in enumerate(MUTANTS, 1)]
)
def test_a_broken_template_line_is_caught(
    template: str,
    line: str,
    mutant: str,
    tmp_path: Path,
    compiled: dict[Path, Compiled],
    renderings: dict[str, tuple[str, str]],
) -> None:
    """The mutated template overrides the built-in one from the fabric root, as a user's would."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    shipped = (BUILTIN_TEMPLATES / "eos" / template).read_text(encoding="utf-8")
    assert shipped.count(line) == 1, f"{template} changed: update this mutant"
    (root / "templates" / "eos").mkdir(parents=True)
    (root / "templates" / "eos" / template).write_text(shipped.replace(line, mutant), encoding="utf-8")
    caught = []
    for name, ours in pipeline.render(_eos_intents(compiled[EOS_SMALL]), root).items():
        avd = renderings[f"eos-small/{name}"][1]
        caught += _unexplained(avd_oracle.compare(ours, avd), OURS_ONLY)
        caught += _unexplained(avd_oracle.compare(avd, ours), AVD_ONLY)
    what = mutant.strip() or f"deleting {line.strip()}"
    assert caught, f"{template}: {what!r} went unnoticed"


def test_compare_sees_parent_paths() -> None:
    """The same line under another parent is a difference (the oracle is not a bag of lines)."""
    ours = "router bgp 1\n   network 10.0.0.1/32\n!\nend\n"
    avd = "!\nrouter bgp 1\n   !\n   address-family ipv4\n      network 10.0.0.1/32\n"
    assert avd_oracle.compare(ours, avd) == ["router bgp 1 > network 10.0.0.1/32"]
    assert avd_oracle.compare(avd, ours) == [
        "router bgp 1 > address-family ipv4",
        "router bgp 1 > address-family ipv4 > network 10.0.0.1/32",
    ]
