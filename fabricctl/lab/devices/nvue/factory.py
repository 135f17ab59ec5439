"""An NVUE switch's startup configuration as it leaves the factory, and what erasing leaves.

NVUE's default startup.yaml sets the hostname and the management interface (NVUE CLI, "Default
Startup File"); the management port eth0 sits in the `mgmt` VRF with its default route there
(the NVUE API's root patch example), written in the 5.15 forms (`ipv4 address`, `vrf`). Switch
ports appear in the configuration once configured.
"""

from __future__ import annotations

from fabricctl.lab.devices.nvue.tree import Tree, dump_yaml, header
from fabricctl.lab.factory import mgmt_gateway
from fabricctl.lab.nos import Spec

MODEL = "SN5600"


def _text(tree: Tree) -> str:
    return dump_yaml([{"header": header(MODEL)}, {"set": tree}])


def factory(spec: Spec) -> str:
    return _text(
        {
            "system": {"hostname": spec.name},
            "interface": {
                "eth0": {"ipv4": {"address": {f"{spec.mgmt_ip}/24": {}}}, "type": "eth", "vrf": "mgmt"},
                "lo": {"type": "loopback"},
            },
            "vrf": {"mgmt": {"router": {"static": {"0.0.0.0/0": {"via": {mgmt_gateway(spec.mgmt_ip): {}}}}}}},
        }
    )


def hardware(spec: Spec) -> str:
    """`nv config replace` of an empty file: nothing configured, every switch port down."""
    return _text({})


def ztp_factory(spec: Spec) -> str:
    """Out of the box: the default startup file's hostname, no management address yet."""
    return _text({"system": {"hostname": "cumulus"}})
