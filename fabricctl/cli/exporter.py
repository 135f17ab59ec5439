"""`fabricctl exporter`: serve the fabric's port counters to Prometheus until interrupted."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

import click

from fabricctl import pipeline
from fabricctl.cli.common import (
    CliError,
    ListenAddress,
    Seconds,
    lab_option,
    limit_option,
    root_option,
    select_switches,
    timeout_option,
)


@click.command("exporter")
@root_option
@lab_option
@limit_option
@click.option(
    "--listen",
    type=ListenAddress(),
    default="127.0.0.1",
    show_default=True,
    help="Address to serve /metrics on (an IP address of this host, 0.0.0.0 or :: for all, or a host name).",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=9464, show_default=True, help="0: any free port."
)
@click.option(
    "--interval",
    type=Seconds(min=1, max=3600),
    default=30.0,
    show_default=True,
    help="Seconds between the starts of two reads of a switch.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 512),
    default=32,
    show_default=True,
    help="Switches read at once.",
)
@timeout_option
def exporter_cmd(
    root: Path,
    lab: bool,
    limit: tuple[str, ...],
    listen: str,
    port: int,
    interval: float,
    concurrency: int,
    timeout: float,
) -> None:
    """Serve Prometheus metrics of every switch's port counters, labelled by tenant, leaf, server and NIC."""
    from fabricctl.telemetry.exporter import Exposition, Poller, Snapshot, serve
    from fabricctl.telemetry.gnmi import feeds

    compiled = pipeline.compile(root)
    names = set(select_switches(compiled, limit))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    exposition = Exposition(compiled)
    for name in sorted(names):  # every switch answers `up 0` until its first read
        exposition.update(name, Snapshot())
    try:  # listen before any switch is contacted: an address this host cannot take is named first
        server = serve(exposition, listen, port)
    except OSError as exc:
        raise CliError(
            f"--listen {listen} --port {port}: cannot listen there: {exc.strerror or exc} "
            "(allowed: an address of this host and a free port)"
        ) from None
    try:
        # Switches with `telemetry: gnmi` stream their counters; the poller reads the others.
        with feeds(root, lab, names, concurrency, timeout, exposition.update) as (read, streamed):
            poller = Poller(names - streamed, read, interval, concurrency, on_update=exposition.update)
            bound = server.address[1]
            click.echo(f"serving http://{listen}:{bound}/metrics for {len(names)} switches", err=True)
            sys.stderr.flush()
            poller.start()
            try:
                stop.wait()
            finally:
                poller.stop()
    finally:
        server.stop()
