"""`python -m fabricctl.lab --root DIR [--faults FILE] [--shard K/N --block CIDR]`: serve a lab (or
one shard of a sharded lab, docs/lab.md) in the foreground.

This is what `fabricctl lab up --detach` spawns. It writes `.fabricctl/lab/lab.json` once
every port listens, removes it on SIGTERM/SIGINT, resets every device on SIGHUP, and re-cables the
racks `recable.json` names as the inventory's cabling rules say on SIGUSR1 (`fabricctl lab recable`)
and reloads the switches `reboot.json` names from their startup-config on SIGUSR2 (`fabricctl lab
reboot`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import threading
import time
from ipaddress import IPv4Network
from pathlib import Path

from fabricctl.errors import StageError
from fabricctl.lab.clock import LabClock
from fabricctl.lab.fabric_state import Cabling
from fabricctl.lab.faults import FaultFileError
from fabricctl.lab.runtime import lab_json, reboot_request, recable_request, shards_dir, write_lab_json
from fabricctl.lab.server import LabFabric, address_block, env_time_scale
from fabricctl.lab.shards import Shard


async def serve(
    root: Path,
    faults: Path | None,
    shard: Shard | None = None,
    block: IPv4Network | None = None,
    origin: float | None = None,
) -> None:
    """Run until SIGTERM/SIGINT (one shard of a sharded lab with `shard`)."""
    clock = LabClock(scale=env_time_scale(), origin=origin)
    fabric = LabFabric.from_inventory(root, shard=shard, block=block, clock=clock)
    if faults is not None:
        fabric.load_faults(faults)
    await fabric.serve_start()
    counts = {"resets": 0, "recables": 0, "reboots": 0}
    write_lab_json(root, fabric, counts)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_hup() -> None:
        fabric.reset()
        counts["resets"] += 1
        write_lab_json(root, fabric, counts)

    def on_usr1() -> None:
        try:
            switches = json.loads(recable_request(root).read_text(encoding="utf-8"))["switches"]
        except (OSError, ValueError, KeyError, TypeError):
            switches = None
        changed = fabric.recable(Cabling.from_inventory(root), switches)
        counts["recables"] += 1
        write_lab_json(root, fabric, {**counts, "recabled": [list(end) for end in changed]})

    def on_usr2() -> None:
        try:
            switches = json.loads(reboot_request(root).read_text(encoding="utf-8"))["switches"]
        except (OSError, ValueError, KeyError, TypeError):
            switches = None
        fabric.reboot(switches)
        counts["reboots"] += 1
        write_lab_json(root, fabric, counts)

    if fabric.ztp_waiting():  # rack switches delivered factory-default: they boot by ZTP
        agent = threading.Thread(target=ztp_agent, args=(fabric, root, counts), name="lab-ztp", daemon=True)
        agent.start()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    loop.add_signal_handler(signal.SIGHUP, on_hup)
    loop.add_signal_handler(signal.SIGUSR1, on_usr1)
    loop.add_signal_handler(signal.SIGUSR2, on_usr2)
    try:
        await stop.wait()
    finally:
        await fabric.serve_stop()
        if fabric.board is not None and shard is not None:
            (shards_dir(root) / f"{shard.index}.json").unlink(missing_ok=True)
        else:
            lab_json(root).unlink(missing_ok=True)


def ztp_agent(fabric: LabFabric, root: Path, counts: dict[str, int]) -> None:
    """What a factory-default switch does until it has a config: ask DHCP, fetch the boot file,
    retry (EOS and Comware both retry until they get a file). The lab's switches ask once the
    ZTP files exist (`fabricctl ztp render`) and `fabricctl ztp serve --lab` listens; each
    outcome is printed to the lab's log and the waiting switches are listed in lab.json."""
    from fabricctl.lab.ztp import KEA_FILE, SERVE_FILE, ZTP_FOLDER, boot

    folder = root / ZTP_FOLDER
    while waiting := fabric.ztp_waiting():
        write_lab_json(root, fabric, {**counts, "ztp_waiting": waiting})
        if (folder / KEA_FILE).is_file() and (folder / SERVE_FILE).is_file():
            try:
                outcomes, how = boot(fabric, folder)
            except (OSError, ValueError, KeyError) as exc:
                print(f"ztp: {exc}", flush=True)
            else:
                print(f"ztp: DHCP answered by {how}", flush=True)
                for outcome in outcomes:
                    print(f"ztp: {outcome.line()}", flush=True)
        time.sleep(RETRY_SECONDS)
    write_lab_json(root, fabric, {**counts, "ztp_waiting": []})


#: Seconds between a waiting switch's DHCP attempts (real time: the switch's own retry loop).
RETRY_SECONDS = 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fabricctl.lab")
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--faults", type=Path, default=None)
    parser.add_argument("--shard", default=None, help="K/N: serve shard K of N (lab/shards.py)")
    parser.add_argument(
        "--block", default=None, help="the /16 (or smaller) the switches' addresses come from"
    )
    parser.add_argument(
        "--origin", type=float, default=None, help="calendar time of lab second 0 (shards share it)"
    )
    args = parser.parse_args(argv)
    try:
        shard = Shard.parse(args.shard) if args.shard else None
        block = address_block(args.block) if args.block else None
        asyncio.run(serve(args.root, args.faults, shard, block, args.origin))
    except (FaultFileError, FileNotFoundError, ValueError, StageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
