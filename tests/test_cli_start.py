"""The CLI starts light: help imports no stage, SSH, Nornir or lab module; help lines stay true."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fabricctl.cli import COMMANDS, load_command

NETWORK = ("asyncssh", "nornir", "netmiko", "napalm", "paramiko")
STAGES = ("pydantic", "jinja2", "fabricctl.lab", "fabricctl.compile", "fabricctl.verify", "fabricctl.deploy")


def imported_by(argv: list[str]) -> set[str]:
    """Modules loaded by `fabricctl <argv>` in a fresh interpreter."""
    code = (
        "import json, sys\n"
        "from fabricctl.cli import main\n"
        f"main({argv!r})\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    ("argv", "banned"),
    [
        (["--help"], NETWORK + STAGES),
        (["validate", "--help"], NETWORK + STAGES),
        (["plan", "--help"], NETWORK + STAGES),
        (["apply", "--help"], NETWORK + STAGES),
        (["lab", "up", "--help"], NETWORK),
    ],
)
def test_help_imports_nothing_heavy(argv: list[str], banned: tuple[str, ...]) -> None:
    heavy = sorted(m for m in imported_by(argv) if m.startswith(banned))
    assert not heavy, f"`fabricctl {' '.join(argv)}` imports {heavy}"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_static_help_line_is_the_commands_own(name: str) -> None:
    """`fabricctl --help` shows a line kept in cli/__init__.py: it must say what the command says."""
    command = load_command(name)
    assert command.name == name
    assert COMMANDS[name][2] == command.get_short_help_str(limit=1000)
