"""Health checks from the switches' own state: is the fabric the plan describes actually working?

Each switch is read with its platform's show commands (netmiko + ntc-templates, as an engineer
would), and each check compares what the switch says with what the compiled fabric expects:
every fabric link up with the planned neighbor at the other end (a swapped cable is named with
where it belongs), every underlay and EVPN session Established, every tenant VRF and VNI
present, every tenant GPU port up, PFC on every lossless port and no pause storm on any. A switch
that cannot be read is a failed check, never a pass.

The apply health gate compares the checks before and after a change by what they are about, not
by port names, which a change may rename (a 2 x 200G breakout turns FourHundredGigE1/0/47 into
TwoHundredGigE1/0/47:1): a GPU port is its tenant's server and NIC, read before the change at the
same physical position (front-panel port and lane) whatever the port was called; a fabric link is
its two ends, the switch and its neighbor, counted by the links LLDP shows up between them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from importlib import resources
from typing import Any

from nornir.core import Nornir
from nornir.core.task import Result, Task
from nornir_netmiko.tasks import netmiko_send_command

from fabricctl.compile.build import Compiled
from fabricctl.compile.drain import drained_links
from fabricctl.deploy.nornir_inv import fabric_platform
from fabricctl.platforms import get_platform
from fabricctl.platforms.boot import BootState
from fabricctl.platforms.counters import CounterError, CounterReader
from fabricctl.platforms.health import PauseSeen, SwitchHealth
from fabricctl.secrets import describe_error

#: A port pausing or paused more often than this is in a pause storm, not absorbing a burst:
#: incast bursts pause for microseconds, a receiver that stopped draining pauses without end.
PAUSE_PPS_MAX = 10_000
#: Where a switch reports counters only (EOS), pause frames since the counters were cleared
#: above which the port is flagged; clear the counters once the cause is fixed.
PAUSE_FRAMES_MAX = 1_000_000


@dataclass(frozen=True)
class Check:
    name: (
        str  # link | lldp | bgp-underlay | bgp-evpn | vrf | vni | vtep | ecmp | gpu-port | pfc | boot | read
    )
    switch: str
    subject: str  # the port or peer
    expected: str
    seen: str
    ok: bool
    hint: str = ""
    #: What the check is about, where a name can change under it: "<tenant> <server> nic<n>" for
    #: a tenant's GPU port (empty: the subject says what it is about).
    key: str = ""
    #: `pending reboot`: the switch runs as it should for the settings in use, and a setting it
    #: applies only at boot waits for one (what, and its value now and after). Neither healthy
    #: nor failed: `ok` stays True, `state` says which.
    pending: str = ""

    @property
    def state(self) -> str:
        """ok | failed | pending reboot."""
        if not self.ok:
            return "failed"
        return "pending reboot" if self.pending else "ok"

    @property
    def identity(self) -> tuple[str, str]:
        return self.name, self.key or self.subject


def _template(name: str) -> str:
    import ntc_templates

    return str(resources.files(ntc_templates) / "templates" / name)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {}


def _strict_json(command: str, text: str) -> Any:
    """A counters probe's JSON; a reply that is none is no read (CounterError), never no ports."""
    try:
        return json.loads(text)
    except ValueError:
        raise CounterError(f"{command!r}: the reply is not JSON ({text.strip()[:80]!r})") from None


def _read_task(task: Task, read_timeout: float, close: bool = True, reader: Any = None) -> Result:
    """Run every probe of `reader` (the platform's health reader unless another is given, e.g.
    its counters reader) on the task's switch; the result is what the reader parses out. A
    counters reader is strict: a reply in no form its probe documents fails the read."""
    reader = reader or get_platform(fabric_platform(task.host)).health
    strict = isinstance(reader, CounterReader)
    rows: dict[str, Any] = {}
    try:
        for probe in reader.probes:
            if probe.text:
                text = task.run(
                    task=netmiko_send_command, command_string=probe.command, read_timeout=read_timeout
                ).result
                rows[probe.command] = str(text)
                continue
            if probe.json_command is not None:
                text = task.run(
                    task=netmiko_send_command,
                    command_string=probe.json_command,
                    read_timeout=read_timeout,
                ).result
                rows[probe.command] = (
                    _strict_json(probe.json_command, str(text)) if strict else _json(str(text))
                )
                continue
            extra = {"textfsm_template": _template(probe.template)} if probe.template else {}
            out = task.run(
                task=netmiko_send_command,
                command_string=probe.command,
                use_textfsm=True,
                read_timeout=read_timeout,
                **extra,
            ).result
            if strict and not isinstance(out, list) and str(out).strip():
                first = str(out).strip().splitlines()[0][:80]
                raise CounterError(
                    f"{probe.command!r}: the reply is not the table its template reads ({first!r})"
                )
            rows[probe.command] = out if isinstance(out, list) else []  # text: nothing parsed
    finally:
        if close:
            task.host.close_connections()
    return Result(host=task.host, result=reader.read(rows) if strict else reader.parse(rows))


def read_health(nr: Nornir, read_timeout: float = 30.0) -> dict[str, SwitchHealth | str]:
    """name -> its state, or the error that kept it from being read."""
    return read_each(nr, _read_task, read_timeout)


def read_each(nr: Nornir, task: Callable[..., Result], read_timeout: float) -> dict[str, Any]:
    """name -> what `task` read from the switch, or the error that kept it from being read."""
    if not nr.inventory.hosts:
        return {}
    results = nr.run(task=task, read_timeout=read_timeout, on_failed=True)
    out: dict[str, Any] = {}
    for name in nr.inventory.hosts:
        multi = results[name]
        if multi.failed:
            exc = next((r.exception for r in multi if r.exception is not None), None)
            out[name] = describe_error(exc) if exc is not None else "read failed"
        else:
            out[name] = multi[0].result
    nr.data.reset_failed_hosts()
    return out


def check_health(
    compiled: Compiled, states: dict[str, SwitchHealth | str], by_position: bool = False
) -> list[Check]:
    """Every check of every switch in `states`, passed or not, in switch order. With
    `by_position`, a GPU port the state does not list under its planned name is read at the same
    physical position under the name the switch gives it (the apply gate's read before a change
    that renames ports)."""
    planned = _planned_links(compiled)
    where: dict[tuple[str, str, str], str] = {}  # (switch, neighbor, its port) -> our port it belongs at
    for (sw, port), (far_sw, far_port) in planned.items():
        where[(sw, far_sw, far_port)] = port
    out: list[Check] = []
    for name, state in states.items():
        if isinstance(state, str):
            out.append(Check("read", name, "-", "readable", state, False, "check SSH reachability and login"))
            continue
        if by_position:
            state = _renamed(compiled, name, state)
        for (sw, port), (far_sw, far_port) in sorted(planned.items()):
            if sw == name:
                out += _link_checks(name, port, far_sw, far_port, state, where)
        intent = compiled.intents.get(name)
        for n in intent.bgp.neighbors if intent else []:
            seen = state.bgp.get(n.ip, "absent")
            kind = "bgp-underlay" if n.kind == "underlay" else "bgp-evpn"
            hint = "" if seen == "Established" else f"session to {n.description} (AS {n.asn}) is not up"
            out.append(Check(kind, name, n.ip, "Established", seen, seen == "Established", hint))
        out += _vrf_checks(compiled, name, state)
        out += _vxlan_checks(compiled, name, state)
        out += _boot_checks(name, state)
        out += _ecmp_checks(compiled, name, state, planned)
        gpu_ports = {}
        for (leaf, port), (alloc, pa) in sorted(compiled.allocation.port_owner.items()):
            if leaf == name:
                key = f"{alloc.name} {pa.gpu.server} nic{pa.gpu.nic}"
                gpu_ports[port] = (alloc.name, key)
                admin, up = state.ports.get(port, (False, False))
                seen = "up" if up else ("admin down" if not admin else "down")
                hint = "" if up else f"tenant {alloc.name}'s GPU cannot send; check the NIC and its cable"
                out.append(Check("gpu-port", name, port, "up", seen, up, hint, key))
        fabric_ports = {port: far for (sw, port), far in planned.items() if sw == name}
        lossless = {i.name for i in intent.interfaces if i.lossless} if intent else set()
        out += _pfc_checks(name, state, lossless, fabric_ports, gpu_ports)
    return out


def _planned_links(compiled: Compiled) -> dict[tuple[str, str], tuple[str, str]]:
    """(switch, port) -> (neighbor, its port) for both ends of every fabric link."""
    planned: dict[tuple[str, str], tuple[str, str]] = {}
    for ln in compiled.topology.links:
        planned[(ln.leaf, ln.leaf_port)] = (ln.spine, ln.spine_port)
        planned[(ln.spine, ln.spine_port)] = (ln.leaf, ln.leaf_port)
    return planned


def _renamed(compiled: Compiled, name: str, state: SwitchHealth) -> SwitchHealth:
    """`state` with each planned GPU port it does not list under its planned name taken from the
    port at the same position (a whole port is its own first lane) under the switch's name."""
    switch = compiled.fabric.switch(name)
    if switch is None or name not in compiled.topology.gpu_ports:
        return state
    position_of = get_platform(switch.platform).port_position
    at: dict[tuple[int, int], str] = {}
    for port in state.ports:
        pos = position_of(port)
        if pos is not None:
            at[(pos[0], pos[1] or 1)] = port
    ports, pauses = dict(state.ports), dict(state.pauses) if state.pauses is not None else None
    for gp in compiled.topology.gpu_ports[name]:
        was = at.get((gp.port, gp.lane or 1))
        if gp.name in state.ports or was is None:
            continue
        ports[gp.name] = state.ports[was]
        if pauses is not None and was in pauses:
            pauses[gp.name] = pauses[was]
    return replace(state, ports=ports, pauses=pauses)


def links_up(
    compiled: Compiled,
    name: str,
    state: SwitchHealth | str,
    links: dict[tuple[str, str], tuple[str, str]] | None = None,
) -> dict[str, list[str]]:
    """Neighbor -> this switch's ports with an up fabric link to it: by LLDP, whatever the ports
    are called, or by the plan where a planned port is up and LLDP names no neighbor. `links`:
    the fabric's planned links when the caller has them already (`_planned_links`)."""
    if isinstance(state, str):
        return {}
    links = _planned_links(compiled) if links is None else links
    planned = {port: far for (sw, port), (far, _) in links.items() if sw == name}
    neighbors = {far for far in planned.values()}
    out: dict[str, list[str]] = {}
    for port, (admin, up) in state.ports.items():
        far = state.lldp[port][0] if port in state.lldp else planned.get(port)
        if admin and up and far in neighbors:
            out.setdefault(far, []).append(port)
    return out


def _vrf_checks(compiled: Compiled, name: str, state: SwitchHealth) -> list[Check]:
    """Every tenant VRF the switch should hold, where the platform lists its VRFs."""
    intent = compiled.intents.get(name)
    if intent is None or state.vrfs is None:
        return []
    out = []
    for vrf in sorted(v.name for v in intent.vrfs):
        ok = vrf in state.vrfs
        hint = "" if ok else "the tenant's VRF is missing: its GPUs on this switch are cut off"
        out.append(Check("vrf", name, vrf, "present", "present" if ok else "absent", ok, hint))
    return out


def _pfc_checks(
    name: str,
    state: SwitchHealth,
    lossless: set[str],
    fabric_ports: dict[str, tuple[str, str]],
    gpu_ports: dict[str, tuple[str, str]],
) -> list[Check]:
    """PFC on every port the intent makes lossless, and no pause storm on any port with PFC on.

    A storm is named with the port, which way the pauses flow, and whose traffic it stalls: the
    tenant behind a GPU port (`gpu_ports`: port -> (tenant, key)), the link's far end for a
    fabric port."""
    if state.pauses is None:
        return []
    out = []
    for port in sorted(lossless | set(state.pauses)):
        seen = state.pauses.get(port)
        tenant, key = gpu_ports.get(port, ("", ""))
        if tenant:
            where = f"tenant {tenant}'s GPU"
        elif port in fabric_ports:
            where = "fabric link to {} {}".format(*fabric_ports[port])
        else:
            where = f"port {port}"
        if seen is None:
            hint = f"PFC is off on the {where}: its lossless class drops under congestion"
            out.append(Check("pfc", name, port, "PFC on, no pause storm", "PFC off", False, hint, key))
            continue
        storm, shown, expected = _storm(seen)
        hint = ""
        if storm:
            hint = (
                f"pause storm from the {where}: the far end keeps pausing this port (a stuck "
                "receiver); check its PFC watchdog / deadlock recovery"
                if storm == "received"
                else f"this switch keeps pausing the {where}: a queue here does not drain"
            )
        out.append(Check("pfc", name, port, expected, shown, not storm, hint, key))
    return out


def _storm(seen: PauseSeen) -> tuple[str, str, str]:
    """(which way a storm flows or "", what was seen, what is expected) for one port's pauses."""
    if seen.received_pps is not None and seen.sent_pps is not None:
        rx, tx, limit, unit = seen.received_pps, seen.sent_pps, PAUSE_PPS_MAX, " pause frames/s"
    else:
        rx, tx, limit, unit = seen.received, seen.sent, PAUSE_FRAMES_MAX, " pause frames"
    storm = "received" if rx > limit else ("sent" if tx > limit else "")
    return storm, f"{rx} received, {tx} sent", f"<= {limit}{unit} each way"


def _vxlan_checks(compiled: Compiled, name: str, state: SwitchHealth) -> list[Check]:
    """Every tenant VNI bound on the VTEP, and EVPN routes from every VTEP that shares one."""
    intent = compiled.intents.get(name)
    if intent is None or intent.vtep is None or state.vnis is None:
        return []  # not a VTEP, or the platform does not report VXLAN yet
    mine = {v.l3vni for v in intent.vrfs} | {v.l2vni for v in intent.vlans}
    out = []
    for vni in sorted(mine):
        ok = vni in state.vnis
        hint = "" if ok else "the tenant's VNI is not bound on the VTEP"
        out.append(Check("vni", name, str(vni), "bound", "bound" if ok else "absent", ok, hint))
    seen = state.remote_vteps or set()
    for other, oi in sorted(compiled.intents.items()):
        if other == name or oi.vtep is None:
            continue
        shared = mine & ({v.l3vni for v in oi.vrfs} | {v.l2vni for v in oi.vlans})
        if shared:
            ok = oi.vtep.source_ip in seen
            hint = "" if ok else f"no EVPN routes from {other}: tenants on VNI {min(shared)} cannot reach it"
            out.append(
                Check("vtep", name, oi.vtep.source_ip, "learned", "learned" if ok else "absent", ok, hint)
            )
    return out


REBOOT_HINT = "reboot the switch to apply it (docs/plan-apply.md, 'Settings that wait for a reboot')"


def _boot_checks(name: str, state: SwitchHealth) -> list[Check]:
    """Each boot-time setting the switch prints: in use as its config says, or `pending reboot`."""
    out = []
    for setting, boot in sorted((state.boot or {}).items()):
        seen = f"{boot.in_use} in use" + (f", {boot.next_boot} at the next reboot" if boot.pending else "")
        pending = f"{setting} {boot.next_boot} takes effect at the next reboot" if boot.pending else ""
        hint = REBOOT_HINT if boot.pending else ""
        out.append(
            Check("boot", name, setting, f"{boot.next_boot} in use", seen, True, hint, pending=pending)
        )
    return out


def _ecmp_checks(
    compiled: Compiled, name: str, state: SwitchHealth, planned: dict[tuple[str, str], tuple[str, str]]
) -> list[Check]:
    """A leaf reaches every other VTEP over each of its up uplinks: the routes the switch installed,
    the width `verify` proves from the configs. Where an ECMP cap the switch applies at boot waits
    for one, the width its cap in use allows is `pending reboot`, not a failure."""
    intent = compiled.intents.get(name)
    if state.routes is None or intent is None or intent.role != "leaf" or intent.vtep is None:
        return []
    up = links_up(compiled, name, state, planned)
    uplinks = sum(len(ports) for ports in up.values())
    # Drained uplinks (maintenance.yaml) carry a path only where nothing else does (RFC 8326).
    drained = sum(
        1
        for ln in drained_links(compiled.fabric.maintenance, compiled.topology)
        if ln.leaf == name and ln.leaf_port in up.get(ln.spine, ())
    )
    drained = drained if 0 < drained < uplinks else 0
    uplinks -= drained
    widths = {
        other.name: state.routes.get(f"{other.vtep.source_ip}/32", 0)
        for other in compiled.intents.values()
        if other.role == "leaf" and other.vtep is not None and other.name != name
    }
    if not widths:
        return []
    far, width = min(widths.items(), key=lambda kv: (kv[1], kv[0]))
    short = sum(1 for w in widths.values() if w < uplinks)
    ok = short == 0
    seen = f"{width} path(s) to {far}" + (f"; {short} of {len(widths)} VTEPs short" if short else "")
    expected = f"{uplinks} path(s) each" + (f" ({drained} uplink(s) drained)" if drained else "")
    cap = _pending_cap(compiled, name, state)
    if not ok and cap is not None and width >= min(uplinks, int(cap.in_use)):
        pending = f"ECMP cap {cap.next_boot} takes effect at the next reboot; {cap.in_use} in use"
        expected += f" ({cap.in_use} until the reboot)"
        return [Check("ecmp", name, "remote VTEPs", expected, seen, True, REBOOT_HINT, pending=pending)]
    hint = (
        ""
        if ok
        else "fewer paths than up uplinks: `fabricctl verify` names the line that caps the width; "
        "an ECMP cap the switch applies at boot (docs/verify.md) needs a reboot"
    )
    return [Check("ecmp", name, "remote VTEPs", expected, seen, ok, hint)]


def _pending_cap(compiled: Compiled, name: str, state: SwitchHealth) -> BootState | None:
    """The switch's ECMP cap as it reports it, when a new one waits for a reboot."""
    switch = compiled.fabric.switch(name)
    if switch is None or not state.boot:
        return None
    for setting in get_platform(switch.platform).boot_settings:
        cap = state.boot.get(setting.name)
        if setting.ecmp_cap and cap is not None and cap.pending and cap.in_use.isdigit():
            return cap
    return None


def _link_checks(
    name: str,
    port: str,
    far_sw: str,
    far_port: str,
    state: SwitchHealth,
    where: dict[tuple[str, str, str], str],
) -> list[Check]:
    admin, up = state.ports.get(port, (False, False))
    seen = "up" if up else ("admin down" if not admin else "down")
    link = Check(
        "link", name, port, "up", seen, up, "" if up else f"fabric link to {far_sw} {far_port} is down"
    )
    expected = f"{far_sw} {far_port}"
    neighbor = state.lldp.get(port)
    seen_n = f"{neighbor[0]} {neighbor[1]}" if neighbor else "no neighbor"
    hint = ""
    if neighbor and neighbor != (far_sw, far_port):
        belongs = where.get((name, *neighbor))
        hint = (
            f"cable swapped: {seen_n} is cabled here; the plan puts it at {name} {belongs}"
            if belongs
            else (f"{seen_n} is not in the cabling plan for this port")
        )
    elif not neighbor:
        hint = "no LLDP neighbor: the cable is missing, down or LLDP is off at the far end"
    return [link, Check("lldp", name, port, expected, seen_n, neighbor == (far_sw, far_port), hint)]


def as_dicts(checks: list[Check]) -> list[dict[str, object]]:
    return [asdict(c) for c in checks]


def read_state(task: Task, read_timeout: float, close: bool = True) -> SwitchHealth | str:
    """The switch a Nornir task runs on, read now, or why it could not be read."""
    try:
        state: SwitchHealth = _read_task(task, read_timeout, close).result
    except Exception as exc:  # an unreadable switch is a failed `read` check
        task.host.close_connections()
        return describe_error(exc)
    return state


def regressions(
    compiled: Compiled, name: str, before: SwitchHealth | str, after: SwitchHealth
) -> list[Check]:
    """The checks of `name` that passed before a change and fail after it, compared by what they
    are about: a tenant's GPU (read before at its position, whatever its port was called), a
    fabric link by its two ends (as many up to each neighbor as before), the rest by subject.
    Checks that already failed do not count: the change may be what fixes them."""
    held = {
        c.identity
        for c in check_health(compiled, {name: before}, by_position=True)
        if c.ok and c.name != "link"
    }
    broken = [c for c in check_health(compiled, {name: after}) if not c.ok and c.identity in held]
    now = links_up(compiled, name, after)
    for far, ports in sorted(links_up(compiled, name, before).items()):
        up = len(now.get(far, []))
        if up < len(ports):
            broken.append(
                Check(
                    "link",
                    name,
                    f"to {far}",
                    f"{len(ports)} up",
                    f"{up} up",
                    False,
                    f"{len(ports) - up} fabric link(s) to {far} went down (up before on {', '.join(ports)})",
                )
            )
    return broken


class HealthGate:
    """The apply health gate of one switch (the push protocol calls it; platforms/push.py
    `HealthGate`): `before()` reads the switch before the change; `after()`, run once the change
    is in running and before the confirm, names every check that passed before and fails after
    (`regressions`). The connection stays open between the two reads; a read that fails after
    the change is tried once more on a new connection before it counts."""

    def __init__(self, task: Task, compiled: Compiled, read_timeout: float) -> None:
        self.task, self.compiled, self.read_timeout = task, compiled, read_timeout
        self.state: SwitchHealth | str = "not read"

    def before(self) -> None:
        self.state = read_state(self.task, self.read_timeout, close=False)

    def after(self) -> str | None:
        after = read_state(self.task, self.read_timeout)
        if isinstance(after, str):
            after = read_state(self.task, self.read_timeout)
        if isinstance(after, str):
            return f"health could not be read after the change: {after}"
        broken = regressions(self.compiled, self.task.host.name, self.state, after)
        if not broken:
            return None
        shown = "; ".join(
            f"{c.name} {c.subject}{f' ({c.key})' if c.key else ''}: expected {c.expected}, seen {c.seen}"
            for c in broken[:5]
        )
        more = f" (and {len(broken) - 5} more)" if len(broken) > 5 else ""
        return f"{len(broken)} health check(s) passed before the change and fail after it: {shown}{more}"
