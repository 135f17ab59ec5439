"""Pieces every command shares: options, compiling a fabric root, output that is redacted.

Only click is imported here: this module loads for every command, `--help` included.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console

    from fabricctl.compile.build import Compiled
    from fabricctl.compile.intent import DeviceIntent
    from fabricctl.deploy.stages import Stages


class CliError(click.ClickException):
    """A user mistake or a stage failure found by the CLI itself: one line, exit 1."""

    def __init__(self, message: str) -> None:
        from fabricctl.secrets import redact

        super().__init__(redact(message))


def fabric_root(root: Path) -> Path:
    if not (root / "inventory").is_dir():
        raise CliError(
            f"--root {root}: no inventory/ folder here (allowed: a fabric repository with inventory/ and tenants/)"
        )
    return root


root_option = click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default="current directory",
    callback=lambda _ctx, _param, value: fabric_root(value),  # refused before anything is read
    help="Fabric repository (holds inventory/ and tenants/).",
)
allow_gpu_moves_option = click.option(
    "--allow-gpu-moves",
    is_flag=True,
    help="Accept a change that moves held GPUs to another leaf or port (each move is listed).",
)
limit_option = click.option(
    "--limit",
    multiple=True,
    metavar="NAME|ROLE",
    help="Switch name, role (spine, leaf, superspine) or pod:N (the leaves and spines of pod N); repeatable.",
)
lab_option = click.option("--lab", is_flag=True, help="Target the lab fabric (lab login and endpoints).")


def _insecure_host_keys(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        from fabricctl.deploy.hostkeys import insecure_host_keys

        ctx.with_resource(insecure_host_keys())
        click.echo("warning: --insecure-host-keys: no SSH host key is checked (a lab fabric only)", err=True)


insecure_host_keys_option = click.option(
    "--insecure-host-keys",
    is_flag=True,
    expose_value=False,
    callback=_insecure_host_keys,
    help="Do not check the switches' SSH host keys (a lab fabric only; the run record says so).",
)


class Seconds(click.FloatRange):
    """A number of seconds in a range; nan and inf are not numbers of seconds (FloatRange lets
    nan through: every comparison with it is false)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a number of seconds (allowed: {self._describe_range()})", param, ctx)
        return number


class Duration(click.types.FloatParamType):
    """A duration as operators write it (`90`, `90s`, `5m`, `1h`) in seconds, within a range."""

    name = "duration"

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        import re

        if isinstance(value, float):
            return value
        allowed = f"seconds like 90 or 90s, 5m, 1h; {_span(self.low)} to {_span(self.high)}"
        m = re.fullmatch(r"(\d{1,7})([smh]?)", str(value).strip())
        if m is None:
            self.fail(f"{str(value)[:40]!r} is not a duration (allowed: {allowed})", param, ctx)
        seconds = int(m[1]) * {"": 1, "s": 1, "m": 60, "h": 3600}[m[2]]
        if not self.low <= seconds <= self.high:
            self.fail(f"{value!r} is outside the range (allowed: {allowed})", param, ctx)
        return float(seconds)


def _span(seconds: int) -> str:
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


class ListenAddress(click.types.StringParamType):
    """An address to listen on: an IP address (0.0.0.0 or :: for every one of this host) or a
    host name (RFC 1123: dot-separated labels of letters, digits and inner hyphens, the last not
    all digits, so a mistyped IPv4 address like 300.1.2.3 is no host name)."""

    name = "address"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        import ipaddress
        import re

        text = str(value)
        try:
            return str(ipaddress.ip_address(text))
        except ValueError:
            pass
        label = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
        labels = text.removesuffix(".").split(".")
        if (
            len(text) <= 253
            and all(re.fullmatch(label, part) for part in labels)
            and not labels[-1].isdigit()
        ):
            return text
        self.fail(
            f"{text[:80]!r} is not an IP address or host name (allowed: an IPv4 or IPv6 address of "
            "this host, 0.0.0.0 or :: for all of them, or a host name like localhost)",
            param,
            ctx,
        )


#: Upper bounds of the numeric flags: far above any real use, low enough that a typo (10^20)
#: is an error rather than a run that never ends.
MAX_TIMEOUT = 3600
MAX_CONFIRM_TIMEOUT = 86400
MAX_PARALLELISM = 1000
MAX_SWITCHES = 8192  # 4096 spines + 4096 leaves: the most switch indexes a fabric can have

timeout_option = click.option(
    "--timeout",
    type=Seconds(min=1, max=MAX_TIMEOUT),
    default=30.0,
    show_default=True,
    help=f"Per-command timeout (s), 1-{MAX_TIMEOUT}.",
)


def parallelism_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--parallelism N`: switches `what` ("read", "pushed") at once, 20 by default as in Nornir."""
    return click.option(
        "--parallelism",
        type=click.IntRange(min=1, max=MAX_PARALLELISM),
        default=20,
        show_default=True,
        help=f"Switches {what} at once, 1-{MAX_PARALLELISM}.",
    )


#: ctx.meta keys where the group's own -v / --log-file (`fabricctl -v plan`) are kept.
META_VERBOSE = "fabricctl.verbose"
META_LOG_FILE = "fabricctl.log_file"
VERBOSE_HELP = "Show the stage log on stderr (-vv: also the SSH/eAPI clients' debug records)."
LOG_FILE_HELP = "Keep a full debug log in FILE (secrets redacted) [env FABRICCTL_LOG_FILE]."


def log_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`-v/--verbose` and `--log-file FILE` for a command; the log runs for the command's lifetime,
    and the error that ends a command is its last record."""

    @functools.wraps(command)
    def run(*args: Any, verbose: int, log_file: Path | None, **kwargs: Any) -> Any:
        from fabricctl.logs import get_logger, reset_logging, setup_logging

        meta = click.get_current_context().meta
        verbose = max(verbose, int(meta.get(META_VERBOSE, 0)))
        log_file = log_file or meta.get(META_LOG_FILE)
        if log_file is not None:
            check_output_file(Path(log_file), kwargs.get("root"))
        setup_logging(verbose, log_file)
        log = get_logger("fabricctl.cli")
        ctx = click.get_current_context()
        log.info("%s %s", ctx.command_path, " ".join(f"{k}={v}" for k, v in sorted(kwargs.items())))
        try:
            return command(*args, **kwargs)
        except SystemExit as exc:
            log.info("exit %s", exc.code)
            raise
        except BaseException as exc:
            render = getattr(exc, "render", None)
            text = render() if callable(render) else str(getattr(exc, "message", "") or exc)
            log.error("%s: %s", type(exc).__name__, text, exc_info=not isinstance(exc, click.ClickException))
            raise
        finally:
            reset_logging()

    run = click.option(
        "--log-file",
        type=click.Path(path_type=Path, dir_okay=False),
        envvar="FABRICCTL_LOG_FILE",
        metavar="FILE",
        help=LOG_FILE_HELP,
    )(run)
    return click.option("-v", "--verbose", count=True, help=VERBOSE_HELP)(run)


def stage_lines() -> Stages:
    """Stages that print one line on stderr as each ends (a spinner meanwhile on a terminal)."""
    from fabricctl.cli.output import StageLines
    from fabricctl.deploy.stages import Stages

    return Stages(StageLines())


def one_line_flag(flag: str, value: str | None) -> None:
    """A flag's text value must stay on one line (it is echoed, and written into reports)."""
    from fabricctl.model.text import one_line_problem

    problem = one_line_problem(value) if value is not None else None
    if problem is not None:
        raise CliError(f"{flag}: the value {problem} (allowed: text on one line)")


def check_output_file(path: Path, root: Path | None = None) -> None:
    """Refuse, before anything is read or contacted, an output file that cannot be written: a
    folder, a device, FIFO, socket or symlink (outputs.py: no symlink below the fabric root or the
    folder named), a path under a file, a folder without write permission, or one of the fabric's
    own input files (inventory/, tenants/)."""
    from fabricctl.outputs import OutputError, check_output, named_output

    _check_writable(path, want_dir=False)
    try:
        check_output(path, named_output(path, root))
    except OutputError as exc:
        raise CliError(str(exc)) from None
    if root is not None:
        target = Path(os.path.abspath(path))
        for inputs in ("inventory", "tenants"):
            folder = Path(os.path.abspath(root / inputs))
            if target == folder or folder in target.parents:
                raise CliError(
                    f"cannot use {path}: it is inside {inputs}/, the fabric's input (allowed: a file elsewhere)"
                )


def check_output_folder(path: Path) -> None:
    """Refuse, before anything is read, an output folder that cannot be created or written."""
    _check_writable(path, want_dir=True)


def _check_writable(path: Path, want_dir: bool) -> None:
    if path.exists():
        if path.is_dir() != want_dir:
            raise CliError(f"cannot use {path}: {'Not a directory' if want_dir else 'Is a directory'}")
        if not os.access(path, os.W_OK):
            raise CliError(f"cannot use {path}: Permission denied")
        return
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise CliError(f"cannot use {path}: Not a directory")
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"cannot use {path}: Permission denied")


def echo(text: str, err: bool = False) -> None:
    """Print redacted text as is (no newline added, no markup)."""
    from fabricctl.secrets import redact

    click.echo(redact(text), nl=False, err=err)


def console(err: bool = False) -> Console:
    """A rich console; piped output (CI logs, files) gets 200 columns instead of rich's 80."""
    from rich.console import Console

    stream = sys.stderr if err else sys.stdout
    return Console(stderr=err, highlight=False, soft_wrap=True, width=None if stream.isatty() else 200)


def rack_switches(compiled: Compiled, rack: str) -> set[str]:
    """The switches of racks/<rack>.yaml and the switches at the far end of their fabric links."""
    from fabricctl.model.problems import ProblemLog
    from fabricctl.model.rack import load_racks

    found = [rd.rack for rd in load_racks(compiled.fabric.root, ProblemLog(compiled.fabric.root))]
    own = {s.name for r in found if r.name == rack for s in r.switches}
    far = {
        ln.spine if ln.leaf in own else ln.leaf for ln in compiled.topology.links if {ln.leaf, ln.spine} & own
    }
    return {n for n in compiled.intents if n in own | far}


def select_switches(compiled: Compiled, limits: tuple[str, ...]) -> dict[str, DeviceIntent]:
    """--limit NAME|ROLE|pod:N (repeatable or comma-separated) -> the selected intents, fabric order.

    pod:N selects the leaves and spines of pod N of a multi-pod fabric; super-spines belong to no
    pod (a change inside one pod never touches them; select them with `superspine`). rack:NAME
    selects the switches of racks/NAME.yaml and those its cables reach (for a new rack, the
    far ends change only in the new links' ports: plan proves it)."""
    if not limits:
        return compiled.intents
    names = list(compiled.intents)
    pods = [p for p in compiled.fabric.pods if p is not None]
    roles = "spine, leaf, superspine" if compiled.fabric.superspines else "spine, leaf"
    if pods:
        roles += f", pod:{pods[0]}..pod:{pods[-1]}"
    allowed = f"{roles}, {names[0]}..{names[-1]}" if names else roles
    for item in limits:
        one_line_flag("--limit", item)
        if not all(item.split(",")):  # `--limit ,` or `--limit leaf1,` must not select nothing
            raise CliError(f"--limit {item!r}: an empty switch or role name (allowed: {allowed})")
    wanted = [w for item in limits for w in item.split(",")]
    chosen: set[str] = set()
    for w in wanted:
        if w.startswith("rack:"):
            hits = rack_switches(compiled, w[5:])
            if not hits:
                raise CliError(
                    f"--limit {w}: no such rack in racks/ (allowed: rack:NAME of a racks/NAME.yaml)"
                )
        elif w.startswith("pod:"):
            number = w[4:]
            pod = int(number) if number.isdigit() and len(number) <= 4 else None
            hits = {
                n
                for n in compiled.intents
                if pod is not None and (sw := compiled.fabric.switch(n)) is not None and sw.pod == pod
            }
            if not hits:
                raise CliError(f"--limit {w}: no such pod (allowed: {allowed})")
        else:
            hits = {n for n, i in compiled.intents.items() if n == w or i.role == w}
            if not hits:
                raise CliError(f"--limit {w}: no such switch or role (allowed: {allowed})")
        chosen |= hits
    return {n: i for n, i in compiled.intents.items() if n in chosen}
