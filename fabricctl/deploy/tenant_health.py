"""Is this tenant's job network healthy? Health checks scoped to one tenant's GPU-to-GPU paths.

The scope is the tenant's GPU ports and the fabric links its traffic can take between them: every
uplink of each leaf it holds GPUs on (ECMP spreads a flow over all of them) and both ends of each,
plus the super-spine links when its leaves sit in more than one pod. On those switches the
fabric-wide checks (deploy/health.py) are kept where they are about the scope: its links and
LLDP, the underlay and EVPN sessions, its VRF and VNIs, its GPU ports, PFC. Then two counter
reads a window apart (the switches' clocks say when the window has passed) add what only rates
show: a flap in the window, error counters that grew past a threshold, an optic below its own
warning threshold, a PFC pause rate per priority above the storm threshold, drops on the lossless
queue. Congestion is informational: ECN marks and CNPs above the baseline of a quiet fabric
(none) are named with the hot link and the other tenants whose traffic shares it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fabricctl.compile.build import Compiled
from fabricctl.deploy.context import open_fabric
from fabricctl.deploy.counters import PortDelta, Window, read_clock, read_counters
from fabricctl.deploy.counters import windows as counter_windows
from fabricctl.deploy.fetch import fetch_running
from fabricctl.deploy.health import PAUSE_PPS_MAX, Check, check_health, read_health
from fabricctl.platforms.counters import SwitchCounters
from fabricctl.platforms.health import SwitchHealth
from fabricctl.verify.api import render_configs, verify_fabric

#: Error frames a port may count over a window before it fails: a few corrupted frames in
#: minutes are noise, a steady stream is a failing optic or cable.
ERRORS_MAX = 100
#: Checks that inform and never fail: congestion is how RoCE signals, not a fault by itself.
INFORMATIONAL = frozenset({"congestion"})


@dataclass(frozen=True)
class PortRole:
    about: str  # "tenant a's GPU srv1 nic0" or "fabric link to spine1 Ethernet1"
    key: str = ""
    sharing: tuple[str, ...] = ()  # other tenants whose traffic crosses this port


@dataclass
class Scope:
    tenant: str
    ports: dict[tuple[str, str], PortRole] = field(default_factory=dict)
    vrfs: set[str] = field(default_factory=set)
    vnis: set[int] = field(default_factory=set)

    @property
    def switches(self) -> list[str]:
        return sorted({sw for sw, _ in self.ports})


class UnknownTenant(ValueError):
    """No tenant of that name is allocated in this fabric."""


def tenant_scope(compiled: Compiled, tenant: str, switches: set[str] | None = None) -> Scope:
    """The tenant's scope; with `switches` (`--limit`), only its GPU ports and fabric link ends
    on those switches."""
    scope = _whole_scope(compiled, tenant)
    if switches is None:
        return scope
    scope.ports = {(sw, port): role for (sw, port), role in scope.ports.items() if sw in switches}
    if not scope.ports:
        where = ", ".join(_whole_scope(compiled, tenant).switches)
        raise UnknownTenant(
            f"tenant {tenant!r} has no GPU port or fabric link on {', '.join(sorted(switches))} "
            f"(allowed: its switches, {where})"
        )
    return scope


def _whole_scope(compiled: Compiled, tenant: str) -> Scope:
    allocs = {a.tenant.name: a for a in compiled.allocation.tenants}
    if tenant not in allocs:
        known = ", ".join(sorted(allocs)) or "none"
        raise UnknownTenant(f"no tenant named {tenant!r} (tenants: {known})")
    alloc = allocs[tenant]
    scope = Scope(tenant)
    for (leaf, port), (owner, pa) in sorted(compiled.allocation.port_owner.items()):
        if owner.tenant.name == tenant:
            key = f"{tenant} {pa.gpu.server} nic{pa.gpu.nic}"
            scope.ports[(leaf, port)] = PortRole(
                f"tenant {tenant}'s GPU {pa.gpu.server} nic{pa.gpu.nic}", key
            )
    leaves = set(alloc.leaves)
    sharing_leaf = {
        leaf: tuple(
            sorted(
                a.tenant.name for a in compiled.allocation.by_leaf.get(leaf, []) if a.tenant.name != tenant
            )
        )
        for leaf in leaves
    }
    lower = [ln for ln in compiled.topology.links if ln.tier == "leaf-spine" and ln.leaf in leaves]
    spines_of = {leaf: frozenset(ln.spine for ln in lower if ln.leaf == leaf) for leaf in leaves}
    upper = []
    if len(set(spines_of.values())) > 1:  # leaves in different pods: paths climb to the super-spines
        spines = {ln.spine for ln in lower}
        upper = [ln for ln in compiled.topology.links if ln.tier != "leaf-spine" and ln.leaf in spines]
    for ln in [*lower, *upper]:
        others = sharing_leaf.get(ln.leaf, ())
        if ln.tier != "leaf-spine":
            others = tuple(sorted({t for leaf in leaves for t in sharing_leaf[leaf]}))
        scope.ports[(ln.leaf, ln.leaf_port)] = PortRole(
            f"fabric link to {ln.spine} {ln.spine_port}", sharing=others
        )
        scope.ports[(ln.spine, ln.spine_port)] = PortRole(
            f"fabric link to {ln.leaf} {ln.leaf_port}", sharing=others
        )
    scope.vrfs = {v.name for i in compiled.intents.values() for v in i.vrfs if v.l3vni == alloc.l3vni}
    scope.vnis = {alloc.l3vni} | ({alloc.l2vni} if alloc.l2vni is not None else set())
    return scope


def _in_scope(c: Check, scope: Scope, compiled: Compiled) -> bool:
    if c.name in ("link", "lldp", "pfc", "gpu-port"):
        return (c.switch, c.subject) in scope.ports
    if c.name == "vrf":
        return c.subject in scope.vrfs
    if c.name == "vni":
        return c.subject.isdigit() and int(c.subject) in scope.vnis
    if c.name == "vtep":
        return any(
            i.vtep is not None
            and i.vtep.source_ip == c.subject
            and any(v.l3vni in scope.vnis for v in i.vrfs)
            for i in compiled.intents.values()
        )
    return True  # read failures, BGP sessions of the switches in scope


def scoped_checks(compiled: Compiled, scope: Scope, states: dict[str, SwitchHealth | str]) -> list[Check]:
    """The fabric-wide checks of the scope's switches that are about the tenant's scope."""
    return [c for c in check_health(compiled, states) if _in_scope(c, scope, compiled)]


def proof_checks(
    compiled: Compiled, scope: Scope, intended: dict[str, str], running: dict[str, str]
) -> list[Check]:
    """verify's proofs (isolation, lossless end to end, capacity) over the running configs of
    the scope's switches, the other switches taken as intended: each violation on a switch in
    scope is a failed `config` check, and a scope switch whose config could not be read is one too."""
    configs = {n: t for n, t in intended.items() if n not in scope.switches} | running
    report = verify_fabric(compiled, configs)
    out = [
        Check("config", v.switch, v.object, "proofs hold", f"{v.check}: {v.text}", False, v.counterexample)
        for v in report.violations
        if v.switch in scope.switches
    ]
    broken = {c.switch for c in out}
    return out + [
        Check("config", sw, "running config", "proofs hold", "proofs hold", True)
        for sw in scope.switches
        if sw not in broken
    ]


def _lossless(compiled: Compiled, switch: str) -> tuple[int, int]:
    intent = compiled.intents[switch]
    return intent.qos.lossless_class, intent.qos.cnp_class


def counter_checks(compiled: Compiled, scope: Scope, windows: dict[str, Window | str]) -> list[Check]:
    """What the window's deltas say about each port of the scope."""
    out: list[Check] = []
    for switch in scope.switches:
        w = windows.get(switch)
        if not isinstance(w, Window):
            hint = "its counters could not be read twice: no rates for its ports"
            out.append(Check("read", switch, "counters", "readable", str(w or "not read"), False, hint))
    for (switch, port), role in sorted(scope.ports.items()):
        w = windows.get(switch)
        if not isinstance(w, Window):
            continue
        delta = w.ports.get(port)
        if delta is None:
            continue
        lossless, cnp = _lossless(compiled, switch)
        out += _port_checks(switch, port, role, delta, w, lossless, cnp)
    return out


# long: a table of checks: one per counter a tenant's port is judged by, each with its expected value and hint
def _port_checks(
    switch: str, port: str, role: PortRole, d: PortDelta, w: Window, lossless: int, cnp: int
) -> list[Check]:
    out: list[Check] = []
    window = f"in {w.seconds:.0f} s"

    def add(name: str, expected: str, seen: str, ok: bool, hint: str) -> None:
        out.append(Check(name, switch, port, expected, seen, ok, "" if ok else hint, role.key))

    if d.flapped is not None:
        add(
            "flap",
            f"no flap {window}",
            "flapped" if d.flapped else "stable",
            not d.flapped,
            f"the link of the {role.about} went down and up again: check the optic and the cable",
        )
    if d.errors is not None:
        add(
            "errors",
            f"<= {ERRORS_MAX} error frames {window}",
            f"{d.errors}",
            d.errors <= ERRORS_MAX,
            f"the {role.about} counts errored frames: a dirty or failing optic, or a bad cable",
        )
    optic = w.now.ports.get(port, None)
    if optic is not None and optic.optic is not None:
        o = optic.optic
        floor = o.rx_low_warn if o.rx_low_warn is not None else o.rx_low_alarm
        if floor is not None:
            kind = "warning" if o.rx_low_warn is not None else "alarm"
            add(
                "optic",
                f"RX >= {floor:.2f} dBm (low {kind})",
                f"RX {o.rx_dbm:.2f} dBm",
                o.rx_dbm >= floor,
                f"the optic of the {role.about} receives too little light: clean or replace it before it fails",
            )
    for prio in sorted(set(d.pfc_rx or {}) | set(d.pfc_tx or {}), key=lambda p: -1 if p is None else p):
        rx, tx = w.rate((d.pfc_rx or {}).get(prio)), w.rate((d.pfc_tx or {}).get(prio))
        if rx is None or tx is None:
            continue
        label = f"priority {lossless if prio is None else prio}"
        storm = rx > PAUSE_PPS_MAX or tx > PAUSE_PPS_MAX
        hint = (
            f"pause storm from the {role.about}: the far end keeps pausing this port (a stuck receiver); "
            "check its PFC watchdog"
            if rx > PAUSE_PPS_MAX
            else f"this switch keeps pausing the {role.about}: a queue here does not drain"
        )
        out.append(
            Check(
                "pfc-rate",
                switch,
                f"{port} {label}",
                f"<= {PAUSE_PPS_MAX} pause frames/s each way",
                f"{rx:.0f}/s received, {tx:.0f}/s sent",
                not storm,
                hint if storm else "",
                role.key,
            )
        )
    if d.queue_dropped is not None and lossless in d.queue_dropped:
        n = d.queue_dropped[lossless]
        add(
            "lossless-drops",
            f"0 drops on queue {lossless} {window}",
            f"{n} dropped",
            n == 0,
            f"the lossless queue of the {role.about} drops RoCE packets: PFC headroom or buffers do not fit",
        )
    marks = w.rate((d.ecn_marked or {}).get(lossless))
    cnps = w.rate((d.queue_sent or {}).get(cnp))
    if (marks or 0) > 0 or (cnps or 0) > 0:
        seen = ", ".join(
            part
            for part in (
                f"{marks:.0f} ECN-marked/s" if marks else "",
                f"{cnps:.0f} CNPs/s" if cnps else "",
            )
            if part
        )
        shared = f"; shared with {', '.join(role.sharing)}" if role.sharing else ""
        out.append(
            Check(
                "congestion",
                switch,
                port,
                "no ECN marks or CNPs (a quiet fabric's baseline)",
                seen,
                True,
                f"hot {role.about}{shared}",
                role.key,
            )
        )
    return out


def wait_switch_time(
    read_clock: Callable[[], float | None],
    start: float | None,
    seconds: float,
    poll: float = 5.0,
    tick: Callable[[float], None] = lambda passed: None,
) -> None:
    """Until the switch's clock reads `seconds` past `start` (this machine's clock where the
    switch printed none): polled, so a switch clock that runs fast or slow is the one that counts.
    `tick` hears the seconds passed after each poll (the CLI's progress line)."""
    if start is None:
        time.sleep(seconds)
        return
    while True:
        now = read_clock()
        if now is None or now - start >= seconds:
            return
        tick(now - start)
        time.sleep(min(poll, max(seconds - (now - start), 0.05)))


def duration_text(seconds: float) -> str:
    """`90` -> `1m30s`, `30` -> `30s`: how the window's progress lines spell a span."""
    whole = int(seconds)
    return f"{whole // 60}m{whole % 60:02d}s" if whole >= 60 else f"{whole}s"


def tenant_checks(
    root: Path,
    lab: bool,
    compiled: Compiled,
    tenant: str,
    window: float,
    timeout: float,
    switches: set[str] | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> list[Check]:
    """Every check of the tenant's scope (on `switches` only, when given): the config proofs on
    its switches' running configs, their state now, then their counters read twice, `window`
    apart by the first readable switch's clock; `progress` hears each step and the window's
    passing. Raises UnknownTenant before any switch is contacted."""
    scope = tenant_scope(compiled, tenant, switches)
    names = scope.switches
    gpus = sum(1 for role in scope.ports.values() if role.key)
    progress(
        f"tenant {tenant}: {gpus} GPU port(s), {len(scope.ports) - gpus} fabric link end(s) on {len(names)} switch(es)"
    )
    with open_fabric(root, lab, set(names)) as nr:
        progress("reading running configs, state and counters")
        running = {n: f.text for n, f in fetch_running(nr, timeout, lab).items() if f.text is not None}
        states = read_health(nr, timeout)
        first = read_counters(nr, timeout)
        clocks = {
            n: r.clock for n, r in first.items() if isinstance(r, SwitchCounters) and r.clock is not None
        }
        timer = next(iter(clocks), None)
        start = clocks[timer] if timer else None
        total = duration_text(window)
        progress(f"counting for {total} by {timer or 'this machine'}'s clock")
        wait_switch_time(
            lambda: read_clock(nr, timer, timeout) if timer else None,
            start,
            window,
            tick=lambda passed: progress(f"  {duration_text(passed)} of {total}"),
        )
        progress("reading counters again")
        second = read_counters(nr, timeout)
    windows = counter_windows(names, first, second, window)
    proofs = proof_checks(compiled, scope, render_configs(compiled, root), running)
    return proofs + scoped_checks(compiled, scope, states) + counter_checks(compiled, scope, windows)
