"""Comware interface types and the short forms its tables print (400GE1/0/1), in Comware's
interface order; lab/names.py reads them."""

INTERFACE_TYPES = {
    "FourHundredGigE": "400GE",
    "TwoHundredGigE": "200GE",
    "M-GigabitEthernet": "M-GE",
    "LoopBack": "Loop",
    "Vsi-interface": "Vsi",
    "Tunnel": "Tun",
    "Vlan-interface": "Vlan",
    "NULL": "NULL",
    "InLoopBack": "InLoop",
}
