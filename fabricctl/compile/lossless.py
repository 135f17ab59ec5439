"""The RoCEv2 lossless class as one switch applies it."""

from __future__ import annotations

from fabricctl.compile.buffers import figures_for
from fabricctl.compile.intent import Qos
from fabricctl.model.fabric import QosPolicy, Switch
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import SwitchModel


def qos_intent(policy: QosPolicy, switch: Switch, model: SwitchModel) -> Qos:
    """The switch's QoS (`model`: its switch model, as compile's view holds it)."""
    platform = get_platform(switch.platform)
    cnp_class = policy.cnp_class if policy.cnp_class is not None else platform.cnp_class
    figures = figures_for(model, policy.buffer)
    return Qos(
        profile_name=policy.profile_name,
        dscp_to_class={policy.roce_dscp: policy.lossless_priority, policy.cnp_dscp: cnp_class},
        lossless_class=policy.lossless_priority,
        cnp_class=cnp_class,
        protocol_class=platform.protocol_class,
        default_class=0,
        lossless_bandwidth_percent=policy.lossless_bandwidth_percent,
        mtu=policy.mtu,
        tenant_mtu=policy.gpu_mtu,
        roce_mtu=policy.roce_mtu,
        cell_bytes=figures.cell_bytes if figures is not None else None,
        tuning=policy.tuning_for(platform).model_dump(),
    )
