"""Fixtures: an in-process lab on port 0 and real-client connection helpers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netmiko import ConnectHandler
from netmiko.base_connection import BaseConnection

from fabricctl.lab import DeviceSpec, LabClock, LabFabric

USER, PASSWORD = "admin", "fabricctl-lab"
PORTS = 8  # small boxes keep configs short; the factory layout is the same as 64-port


@pytest.fixture(autouse=True)
def _lab_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    monkeypatch.delenv("FABRICCTL_LAB_PASSWORD", raising=False)


def make_specs() -> list[DeviceSpec]:
    return [
        DeviceSpec("leaf01", "eos", mgmt_ip="192.0.2.11", ports=PORTS),
        DeviceSpec("leaf02", "eos", mgmt_ip="192.0.2.12", ports=PORTS),
        DeviceSpec("spine01", "comware", mgmt_ip="192.0.2.1", ports=PORTS),
        DeviceSpec("spine02", "comware", mgmt_ip="192.0.2.2", ports=PORTS),
    ]


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / ".fabricctl" / "lab" / "state"


@pytest.fixture
def lab(state_dir: Path) -> Iterator[LabFabric]:
    fabric = LabFabric(make_specs(), state_dir=state_dir, clock=LabClock.frozen())
    with fabric:
        yield fabric


def connect(lab: LabFabric, name: str, **kwargs: Any) -> BaseConnection:
    """Real netmiko connection to a lab device."""
    ep = lab.endpoints()[name]
    device_type = {"eos": "arista_eos", "comware": "hp_comware", "nvue": "cumulus_linux"}[ep.platform]
    if ep.platform == "comware":
        kwargs.setdefault("global_cmd_verify", True)
    return ConnectHandler(
        device_type=device_type,
        host=ep.host,
        port=ep.ssh_port,
        username=USER,
        password=PASSWORD,
        **kwargs,
    )


def napalm_eos(lab: LabFabric, name: str, timeout: int = 10) -> Any:
    """Real NAPALM eos driver over the lab eAPI (HTTPS, as on a switch)."""
    from napalm import get_network_driver

    ep = lab.endpoints()[name]
    driver = get_network_driver("eos")
    dev = driver(
        ep.host,
        USER,
        PASSWORD,
        timeout=timeout,
        optional_args={"transport": "https", "port": ep.eapi_port},
    )
    dev.open()
    return dev


def loaded_lab(src: Path, work: Path, platform: str | None = None) -> tuple[LabFabric, Path]:
    """A started lab of the fabric at `src` whose switches run their rendered configs, loaded
    straight into running, saved and rebooted (what `apply` and a reboot would leave, without the
    minutes of SSH it takes):
    for the modules that read one converged fabric many ways. The caller stops it."""
    import contextlib
    import io

    from fabricctl.cli import main
    from tests.conftest import copy_fabric, on_platform

    root = copy_fabric(src, work / "fabric")
    if platform is not None:
        on_platform(root, platform)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main(["render", "--root", str(root)])
    lab = LabFabric.from_inventory(root, clock=LabClock.frozen()).start()
    try:
        for name, dev in lab.devices.items():
            text = (root / "out" / f"{name}.cfg").read_text(encoding="utf-8")

            def load(dev: Any = dev, text: str = text) -> None:
                # NVUE prints its whole object tree: it is read alone, not over the factory config
                tree = (
                    dev.parse(text) if dev.nos.parse_config is not None else dev.parse(text, base=dev.running)
                )
                dev.running.replace_contents(tree)
                dev.persist_running()
                dev.save()
                dev.reboot()  # settings a switch applies at boot (max-ecmp-num) in effect

            lab.call(load)
    except BaseException:  # the caller stops it once it has it; until then, this does
        lab.stop()
        raise
    return lab, root
