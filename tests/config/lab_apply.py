"""Send commands to a lab device without SSH: the lab's own CLI session and device model, offline.

What a switch would hold after a remediation is pushed, for fixture and property tests of diff.
"""

from __future__ import annotations

import asyncio

from fabricctl.lab.clock import LabClock
from fabricctl.lab.device import LabDevice
from fabricctl.lab.dialect import CliError
from fabricctl.lab.factory import DeviceSpec
from fabricctl.lab.state import StateStore

#: How each platform's CLI is entered and left around a config push.
SESSION = {"comware": ("system-view", "return"), "eos": ("configure", "end")}


def lab_device(
    name: str, platform: str, running: str | None = None, spec: DeviceSpec | None = None
) -> LabDevice:
    """A lab switch in memory; `running` replaces its factory config (parsed by its grammar).
    `spec` (from the inventory: model, management address) makes it the device the lab boots."""
    dev = LabDevice(spec or DeviceSpec(name, platform), StateStore(None), clock=LabClock.frozen())
    if running is not None:
        dev.set_running(dev.parse(running))
    return dev


def push(dev: LabDevice, commands: list[str]) -> list[str]:
    """Send `commands` in config mode as one CLI session; returns the lines the device rejected."""
    enter, leave = SESSION[dev.platform]
    cli = dev.nos.cli(dev)
    rejected: list[str] = []

    async def run() -> None:
        for line in [enter, *commands, leave]:
            try:
                await cli.execute(line)
            except CliError:
                rejected.append(line)

    asyncio.run(run())
    return rejected
