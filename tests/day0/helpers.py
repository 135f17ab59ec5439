"""A pod delivered by racks: examples/day0 with r01 (spines + rail group 1) and r02 (rail group 2)
added by `fabricctl rack add` from the factory serial lists."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricctl.cli import main
from fabricctl.deploy.ztp_serve import ZtpServer
from fabricctl.lab.clock import LabClock
from fabricctl.lab.runtime import lab_json, write_lab_json
from fabricctl.lab.server import LabFabric
from fabricctl.lab.ztp import Boot, boot
from tests.conftest import comware_qos

DAY0 = Path(__file__).resolve().parents[2] / "examples" / "day0"
RACKS = (("r01", "spine-rack-template.yaml"), ("r02", "rack-template.yaml"))


def day0_pod(dst: Path, platform: str = "eos", racks: tuple[tuple[str, str], ...] = RACKS) -> Path:
    """examples/day0 copied to `dst`, its racks added (on `platform`: the templates' groups)."""
    shutil.copytree(DAY0, dst)
    if platform != "eos":
        model, mtu = {"comware": ("S9825-64D", 9000), "nvue": ("SN5600", 9216), "sonic": ("SN5600", 9216)}[
            platform
        ]
        fabric = dst / "inventory" / "fabric.yaml"
        text = fabric.read_text(encoding="utf-8").replace("mtu: 9214", f"mtu: {mtu}")
        fabric.write_text(comware_qos(text) if platform == "comware" else text, encoding="utf-8")
        for template in dst.glob("*template.yaml"):
            text = template.read_text(encoding="utf-8").replace(", eos]", f", {platform}]")
            template.write_text(text.replace("7060X5-64", model), encoding="utf-8")
    for name, template_file in racks:
        argv = ["rack", "add", name, "--template", str(dst / template_file)]
        argv += ["--serials", str(dst / f"serials-{name}.csv"), "--root", str(dst)]
        assert main(argv) == 0, f"rack add {name}"
    return dst


@dataclass
class BootedPod:
    """A lab of the pod's factory-default switches, its ZTP files served, the boot outcome."""

    root: Path
    lab: LabFabric
    server: ZtpServer
    folder: Path
    boots: list[Boot]
    how: str

    def run(self, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main([*argv, "--root", str(self.root)])
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err


@contextmanager
def booted_pod(
    dst: Path,
    platform: str = "eos",
    how: str = "auto",
    boot_now: bool = True,
    racks: tuple[tuple[str, str], ...] = RACKS,
) -> Iterator[BootedPod]:
    """The pod delivered (`day0_pod`), its switches in a lab from factory default, `ztp render`
    and `ztp serve` for them, and (`boot_now`) every switch booted by ZTP."""
    root = day0_pod(dst, platform, racks)
    assert main(["ztp", "render", "--root", str(root), "--lab"]) == 0
    folder = root / ".fabricctl" / "ztp"
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        addresses = {e.host: n for n, e in lab.endpoints().items()}
        server = ZtpServer(folder, "127.0.0.1", 0, addresses, echo=lambda _line: None).start()
        try:
            boots, source = boot(lab, folder, how=how) if boot_now else ([], "")
            yield BootedPod(root, lab, server, folder, boots, source)
        finally:
            server.stop()
            lab_json(root).unlink(missing_ok=True)


@contextmanager
def grown_pod(dst: Path) -> Iterator[BootedPod]:
    """r01 delivered and booted on its own day-0 files; then r02 added (`rack add`), its files
    rendered to a folder of their own and its switches booted from them: the switches of r01
    still run the pod as it was before r02 (their day-0 files knew nothing of it)."""
    root = day0_pod(dst, racks=RACKS[:1])
    assert main(["ztp", "render", "--root", str(root), "--lab"]) == 0
    first = root / ".fabricctl" / "ztp"
    name, template = RACKS[1]
    argv = ["rack", "add", name, "--template", str(root / template)]
    assert main([*argv, "--serials", str(root / f"serials-{name}.csv"), "--root", str(root)]) == 0
    second = root / ".fabricctl" / "ztp-r02"
    assert main(["ztp", "render", "--root", str(root), "--lab", "--out", str(second)]) == 0
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen())
    with lab:
        write_lab_json(root, lab)
        addresses = {e.host: n for n, e in lab.endpoints().items()}
        servers = [
            ZtpServer(f, "127.0.0.1", 0, addresses, echo=lambda _line: None).start() for f in (first, second)
        ]
        try:
            r02 = ["leaf5", "leaf6", "leaf7", "leaf8"]
            boots, how = boot(lab, first, [n for n in lab.devices if n not in r02], how="json")
            more, _ = boot(lab, second, r02, how="json")
            assert all(b.ok for b in boots + more), [b.line() for b in boots + more]
            yield BootedPod(root, lab, servers[0], first, boots + more, how)
        finally:
            for server in servers:
                server.stop()
            lab_json(root).unlink(missing_ok=True)
