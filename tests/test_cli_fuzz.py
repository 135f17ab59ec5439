"""Every command and subcommand, driven with bad values made from its own click options: wrong
types, numbers out of range, unknown choices, missing files, folders where files are expected,
files where folders are, symlinks where fabricctl writes, unknown switches, text that breaks a
line. Each ends in exit 1 with one clear message that names the option or the value, no
traceback, nothing contacted, nothing served.

The values come from the click tree (`_cases`), so an option added later is driven too. The bad
value takes the place of the option's valid value in `BASE`, so it is the only one given.
"""

from __future__ import annotations

import os
import socketserver
import subprocess
import types
from collections.abc import Iterator

import click
import pytest

from fabricctl.cli import app
from fabricctl.cli.common import Duration, ListenAddress
from tests.conftest import EOS_SMALL, copy_fabric, run_cli

#: Valid values for what a command needs, so the bad value is the only thing wrong. `{day0}` is
#: a pod of racks (rack and ztp commands), `{plan}` a JSON file, `{new}` a path that is free.
BASE: dict[str, list[str]] = {
    "init": ["{new}", "--install", "fabricctl==0.1.0"],
    "show tenant": ["storage"],
    "tenant new": ["newtenant", "--gpus", "1", "--dry-run"],
    "tenant rm": ["storage", "--dry-run"],
    "apply": ["--lab", "--auto-approve"],
    "shards": ["{plan}"],
    "completion": ["bash"],
    "rack add": ["r02", "--template", "{day0}/rack-template.yaml", "--serials", "{day0}/serials-r02.csv", "--dry-run"],
    "rack accept": ["r01", "--lab", "--soak", "10m"],
    "ztp render": ["--lab", "--out", "{new}"],
    "ztp serve": ["--lab"],
    "lab ssh": ["leaf1"],
    "drain": ["spine1"],
    "undrain": ["spine1"],
}  # fmt: skip
DAY0 = ("rack", "ztp")
#: Strings that mean something: the value each must refuse.
STRINGS: dict[str, list[str]] = {
    "--limit": ["nosuch-switch", "pod:77", "rack:nosuch"],
    "--tenant": ["nosuch-tenant"],
    "--changed-since": ["no-such-ref"],
    "--tenant-base": ["no-such-ref"],
    "--shard": ["pod:77"],
    "--digest": ["not-a-digest"],
    "--approved-by": ["two words"],
    "--run-group": ["../up"],
    "--install": ["fabricctl==0.1.0\nrm -rf /"],
    "--ticket": ["", "T" * 65],
    "--hook": ["no-such-program {{a}} {{b}}", "rdma-bw '{{a}} {{b}}"],  # {{}}: the test formats it
}
LINE_BREAK = "bad\nvalue"


def _commands() -> Iterator[tuple[str, click.Command]]:
    def walk(cmd: click.Command, path: list[str]) -> Iterator[tuple[str, click.Command]]:
        if isinstance(cmd, click.Group):
            ctx = click.Context(cmd)
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), cmd

    yield from walk(app, [])


def _bad_values(param: click.Parameter) -> list[tuple[str, str]]:
    """(what, value) for each bad value of `param`; paths are templates (`{dir}`, ...)."""
    t = param.type
    if isinstance(param, click.Option) and (param.is_flag or param.count):
        return []
    if isinstance(t, click.Choice):
        return [("unknown choice", "no-such-choice")]
    if isinstance(t, click.IntRange):
        out = [("not a number", "abc")]
        if t.min is not None:
            out.append(("below the range", str(t.min - 1)))
        if t.max is not None:
            out.append(("above the range", str(t.max + 1)))
        return out
    if isinstance(t, click.FloatRange):
        out = [("not a number", "abc"), ("nan", "nan"), ("inf", "inf")]
        if t.min is not None:
            out.append(("below the range", str(t.min - 1)))
        if t.max is not None:
            out.append(("above the range", str(t.max + 1)))
        return out
    if isinstance(t, Duration):
        out = [("not a duration", "soon"), ("above the range", f"{t.high + 1}s")]
        if t.low > 0:
            out.append(("below the range", f"{t.low - 1}s"))
        return [*out, ("a line break", LINE_BREAK)]
    if isinstance(t, ListenAddress):
        return [("meaningless", "300.1.2.3"), ("a line break", LINE_BREAK)]
    if t is click.INT:
        return [("not a number", "abc"), ("negative", "-5"), ("zero", "0")]
    if isinstance(t, click.Path):
        if not t.file_okay:
            return [("a file where a folder is expected", "{file}")]
        out = [("a folder where a file is expected", "{dir}")]
        if t.exists:
            out.append(("a missing file", "{missing}"))
        else:
            out.append(("a symlink where a file is written", "{symlink}"))
        return out
    if t is click.STRING:
        name = param.opts[0]
        return [("meaningless", v) for v in STRINGS.get(name, [])] + [("a line break", LINE_BREAK)]
    raise AssertionError(f"{param.name}: no bad values for {t!r}: add them here")


def _cases() -> Iterator[tuple[str, str, str, str]]:
    for path, cmd in _commands():
        for param in cmd.params:
            if param.name in ("verbose", "root"):
                continue  # `--root`: below, once per command
            for what, value in _bad_values(param):
                yield path, param.opts[0] if isinstance(param, click.Option) else "", what, value
        if any(p.name == "root" for p in cmd.params):
            yield path, "--root", "a file where a folder is expected", "{file}"
            yield path, "--root", "a folder without inventory/", "{dir}"


CASES = list(_cases())


class Served(AssertionError):
    """A command got past its checks to serve or start a process: the bad value went through."""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The fabrics and files the cases name (made once: no case may change them)."""
    from tests.day0.helpers import day0_pod

    tmp = tmp_path_factory.mktemp("fuzz")
    root = copy_fabric(EOS_SMALL, tmp / "fabric")
    day0 = day0_pod(tmp / "day0", racks=(("r01", "spine-rack-template.yaml"),))
    (tmp / "dir").mkdir()
    (tmp / "file").write_text("x\n")
    (tmp / "plan.json").write_text("{}\n")
    (tmp / "symlink").symlink_to(tmp / "elsewhere")
    return {
        "root": str(root),
        "day0": str(day0),
        "dir": str(tmp / "dir"),
        "file": str(tmp / "file"),
        "missing": str(tmp / "missing.json"),
        "symlink": str(tmp / "symlink"),
        "plan": str(tmp / "plan.json"),
        "new": str(tmp / "new"),
    }


@pytest.fixture
def places(made: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    def served(*args: object, **kwargs: object) -> None:
        raise Served(f"started: {args[:2]!r}")

    monkeypatch.setattr(socketserver.BaseServer, "serve_forever", served)
    monkeypatch.setattr(os, "execv", served)
    import fabricctl.cli.lab

    lab_up = types.SimpleNamespace(Popen=served, DEVNULL=subprocess.DEVNULL)  # `lab up --detach`
    monkeypatch.setattr(fabricctl.cli.lab, "subprocess", lab_up)
    import fabricctl.deploy.acceptance

    monkeypatch.setattr(fabricctl.deploy.acceptance, "run_acceptance", served)  # `rack accept`: the soak
    monkeypatch.delenv("FABRICCTL_LAB_USERNAME", raising=False)
    return made


def _id(case: tuple[str, str, str, str]) -> str:
    return f"{case[0]} {case[1]} {case[2]}"


@pytest.mark.parametrize(("command", "option", "what", "value"), CASES, ids=map(_id, CASES))
def test_a_bad_value_is_one_located_error(
    command: str,
    option: str,
    what: str,
    value: str,
    places: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    no_network: list[object],
) -> None:
    root = places["day0"] if command.startswith(DAY0) else places["root"]
    bad = value.format(**places)
    base = [b.format(**places) for b in BASE.get(command, [])]
    argv = [*command.split(), *([option, bad] if option else [bad])]
    if option in base:  # the bad value is the option's only value (click keeps the last one given)
        at = base.index(option)
        del base[at : at + 2]
    if not option:  # an argument: the bad value takes its place; the command's options stay
        options = BASE.get(command, [])
        keep = [i for i, b in enumerate(options) if b.startswith("--")]
        base = [options[j].format(**places) for i in keep for j in (i, i + 1) if j < len(options)]
    tail = [] if option == "--root" or command in ("completion", "schema") else ["--root", root]
    if command == "init":
        tail = []
    code, _, err = run_cli([*argv, *base, *tail], capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1, f"exit {code}: {err[-600:]}"
    assert "Traceback" not in err and lines, err[-600:]
    said = lines[-1] if not lines[-1].startswith(("1 error", "2 errors")) else "\n".join(lines)
    named = option or "Invalid value for"
    shown = bad.splitlines()[0] if bad else bad
    assert named in said or shown in said or bad in err, (
        f"{what}: neither {named!r} nor the value in: {said!r}"
    )
    assert not no_network, f"contacted: {no_network}"


@pytest.mark.parametrize(
    "text", ["127.0.0.1", "0.0.0.0", "::", "::1", "fe80::1%eth0", "localhost", "metrics.example.net."]
)
def test_a_listen_address_is_an_ip_address_or_a_host_name(text: str) -> None:
    assert ListenAddress().convert(text, None, None) == text


@pytest.mark.parametrize(
    "text", ["300.1.2.3", "10.1.2", "", "-exporter", "a..b", "under_score", "bad\nvalue", "a" * 64, "::1x"]
)
def test_an_address_no_host_can_listen_on_is_refused(text: str) -> None:
    with pytest.raises(click.BadParameter, match="not an IP address or host name"):
        ListenAddress().convert(text, None, None)


def test_the_exporter_listens_before_any_switch_is_read(
    made: dict[str, str], capsys: pytest.CaptureFixture[str], no_network: list[object]
) -> None:
    """An address this host does not have (TEST-NET-1) is named before the lab starts or a
    switch is read."""
    argv = ["exporter", "--lab", "--listen", "192.0.2.1", "--port", "0", "--root", made["root"]]
    code, _, err = run_cli(argv, capsys)
    assert code == 1 and "error: --listen 192.0.2.1 --port 0: cannot listen there" in err, err
    assert not no_network


def test_more_tickets_than_a_record_keeps_are_refused(
    made: dict[str, str], capsys: pytest.CaptureFixture[str], no_network: list[object]
) -> None:
    tickets = [arg for i in range(17) for arg in ("--ticket", f"NET-{i}")]
    code, _, err = run_cli(["apply", "--lab", "--auto-approve", *tickets, "--root", made["root"]], capsys)
    assert code == 1 and "--ticket given 17 times (allowed: at most 16" in err, err
    assert not no_network
