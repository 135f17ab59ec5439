"""`fabricctl check --links`: marginal fabric links, ranked by evidence, and the drain that isolates them.

Every switch with a fabric link is read twice, a window apart by the switches' own clocks (the
counters deploy/counters.py reads for the exporter and `check --tenant`). A link is marginal when
either end shows, over the window, more errored frames a minute than fabric.yaml
`links.max_errors_per_minute` allows, more flaps than `links.max_flaps`, or an optic receiving
below its own low-warning threshold (the module's DOM). It still carries traffic, so every tenant
on it pays: a flap stalls every flow, an errored frame is a RoCE retransmission. The links are
ranked by evidence (flaps, then errors, then light) and a drain of them is proposed: entries for
maintenance.yaml, proven like any drain (verify/drain.py) with the fabric's configs; a link whose
drain would take a tenant below its floor is left in service and named, the rest are proposed.
A link whose switches print none of the evidence is named as not judged, never as healthy.
Nothing is written or pushed: `fabricctl drain` takes each proposal.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fabricctl.compile.build import Compiled
from fabricctl.compile.drain import drained_links
from fabricctl.deploy.context import open_fabric
from fabricctl.deploy.counters import PortDelta, Window, read_clock, read_counters
from fabricctl.deploy.counters import windows as counter_windows
from fabricctl.deploy.stages import Stages, quiet
from fabricctl.deploy.tenant_health import duration_text, wait_switch_time
from fabricctl.model.maintenance import Drain, Maintenance
from fabricctl.platforms.counters import PortCounters, SwitchCounters
from fabricctl.verify.api import parse_configs, prove_drains, render_configs
from fabricctl.verify.report import DrainProof

#: Evidence, strongest first: a flap stalls every flow on the link, an errored frame one flow;
#: light below the module's warning is a failure to come. `Score` orders links by it.
Score = tuple[int, float, float]  # (flaps, errored frames a minute, dB below the optic's warning)


@dataclass(frozen=True)
class Evidence:
    """What one end of a link showed over the window."""

    switch: str
    port: str
    errors_per_minute: float | None = None
    flaps: int | None = None  # flaps in the window (1 where the switch says only whether; None: not read)
    rx_dbm: float | None = None
    rx_warn: float | None = None  # the module's low-warning threshold (or its alarm when no warning)


@dataclass(frozen=True)
class MarginalLink:
    """A fabric link and why it is marginal; `target` is the end a drain names."""

    target: str  # "leaf07:FourHundredGigE1/0/5"
    far: str  # "spine03 FourHundredGigE1/0/13"
    reasons: tuple[str, ...]
    score: Score
    ends: tuple[Evidence, ...]


@dataclass
class LinkReport:
    window: float  # seconds between the two reads, by the switches' clocks: the longest
    links: int  # fabric links read at both ends
    marginal: list[MarginalLink] = field(default_factory=list)
    unread: dict[str, str] = field(default_factory=dict)  # switch -> why its counters were not read
    proposed: list[Drain] = field(default_factory=list)
    held: list[tuple[str, str]] = field(default_factory=list)  # (target, why it stays in service)
    drained: list[str] = field(default_factory=list)  # marginal links maintenance.yaml drains already
    #: Links read at both ends whose switches print none of the evidence (their counter readers
    #: read no errors, flaps or optics): not judged, never called healthy.
    unjudged: list[str] = field(default_factory=list)
    proof: DrainProof | None = None
    #: The shortest of the switches' windows (each switch's rates divide by its own).
    shortest: float = 0.0

    @property
    def ok(self) -> bool:
        """No marginal link left in service, every switch read and every link judged."""
        return not self.unread and not self.unjudged and all(m.target in self.drained for m in self.marginal)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "window_seconds": self.window,
            "shortest_window_seconds": self.shortest,
            "links": self.links,
            "marginal": [asdict(m) for m in self.marginal],
            "unread": self.unread,
            "proposed": [d.model_dump(exclude_defaults=True) for d in self.proposed],
            "held": [{"target": t, "why": w} for t, w in self.held],
            "drained": self.drained,
            "unjudged": self.unjudged,
            "proof": self.proof.to_dict() if self.proof is not None else None,
        }


def link_checks(
    root: Path,
    lab: bool,
    compiled: Compiled,
    window: float,
    timeout: float,
    workers: int = 50,
    stages: Stages | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> LinkReport:
    """Read every switch with a fabric link twice, `window` apart; rank the marginal links; prove
    the drain of them. The fabric's configs are rendered and read back while the switches are read.
    `progress` hears how far the window is, as `check --tenant`'s does."""
    stages = stages or quiet()
    names = sorted({ln.leaf for ln in compiled.topology.links} | {ln.spine for ln in compiled.topology.links})
    with open_fabric(root, lab, set(names), workers, stages=stages) as nr, ThreadPoolExecutor(1) as pool:
        # The configs the proof reads back, rendered and parsed while the switches are read (a
        # read waits on the switches; the parse needs this machine's CPU).
        rendering = pool.submit(lambda: parse_configs(compiled, render_configs(compiled, root)))
        with stages.stage("read") as step:
            first = read_counters(nr, timeout, keep_open=True, links=True)
            step.detail = (
                f"{sum(isinstance(r, SwitchCounters) for r in first.values())} of {len(names)} switches"
            )
        clocks = {
            n: r.clock for n, r in first.items() if isinstance(r, SwitchCounters) and r.clock is not None
        }
        timer = next(iter(sorted(clocks)), None)
        start = clocks[timer] if timer else None
        with stages.stage("render") as step:
            parsed = rendering.result()
            step.detail = f"{len(parsed)} configs read back (while the switches were read)"
        with stages.stage("window") as step:
            wait_switch_time(
                lambda: read_clock(nr, timer, timeout) if timer else None,
                start,
                window,
                tick=lambda passed: progress(f"  {duration_text(passed)} of {duration_text(window)}"),
            )
            step.detail = f"{window:.0f} s on {timer}'s clock" if timer else f"{window:.0f} s"
        with stages.stage("read") as step:
            second = read_counters(nr, timeout, links=True)
            step.detail = (
                f"{sum(isinstance(r, SwitchCounters) for r in second.values())} of {len(names)} switches"
            )
    read = counter_windows(names, first, second, window)
    windows = {n: w for n, w in read.items() if isinstance(w, Window)}
    unread = {n: w for n, w in read.items() if isinstance(w, str)}
    seconds = [w.seconds for w in windows.values()] or [window]
    report = LinkReport(max(seconds), 0, unread=unread, shortest=min(seconds))
    _judge_links(compiled, windows, report)
    with stages.stage("proof") as step:
        _propose(compiled, parsed, report)
        step.detail = f"{len(report.marginal)} marginal, {len(report.proposed)} drain(s) proposed"
    return report


def _judge_links(compiled: Compiled, windows: dict[str, Window], report: LinkReport) -> None:
    """Judge every fabric link both of whose switches were read: into `report`, counted, unjudged
    (no evidence at either end) or marginal (ranked worst first, the drained ones named)."""
    limits = compiled.fabric.settings.links
    already = {
        (ln.leaf, ln.leaf_port) for ln in drained_links(compiled.fabric.maintenance, compiled.topology)
    }
    for ln in compiled.topology.links:
        if ln.leaf not in windows or ln.spine not in windows:
            continue
        report.links += 1
        ends = (
            _evidence(ln.leaf, ln.leaf_port, windows[ln.leaf]),
            _evidence(ln.spine, ln.spine_port, windows[ln.spine]),
        )
        if all(e.errors_per_minute is None and e.flaps is None and e.rx_dbm is None for e in ends):
            report.unjudged.append(f"{ln.leaf}:{ln.leaf_port}")
            continue
        reasons, score = _judge(ends, limits.max_errors_per_minute, limits.max_flaps)
        if reasons:
            # The drain names the end with the most evidence (the switch to look at first).
            worst = max(ends, key=lambda e: _judge((e,), limits.max_errors_per_minute, limits.max_flaps)[1])
            other = ends[1] if worst is ends[0] else ends[0]
            link = MarginalLink(
                f"{worst.switch}:{worst.port}", f"{other.switch} {other.port}", reasons, score, ends
            )
            report.marginal.append(link)
            if (ln.leaf, ln.leaf_port) in already:
                report.drained.append(link.target)
    report.marginal.sort(key=lambda m: (tuple(-x for x in m.score), m.target))


def _evidence(switch: str, port: str, w: Window) -> Evidence:
    d = w.ports.get(port, PortDelta())
    now = w.now.ports.get(port, PortCounters())
    minutes = w.seconds / 60.0 if w.seconds > 0 else None
    errors = d.errors / minutes if d.errors is not None and minutes else None
    flaps = None if d.flapped is None else int(d.flapped)  # some switches say whether, some how often
    if d.flapped and d.link_changes:
        flaps = max(1, (d.link_changes + 1) // 2)  # a flap is two transitions, down and up
    optic = now.optic
    floor = (
        None
        if optic is None
        else (optic.rx_low_warn if optic.rx_low_warn is not None else optic.rx_low_alarm)
    )
    return Evidence(switch, port, errors, flaps, optic.rx_dbm if optic else None, floor)


def _judge(ends: tuple[Evidence, ...], max_errors: float, max_flaps: int) -> tuple[tuple[str, ...], Score]:
    """Why the link is marginal (empty: it is not), and how strongly."""
    reasons: list[str] = []
    flaps, errors, dark = 0, 0.0, 0.0
    for e in ends:
        if e.flaps is not None and e.flaps > max_flaps:
            reasons.append(
                f"{e.switch} {e.port} flapped {e.flaps} time(s) in the window (at most {max_flaps})"
            )
            flaps += e.flaps
        if e.errors_per_minute is not None and e.errors_per_minute > max_errors:
            reasons.append(
                f"{e.switch} {e.port} receives {e.errors_per_minute:.0f} errored frames a minute (at most {max_errors:g})"
            )
            errors += e.errors_per_minute
        if e.rx_dbm is not None and e.rx_warn is not None and e.rx_dbm < e.rx_warn:
            reasons.append(
                f"{e.switch} {e.port} receives {e.rx_dbm:.2f} dBm, below its optic's {e.rx_warn:.2f} dBm"
            )
            dark += e.rx_warn - e.rx_dbm
    return tuple(reasons), (flaps, errors, dark)


def _propose(compiled: Compiled, parsed: dict[str, Any], report: LinkReport) -> None:
    """The marginal links to drain, worst first (verify/drain.py proves them): all of them when
    they hold together, one proof; otherwise each kept only while the drain of all so far still
    proves, so a link whose drain would take a tenant below its floor stays in service and is
    named with the tenant."""
    base = list(compiled.fabric.maintenance.drained)
    wanted = [
        Drain(
            switch=m.target.partition(":")[0],
            port=m.target.partition(":")[2],
            reason="; ".join(m.reasons)[:200],
        )
        for m in report.marginal
        if m.target not in report.drained
    ]
    if not wanted:
        return
    root = compiled.fabric.root
    proof, violations = prove_drains(compiled, Maintenance(drained=[*base, *wanted]), parsed, root)
    if not violations:  # all of them together hold (the usual case): one proof
        report.proposed, report.proof = wanted, proof
        return
    chosen: list[Drain] = []
    proof = None
    for drain in wanted:
        found, violations = prove_drains(compiled, Maintenance(drained=[*base, *chosen, drain]), parsed, root)
        if violations:
            report.held.append((drain.target, violations[0].counterexample))
            continue
        chosen.append(drain)
        proof = found
    report.proposed = chosen
    report.proof = proof
