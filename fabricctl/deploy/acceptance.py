"""`fabricctl rack accept RACK`: the gate between a delivered rack and GPUs tenants can lease.

The scope is the rack's switches and the far end of every cable the rack brings: both ends of
each fabric link (the rack's leaves to their spines, or the rack's spines to every leaf and
super-spine they serve) and the GPU ports of the rack's leaves. On it:

- identity, before anything else: each of the rack's switches says who it is (its serial number
  and model, as its vendor documents them: `show version`, `display device manuinfo`, `nv show
  platform`; platforms/<nos>/identity.py), and that must be what the rack file names for its
  slot. The wrong switch in a slot (a swap, a unit from another rack) fails the rack, named with
  the slot, the serial the rack file expects and the one found. A server is known by its serial
  and NIC MACs in the rack file; one that another rack (or a switch) already claims is refused
  when the racks are loaded (compile/racks.py), before any switch is read;

- cabling: every fabric link up, LLDP at both ends naming the planned neighbour and port (a
  swapped cable is named with where it belongs: deploy/health.py);
- ports: every planned port present under its planned name (the breakout as planned) and, where
  the switch reports a speed, at the planned speed;
- routing: every BGP session of the rack's switches Established, underlay and EVPN, and the far
  ends' sessions to them;
- soak: two counter reads a window apart by the switches' own clocks (`--soak`): no link flap,
  no error counter growth, and at idle no PFC pause frames, no ECN marks or CNPs, no drops on the
  lossless queue (deploy/counters.py, deploy/tenant_health.py's per-port checks, held to zero);
- proofs: isolation, lossless, ECMP and capacity proven on the running configs of the fabric;
- hook (optional): a command per pair of the rack's servers (an RDMA bandwidth test), its exit
  code and output kept.

The record (`racks/<rack>.acceptance.json`, next to the rack file, for the repository's history)
holds every check, passed or not, and the rack's identity: only a passing record of the rack as
it is now frees its GPUs (model/rack.py `accepted`).
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import re
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nornir.core import Nornir
from nornir.core.task import Result, Task

from fabricctl.compile.build import Compiled
from fabricctl.compile.topology import switch_model
from fabricctl.deploy.counters import Window
from fabricctl.deploy.health import Check, check_health
from fabricctl.deploy.nornir_inv import fabric_platform
from fabricctl.deploy.tenant_health import PortRole, Scope, counter_checks
from fabricctl.model.rack import RackDoc, acceptance_path
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import SwitchModel
from fabricctl.platforms.counters import SwitchCounters
from fabricctl.platforms.health import SwitchHealth
from fabricctl.platforms.identity import IdentityError, SwitchIdentity, same_model

#: At idle a healthy port counts none of these over the soak: any is a finding.
IDLE_QUIET = ("errors", "pfc-rate", "congestion", "lossless-drops")
#: Seconds a hook command may run for one server pair.
HOOK_TIMEOUT = 600.0


@dataclass
class RackScope:
    """What acceptance looks at for one rack."""

    rack: str
    own: list[str]  # the rack's switches
    far: list[str]  # switches at the other end of its cables
    ports: Scope  # (switch, port) -> role: both ends of its links, its leaves' GPU ports
    speeds: dict[tuple[str, str], int] = field(default_factory=dict)  # (switch, port) -> planned Gbps
    addresses: set[str] = field(default_factory=set)  # the rack switches' interface and loopback addresses
    #: Switches of the other racks not accepted yet, and their addresses: what concerns them (a
    #: spine's sessions to them, paths through their links) is judged when they are accepted.
    pending: set[str] = field(default_factory=set)
    pending_addresses: set[str] = field(default_factory=set)
    gpu_ports: set[tuple[str, str]] = field(default_factory=set)  # (leaf, port) of its GPU ports

    def about_pending(self, text: str) -> bool:
        return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in self.pending)

    @property
    def switches(self) -> list[str]:
        return [*self.own, *self.far]


def _model(compiled: Compiled, name: str) -> SwitchModel:
    sw = compiled.fabric.switch(name)
    assert sw is not None
    return switch_model(sw)


def rack_scope(compiled: Compiled, rd: RackDoc) -> RackScope:
    from fabricctl.deploy.rack_expansion import new_racks, switch_addresses

    own = [s.name for s in rd.rack.switches if s.name in compiled.intents]
    mine = set(own)
    pending = {s for rack, names in new_racks(compiled).items() if rack != rd.rack.name for s in names}
    scope = Scope(f"rack {rd.rack.name}")
    speeds: dict[tuple[str, str], int] = {}
    far: set[str] = set()
    gpu: set[tuple[str, str]] = set()
    for ln in compiled.topology.links:
        # A cable belongs to the rack of its lower end (the rack that brings it): a spine
        # rack's links to the leaves of a rack not accepted yet are judged with that rack.
        if not (ln.leaf in mine or (ln.spine in mine and ln.leaf not in pending)):
            continue
        far |= {ln.leaf, ln.spine} - mine
        scope.ports[(ln.leaf, ln.leaf_port)] = PortRole(f"fabric link to {ln.spine} {ln.spine_port}")
        scope.ports[(ln.spine, ln.spine_port)] = PortRole(f"fabric link to {ln.leaf} {ln.leaf_port}")
        speeds[(ln.leaf, ln.leaf_port)] = speeds[(ln.spine, ln.spine_port)] = _model(
            compiled, ln.leaf
        ).port_gbps
    for leaf in own:
        for gp in compiled.topology.gpu_ports.get(leaf, []):
            key = f"{gp.server} nic{gp.nic}"
            scope.ports[(leaf, gp.name)] = PortRole(f"GPU port of {key}", key)
            gpu.add((leaf, gp.name))
            model = _model(compiled, leaf)
            mode = compiled.fabric.settings.cabling.gpu_port_breakout
            speeds[(leaf, gp.name)] = model.lane_gbps(mode) if gp.lane is not None else model.port_gbps
    order = list(compiled.intents)
    return RackScope(
        rd.rack.name,
        own,
        sorted(far, key=order.index),
        scope,
        speeds,
        switch_addresses(compiled, mine),
        pending - far,
        switch_addresses(compiled, pending - far),
        gpu_ports=gpu,
    )


def cabling_checks(
    compiled: Compiled, scope: RackScope, states: dict[str, SwitchHealth | str]
) -> list[Check]:
    """Links, LLDP, BGP and PFC of the scope, from the fabric-wide checks, and the port checks."""
    own = set(scope.own)
    out: list[Check] = []
    for c in check_health(compiled, states):
        if c.name in ("bgp-underlay", "bgp-evpn") and c.subject in scope.pending_addresses:
            continue  # a session to a rack not accepted yet: it comes up with that rack
        if c.name == "read" or (c.switch in own and c.name in ("bgp-underlay", "bgp-evpn")):
            out.append(c)
        elif c.name in ("bgp-underlay", "bgp-evpn"):
            if c.subject in scope.addresses:  # a far end's session to a switch of the rack
                out.append(c)
        elif c.name in ("link", "lldp", "pfc") and (c.switch, c.subject) in scope.ports.ports:
            out.append(c)
    for (switch, port), role in sorted(scope.ports.ports.items()):
        state = states.get(switch)
        if not isinstance(state, SwitchHealth):
            continue  # its `read` check fails
        present = port in state.ports
        out.append(
            Check(
                "port",
                switch,
                port,
                "present (planned breakout)",
                "present" if present else "absent",
                present,
                ""
                if present
                else f"the {role.about} is not on the switch under this name: check the breakout",
                role.key,
            )
        )
        planned = scope.speeds.get((switch, port))
        seen = (state.speeds or {}).get(port)
        if present and planned is not None and seen is not None:
            ok = seen == planned
            hint = (
                ""
                if ok
                else f"the {role.about} runs at {seen}G: check the optic, the cable and the port speed"
            )
            out.append(Check("speed", switch, port, f"{planned}G", f"{seen}G", ok, hint, role.key))
    return out


def identity_checks(
    rd: RackDoc, found: dict[str, SwitchIdentity | str], serials: dict[str, str]
) -> list[Check]:
    """Each rack switch's serial and model, as the switch says them, against its slot in the rack
    file. `serials`: serial -> the rack switch the rack files give it (to name a swapped unit)."""
    out: list[Check] = []
    where = f"racks/{rd.rack.name}.yaml"
    for sw in rd.rack.switches:
        got = found.get(sw.name, "not read")
        if not isinstance(got, SwitchIdentity):
            hint = "the switch did not say who it is; it stays untrusted until it does"
            out.append(Check("identity", sw.name, "serial", sw.serial, f"unknown ({got})", False, hint))
            continue
        ok = got.serial == sw.serial
        hint = ""
        if not ok:
            owner = serials.get(got.serial)
            hint = (
                f"slot {sw.name} holds {got.serial}, which the rack files give {owner}: are the two swapped?"
                if owner
                else f"slot {sw.name} holds a switch {where} does not name: put the delivered {sw.serial} "
                f"there, or correct {where} if the factory list was wrong"
            )
        out.append(Check("identity", sw.name, "serial", sw.serial, got.serial, ok, hint))
        fits = same_model(sw.model, got.model)
        hint = "" if fits else f"slot {sw.name} holds a {got.model}, not the {sw.model} {where} names"
        out.append(Check("identity", sw.name, "model", sw.model, got.model, fits, hint))
    return out


def first_clock(reads: dict[str, SwitchCounters | str]) -> float | None:
    """The clock of the first switch that printed one we read (the soak runs on it)."""
    return next(
        (r.clock for r in reads.values() if isinstance(r, SwitchCounters) and r.clock is not None), None
    )


def soak_checks(compiled: Compiled, scope: RackScope, windows: dict[str, Window | str]) -> list[Check]:
    """Each port's counters over the soak: tenant health's checks, held to zero at idle."""
    out = []
    for c in counter_checks(compiled, scope.ports, windows):
        if c.name == "optic" and (c.switch, c.subject) in scope.gpu_ports and not c.ok:
            # A GPU port stays shut until a tenant holds it (its secure default): its laser is
            # off, so it reads no light. Its NIC's link is the hook's (and tenant health's) to test.
            continue
        if c.name in IDLE_QUIET and c.ok:
            quiet = c.seen in ("0", "0 dropped") or c.seen.startswith("0/s received, 0/s sent")
            if not quiet:
                why = "an idle rack counts none: find the cause before tenants run on it"
                c = Check(
                    c.name, c.switch, c.subject, f"none at idle ({c.expected})", c.seen, False, why, c.key
                )
        out.append(c)
    return out


def proof_checks(compiled: Compiled, scope: RackScope, configs: dict[str, str]) -> list[Check]:
    """Isolation, lossless, ECMP and capacity on the running configs (verify/api.py); what a
    violation says about a rack not accepted yet is that rack's to settle."""
    from fabricctl.verify.api import verify_fabric

    report = verify_fabric(compiled, configs)
    out = [
        Check("proof", v.switch, v.object, "holds", v.check, False, v.message)
        for v in report.violations
        if not scope.about_pending(f"{v.switch} {v.message}")
    ]
    if not out:
        out.append(
            Check("proof", "-", "running configs", "holds", f"holds on {report.switches} switches", True)
        )
    return out


def server_pairs(compiled: Compiled, rd: RackDoc) -> list[tuple[str, str]]:
    servers = [s.name for s in rd.rack.servers if s.name in compiled.topology.by_server]
    return list(zip(servers[::2], servers[1::2], strict=False))


def hook_problem(command: str) -> str | None:
    """Why `command` cannot run as a hook (checked before the soak, not after it), or None."""
    import shutil

    from fabricctl.model.text import one_line_problem

    problem = one_line_problem(command)
    if problem is not None:
        return f"the command {problem}"
    try:
        words = shlex.split(command)
    except ValueError as exc:  # an unclosed quote, a trailing backslash
        return f"the command cannot be split into words ({exc})"
    if not words:
        return "the command is empty"
    if shutil.which(words[0]) is None:
        return f"no program {words[0][:80]!r} on PATH or at that path (or it is not executable)"
    return None


def hook_checks(command: str, pairs: list[tuple[str, str]], timeout: float = HOOK_TIMEOUT) -> list[Check]:
    """`command` once per server pair ({a} and {b} name the servers); exit 0 passes, the last
    line of its output is kept as the figure."""
    out = []
    for a, b in pairs:
        argv = [word.replace("{a}", a).replace("{b}", b) for word in shlex.split(command)]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
            lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
            seen, ok = (lines[-1][:200] if lines else "(no output)"), done.returncode == 0
            hint = "" if ok else f"exit {done.returncode}"
        except (OSError, subprocess.TimeoutExpired) as exc:
            seen, ok, hint = type(exc).__name__, False, str(exc)[:200]
        out.append(Check("hook", a, b, "exit 0", seen, ok, hint))
    return out


@dataclass
class Acceptance:
    rack: str
    identity: str
    started: str
    finished: str = ""
    soak_seconds: float = 0.0
    switches: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def record(self, fabric: str) -> dict[str, Any]:
        return {
            "format": "fabricctl-rack-acceptance",
            "version": 1,
            "fabric": fabric,
            "rack": self.rack,
            "rack_identity": self.identity,
            "result": "pass" if self.ok else "fail",
            "by": getpass.getuser(),
            "started": self.started,
            "finished": self.finished,
            "soak_seconds": self.soak_seconds,
            "switches": self.switches,
            "failures": [line(c) for c in self.failures],
            "checks": [asdict(c) for c in self.checks],
        }


def line(c: Check) -> str:
    hint = f": {c.hint}" if c.hint else ""
    return f"{c.name} {c.switch} {c.subject}: expected {c.expected}, saw {c.seen}{hint}"


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def accept(
    compiled: Compiled,
    rd: RackDoc,
    read_health: Callable[[list[str]], dict[str, SwitchHealth | str]],
    read_counters: Callable[[list[str]], dict[str, SwitchCounters | str]],
    read_configs: Callable[[], dict[str, str]],
    wait: Callable[[float | None, float], None],
    soak: float,
    hook: str | None = None,
    read_identity: Callable[[list[str]], dict[str, SwitchIdentity | str]] | None = None,
    serials: dict[str, str] | None = None,
) -> Acceptance:
    """Run every check of the rack; the readers and `wait` reach the switches (CLI: Nornir).
    Without `read_identity` no switch is trusted: every identity check fails."""
    from fabricctl.deploy.counters import window

    scope = rack_scope(compiled, rd)
    result = Acceptance(rd.rack.name, rd.rack.identity(), now(), switches=scope.switches)
    own = [s.name for s in rd.rack.switches]
    found = read_identity(own) if read_identity is not None else {}
    result.checks += identity_checks(rd, found, serials or {})
    states = read_health(scope.switches)
    result.checks += cabling_checks(compiled, scope, states)
    before = read_counters(scope.switches)
    start = first_clock(before)
    wait(start, soak)
    after = read_counters(scope.switches)
    windows: dict[str, Window | str] = {}
    for name in scope.switches:
        b, a = before.get(name), after.get(name)
        if isinstance(b, SwitchCounters) and isinstance(a, SwitchCounters):
            windows[name] = window(b, a, soak)
        else:
            why = a if isinstance(a, str) else b if isinstance(b, str) else "not read"
            windows[name] = why
            result.checks.append(
                Check("read", name, "counters", "readable", why, False, "check SSH reachability")
            )
    seconds = [w.seconds for w in windows.values() if isinstance(w, Window)]
    result.soak_seconds = min(seconds) if seconds else 0.0
    if seconds and result.soak_seconds < soak:
        result.checks.append(
            Check(
                "soak",
                "-",
                "window",
                f">= {soak:.0f} s",
                f"{result.soak_seconds:.0f} s",
                False,
                "the switches' clocks say the window was short",
            )
        )
    result.checks += soak_checks(compiled, scope, windows)
    result.checks += proof_checks(compiled, scope, read_configs())
    if hook:
        result.checks += hook_checks(hook, server_pairs(compiled, rd))
    result.finished = now()
    return result


def write_record(compiled: Compiled, result: Acceptance) -> str:
    """racks/<rack>.acceptance.json, written whole; returns its path relative to the root."""
    from fabricctl.outputs import write_file

    path = acceptance_path(compiled.fabric.root, result.rack)
    text = json.dumps(result.record(compiled.fabric.settings.name), indent=2) + "\n"
    write_file(path, text, within=compiled.fabric.root)
    return str(path.relative_to(compiled.fabric.root))


def run_acceptance(
    compiled: Compiled,
    rd: RackDoc,
    lab: bool,
    soak: float,
    hook: str | None = None,
    read_timeout: float = 30.0,
    wait: Callable[[float | None, float], None] | None = None,
) -> Acceptance:
    """`accept` over Nornir: the rack's switches and their far ends read for health and counters,
    every switch's running config for the proofs. `wait` (start, seconds) defaults to polling the
    switches' clock until the soak has passed on it."""
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.counters import read_counters
    from fabricctl.deploy.fetch import fetch_running
    from fabricctl.deploy.health import read_health
    from fabricctl.deploy.tenant_health import wait_switch_time

    root = compiled.fabric.root
    with open_fabric(root, lab, None) as nr:

        def only(names: list[str]) -> Nornir:
            wanted = set(names)
            return nr.filter(filter_func=lambda host: host.name in wanted)

        def configs() -> dict[str, str]:
            got = fetch_running(nr, read_timeout, lab)
            return {n: f.text for n, f in got.items() if f.text is not None}

        def clock_wait(start: float | None, seconds: float) -> None:
            one = rack_scope(compiled, rd).switches[:1]
            wait_switch_time(lambda: first_clock(read_counters(only(one), read_timeout)), start, seconds)

        return accept(
            compiled,
            rd,
            lambda names: read_health(only(names), read_timeout),
            lambda names: read_counters(only(names), read_timeout),
            configs,
            wait or clock_wait,
            soak,
            hook,
            lambda names: read_identities(only(names), read_timeout),
            rack_serials(root),
        )


def _identity_task(task: Task, read_timeout: float) -> Result:
    from fabricctl.deploy.health import _read_task

    platform = fabric_platform(task.host)
    reader = get_platform(platform).identity
    if reader is None:
        raise IdentityError(f"platform {platform!r} reads no identity from its switches")
    return _read_task(task, read_timeout, reader=reader)


def read_identities(nr: Nornir, read_timeout: float = 30.0) -> dict[str, SwitchIdentity | str]:
    """name -> who the switch says it is, or why it did not say."""
    from fabricctl.deploy.health import read_each

    return read_each(nr, _identity_task, read_timeout)


def rack_serials(root: Path) -> dict[str, str]:
    """serial -> `<rack switch> (racks/<rack>.yaml)` for every switch the rack files name."""
    from fabricctl.model.problems import ProblemLog
    from fabricctl.model.rack import load_racks

    return {
        s.serial: f"{s.name} (racks/{other.rack.name}.yaml)"
        for other in load_racks(root, ProblemLog(root))
        for s in other.rack.switches
    }
