"""A SONiC switch out of the box: CONFIG_DB with its hostname, its FRR mode and every
front-panel port (PORT rows as the SN5600's platform.json gives them: Ethernet<first lane>, 8
lanes each, admin down; its SKU the platform's 64x800G default, sonic-buildimage
device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600), and an frr.conf with its hostname only."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

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
                "hwsku": "ACS-SN5600",
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


def ztp_boot(url: str, text: str, fetch: Callable[[str], str]) -> tuple[str, bool]:
    """Day 0: the ZTP JSON the DHCP boot file option names (sonic-net/SONiC doc/ztp/ztp.md, "ZTP
    JSON": a `ztp` object of sections run in their names' lexical order, a section's plugin its name
    without a leading `<nnn>-`). The twin runs the `configdb-json` plugin ("configdb-json": fetch
    `url.source`, write it as /etc/sonic/config_db.json, `config reload`): the switch comes up on
    that CONFIG_DB as its startup config. ValueError: not a ZTP JSON, or a plugin the twin lacks."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{url}: not a ZTP JSON ({exc})") from None
    sections = doc.get("ztp") if isinstance(doc, dict) else None
    if not isinstance(sections, dict) or not sections:
        raise ValueError(f"{url}: no ztp sections")
    db: object = None
    for name in sorted(sections):
        plugin = re.sub(r"^\d+-", "", name)
        body = sections[name]
        if plugin != "configdb-json" or not isinstance(body, dict):
            raise ValueError(f"{url}: section {name!r}: the twin runs the configdb-json plugin only")
        source = (body.get("url") or {}).get("source") if isinstance(body.get("url"), dict) else None
        if not isinstance(source, str):
            raise ValueError(f"{url}: section {name!r} has no url.source")
        db = json.loads(fetch(source))
    if not isinstance(db, dict):
        raise ValueError(f"{url}: its CONFIG_DB is not a JSON object")
    meta = db.get("DEVICE_METADATA", {}).get("localhost", {})
    hostname = str(meta.get("hostname", "sonic")) if isinstance(meta, dict) else "sonic"
    return _text(db, [f"hostname {hostname}", "service integrated-vtysh-config", "!"]), True
