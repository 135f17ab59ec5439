"""A self-contained HTML plan report: summary, a picture of the fabric, per-switch diffs.

One file with inline CSS, SVG and a few lines of JS (no network, no external fonts): it is a CI
artifact a reviewer opens from a download folder. The picture answers "where does this change
land": one row per leaf, one cell per GPU port coloured by tenant, with the spines as a row
above and every switch the plan changes outlined. Cells carry native SVG tooltips (leaf, port,
server, NIC, tenant), so the picture stays readable at 2,048 GPUs without any script.
"""

from __future__ import annotations

import colorsys
import html
from typing import TYPE_CHECKING, Any

from fabricctl.report.proofs import HOW, failures, load, summary
from fabricctl.report.summary import (
    at_boot_lines,
    basis,
    diff_groups,
    gpu_text,
    readdressed,
    service_classes,
    service_rows,
    span,
    switch_noun,
    tenant_rows,
)
from fabricctl.secrets import redact
from fabricctl.verify.proofs import Proofs

if TYPE_CHECKING:
    from fabricctl.compile.build import Compiled
    from fabricctl.deploy.plan import Plan

#: Distinct, colour-blind-friendlier first colours (Tableau 10 + 10); more tenants get golden-angle hues.
PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#1f77b4",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#dbdb8d",
    "#9edae5",
    "#17becf",
]
FREE_COLOR = "#e8e8e8"
FOLD_ROWS = 16  # longer tables start folded so the fabric picture stays on the first screen

CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:16px 24px;color:#222}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:20px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:6px 0} td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
th{background:#f4f4f4} td.n{text-align:right}
.added{color:#1a7f37} .removed{color:#cf222e} .changed{color:#9a6700} .affected{color:#57606a}
#service-affecting h2{color:#cf222e} table.service td{background:#fff8c5}
.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:2px 12px;
 max-height:96px;overflow:auto;font-size:12px}
.legend li{white-space:nowrap} .legend li.touched{font-weight:700}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border:1px solid #0003;vertical-align:-1px}
svg text{font:11px system-ui,sans-serif;fill:#333} svg .lbl-changed{font-weight:700;fill:#cf222e}
svg .port{stroke:#fff;stroke-width:.5} svg .port:hover{stroke:#000;stroke-width:1.5}
svg .outline{fill:none;stroke:#cf222e;stroke-width:2} svg .outline.unreachable{stroke:#bf8700;stroke-dasharray:4 2}
svg .spine{stroke:#888;stroke-width:.5} svg .leaf-row,svg .spine{cursor:pointer}
details{margin:4px 0} summary{cursor:pointer} details.table>summary{font-weight:600}
pre{background:#f6f8fa;padding:8px;overflow:auto;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;margin:4px 0}
pre .a{color:#1a7f37} pre .r{color:#cf222e} pre .h{color:#57606a}
.muted{color:#666} button{font-size:12px}
"""

JS = """
function setAll(open){document.querySelectorAll('#diffs details').forEach(d=>d.open=open);}
function showSwitch(name){var d=document.getElementById('diff-'+name);
 if(d){d.open=true;d.scrollIntoView({behavior:'smooth'});}}
document.querySelectorAll('svg [data-switch]').forEach(function(g){
 g.addEventListener('click',function(){showSwitch(g.getAttribute('data-switch'));});});
"""


def tenant_colors(names: list[str]) -> dict[str, str]:
    """Stable colours per tenant (in the given order): palette first, then golden-angle hues."""
    out: dict[str, str] = {}
    for i, name in enumerate(names):
        if i < len(PALETTE):
            out[name] = PALETTE[i]
            continue
        hue = (i * 0.618033988749895) % 1.0
        light = 0.45 + 0.15 * ((i // 7) % 3) / 2
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.65)
        out[name] = f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"
    return out


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _summary(plan: Plan) -> list[str]:
    s = plan.summary()
    ref, commit = basis(plan)
    vs = (
        f"Changes since <code>{_e(ref)}</code> (<code>{_e(commit)}</code>)"
        if ref
        else "Compared with the running fabric"
    )
    out = [
        '<section id="summary">',
        "<h2>Summary</h2>",
        f"<p>{vs}: {len(plan.switches)} switches planned. "
        f"<b>{s['changed']} to change</b>, {s['unchanged']} unchanged, {s['unreachable']} unreachable "
        f"(+{s['added']} &minus;{s['removed']} lines). Inputs <code>{_e(plan.inputs_hash[:12])}</code>.</p>",
    ]
    rows = tenant_rows(plan)
    if rows:
        by: dict[str, list[str]] = {}
        for r in rows:
            by.setdefault(r["change"], []).append(r["name"])
        parts = [
            f"{len(names)} {change} ({_e(', '.join(names[:6]))}{', ...' if len(names) > 6 else ''})"
            for change, names in by.items()
        ]
        out.append(f"<p><b>Tenants:</b> {'; '.join(parts)}</p>")
    for line in at_boot_lines(plan):
        out.append(f'<p class="pending-reboot">{_e(line)}</p>')
    for key, what in (
        ("fabric_wide", "Fabric-wide lines change on"),
        ("freed_ports", "Free GPU ports (secure default: shut down) change on"),
    ):
        names = plan.changes.get(key) or []
        if names:
            out.append(f"<p>{what} {_e(switch_noun(plan, names))}: {_e(span(names, 12))}</p>")
    out.append("</section>")
    return out


def _service(plan: Plan) -> list[str]:
    """Running tenants the plan affects: the first thing on the page after the summary."""
    rows = service_rows(plan)
    if not rows:
        return []
    out = [
        '<section id="service-affecting">',
        f"<h2>Service-affecting: {len(rows)} running tenant(s)</h2>",
        "<p>apply pushes these only with <code>--allow-disruptive</code> or <code>--canary N</code>.</p>",
        '<table class="service"><tr><th>tenant</th><th>what happens to it</th><th>where</th></tr>',
    ]
    for r in rows:
        where = "<br>".join(_e(e) for c in service_classes(r) for e in r.get("evidence", {}).get(c, [])[:5])
        out.append(
            f'<tr class="tenant-service"><td><code>{_e(r["name"])}</code></td>'
            f"<td>{_e(', '.join(service_classes(r)))}</td><td>{where}</td></tr>"
        )
    out.append("</table>")
    nics = readdressed(plan)
    if nics:
        out += [
            f"<h3>{len(nics)} server NIC(s) to re-address</h3>",
            '<table class="readdress"><tr><th>tenant</th><th>server NIC</th><th>switch port</th>'
            "<th>now</th><th>after the change</th><th>note</th></tr>",
        ]
        out += [
            f"<tr><td><code>{_e(r['tenant'])}</code></td><td>{_e(r['nic'])}</td>"
            f"<td><code>{_e(r['switch'])} {_e(r['port'])}</code></td><td><code>{_e(r['old'])}</code></td>"
            f"<td><code>{_e(r['new'])}</code></td><td>{_e(r.get('note') or '')}</td></tr>"
            for r in nics
        ]
        out.append("</table>")
    out.append("</section>")
    return out


def _changes(plan: Plan) -> list[str]:
    """Tenant and switch tables (after the picture: long ones start folded)."""
    out = ['<section id="changes">', "<h2>Changes</h2>"]
    rows = tenant_rows(plan)
    if rows:
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["change"]] = counts.get(r["change"], 0) + 1
        what = ", ".join(f"{n} {change}" for change, n in counts.items())
        out.append(_fold(len(rows) <= FOLD_ROWS, f"Tenants: {what}", _tenant_table(plan, rows)))
    shown = [n for n, sp in plan.switches.items() if sp.status != "unchanged"]
    if shown:
        title = f"Switches: {len(shown)} to change or unreachable"
        out.append(_fold(len(shown) <= FOLD_ROWS, title, _switch_table(plan, shown)))
    out.append("</section>")
    return out


def _fold(open_: bool, title: str, inner: str) -> str:
    """A table behind a <details> summary: open when short, folded when long (hundreds of tenants)."""
    return f'<details class="table"{" open" if open_ else ""}><summary>{_e(title)}</summary>{inner}</details>'


def _tenant_table(plan: Plan, rows: list[dict[str, Any]]) -> str:
    out = ['<table class="tenants"><tr><th>tenant</th><th>change</th><th>GPUs</th><th>switches</th></tr>']
    for r in rows:
        fields = f" ({_e(', '.join(r['fields']))})" if r.get("fields") else ""
        leaves = r.get("leaves") or []
        where = f"{_e(switch_noun(plan, leaves))}: {_e(span(leaves, 12))}" if leaves else "-"
        out.append(
            f'<tr class="tenant-change"><td><code>{_e(r["name"])}</code></td>'
            f'<td class="{_e(r["change"])}">{_e(r["change"])}{fields}</td>'
            f'<td class="n">{_e(gpu_text(r))}</td><td>{where}</td></tr>'
        )
    out.append("</table>")
    return "".join(out)


def _switch_table(plan: Plan, shown: list[str]) -> str:
    out = ['<table class="switches"><tr><th>switch</th><th>status</th><th>+</th><th>&minus;</th></tr>']
    for n in shown:
        sp = plan.switches[n]
        status = sp.status + (f": {sp.error}" if sp.error else "")
        out.append(
            f'<tr class="switch-row"><td><a href="#diff-{_e(n)}">{_e(n)}</a></td><td>{_e(status)}</td>'
            f'<td class="n">{sp.added}</td><td class="n">{sp.removed}</td></tr>'
        )
    out.append("</table>")
    return "".join(out)


def _fabric(plan: Plan, compiled: Compiled) -> list[str]:
    """The SVG picture: spines row, then one row of GPU-port cells per leaf, plus the legend."""
    alloc = compiled.allocation
    owners = {key: a.name for key, (a, _) in alloc.port_owner.items()}
    names = [a.name for a in alloc.tenants]
    colors = tenant_colors(names)
    touched = {r["name"] for r in plan.changes.get("tenants", [])}
    changed = set(plan.changed)
    unreachable = set(plan.unreachable)
    leaves = [sw.name for sw in compiled.fabric.leaves]
    spines = [sw.name for sw in compiled.fabric.spines]
    ports_per_leaf = max((len(compiled.topology.gpu_ports.get(lf, [])) for lf in leaves), default=0)
    per_pod = max(1, compiled.fabric.settings.cabling.nics_per_server)
    cell = max(8, min(22, 1100 // max(1, ports_per_leaf)))
    row_h, label_w, top = cell + 2, 84, 64
    grid_w = ports_per_leaf * cell
    pod_gap = 6
    height = top + len(leaves) * row_h + (len(leaves) - 1) // per_pod * pod_gap + 8
    width = label_w + grid_w + 12
    svg = [
        f'<svg id="fabric-grid" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="leaves by GPU ports, coloured by tenant">'
    ]
    # Spines: one row of boxes spread over the grid's width.
    svg += _spine_row(plan, spines, label_w, grid_w / max(1, len(spines)))
    first = next(
        (compiled.topology.gpu_ports[lf] for lf in leaves if compiled.topology.gpu_ports.get(lf)), []
    )
    for col in range(0, len(first), 8):
        label = ("port " if col == 0 else "") + first[col].key
        svg.append(f'<text class="col" x="{label_w + col * cell}" y="{top - 6}">{_e(label)}</text>')
    y = top
    for r, leaf in enumerate(leaves):
        if r and r % per_pod == 0:
            y += pod_gap
        flags = (" changed" if leaf in changed else "") + (" unreachable" if leaf in unreachable else "")
        lbl = ' class="lbl-changed"' if leaf in changed else ""
        mark = " \u25cf" if leaf in changed else ""
        svg.append(f'<g class="leaf-row{flags}" data-switch="{_e(leaf)}">')
        svg.append(f'<text x="0" y="{y + cell - 2}"{lbl}>{_e(leaf)}{mark}</text>')
        for c, gp in enumerate(compiled.topology.gpu_ports.get(leaf, [])):
            tenant = owners.get((leaf, gp.name))
            fill = colors[tenant] if tenant else FREE_COLOR
            tip = f"{leaf} {gp.name} - {gp.server} nic{gp.nic} - {tenant or 'free (shut down)'}"
            svg.append(
                f'<rect class="port" x="{label_w + c * cell}" y="{y}" width="{cell}" height="{cell}" '
                f'fill="{fill}" data-tenant="{_e(tenant or "")}"><title>{_e(tip)}</title></rect>'
            )
        if flags:
            svg.append(
                f'<rect class="outline{flags}" x="{label_w - 1}" y="{y - 1}" width="{grid_w + 2}" '
                f'height="{cell + 2}"><title>{_e(leaf)}: {_e(_status(plan, leaf))}</title></rect>'
            )
        svg.append("</g>")
        y += row_h
    svg.append("</svg>")
    legend = _legend(compiled, colors, touched)
    total = sum(len(v) for v in compiled.topology.gpu_ports.values())
    return [
        '<section id="fabric">',
        f"<h2>Fabric: {len(spines)} spines, {len(leaves)} leaves, {total} GPU ports, {len(names)} tenants</h2>",
        '<p class="muted">One row per leaf, one cell per GPU port (hover for server, NIC and tenant). '
        "Switches this plan changes are outlined in red and marked &#9679;; click one for its diff.</p>",
        *legend,
        *svg,
        "</section>",
    ]


def _spine_row(plan: Plan, spines: list[str], label_w: int, sw_w: float) -> list[str]:
    """The spines as one row of boxes spread over the grid's width, the changed ones outlined."""
    changed, unreachable = set(plan.changed), set(plan.unreachable)
    row = ['<g class="spine-row"><text x="0" y="26">spines</text>']
    for i, name in enumerate(spines):
        cls = (
            "spine"
            + (" changed" if name in changed else "")
            + (" unreachable" if name in unreachable else "")
        )
        x = label_w + i * sw_w
        fill = "#fde2e1" if name in changed else "#f0f0f0"
        stroke = ' style="stroke:#cf222e;stroke-width:2"' if name in changed else ""
        lbl = ' class="lbl-changed"' if name in changed else ""
        row.append(
            f'<g class="{cls}" data-switch="{_e(name)}"><rect x="{x + 1:.1f}" y="10" width="{sw_w - 2:.1f}" '
            f'height="22" fill="{fill}"{stroke}><title>{_e(name)}: {_e(_status(plan, name))}</title></rect>'
            f'<text x="{x + sw_w / 2:.1f}" y="25" text-anchor="middle"{lbl}>{_e(_short(name, sw_w))}</text></g>'
        )
    row.append("</g>")
    return row


def _legend(compiled: Compiled, colors: dict[str, str], touched: set[str]) -> list[str]:
    """One swatch per tenant with its GPU count (the ones this plan touches first), then the free."""
    gpus = {a.name: len(a.ports) for a in compiled.allocation.tenants}
    legend = ['<ul class="legend">']
    for name in sorted(gpus, key=lambda n: n not in touched):  # tenants this plan touches first
        cls = "legend-entry touched" if name in touched else "legend-entry"
        legend.append(
            f'<li class="{cls}" data-tenant="{_e(name)}"><span class="swatch" style="background:{colors[name]}">'
            f"</span>{_e(name)} ({gpus[name]})</li>"
        )
    free = sum(len(v) for v in compiled.topology.gpu_ports.values()) - sum(gpus.values())
    legend.append(
        f'<li class="legend-free"><span class="swatch" style="background:{FREE_COLOR}"></span>free ({free})</li>'
    )
    legend.append("</ul>")
    return legend


def _status(plan: Plan, name: str) -> str:
    sp = plan.switches.get(name)
    if sp is None:
        return "not planned"
    return f"{sp.status} (+{sp.added} -{sp.removed})" if sp.status == "changed" else sp.status


def _short(name: str, room: float) -> str:
    """Spine labels shrink to their number when the box is narrow."""
    if len(name) * 6.5 <= room:
        return name
    digits = "".join(ch for ch in name if ch.isdigit())
    return digits or name[:2]


def _diff_pre(diff: str) -> str:
    lines = []
    for ln in diff.rstrip("\n").split("\n"):
        cls = (
            "h" if ln.startswith(("--- ", "+++ ")) else "a" if ln[:1] == "+" else "r" if ln[:1] == "-" else ""
        )
        lines.append(f'<span class="{cls}">{_e(ln)}</span>' if cls else _e(ln))
    return "<pre>" + "\n".join(lines) + "</pre>"


def _diffs(plan: Plan) -> list[str]:
    out = [
        '<section id="diffs">',
        "<h2>Diffs</h2>",
        '<p><button onclick="setAll(true)">expand all</button> <button onclick="setAll(false)">collapse all</button></p>',
    ]
    groups = diff_groups(plan)
    if not groups:
        out.append("<p>No changes: the switches already run the intended configuration.</p>")
    for group in groups:
        same = (
            f' <span class="muted">identical on {_e(switch_noun(plan, group.names))}: '
            f"{_e(', '.join(group.names))}</span>"
            if len(group.names) > 1
            else ""
        )
        for name in group.names:
            sp = plan.switches[name]
            out.append(
                f'<details class="switch-diff" id="diff-{_e(name)}" data-switch="{_e(name)}">'
                f"<summary><code>{_e(name)}</code> (+{sp.added} &minus;{sp.removed}){same}</summary>"
                f"{_diff_pre(sp.diff)}</details>"
            )
    for name in plan.unreachable:
        out.append(f"<p>&#9888; <code>{_e(name)}</code> unreachable: {_e(plan.switches[name].error)}</p>")
    out.append("</section>")
    return out


def _proofs(record: Proofs) -> list[str]:
    """Each proof (failed first, with every failure), then every fabric link's two ends folded."""
    out = ['<section id="proofs">', "<h2>Proofs</h2>"]
    if not record.ok:
        out.append(
            f'<p class="failed-proofs"><b>&#10007; {_e(", ".join(record.failed))} failed</b>: nothing was read or planned.</p>'
        )
        out.append(
            '<table class="failures"><tr><th>proof</th><th>check</th><th>switch</th><th>object</th><th>line</th><th>counterexample</th></tr>'
        )
        out += [
            f"<tr><td>{_e(name)}</td><td><code>{_e(f.check)}</code></td><td><code>{_e(f.switch)}</code></td>"
            f"<td><code>{_e(f.object)}</code></td><td>{_e(f.line or '-')}</td><td>{_e(f.counterexample)}</td></tr>"
            for name, f in failures(record)
        ]
        out.append("</table>")
    out.append('<table class="proofs"><tr><th>proof</th><th>holds</th><th>what</th><th>checked how</th></tr>')
    for proof in sorted(summary(record), key=lambda p: p.ok):
        mark = "&#10003;" if proof.ok else "&#10007;"
        out.append(
            f'<tr class="proof-{"ok" if proof.ok else "failed"}"><td>{_e(proof.name)}</td><td>{mark}</td>'
            f"<td>{_e(proof.detail)}</td><td>{_e(HOW[proof.name])}</td></tr>"
        )
    out.append("</table>")
    links = record.lossless.links
    if links:
        rows = "".join(
            f"<tr><td><code>{_e(ln.ends[0].switch)} {_e(ln.ends[0].port)}</code></td>"
            f"<td><code>{_e(ln.ends[1].switch)} {_e(ln.ends[1].port)}</code></td><td>{_e(ln.tier)}</td>"
            f"<td>{ln.cable_m} m</td><td>{_e(ln.speed_gbps or '-')}G</td>"
            + "".join(
                f"<td>{_e(','.join(map(str, e.no_drop)) or 'none')}</td>"
                f"<td>{_e(f'{e.headroom_bytes:,} B' if e.headroom_bytes is not None else 'NOS-sized')}"
                f"{_e(f' ({e.headroom_cells:,} cells)' if e.headroom_cells is not None else '')}</td>"
                for e in ln.ends
            )
            + f"<td>{'agree' if ln.agree else '&#10007; ' + _e(ln.why)}</td></tr>"
            for ln in sorted(links, key=lambda ln: ln.agree)
        )
        table = (
            '<table class="link-ends"><tr><th>end A</th><th>end B</th><th>tier</th><th>cable</th><th>speed</th>'
            "<th>A no-drop</th><th>A headroom</th><th>B no-drop</th><th>B headroom</th><th>both ends</th></tr>"
            + rows
            + "</table>"
        )
        out.append(
            _fold(
                not all(ln.agree for ln in links),
                f"Lossless: each fabric link's two ends ({len(links)})",
                table,
            )
        )
    out.append("</section>")
    return out


def plan_html(plan: Plan, compiled: Compiled | None) -> str:
    """The whole report; without `compiled` (no fabric at hand) the picture is left out."""
    title = f"fabricctl plan: {plan.fabric}"
    body: list[Any] = [f"<header><h1>{_e(title)}</h1>"]
    body.append(f'<p class="muted">created {_e(plan.created_at)}</p></header>')
    record = load(plan.proofs)
    if record is not None and not record.ok:  # a failed proof is the first thing a reviewer reads
        body += _proofs(record)
    body += _summary(plan)
    body += _service(plan)
    if record is not None and record.ok:
        body += _proofs(record)
    if compiled is not None:
        body += _fabric(plan, compiled)
    body += _changes(plan)
    body += _diffs(plan)
    return _page(title, body)


def refused_html(fabric: str, record: Proofs) -> str:
    """The report when verify refuses the plan: the failed proofs first, then the others."""
    title = f"fabricctl plan: {fabric}"
    return _page(title, [f"<header><h1>{_e(title)}</h1></header>", *_proofs(record)])


def _page(title: str, body: list[Any]) -> str:
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        *body,
        f"<script>{JS}</script>",
        "</body></html>",
    ]
    return redact("\n".join(page) + "\n")
