"""The verify stage as functions: `verify_fabric` is what `pipeline.verify` (the CLI's and the
tests' door) and plan/apply call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fabricctl.compile.build import Compiled, with_maintenance
from fabricctl.config.readback import SwitchConfig
from fabricctl.model.maintenance import Maintenance
from fabricctl.procs import paused_gc
from fabricctl.verify.capacity import check_capacity
from fabricctl.verify.drain import check_drain
from fabricctl.verify.ecmp import check_ecmp
from fabricctl.verify.facts import Facts
from fabricctl.verify.isolation import check_isolation
from fabricctl.verify.link_ends import link_proofs
from fabricctl.verify.lossless import check_lossless
from fabricctl.verify.parse import parse_config
from fabricctl.verify.report import DrainProof, VerifyReport, Violation

Fetch = Callable[[list[str]], dict[str, str]]


def parse_configs(compiled: Compiled, configs: dict[str, str]) -> dict[str, SwitchConfig]:
    """Config texts of the fabric's switches read back; texts of unknown switches are ignored."""
    out = {}
    for sw in compiled.fabric.switches:
        text = configs.get(sw.name)
        if text is not None:
            out[sw.name] = parse_config(sw.name, sw.platform, text)
    return out


def verify_fabric(
    compiled: Compiled, configs: dict[str, str], *, max_oversubscription: float | None = None
) -> VerifyReport:
    """Prove isolation, lossless consistency and capacity for `configs` (switch -> config text).

    A switch of the fabric without a config is a violation: what is not read cannot be proven.
    `max_oversubscription` overrides the leaf tier's declared `cabling.max_oversubscription`.
    """
    with paused_gc():  # read-back models of every switch: millions of objects, no cycles
        return _verify(compiled, configs, max_oversubscription)


def _verify(compiled: Compiled, configs: dict[str, str], max_oversubscription: float | None) -> VerifyReport:
    parsed = parse_configs(compiled, configs)
    facts = Facts(compiled)
    violations = [
        Violation(
            "config-missing",
            sw.name,
            "config",
            None,
            "(no config text)",
            f"{sw.name} was not read, so nothing on it is proven",
        )
        for sw in compiled.fabric.switches
        if sw.name not in parsed
    ]
    iso, exceptions = check_isolation(compiled, parsed, facts)
    rows, cap = check_capacity(compiled, parsed, max_oversubscription)
    ecmp, widths = check_ecmp(compiled, parsed)
    lossless, assumptions, notes = check_lossless(compiled, parsed)
    drain, floor = check_drain(compiled, parsed)
    violations += iso + lossless + ecmp + cap + floor
    links, gpu_ports = link_proofs(compiled, parsed)
    return VerifyReport(
        violations=sorted(set(violations)),
        exceptions=sorted(set(exceptions)),
        capacity=rows,
        ecmp=widths,
        assumptions=assumptions,
        links=links,
        gpu_ports=gpu_ports,
        notes=notes,
        switches=len(parsed),
        tenants=len(compiled.allocation.tenants),
        drain=drain,
    )


def verify_maintenance(
    compiled: Compiled, maintenance: Maintenance, root: Path | None = None
) -> VerifyReport:
    """The proofs of the fabric with another maintenance.yaml (a drain proposed, not written yet):
    its configs rendered and read back like any plan's, the drain proof among them."""
    changed = with_maintenance(compiled, maintenance)
    return verify_fabric(changed, render_configs(changed, root))


def prove_drains(
    compiled: Compiled, maintenance: Maintenance, parsed: dict[str, SwitchConfig], root: Path | None = None
) -> tuple[DrainProof | None, list[Violation]]:
    """The drain proof alone for another maintenance.yaml, over `parsed` (the fabric's configs
    read back): only the switches whose drained sessions change are rendered and read again. A
    drain changes graceful-shutdown lines only, which no other proof reads; a plan of it runs
    every proof again."""
    from fabricctl.render import Renderer

    changed = with_maintenance(compiled, maintenance)
    renderer = Renderer(root)
    now = dict(parsed)
    for name, intent in changed.intents.items():
        if intent is not compiled.intents.get(name):
            now[name] = parse_config(name, intent.platform, renderer.render(intent))
    return check_drain(changed, now)


def render_configs(compiled: Compiled, root: Path | None = None) -> dict[str, str]:
    """Freshly rendered configs: the default input of verify (and what plan will push)."""
    from fabricctl.render import Renderer

    return Renderer(root).render_all(compiled.intents)


def read_configs(folder: Path, switches: list[str]) -> dict[str, str]:
    """`<switch>.cfg` files from a folder (e.g. saved running configs); missing files are left out."""
    out = {}
    for name in switches:
        path = Path(folder) / f"{name}.cfg"
        if path.is_file():
            out[name] = path.read_text(encoding="utf-8", errors="replace")
    return out
