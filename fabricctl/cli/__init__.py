"""The fabricctl command line: a thin shell over the pipeline stages.

Commands load lazily: `fabricctl --help` and `fabricctl <command> --help` import click and the
one module that defines the command, never a stage, SSH, Nornir or the lab. Engineers run the
CLI dozens of times in a change window and CI runs it on every push, so start-up counts.
"""

from __future__ import annotations

import importlib
import sys

import click

from fabricctl.errors import StageError
from fabricctl.model.problems import InputError

#: name -> (module, attribute, the one-line help `fabricctl --help` shows without importing it).
#: tests/test_cli_start.py checks each line against the command's own docstring.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": (
        "fabricctl.cli.init",
        "init_cmd",
        "Scaffold a fabric repository: inventory, tenants, CI workflows, runner guide, CODEOWNERS.",
    ),
    "validate": (
        "fabricctl.cli.fabric",
        "validate",
        "Check inventory and every tenant; report every problem at once (exit 1 if any).",
    ),
    "render": (
        "fabricctl.cli.fabric",
        "render",
        "Compile and write <switch>.intent.yaml + <switch>.cfg for each switch.",
    ),
    "schema": (
        "fabricctl.cli.fabric",
        "schema",
        "Print the JSON Schema of tenant files, fabric.yaml (for editors) or the plan file (for machines).",
    ),
    "show": ("fabricctl.cli.fabric", "show", "Tables of what the fabric holds."),
    "tenant": (
        "fabricctl.cli.tenant",
        "tenant",
        "Tenant files: place a new tenant on free GPUs, remove one.",
    ),
    "verify": (
        "fabricctl.cli.verify",
        "verify_command",
        "Prove tenant isolation, lossless consistency and capacity; exit 1 on any violation.",
    ),
    "plan": (
        "fabricctl.cli.deploy",
        "plan_cmd",
        "Diff every switch's running config against the intent (read-only); optionally save the plan.",
    ),
    "check": (
        "fabricctl.cli.deploy",
        "check_cmd",
        "Health checks from the switches' own state (links, LLDP cabling, BGP/EVPN, GPU ports); exit 1 on a failure, 2 when nothing failed but a switch waits for a reboot.",
    ),
    "exporter": (
        "fabricctl.cli.exporter",
        "exporter_cmd",
        "Serve Prometheus metrics of every switch's port counters, labelled by tenant, leaf, server and NIC.",
    ),
    "apply": (
        "fabricctl.cli.apply",
        "apply_cmd",
        "Push a plan safely: per switch load, device diff, commit with confirm timer, verify, confirm, save.",
    ),
    "shards": (
        "fabricctl.cli.apply",
        "shards_cmd",
        "Print the failure domains a reviewed plan changes, as JSON for a CI matrix: pods, then super-spines.",
    ),
    "drain": (
        "fabricctl.cli.maintenance",
        "drain_cmd",
        "Take a switch or fabric link out of the forwarding path (BGP graceful shutdown), proven safe per tenant first.",
    ),
    "undrain": (
        "fabricctl.cli.maintenance",
        "undrain_cmd",
        "Put a drained switch or fabric link back into the forwarding path (its entry leaves maintenance.yaml).",
    ),
    "drift": (
        "fabricctl.cli.deploy",
        "drift_cmd",
        "Read-only: exit 2 when a switch's owned config differs from the intent (0 none, 1 error).",
    ),
    "history": (
        "fabricctl.cli.history",
        "history_cmd",
        "List the recorded apply runs, newest first: who, from which commit, what changed or failed.",
    ),
    "force-unlock": (
        "fabricctl.cli.deploy",
        "force_unlock_cmd",
        "Remove the apply lock of this fabric (after making sure no apply is running).",
    ),
    "completion": (
        "fabricctl.cli.completion",
        "completion_cmd",
        "Print the shell completion script for bash, zsh or fish (commands, options, choices).",
    ),
    "rack": (
        "fabricctl.cli.day0",
        "rack",
        "Racks as delivered: add a rack file from the factory's serials, accept a cabled rack.",
    ),
    "ztp": (
        "fabricctl.cli.day0",
        "ztp",
        "Zero-touch provisioning: Kea DHCP configuration and each rack switch's day-0 files.",
    ),
    "lab": (
        "fabricctl.cli.lab",
        "lab_app",
        "Mock switches over real SSH: the default target for demos and tests.",
    ),
}


def load_command(name: str) -> click.Command:
    module, attribute, _ = COMMANDS[name]
    command: click.Command = getattr(importlib.import_module(module), attribute)
    return command


class LazyGroup(click.Group):
    """A group whose commands are imported only when one of them is run (or asked for help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_, _, short) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fabricctl")
@click.option(
    "-v", "--verbose", count=True, help="Stage log on stderr for the command that follows (-vv: more)."
)
@click.option(
    "--log-file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Full debug log of the command that follows (secrets redacted).",
)
@click.pass_context
def app(ctx: click.Context, verbose: int, log_file: str | None) -> None:
    """Declarative multi-tenant configuration for AI/GPU RoCEv2 spine/leaf fabrics."""
    if verbose:
        ctx.meta["fabricctl.verbose"] = verbose
    if log_file:
        ctx.meta["fabricctl.log_file"] = log_file


def main(argv: list[str] | None = None) -> int:
    """Entry point: user mistakes and stage failures exit 1 with one clear message, no traceback."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        app.main(args=args, prog_name="fabricctl", standalone_mode=False, obj={"argv": args})
    except InputError as exc:
        _error(exc.render())
        return 1
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
        return 0
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        _error(f"error: {exc.format_message()}{hint}")
        return 1
    except click.ClickException as exc:
        _error(f"error: {exc.format_message()}")
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        _error("aborted")
        return 1
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except StageError as exc:
        _error(f"error: {exc}")
        return 1
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        _error(f"error: cannot use{where}: {exc.strerror or exc}")
        return 1
    return 0


def _error(text: str) -> None:
    from fabricctl.secrets import redact

    click.echo(redact(text), err=True)


if __name__ == "__main__":
    sys.exit(main())
