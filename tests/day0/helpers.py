"""A pod delivered by racks: examples/day0 with r01 (spines + rail group 1) and r02 (rail group 2)
added by `fabricctl rack add` from the factory serial lists."""

from __future__ import annotations

import shutil
from pathlib import Path

from fabricctl.cli import main

DAY0 = Path(__file__).resolve().parents[2] / "examples" / "day0"
RACKS = (("r01", "spine-rack-template.yaml"), ("r02", "rack-template.yaml"))


def day0_pod(dst: Path, platform: str = "eos", racks: tuple[tuple[str, str], ...] = RACKS) -> Path:
    """examples/day0 copied to `dst`, its racks added (on `platform`: the templates' groups)."""
    shutil.copytree(DAY0, dst)
    if platform == "comware":
        fabric = dst / "inventory" / "fabric.yaml"
        fabric.write_text(
            fabric.read_text(encoding="utf-8").replace("mtu: 9214", "mtu: 9000"), encoding="utf-8"
        )
        for template in dst.glob("*template.yaml"):
            text = template.read_text(encoding="utf-8").replace(", eos]", ", comware]")
            template.write_text(text.replace("7060X5-64", "S9825-64D"), encoding="utf-8")
    for name, template in racks:
        argv = ["rack", "add", name, "--template", str(dst / template)]
        argv += ["--serials", str(dst / f"serials-{name}.csv"), "--root", str(dst)]
        assert main(argv) == 0, f"rack add {name}"
    return dst
