"""EOS interface types and the short forms its tables print (Et1), in EOS's interface order
(`show running-config` lists interfaces type by type in this order); lab/names.py reads them."""

INTERFACE_TYPES = {
    "Port-Channel": "Po",
    "Ethernet": "Et",
    "Loopback": "Lo",
    "Management": "Ma",
    "Tunnel": "Tu",
    "Vlan": "Vl",
    "Vxlan": "Vx",
}
