"""The client matrix: the third-party clients an operator points at a switch, run against each
NOS's lab after `fabricctl apply`, every call checked against what the applied fabric implies,
and a table of the results.

    python -m tests.client_matrix [--nos eos|comware|nvue ...] [--details]

Per NOS one small fabric is applied to a fresh lab (eos-small on EOS and on Comware, nvue-small
on Cumulus Linux) and an hour of lab time passes; then each client runs its calls (the calls and
their checks are the client tests', tests/deploy/test_*_clients.py and tests/lab/test_show_layouts.py):

- **eos**: ANTA (the catalogue of tests/deploy/anta_run.py, every test on every switch), every
  NAPALM eos getter, pyeapi's node and resource APIs;
- **comware**: every getter napalm-h3c-comware implements (and the ones it leaves to NAPALM,
  which must raise);
- **nvue**: NVUE's show paths, iproute2 and vtysh JSON over netmiko (cumulus_linux);
- on each, ntc-templates parsing the show commands of its platform (linux for Cumulus) read with
  netmiko, and scrapli (2026) reading the same commands to the same text.

A call is right when its check holds, a finding when it fails for a reason the catalogue names
(anta_run.FINDINGS: the fabric's configuration lacks what the test asks for), wrong otherwise.
Exit 1 when any call is wrong.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fabricctl import pipeline
from fabricctl.lab.runtime import lab_credentials
from tests.conftest import EOS_SMALL, NVUE_SMALL, send_text


@dataclass(frozen=True)
class Row:
    nos: str
    client: str
    call: str
    status: str  # right | finding | wrong
    detail: str = ""


@contextmanager
def _applied(src: Path, platform: str | None) -> Iterator[Any]:
    """A fresh lab of the fabric at `src` (its switches on `platform`), applied, an hour on."""
    from tests.deploy.conftest import _lab_root
    from tests.deploy.test_eos_clients import apply

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        for lab in _lab_root(src, Path(tmp), mp, platform):
            if apply(lab) != 0:
                raise SystemExit(f"fabricctl apply failed on the {platform or 'eos'} lab")
            lab.lab.advance(3600)
            yield lab


def _answer_checked(driver: Any, call: str, check: Callable[[Any, Any], None], applied: Any) -> None:
    """The NAPALM getter `call`'s answer, checked against the applied fabric."""
    check(getattr(driver, call)(), applied)


def _run(nos: str, client: str, call: str, check: Callable[[], None]) -> Row:
    try:
        check()
    except Exception as exc:  # a failed check, or a client error: the call is wrong
        return Row(nos, client, call, "wrong", f"{type(exc).__name__}: {exc}"[:300])
    return Row(nos, client, call, "right")


def _raises_not_implemented(call: Callable[[], Any]) -> None:
    """A call the client leaves to NAPALM's base class must raise NotImplementedError."""
    try:
        call()
    except NotImplementedError:
        return
    raise AssertionError("returned instead of raising NotImplementedError")


def _scrapli(lab: Any, switch: str, definition: str) -> Any:
    from scrapli import AuthOptions, Cli
    from scrapli.auth import LookupKeyValue

    user, password = lab_credentials()
    ep = lab.endpoints()[switch]
    conn = Cli(
        ep.host,
        port=ep.ssh_port,
        definition_file_or_name=definition,
        auth_options=AuthOptions(
            username=user, password=password, lookups=[LookupKeyValue(key="enable", value=password)]
        ),
    )
    conn.open()
    return conn


def _tables(nos: str, lab: Any, definition: str, tables: list[Any]) -> list[Row]:
    """ntc-templates over netmiko (the tables of tests/lab/test_show_layouts.py, each parsed to
    what the fabric implies), and scrapli reading the same commands to the same text."""
    from tests.lab.test_show_layouts import Fabric, _check

    fabric = Fabric(lab.lab, lab.root, "leaf1")
    scrapli = _scrapli(lab.lab, "leaf1", definition)
    rows: list[Row] = []
    try:
        for command, expect in tables:
            rows.append(
                _run(
                    nos, "netmiko+ntc-templates", command, functools.partial(_check, fabric, command, expect)
                )
            )

            def same(command: str = command) -> None:
                got = scrapli.send_input(command, operation_timeout_ns=60_000_000_000).result
                want = send_text(fabric.conn, command, read_timeout=120)
                # each client trims its own way: trailing blanks of a line, blank lines around the output
                assert [ln.rstrip() for ln in got.strip("\n").splitlines()] == [
                    ln.rstrip() for ln in want.strip("\n").splitlines()
                ]

            rows.append(_run(nos, f"scrapli ({definition})", command, same))
    finally:
        scrapli.close()
        fabric.conn.disconnect()
    return rows


def eos() -> list[Row]:
    from tests.deploy import anta_run
    from tests.deploy import test_eos_clients as clients
    from tests.lab.conftest import napalm_eos
    from tests.lab.test_show_layouts import EOS_TABLES

    rows: list[Row] = []
    with _applied(EOS_SMALL, None) as lab:
        compiled = pipeline.compile(lab.root)
        for switch, test, status, messages in anta_run.run(lab.lab, anta_run.catalogue(compiled)):
            verdict = "right" if status == "success" else "finding" if test in anta_run.FINDINGS else "wrong"
            rows.append(Row("eos", "anta", f"{test} ({switch})", verdict, "; ".join(messages)[:300]))
        eapi = clients.eapi_node(lab.lab, clients.SWITCH)
        driver = napalm_eos(lab.lab, clients.SWITCH, timeout=60)
        try:
            applied = clients.Applied(lab, compiled, driver, eapi)
            for client, call, check in clients.CALLS:

                def one(client: str = client, call: str = call, check: Any = check) -> None:
                    if check is clients._not_implemented:
                        _raises_not_implemented(lambda: clients._call(applied, client, call))
                    else:
                        check(clients._call(applied, client, call), applied)

                rows.append(_run("eos", client, call, one))
        finally:
            driver.close()
        rows += _tables("eos", lab, "arista_eos", EOS_TABLES)
    return rows


def comware() -> list[Row]:
    from napalm import get_network_driver

    from tests.deploy import test_comware_clients as clients
    from tests.lab.test_show_layouts import COMWARE_TABLES

    rows: list[Row] = []
    with _applied(EOS_SMALL, "comware") as lab:
        compiled = pipeline.compile(lab.root)
        ep = lab.lab.endpoints()[clients.SWITCH]
        user, password = lab_credentials()
        driver = get_network_driver("h3c_comware")(
            ep.host, user, password, timeout=60, optional_args={"port": ep.ssh_port}
        )
        driver.open()
        try:
            applied = clients.Applied(lab, compiled, driver)
            for call, check in clients.CALLS:
                rows.append(
                    _run(
                        "comware",
                        "napalm-h3c-comware",
                        call,
                        functools.partial(_answer_checked, driver, call, check, applied),
                    )
                )
            for call in clients.NOT_IMPLEMENTED:
                method = getattr(driver, call)
                rows.append(
                    _run(
                        "comware",
                        "napalm-h3c-comware",
                        call,
                        functools.partial(_raises_not_implemented, method),
                    )
                )
        finally:
            driver.close()
        rows += _tables("comware", lab, "hp_comware", COMWARE_TABLES)
    return rows


def nvue() -> list[Row]:
    import json

    from netmiko import ConnectHandler

    from tests.deploy import test_nvue_clients as clients
    from tests.lab.test_show_layouts import NVUE_TABLES

    rows: list[Row] = []
    with _applied(NVUE_SMALL, None) as lab:
        compiled = pipeline.compile(lab.root)
        ep = lab.lab.endpoints()[clients.SWITCH]
        user, password = lab_credentials()
        conn = ConnectHandler(
            device_type="cumulus_linux", host=ep.host, port=ep.ssh_port, username=user, password=password
        )
        try:
            applied = clients.Applied(lab, compiled, conn)
            for command, check in clients.CALLS:
                rows.append(
                    _run(
                        "nvue",
                        "netmiko (nv, ip, vtysh)",
                        command,
                        lambda c=command, k=check: k(
                            json.loads(send_text(conn, c, read_timeout=60)), applied
                        ),  # type: ignore[misc]
                    )
                )
        finally:
            conn.disconnect()
        rows += _tables("nvue", lab, "cumulus_linux", NVUE_TABLES)
    return rows


RUNNERS: dict[str, Callable[[], list[Row]]] = {"eos": eos, "comware": comware, "nvue": nvue}


def table(rows: list[Row], details: bool = False) -> str:
    """One line per NOS x client: how many calls are right, findings, wrong; then what is not right."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for r in rows:
        groups.setdefault((r.nos, r.client), []).append(r)
    lines = [
        f"{'NOS':<8} {'client':<26} {'right':>6} {'finding':>8} {'wrong':>6} {'calls':>6}",
        f"{'-' * 8} {'-' * 26} {'-' * 6} {'-' * 8} {'-' * 6} {'-' * 6}",
    ]
    for (nos, client), group in groups.items():
        count = {s: sum(1 for r in group if r.status == s) for s in ("right", "finding", "wrong")}
        lines.append(
            f"{nos:<8} {client:<26} {count['right']:>6} {count['finding']:>8} {count['wrong']:>6} {len(group):>6}"
        )
    shown = [r for r in rows if r.status == "wrong" or (details and r.status == "finding")]
    if shown:
        lines.append("")
        lines += [f"{r.status:<8} {r.nos} {r.client}: {r.call}: {r.detail}" for r in shown]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nos", action="append", choices=sorted(RUNNERS), help="only these NOSes")
    parser.add_argument("--details", action="store_true", help="list the findings too")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    started = time.process_time()
    for nos in args.nos or list(RUNNERS):
        rows += RUNNERS[nos]()
    print(table(rows, args.details))
    print(f"\n{len(rows)} calls, {time.process_time() - started:.1f} s CPU in this process")
    return 1 if any(r.status == "wrong" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
