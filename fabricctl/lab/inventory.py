"""Lab device specs from a fabricctl Nornir inventory (`<root>/inventory/*.yaml`)."""

from __future__ import annotations

from pathlib import Path

from fabricctl.lab.factory import DeviceSpec


def specs_from_inventory(root: Path) -> list[DeviceSpec]:
    """One DeviceSpec per Nornir host; platform is fabricctl's (`eos` / `comware`)."""
    from nornir import InitNornir

    inv = Path(root) / "inventory"
    if not (inv / "hosts.yaml").is_file():
        raise FileNotFoundError(f"no Nornir inventory at {inv}")
    options: dict[str, str] = {"host_file": str(inv / "hosts.yaml")}
    for key, fname in (("group_file", "groups.yaml"), ("defaults_file", "defaults.yaml")):
        if (inv / fname).is_file():
            options[key] = str(inv / fname)
    nr = InitNornir(
        runner={"plugin": "serial"},
        inventory={"plugin": "SimpleInventory", "options": options},
        logging={"enabled": False},
    )
    specs = []
    for name, host in nr.inventory.hosts.items():
        model = host.get("model") or ""
        specs.append(
            DeviceSpec(
                name=name,
                platform=str(host.platform),
                mgmt_ip=str(host.hostname or "192.0.2.10"),
                model=str(model),
            )
        )
    return specs
