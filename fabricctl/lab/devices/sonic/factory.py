"""A SONiC switch out of the box: CONFIG_DB with its hostname, its FRR mode and every
front-panel port (PORT rows as the SN5600's platform.json gives them: Ethernet<first lane>, 8
lanes each, admin down), and an frr.conf with its hostname only."""

from __future__ import annotations

import json

from fabricctl.lab.nos import Spec

LANES = 8


def _ports(spec: Spec) -> dict[str, dict[str, str]]:
    return {
        f"Ethernet{LANES * i}": {
            "admin_status": "down",
            "alias": f"etp{i + 1}",
            "index": str(i + 1),
            "lanes": ",".join(str(LANES * i + n) for n in range(LANES)),
            "mtu": "9100",
            "speed": "800000",
        }
        for i in range(spec.ports)
    }


def _text(db: dict[str, object], frr: list[str]) -> str:
    return json.dumps(db, indent=4, sort_keys=True) + "\n" + "\n".join([*frr, "end"]) + "\n"


def factory(spec: Spec) -> str:
    db: dict[str, object] = {
        "DEVICE_METADATA": {
            "localhost": {
                "hostname": spec.name,
                "docker_routing_config_mode": "split-unified",
                "hwsku": "Mellanox-SN5600-C256S1",
            }
        },
        "PORT": _ports(spec),
    }
    if spec.mgmt_ip:
        db["MGMT_INTERFACE"] = {f"eth0|{spec.mgmt_ip}/24": {}}
    return _text(db, [f"hostname {spec.name}", "service integrated-vtysh-config", "!"])


def hardware(spec: Spec) -> str:
    """What erasing the config leaves: the PORT rows."""
    return _text({"PORT": _ports(spec)}, [])


def ztp_boot(url: str, text: str, fetch: object) -> tuple[str, bool]:
    """SONiC ZTP is not served by the twin: a boot file is refused."""
    raise ValueError("the SONiC twin runs no ZTP")
