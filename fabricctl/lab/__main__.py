"""`python -m fabricctl.lab --root DIR [--faults FILE]`: serve a lab in the foreground.

This is what `fabricctl lab up --detach` spawns. It writes `.fabricctl/lab/lab.json` once
every port listens, removes it on SIGTERM/SIGINT, and resets every device on SIGHUP.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from fabricctl.lab.faults import FaultFileError
from fabricctl.lab.runtime import lab_json, write_lab_json
from fabricctl.lab.server import LabFabric


async def serve(root: Path, faults: Path | None) -> None:
    """Run until SIGTERM/SIGINT."""
    fabric = LabFabric.from_inventory(root)
    if faults is not None:
        fabric.load_faults(faults)
    await fabric.serve_start()
    resets = 0
    write_lab_json(root, fabric, {"resets": resets})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_hup() -> None:
        nonlocal resets
        fabric.reset()
        resets += 1
        write_lab_json(root, fabric, {"resets": resets})

    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    loop.add_signal_handler(signal.SIGHUP, on_hup)
    try:
        await stop.wait()
    finally:
        await fabric.serve_stop()
        lab_json(root).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fabricctl.lab")
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--faults", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        asyncio.run(serve(args.root, args.faults))
    except (FaultFileError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
