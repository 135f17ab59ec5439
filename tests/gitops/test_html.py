"""The HTML report: its element skeleton (not its bytes), self-containment, and a real browser."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fabricctl.report.html import plan_html
from tests.conftest import REFERENCE, copy_fabric

from .conftest import breakout_fabric, chromium, factory_fetch, offline_plan, rendered_fetch, write_tenant
from .test_markdown import NEWCO


@dataclass
class Skeleton(HTMLParser):
    """The parts of the report a reviewer relies on, collected while parsing."""

    sections: list[str] = field(default_factory=list)
    leaf_rows: list[tuple[str, bool]] = field(default_factory=list)  # (leaf, highlighted)
    cells: dict[str, int] = field(default_factory=dict)
    cell_tips: list[str] = field(default_factory=list)
    spines: list[tuple[str, bool]] = field(default_factory=list)
    legend: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    _row: str | None = None
    _in_cell: bool = False

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag == "section":
            self.sections.append(a.get("id", ""))
        if tag == "g" and "leaf-row" in classes:
            self._row = a["data-switch"]
            self.leaf_rows.append((self._row, "changed" in classes))
            self.cells[self._row] = 0
        if tag == "g" and "spine" in classes:
            self.spines.append((a["data-switch"], "changed" in classes))
        if tag == "rect" and "port" in classes and self._row:
            self.cells[self._row] += 1
            self._in_cell = True
        if tag == "li" and "legend-entry" in classes:
            self.legend.append(a["data-tenant"])
        if tag == "details" and "switch-diff" in classes:
            self.diffs.append(a["data-switch"])
        for attr in ("src", "href"):
            if attr in a and not a[attr].startswith("#"):
                self.external.append(a[attr])
        if tag == "link":
            self.external.append(a.get("href", "link"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "rect":
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell and data.strip():
            self.cell_tips.append(data)


def skeleton(text: str) -> Skeleton:
    parser = Skeleton()
    parser.feed(text)
    parser.close()
    return parser


def test_one_tenant_change_skeleton(tmp_path: Path) -> None:
    root = copy_fabric(REFERENCE, tmp_path / "fabric")
    running = rendered_fetch(root)
    write_tenant(root, NEWCO)
    plan, prepared = offline_plan(root, running)
    text = plan_html(plan, prepared.compiled)
    sk = skeleton(text)
    assert sk.sections == ["summary", "proofs", "fabric", "changes", "diffs"]
    leaves = [sw.name for sw in prepared.compiled.fabric.leaves]
    assert [name for name, _ in sk.leaf_rows] == leaves and len(leaves) == 32
    assert set(sk.cells.values()) == {32}  # 1x400G: 32 GPU ports per leaf
    changed = [f"leaf{n}" for n in range(25, 33)]
    assert [name for name, hot in sk.leaf_rows if hot] == changed == plan.changed
    assert len(sk.spines) == 16 and not any(hot for _, hot in sk.spines)
    tenants = [a.name for a in prepared.compiled.allocation.tenants]
    assert sk.legend == ["newco"] + [t for t in tenants if t != "newco"]  # touched tenants first
    assert sk.diffs == changed
    assert "leaf25 FourHundredGigE1/0/36 - gpu100 nic0 - newco" in sk.cell_tips
    assert sk.external == []  # self-contained: nothing to fetch
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text


def test_breakout_fabric_has_64_cells_per_leaf(tmp_path: Path) -> None:
    root = breakout_fabric(tmp_path / "fabric", singles=120)
    plan, prepared = offline_plan(root, factory_fetch(root))
    sk = skeleton(plan_html(plan, prepared.compiled))
    assert len(sk.leaf_rows) == 32 and set(sk.cells.values()) == {64}
    assert sum(sk.cells.values()) == 2048
    assert len(sk.legend) == 4 + 120
    assert all(hot for _, hot in sk.leaf_rows) and all(hot for _, hot in sk.spines)


def test_opens_in_headless_chromium(tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("no chromium installed (apt-get install -y chromium)")
    root = breakout_fabric(tmp_path / "fabric", singles=400)
    running = rendered_fetch(root)
    write_tenant(
        root,
        {
            "name": "newco",
            "id": 3001,
            "description": "New customer",
            "isolation": "l3",
            "address_block": "10.31.0.0/27",
            "gpus": [{"servers": ["gpu230", "gpu231"]}],
        },
    )
    plan, prepared = offline_plan(root, running)
    page = tmp_path / "plan.html"
    page.write_text(plan_html(plan, prepared.compiled), encoding="utf-8")
    shot = tmp_path / "fabric.png"
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium'}",
        f"--screenshot={shot}",
        "--window-size=1600,1200",
        page.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1600, 1200)
    assert len(data) > 30_000  # a blank page compresses to a few kB; the grid does not
    keep = os.environ.get("FABRICCTL_SCREENSHOT_DIR")
    if keep:  # CI can upload it; a developer can look at it
        shutil.copyfile(shot, Path(keep) / "fabric-2048.png")
