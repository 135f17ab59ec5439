"""What a SONiC switch's configuration says: its ports (CONFIG_DB PORT, INTERFACE, PORT_QOS_MAP),
its loopback, VTEP and VRFs (LOOPBACK_INTERFACE, VXLAN_TUNNEL, VRF) and its BGP (frr.conf)."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from fabricctl.lab.config_tree import Node
from fabricctl.lab.facts import DeviceFacts, PeerFacts, PortFacts

from .render import FRR, ConfigDb, db_of


def _ports(db: ConfigDb, facts: DeviceFacts) -> None:
    addresses: dict[str, list[IPv4Interface]] = {}
    for table in ("INTERFACE", "LOOPBACK_INTERFACE", "VLAN_INTERFACE"):
        for key in db.get(table, {}):
            port, _, prefix = key.partition("|")
            if prefix and ":" not in prefix:
                addresses.setdefault(port, []).append(IPv4Interface(prefix))
    qos = db.get("PORT_QOS_MAP", {})
    for name, row in db.get("PORT", {}).items():
        pfc = str(qos.get(name, {}).get("pfc_enable", ""))
        vrf = db.get("INTERFACE", {}).get(name, {}).get("vrf_name")
        facts.ports[name] = PortFacts(
            name,
            admin_up=row.get("admin_status") == "up",
            description=str(row.get("description", "")),
            addresses=addresses.get(name, []),
            vrf=str(vrf) if vrf else "default",
            routed=name in db.get("INTERFACE", {}) or name in addresses,
            pfc=bool(pfc),
            no_drop=tuple(int(p) for p in pfc.split(",") if p),
            mtu=int(row["mtu"]) if "mtu" in row else None,
            speed=int(row["speed"]) // 1000 if "speed" in row else None,
        )
    for name in db.get("LOOPBACK_INTERFACE", {}):
        if "|" not in name:
            facts.ports[name] = PortFacts(name, admin_up=True, addresses=addresses.get(name, []), routed=True)


def _bgp(router: Node, facts: DeviceFacts) -> None:
    words = router.text.split()
    vrf = words[4] if len(words) > 4 else None
    if vrf is not None:
        facts.redistributed.add(vrf)
        for af in router.children.values():
            for line in af.children:
                w = line.split()
                if w[:1] == ["rd"]:
                    facts.rds[vrf] = w[1]
        return
    facts.asn = int(words[2])
    families: dict[str, set[str]] = {}
    for line, child in router.children.items():
        w = line.split()
        if w[:2] == ["bgp", "router-id"]:
            facts.router_id = IPv4Address(w[2])
        elif w[:1] == ["neighbor"] and w[2] == "remote-as":
            ip = IPv4Address(w[1])
            facts.peers[ip] = PeerFacts(ip, int(w[3]))
        elif w[:1] == ["neighbor"] and w[2] == "description":
            facts.peers[IPv4Address(w[1])].description = " ".join(w[3:])
        elif w[:1] == ["neighbor"] and w[2] == "bfd":
            facts.peers[IPv4Address(w[1])].bfd = True
        elif w == ["bgp", "bestpath", "as-path", "multipath-relax"]:
            facts.multipath_relax = True
        elif w[:1] == ["address-family"]:
            family = "evpn" if w[1] == "l2vpn" else "ipv4"
            for sub in child.children:
                s = sub.split()
                if s[:1] == ["network"]:
                    facts.networks.append(IPv4Network(s[1]))
                elif s[:1] == ["maximum-paths"]:
                    facts.max_paths = int(s[1])
                elif s[:1] == ["neighbor"] and s[2] == "activate":
                    families.setdefault(s[1], set()).add(family)
    for ip, peer in facts.peers.items():
        peer.families = families.get(str(ip), set())


def read_facts(name: str, running: Node) -> DeviceFacts:
    db = db_of(running)
    facts = DeviceFacts(hostname=name, platform="sonic")
    _ports(db, facts)
    for row in db.get("VXLAN_TUNNEL", {}).values():
        if "src_ip" in row:
            facts.vtep = IPv4Address(row["src_ip"])
    for vrf, row in db.get("VRF", {}).items():
        if "vni" in row:
            facts.vnis[int(row["vni"])] = ("vrf", vrf)
    for row in db.get("VXLAN_TUNNEL_MAP", {}).values():
        facts.vnis[int(row["vni"])] = ("vlan", str(row["vlan"]).removeprefix("Vlan"))
    frr = running.children.get(FRR)
    for node in frr.children.values() if frr is not None else ():
        if node.text.startswith("router bgp"):
            _bgp(node, facts)
    return facts
