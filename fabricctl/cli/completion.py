"""`fabricctl completion bash|zsh|fish`: the shell's completion script (click's own)."""

from __future__ import annotations

import click

#: The environment variable click's completion protocol uses for the `fabricctl` program.
COMPLETE_VAR = "_FABRICCTL_COMPLETE"
INSTALL = {
    "bash": 'eval "$(fabricctl completion bash)"  # in ~/.bashrc (bash 4.4 or later)',
    "zsh": 'eval "$(fabricctl completion zsh)"  # in ~/.zshrc',
    "fish": "fabricctl completion fish > ~/.config/fish/completions/fabricctl.fish",
}


@click.command("completion")
@click.argument("shell", type=click.Choice(sorted(INSTALL)))
def completion_cmd(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish (commands, options, choices)."""
    from click.shell_completion import get_completion_class

    from fabricctl.cli import app

    cls = get_completion_class(shell)
    assert cls is not None  # click ships all three
    script = cls(app, {}, "fabricctl", COMPLETE_VAR).source()
    click.echo(f"# fabricctl completion for {shell}; install: {INSTALL[shell]}")
    click.echo(script)
