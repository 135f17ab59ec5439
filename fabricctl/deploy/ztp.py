"""`fabricctl ztp render`: what factory-default rack switches need to come up on their own.

For every switch of racks/: a reservation in an ISC Kea DHCPv4 configuration (its management
MAC -> its address, hostname and the boot file options its NOS documents), and the files its
auto-configuration fetches over HTTP (platforms/<nos>/ztp.py). Those files hold the day-0 config
only: the header (name, management address, the login fabricctl uses) and the switch's config
compiled with no tenant (underlay, LLDP, QoS, every GPU port in its secure default). Tenants come
later through plan/apply, the one transactional path, which then finds nothing else to change.

The files hold the login, so they are written readable by the owner only, under
`.fabricctl/ztp/` (git-ignored) unless `--out` says otherwise; the manifest (ztp.json) and the
Kea file hold no secret. Same inputs, same bytes: a hashed secret's salt is derived from the
fabric and switch names.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

from fabricctl.compile.allocate import allocate
from fabricctl.compile.build import device_intent, load_and_check
from fabricctl.compile.view import read_fabric
from fabricctl.deploy.credentials import login
from fabricctl.errors import StageError
from fabricctl.model.problems import ProblemLog
from fabricctl.model.rack import load_racks
from fabricctl.outputs import make_folder, named_output, write_file
from fabricctl.platforms import get_platform
from fabricctl.render import Renderer

ZTP_DIR = Path(".fabricctl") / "ztp"
PRIVATE = 0o600  # the day-0 files hold the login: owner read/write only
KEA_FILE = "kea-dhcp4.json"
MANIFEST = "ztp.json"


class ZtpError(StageError):
    """Day-0 files cannot be made (no ztp: settings, no racks); the message says what to add."""


@dataclass
class ZtpRender:
    out: Path
    switches: dict[str, dict[str, Any]] = field(default_factory=dict)  # the manifest's entries
    files: list[Path] = field(default_factory=list)


def ztp_dir(root: Path) -> Path:
    return root / ZTP_DIR


def _secret(form: str, password: str, fabric: str, switch: str) -> str:
    if form == "plain":
        return password
    from passlib.hash import sha512_crypt

    salt = hashlib.sha256(f"{fabric}/{switch}".encode()).hexdigest()[:16]
    return str(sha512_crypt.using(salt=salt, rounds=5000).hash(password))


def render_ztp(root: Path, lab: bool = False, out: Path | None = None) -> ZtpRender:
    """Write the Kea configuration, the manifest and every rack switch's day-0 files."""
    fabric, _docs, topo, _alloc = load_and_check(root)
    ztp = fabric.settings.ztp
    fabric_file = "inventory/fabric.yaml"
    if ztp is None:
        raise ZtpError(
            f"{fabric_file}: no ztp: block (allowed: ztp: with management, gateway, pool and server; docs/day0.md)"
        )
    racks = load_racks(root, ProblemLog(root))
    if not racks:
        raise ZtpError("racks/: no rack file (fabricctl rack add writes one; docs/day0.md)")
    creds = login(lab, "write")  # the login apply uses: the day-0 user is an administrator
    view = read_fabric(fabric)  # read once for every switch below
    empty = allocate(view, topo, [], ProblemLog(root))  # the fabric as it is before any tenant
    renderer = Renderer(root)
    folder = Path(out) if out is not None else ztp_dir(root)
    within = named_output(folder, root, folder=True)  # no symlink under it is followed
    make_folder(folder, within=within, mode=0o700)
    net = IPv4Network(ztp.management)
    result = ZtpRender(folder)
    reservations = []
    for rd in racks:
        for rs in rd.rack.switches:
            sw = fabric.switch(rs.name)
            assert sw is not None  # load_and_check proved every rack switch is in the inventory
            platform = get_platform(sw.platform)
            day0 = platform.day0
            context = {
                "name": sw.name,
                "address": str(rs.address),
                "netmask": str(net.netmask),
                "prefixlen": net.prefixlen,
                "username": creds.username,
                "secret": _secret(day0.secret_form, creds.password, fabric.settings.name, sw.name),
            }
            header = renderer.environment(sw.platform).get_template(day0.header_template).render(day0=context)
            body = renderer.render(device_intent(view, topo, empty, sw))
            config = header.rstrip("\n") + "\n" + body
            base = f"http://{ztp.server}:{ztp.port}/{sw.name}"
            boot = day0.boot_file(sw.name)
            made = day0.files(sw.name, config, base)
            digests = {}
            for name, text in sorted(made.items()):
                path = folder / name
                write_file(path, text, within=within, mode=PRIVATE)
                result.files.append(path)
                digests[name] = hashlib.sha256(text.encode()).hexdigest()
            url = f"{base}/{boot}"
            reservations.append(
                {
                    "hw-address": rs.mac,
                    "ip-address": str(rs.address),
                    "hostname": sw.name,
                    "option-data": day0.dhcp_options(url, str(ztp.server)),
                }
            )
            result.switches[sw.name] = {
                "rack": rd.rack.name,
                "platform": sw.platform,
                "model": rs.model,
                "serial": rs.serial,
                "mac": rs.mac,
                "address": str(rs.address),
                "boot_file": boot,
                "boot_url": url,
                "files": digests,
            }
    kea = kea_config(ztp.interface, net, str(ztp.gateway), reservations)
    write_file(folder / KEA_FILE, json.dumps(kea, indent=2) + "\n", within=within, mode=PRIVATE)
    manifest = {
        "fabric": fabric.settings.name,
        "server": f"{ztp.server}:{ztp.port}",
        "switches": result.switches,
    }
    write_file(
        folder / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n", within=within, mode=PRIVATE
    )
    result.files += [folder / KEA_FILE, folder / MANIFEST]
    return result


def kea_config(
    interface: str, net: IPv4Network, gateway: str, reservations: list[dict[str, Any]]
) -> dict[str, Any]:
    """A kea-dhcp4 configuration (Kea ARM, 'The DHCPv4 Server' > 'Host Reservations in DHCPv4'):
    one subnet, no pool, a reservation per switch MAC. A MAC with no reservation gets no address,
    so an unknown switch never reaches a boot file."""
    return {
        "Dhcp4": {
            "interfaces-config": {"interfaces": [interface], "dhcp-socket-type": "raw"},
            "host-reservation-identifiers": ["hw-address"],
            "lease-database": {"type": "memfile", "lfc-interval": 3600},
            "valid-lifetime": 86400,
            "subnet4": [
                {
                    "id": 1,
                    "subnet": str(net),
                    "option-data": [{"name": "routers", "data": gateway}],
                    "reservations": sorted(reservations, key=lambda r: r["ip-address"]),
                }
            ],
            "loggers": [{"name": "kea-dhcp4", "output_options": [{"output": "stdout"}], "severity": "INFO"}],
        }
    }


def read_manifest(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ZtpError(
            f"{folder / MANIFEST}: missing or unreadable (run fabricctl ztp render first)"
        ) from None
    return data if isinstance(data, dict) else {}
