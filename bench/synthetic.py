"""Synthetic fabric repositories for benchmarks: an inventory of S spines x L leaves and N tenants.

Everything is written as plain YAML text into a folder that then looks like a fabric repository
(`inventory/` + `tenants/`), so the benchmark exercises the same load path as `fabricctl render`.

    root = Path(tempfile.mkdtemp())
    write_inventory(root, spines=16, leaves=64, uplinks_per_spine=1, uplink_ports="1-16",
                    gpu_ports="33-64", downlink_ports="1-64", tenant_id_max=4000)
    write_single_gpu_tenants(root, 2048)

`copy_reference` copies a real inventory (the repository's own `inventory/`) and patches a few
cabling/overlay keys, so the "reference fabric" scenarios track the reference file as it evolves.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path

#: Fabric-wide settings of the reference fabric (inventory/fabric.yaml), cabling left out.
FABRIC_SETTINGS = """\
name: {name}
description: Synthetic benchmark fabric
underlay:
  spine_asn: 65000
  leaf_asn_base: 65100
  spine_loopbacks: 10.254.0.0/24
  leaf_loopbacks: 10.254.1.0/24
  vtep_loopbacks: 10.254.2.0/24
  p2p_links: 10.250.0.0/16
  max_paths: 32
overlay:
  l3vni_base: 50000
  l2vni_base: 10000
  vlan_base: 100
  route_target_asn: 65000
  anycast_gateway_mac: "00:00:5e:00:01:01"
  tenant_id_max: {tenant_id_max}
qos:
  roce_dscp: 26
  lossless_priority: 3
  cnp_dscp: 48
  mtu: 9214
  lossless_bandwidth_percent: 50
  profile_name: ROCE-LOSSLESS
  buffer:                     # stand-ins: H3C publishes no S9825-64D figures (SONiC's design example)
    cell_bytes: 144
    mac_phy_delay_bytes: 820
    pipeline_latency_bytes: 18432
cabling:
  leaf_uplinks_per_spine: {uplinks_per_spine}
  leaf_uplink_ports: {uplink_ports}
  leaf_gpu_ports: {gpu_ports}
  spine_downlink_ports: {downlink_ports}
  gpu_port_breakout: {breakout}
  nics_per_server: {nics_per_server}
  server_name: "gpu{{:03d}}"
"""

GROUPS = """\
spine:
  data:
    role: spine
leaf:
  data:
    role: leaf
comware:
  platform: comware
  data:
    model: S9825-64D
eos:
  platform: eos
  data:
    model: 7060X5-64
nvue:
  platform: nvue
  data:
    model: SN5600
"""

#: Tenant address blocks come from 100.64.0.0/10: clear of the underlay pools (10.250/16, 10.254/24s).
TENANT_POOL = IPv4Address("100.64.0.0")


def write_inventory(
    root: Path,
    *,
    spines: int,
    leaves: int,
    uplinks_per_spine: int,
    uplink_ports: str,
    gpu_ports: str,
    downlink_ports: str,
    breakout: str = "none",
    nics_per_server: int = 8,
    platform: str = "comware",
    tenant_id_max: int = 3994,
    name: str = "bench-fabric",
) -> None:
    """inventory/{hosts,groups,defaults,fabric}.yaml for `spines` x `leaves` switches of one platform."""
    inv = root / "inventory"
    inv.mkdir(parents=True, exist_ok=True)
    hosts = []
    for role, count, net in (("spine", spines, 1), ("leaf", leaves, 2)):
        for i in range(1, count + 1):
            hosts.append(
                f"{role}{i:02d}:\n"
                f"  hostname: 192.0.{net}.{i}\n"
                f"  groups: [{role}, {platform}]\n"
                f"  data:\n"
                f"    index: {i}\n"
            )
    (inv / "hosts.yaml").write_text("---\n" + "".join(hosts), encoding="utf-8")
    (inv / "groups.yaml").write_text("---\n" + GROUPS, encoding="utf-8")
    (inv / "defaults.yaml").write_text("---\nport: 22\n", encoding="utf-8")
    settings = FABRIC_SETTINGS.format(
        name=name,
        tenant_id_max=tenant_id_max,
        uplinks_per_spine=uplinks_per_spine,
        uplink_ports=uplink_ports,
        gpu_ports=gpu_ports,
        downlink_ports=downlink_ports,
        breakout=breakout,
        nics_per_server=nics_per_server,
    )
    (inv / "fabric.yaml").write_text("---\n" + settings, encoding="utf-8")


def copy_reference(root: Path, reference: Path, **overrides: str | int) -> None:
    """Copy `reference` (an inventory/ folder) to root/inventory, replacing `key: value` lines.

    Keys are the leaf keys of fabric.yaml (`gpu_port_breakout`, `tenant_id_max`, ...); each must
    occur exactly once, so a renamed setting fails loudly instead of being silently ignored.
    """
    inv = root / "inventory"
    shutil.copytree(reference, inv, dirs_exist_ok=True)
    fabric = inv / "fabric.yaml"
    text = fabric.read_text(encoding="utf-8")
    for key, value in overrides.items():
        pattern = re.compile(rf"^(\s*{re.escape(key)}:)[ \t]*[^\s#]*", re.MULTILINE)
        text, n = pattern.subn(rf"\g<1> {value}", text)
        if n != 1:
            raise ValueError(f"{fabric}: expected one '{key}:' line, found {n}")
    fabric.write_text(text, encoding="utf-8")


def _block(offset: int, prefixlen: int) -> str:
    return f"{TENANT_POOL + offset}/{prefixlen}"


def tenant_yaml(
    name: str,
    tid: int,
    isolation: str,
    block: str,
    gpus: str,
    shared_with: list[str] | None = None,
    lossless: bool = True,
) -> str:
    """One tenants/<name>.yaml; `gpus` is the YAML list body (lines starting with '  - ')."""
    text = (
        f"---\nname: {name}\nid: {tid}\ndescription: Benchmark tenant {tid}\n"
        f"isolation: {isolation}\naddress_block: {block}\nlossless: {str(lossless).lower()}\n"
        f"gpus:\n{gpus}"
    )
    if shared_with:
        text += f"shared_with: [{', '.join(shared_with)}]\n"
    return text


def _write(root: Path, name: str, text: str) -> None:
    folder = root / "tenants"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")


def single_gpu_tenant(k: int, nics_per_server: int = 8, isolation: str = "l3") -> tuple[str, str]:
    """(name, yaml) of tenant number k (0-based): GPU k of the fabric, one /31 (l3) or /30 (l2)."""
    server, nic = divmod(k, nics_per_server)
    name = f"t{k + 1:05d}"
    prefixlen = 31 if isolation == "l3" else 30
    gpus = f"  - server: gpu{server + 1:03d}\n    nics: [{nic}]\n"
    return name, tenant_yaml(name, k + 1, isolation, _block(4 * k, prefixlen), gpus)


def write_single_gpu_tenants(
    root: Path, count: int, nics_per_server: int = 8, isolation: str = "l3"
) -> list[str]:
    """`count` tenants of one GPU each (`server: gpuNNN, nics: [k]`), GPUs taken in order."""
    names = []
    for k in range(count):
        name, text = single_gpu_tenant(k, nics_per_server, isolation)
        _write(root, name, text)
        names.append(name)
    return names


@dataclass(frozen=True)
class MixedTenant:
    name: str
    file_text: str


def mixed_tenants(servers: int = 128, nics_per_server: int = 8) -> list[MixedTenant]:
    """32 tenants of mixed sizes on a 128-server fabric (the reference shape).

    4 x l3 on 16 whole servers, 8 x l2 on 4 servers, 8 x l3 on 2 servers, 4 x l2 on 1 server,
    4 x single-GPU l3 (`server` + `nics`), 4 x l3 by leaf port (`leaf` + `ports`, one port each);
    two pairs share with each other. 117 servers are used, the last ones stay free.
    """
    out: list[MixedTenant] = []
    next_server = 1
    offset = 0  # into TENANT_POOL, in addresses
    tid = 0

    def add(
        prefix: str, isolation: str, n_servers: int, prefixlen: int, shared: list[str] | None = None
    ) -> None:
        nonlocal next_server, offset, tid
        tid += 1
        name = f"{prefix}-{tid:02d}"
        lo, hi = next_server, next_server + n_servers - 1
        next_server = hi + 1
        rng = f"gpu{lo:03d}" if lo == hi else f"gpu{lo:03d}-gpu{hi:03d}"
        size = 1 << (32 - prefixlen)
        offset = (offset + size - 1) // size * size
        block = _block(offset, prefixlen)
        offset += size
        gpus = f"  - servers: [{rng}]\n"
        out.append(MixedTenant(name, tenant_yaml(name, tid, isolation, block, gpus, shared)))

    # 16 servers x 8 = 128 GPUs: l3 needs 256 addresses (/24); l2 on 4 servers: 32 + 3 -> /26.
    for _ in range(4):
        add("train", "l3", 16, 24)
    for _ in range(8):
        add("segment", "l2", 4, 26)
    for _ in range(8):
        add("finetune", "l3", 2, 27)
    for _ in range(4):
        add("lab", "l2", 1, 28)
    # single GPUs on one shared server, then single leaf ports of the next server.
    shared_server = next_server
    next_server += 1
    for nic in range(4):
        tid += 1
        name = f"single-{tid:02d}"
        gpus = f"  - server: gpu{shared_server:03d}\n    nics: [{nic}]\n"
        block = _block(offset, 31)
        offset += 2
        out.append(MixedTenant(name, tenant_yaml(name, tid, "l3", block, gpus, lossless=nic != 0)))
    port_server = next_server
    next_server += 1
    for nic in range(4):
        tid += 1
        name = f"port-{tid:02d}"
        # server s (1-based) in pod p sits on port 33 + (s-1) % 32 of the pod's leaf for rail `nic`.
        pod, slot = divmod(port_server - 1, 32)
        leaf = pod * nics_per_server + nic + 1
        gpus = f"  - leaf: leaf{leaf:02d}\n    ports: [{33 + slot}]\n"
        block = _block(offset, 31)
        offset += 2
        out.append(MixedTenant(name, tenant_yaml(name, tid, "l3", block, gpus)))
    assert next_server <= servers, "mixed tenants do not fit the fabric"
    # two two-sided exceptions: train-01 <-> segment-05, finetune-13 <-> lab-21
    return _share(_share(out, "train-01", "segment-05"), "finetune-13", "lab-21")


def _share(tenants: list[MixedTenant], a: str, b: str) -> list[MixedTenant]:
    out = []
    for t in tenants:
        peer = b if t.name == a else a if t.name == b else None
        text = t.file_text + f"shared_with: [{peer}]\n" if peer else t.file_text
        out.append(MixedTenant(t.name, text))
    return out


def write_mixed_tenants(root: Path) -> list[str]:
    """The 32 mixed tenants of `mixed_tenants`, as tenants/<name>.yaml."""
    tenants = mixed_tenants()
    for t in tenants:
        _write(root, t.name, t.file_text)
    return [t.name for t in tenants]


def move_single_gpu(root: Path, name: str, server: int, nic: int) -> Path:
    """Point a `server`+`nics` tenant at another GPU (the one-tenant change of scenario e)."""
    path = root / "tenants" / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    text, n = re.subn(
        r"  - server: gpu\d+\n    nics: \[\d+\]\n", f"  - server: gpu{server:03d}\n    nics: [{nic}]\n", text
    )
    if n != 1:
        raise ValueError(f"{path}: not a single-GPU tenant")
    path.write_text(text, encoding="utf-8")
    return path
