"""Every `fabricctl ...` command README.md and docs/*.md show is one the CLI takes: a concrete
command parses (its subcommands, options, choices and values, as click checks them when it
runs), a synopsis (`[--lab] [--limit NAME]`, `gpus|free`) names only subcommands and options
that exist. So the docs cannot drift from the CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from fabricctl.cli import app
from tests.conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"`(fabricctl [^`]+)`")
#: What only a synopsis holds: optional parts, alternatives, placeholders, ellipses.
SYNOPSIS = re.compile(r"\[|\||\.\.\.|<|\b[A-Z][A-Z_]*[A-Z]\b|\bN\b")


def commands(path: Path) -> list[tuple[int, str]]:
    """(line, command) of each `fabricctl` command in a Markdown file."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[int, str]] = []
    for block in FENCE.finditer(text):
        start = text.count("\n", 0, block.start(1)) + 1
        joined = re.sub(r"\\\n\s*", " ", block.group(1))  # a command continued over lines
        for i, line in enumerate(joined.splitlines()):
            for m in re.finditer(r"\$\((fabricctl\s[^)]*)\)", line):  # "$(fabricctl completion bash)"
                found.append((start + i, m.group(1)))
            line = re.sub(r"\$\(fabricctl\s[^)]*\)", "", line)
            for m in re.finditer(
                r"(?:^|&&|;|\|)\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*(fabricctl\s.*)", line.strip()
            ):
                found.append((start + i, shell_words(m.group(1))))
    outside = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for m in INLINE.finditer(outside):
        command = m.group(1).replace("\\|", "|")
        if not SYNOPSIS.search(command):
            command = shell_words(command)
        found.append((outside.count("\n", 0, m.start()) + 1, command))
    return [(n, c.strip()) for n, c in found if c.strip() != "fabricctl"]


def shell_words(text: str) -> str:
    """The command up to the shell's first operator (`|`, `>`, `;`, `&&`) or comment."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = []
    for word in lexer:
        if word and set(word) <= set("|&;<>()"):
            break
        words.append(shlex.quote(word))
    return " ".join(words)


CASES = [(p, n, c) for p in DOCS for n, c in commands(p)]


def resolve(words: list[str]) -> tuple[click.Command, list[str], list[click.Command]]:
    """The command the leading words name, the words left, and the chain of groups above it."""
    cmd: click.Command = app
    chain: list[click.Command] = [app]
    rest = list(words)
    while isinstance(cmd, click.Group) and rest and not rest[0].startswith("-"):
        name = rest[0]
        sub = cmd.get_command(click.Context(cmd), name)
        if sub is None:
            raise AssertionError(f"no command {name!r} under {cmd.name!r}")
        cmd, rest = sub, rest[1:]
        chain.append(cmd)
    return cmd, rest, chain


def options_of(chain: list[click.Command]) -> set[str]:
    return {opt for c in chain for p in c.params for opt in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}


def check_synopsis(text: str) -> None:
    """Every subcommand (each alternative of `a|b`) and every option the synopsis names exists."""
    words = text.split()[1:]
    head: list[str] = []
    for w in words:
        if w.startswith(("[", "-", "<")) or not re.fullmatch(r"[a-z0-9|-]+", w):
            break
        head.append(w)
    alternatives: list[list[str]] = [[]]
    for w in head:
        alternatives = [[*a, choice] for a in alternatives for choice in w.split("|")]
    for path in alternatives:
        chain = resolve(path)[2]
        known = options_of(chain)
        for opt in re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", text.split(" ", 1)[1]):
            assert opt in known, f"{' '.join(path)}: no option {opt} (has {sorted(known)})"


def check_concrete(text: str) -> None:
    """The command parses as click parses it when it runs (values, choices, callbacks); a bare
    command name mentioned in prose (`fabricctl tenant new`) only has to exist."""
    argv = shlex.split(text)[1:]
    cmd, rest, chain = resolve(argv)
    if not rest:
        return
    ctx = None
    for c in chain[:-1]:
        ctx = click.Context(c, parent=ctx, info_name=c.name)
    try:
        cmd.make_context(cmd.name, rest, parent=ctx)
    except click.BadParameter as exc:  # a path the example names need not exist here
        if "does not exist" not in exc.format_message():
            raise
    except click.exceptions.Exit as exc:  # --help, --version: done
        assert exc.exit_code == 0


@pytest.mark.parametrize(("path", "line", "command"), CASES, ids=[f"{p.name}:{n}" for p, n, _ in CASES])
def test_every_documented_command_is_one_the_cli_takes(path: Path, line: int, command: str) -> None:
    try:
        if SYNOPSIS.search(command.split(" ", 1)[1] if " " in command else ""):
            check_synopsis(command)
        else:
            check_concrete(command)
    except (click.UsageError, AssertionError) as exc:
        pytest.fail(f"{path.relative_to(REPO)}:{line}: `{command}`: {exc}")


def test_the_docs_show_many_commands() -> None:
    """The extraction finds them (a regex that found none would pass every doc)."""
    assert len(CASES) > 100, len(CASES)
    assert any("check --tenant" in c for _, _, c in CASES)
