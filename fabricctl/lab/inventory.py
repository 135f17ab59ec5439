"""Lab device specs from a fabric's Nornir inventory, resolved by Nornir (model/inventory.py)."""

from __future__ import annotations

from pathlib import Path

from fabricctl.lab.factory import DeviceSpec
from fabricctl.model.inventory import load_inventory


def specs_from_inventory(root: Path) -> list[DeviceSpec]:
    """One DeviceSpec per Nornir host; platform is fabricctl's (`eos` / `comware`)."""
    if not (Path(root) / "inventory" / "hosts.yaml").is_file():
        raise FileNotFoundError(f"no Nornir inventory at {Path(root) / 'inventory'}")
    racked = rack_switches(Path(root))
    return [
        DeviceSpec(
            name=name,
            platform=str(host.platform),
            mgmt_ip=str(host.hostname or "192.0.2.10"),
            model=str(host.get("model") or ""),
            mac=racked[name][0] if name in racked else "",
            serial=racked[name][1] if name in racked else "",
            ztp=name in racked,
            domain=_domain(host.get("pod"), host.get("plane")),
        )
        for name, host in load_inventory(Path(root)).hosts.items()
    ]


def _domain(pod: object, plane: object) -> str:
    """A leaf's or spine's pod, a super-spine's plane (what a sharded lab keeps together)."""
    if isinstance(pod, int) and not isinstance(pod, bool):
        return f"pod:{pod}"
    if isinstance(plane, int) and not isinstance(plane, bool):
        return f"plane:{plane}"
    return ""


def rack_switches(root: Path) -> dict[str, tuple[str, str]]:
    """Switch -> (management MAC, serial number) for the switches of racks/: they arrive
    factory-default (a lab that already holds a switch's state keeps it: only a new or reset
    switch boots by ZTP) and report the serial their rack file names when the lab starts."""
    from fabricctl.model.problems import ProblemLog
    from fabricctl.model.rack import load_racks

    return {s.name: (s.mac, s.serial) for rd in load_racks(root, ProblemLog(root)) for s in rd.rack.switches}
