"""Shared base of the CLI dialects: command dispatch tables, config-line faults, errors."""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fabricctl.lab.device import LabDevice
from fabricctl.lab.editor import Editor, InvalidInput
from fabricctl.lab.view import ShowFn, View

Output = str | dict[str, Any]
Handler = Callable[[Any, re.Match[str], bool], Awaitable[Output]]


class CliError(Exception):
    """A command error; `text` is what the CLI prints, `eapi` the eAPI error string."""

    def __init__(self, text: str, eapi: str | None = None, code: int = 1002) -> None:
        super().__init__(text)
        self.text = text
        self.eapi = eapi if eapi is not None else text.lstrip("% ").strip()
        self.code = code


class Disconnect(Exception):
    """Fault injection: drop the connection now, without a reply."""


class Logout(Exception):
    """The user logged out (`exit` / `quit` at the top)."""


class Reboot(Exception):
    """The switch reloads now (it was told to, and confirmed): `text` is the last the session
    prints before the connection drops. The command has rebooted the device already."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass
class Question:
    """A question the CLI shows instead of its prompt; the next line is the answer."""

    text: str
    on_answer: Callable[[str], Awaitable[Output]]  # gets the answer, stripped and lower-case


@dataclass(frozen=True)
class Command:
    """One non-config command: regex over the whole line, handler, modes it is valid in."""

    pattern: re.Pattern[str]
    handler: Handler
    modes: frozenset[str]

    @property
    def heads(self) -> frozenset[str]:
        """The words a line of this command can start with (`write|copy ...`: both)."""
        return _heads(self.pattern.pattern)


@functools.cache
def _heads(pattern: str) -> frozenset[str]:
    """The first word of each top-level alternative of a command regex."""
    alternatives, depth, start = [], 0, 0
    for i, char in enumerate(pattern):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and depth == 0:
            alternatives.append(pattern[start:i])
            start = i + 1
    alternatives.append(pattern[start:])
    return frozenset(m[0] for alt in alternatives if (m := re.match(r"[a-z!][a-z0-9-]*", alt)))


def command(regex: str, modes: str) -> Callable[[Handler], Handler]:
    """Decorator registering a dialect method in its class's `COMMANDS` table."""

    def wrap(fn: Handler) -> Handler:
        fn.__lab_command__ = (re.compile(regex), frozenset(modes.split()))  # type: ignore[attr-defined]  # a function object carries the lab's command table entry
        return fn

    return wrap


_WORD = re.compile(r"[a-z][a-z0-9-]+")


#: One output filter of a NOS's CLI: (the lines a command printed, the filter's regex) -> the
#: lines it keeps. A NOS names its own (`CliSession.OUTPUT_FILTERS`); these three line operations
#: are what most of them are made of.
LineFilter = Callable[[list[str], re.Pattern[str]], list[str]]


def matching(lines: list[str], pattern: re.Pattern[str]) -> list[str]:
    """The lines the regex matches."""
    return [ln for ln in lines if pattern.search(ln)]


def not_matching(lines: list[str], pattern: re.Pattern[str]) -> list[str]:
    """The lines the regex does not match."""
    return [ln for ln in lines if not pattern.search(ln)]


def from_first_match(lines: list[str], pattern: re.Pattern[str]) -> list[str]:
    """The lines from the first the regex matches on."""
    start = next((i for i, ln in enumerate(lines) if pattern.search(ln)), len(lines))
    return lines[start:]


#: A command piped into an output filter: `<command> | <filter word> <regex>`.
_PIPE = re.compile(r"(?P<cmd>.+?)\s*\|\s*(?P<kind>[a-z]+)\s+(?P<regex>.+)")


def _literal_words(pattern: str) -> list[str]:
    """The leading plain words of a command regex (`display interface(?! brief)...` -> display, interface)."""
    out = []
    for part in pattern.split(" "):
        m = re.match(r"[a-z][a-z0-9-]*", part)
        if m is None:
            break
        out.append(m[0])
        if m.end() < len(part):
            break
    return out


def _show_handler(fn: ShowFn) -> Handler:
    """A dialect handler for a show function: its JSON when asked for JSON, else its text."""

    async def handler(cli: Any, m: re.Match[str], as_json: bool) -> Output:
        text, data = fn(View(cli.dev), m)
        return data if as_json and data is not None else text

    return handler


#: What a command the `garble` fault matches answers: no layout any NOS documents, counts that
#: are none (a broken agent, a corrupted buffer, the wrong command's output).
GARBAGE = '\x1b[0m#@! agent restarting ...\nEthernet? rx=lots tx=-7 {"broken": [\nqueue 3: 12.5 packets, true'


class CliSession:
    """One interactive CLI (an SSH channel or one eAPI request)."""

    COMMANDS: tuple[Command, ...] = ()
    #: mode -> a line's first word -> the commands it can start, in table order
    BY_HEAD: dict[str, dict[str, list[Command]]] = {}
    KEYWORDS: frozenset[str] = frozenset()  # the command words, for abbreviations (`dis cur`)
    #: Its output filters by the word that names one after a `|`, in the order an abbreviated
    #: word is completed; none unless the NOS's CLI lists its own.
    OUTPUT_FILTERS: Mapping[str, LineFilter] = {}
    #: The platform's show functions (regex, fn) and the modes they answer in.
    SHOWS: tuple[tuple[str, ShowFn], ...] = ()
    SHOW_MODES: str = ""

    def __init_subclass__(cls) -> None:
        table: list[Command] = []
        for value in cls.__dict__.values():
            spec = getattr(value, "__lab_command__", None)
            if spec is not None:
                table.append(Command(spec[0], value, spec[1]))
        modes = frozenset(cls.SHOW_MODES.split())
        table += [Command(re.compile(regex), _show_handler(fn), modes) for regex, fn in cls.SHOWS]
        cls.COMMANDS = tuple(table)
        cls.BY_HEAD = {}
        for cmd in table:
            for mode in cmd.modes:
                for head in cmd.heads:
                    cls.BY_HEAD.setdefault(mode, {}).setdefault(head, []).append(cmd)
        cls.KEYWORDS = frozenset(w for c in table for w in _WORD.findall(c.pattern.pattern))

    def __init__(self, dev: LabDevice) -> None:
        self.dev = dev
        self.config_lines = 0
        self.editor: Editor | None = None
        #: True once the client's session is gone: a line still waiting then is dropped, as a
        #: switch drops the queued input of a VTY that closed.
        self.gone: Callable[[], bool] = lambda: False
        #: True while the CLI asks for a password: the keys typed are read, not echoed.
        self.hide_input = False
        #: Who is logged in, from where (the SSH login's user and address; "**" when unknown, as
        #: Comware logs a console line), for what the NOS logs of a session.
        self.login_user = ""
        self.login_address = "**"
        #: A question the CLI waits to have answered (its text is the prompt meanwhile).
        self.question: Question | None = None

    def ask(self, text: str, on_answer: Callable[[str], Awaitable[Output]]) -> Output:
        """Show `text` as the prompt; the next line is the answer."""
        self.question = Question(text, on_answer)
        return ""

    def ask_yes_no(self, text: str, on_answer: Callable[[bool], Awaitable[Output]]) -> Output:
        """A [Y/N] question: y/yes or n/no answer it; any other line asks it again."""

        async def answered(answer: str) -> Output:
            if answer not in ("y", "yes", "n", "no"):
                return self.ask(text, answered)
            return await on_answer(answer.startswith("y"))

        return self.ask(text, answered)

    @property
    def mode(self) -> str:
        """Dispatch mode name used by the command tables."""
        raise NotImplementedError

    def prompt(self) -> str:
        raise NotImplementedError

    def banner(self) -> str:
        return ""

    def invalid(
        self, line: str, words: list[str], index: int, prompt: str, out_of_range: bool = False
    ) -> CliError:
        """The NOS's answer to a line it refuses; `out_of_range`: a value of the right shape that
        is outside the documented range."""
        raise NotImplementedError

    async def config_line(self, line: str) -> None:
        """A line for the grammar (in config mode)."""
        raise NotImplementedError

    def bad_filter(self, line: str, regex: str, prompt: str) -> CliError:
        """The NOS's answer to an output filter whose regex it cannot read: by default, its
        answer to a word it refuses, pointing at the regex."""
        words = line.split()
        return self.invalid(line, words, len(words) - len(regex.split()), prompt)

    async def _piped(self, line: str, prompt: str) -> Output | None:
        """`line` run through one of the NOS's output filters; None: not such a line."""
        piped = _PIPE.fullmatch(line)
        if piped is None:
            return None
        kind = next((f for f in self.OUTPUT_FILTERS if f.startswith(piped["kind"])), None)
        found = self._command(piped["cmd"]) or self._abbreviated(piped["cmd"])
        if kind is None or found is None:
            return None
        try:
            pattern = re.compile(piped["regex"])
        except re.error:
            raise self.bad_filter(line, piped["regex"], prompt) from None
        cmd, m = found
        out = await cmd.handler(self, m, False)
        return "\n".join(
            self.OUTPUT_FILTERS[kind]((out if isinstance(out, str) else "").split("\n"), pattern)
        )

    async def execute(self, line: str, as_json: bool = False) -> Output:
        """Run one line; raise CliError on failure."""
        if self.question is not None:
            pending, self.question = self.question, None
            return await pending.on_answer(line.strip().lower())
        prompt = self.prompt()
        stripped = line.strip()
        if not stripped:
            return ""
        hold = self.dev.faults.hold
        if hold and re.search(hold, stripped):
            await self.dev.held(stripped)
        garble = self.dev.faults.garble
        if garble and re.search(garble, stripped):
            return GARBAGE
        found = self._command(stripped) or self._abbreviated(stripped)
        if found is not None:
            cmd, m = found
            return await cmd.handler(self, m, as_json)
        if self.OUTPUT_FILTERS and not as_json:
            filtered = await self._piped(stripped, prompt)
            if filtered is not None:
                return filtered
        if self.editor is None:
            words = stripped.split()
            raise self.invalid(line, words, self._exec_error_at(words), prompt)
        if self.dev.faults.config_latency:
            await self.dev.clock.sleep(self.dev.faults.config_latency)
            if self.gone():
                raise Disconnect()
        try:
            await self.config_line(stripped)
        except InvalidInput as exc:
            raise self.invalid(line, exc.words, exc.index, prompt, exc.out_of_range) from None
        return ""

    def help(self, line: str) -> list[str]:
        """`?` at the end of `line`: the words that may come next (or complete the last one)."""
        words = line.split()
        partial = "" if not line or line.endswith(" ") else words.pop()
        found: dict[str, None] = {}
        if self.editor is not None:
            for frame in reversed(self.editor.stack):
                found.update(dict.fromkeys(self.dev.grammar.next_words(frame.mode, words, partial)))
        for cmd in self.COMMANDS:
            if self.mode not in cmd.modes:
                continue
            literal = _literal_words(cmd.pattern.pattern)
            prefix_ok = all(a.startswith(b) for a, b in zip(literal, words, strict=False))
            if len(literal) > len(words) and prefix_ok and literal[len(words)].startswith(partial):
                found[literal[len(words)]] = None
        return sorted(found, key=lambda w: (w == "<cr>", w.startswith("<"), w))

    def _exec_error_at(self, words: list[str]) -> int:
        """The first word no command of this mode goes on with (where the switch points): past
        the most leading keywords any command takes, abbreviations included."""
        best = 0
        for cmd in self.COMMANDS:
            if self.mode not in cmd.modes:
                continue
            literal = _literal_words(cmd.pattern.pattern)
            taken = 0
            for want, word in zip(literal, words, strict=False):
                if not want.startswith(word.lower()):
                    break
                taken += 1
            best = max(best, taken)
        return min(best, max(len(words) - 1, 0))

    def _command(self, line: str) -> tuple[Command, re.Match[str]] | None:
        line = " ".join(line.split())  # a CLI reads words: `show lldp neighbors  detail` too
        for cmd in self.BY_HEAD.get(self.mode, {}).get(line.split(" ", 1)[0], ()):
            m = cmd.pattern.fullmatch(line)
            if m is not None:
                return cmd, m
        return None

    def _abbreviated(self, line: str) -> tuple[Command, re.Match[str]] | None:
        """The one command the words abbreviate (`dis cur`, `term len 0`, `sh ip bgp sum`): each
        word a prefix of a command word, and exactly one completion a command of this mode."""
        first = line.split(" ", 1)[0]
        if not any(h.startswith(first) for h in self.BY_HEAD.get(self.mode, {})):
            return None  # a config line: no command of this mode starts so
        options = []
        for word in line.split():
            hits = [k for k in self.KEYWORDS if k.startswith(word)] if word not in self.KEYWORDS else []
            options.append(hits or [word])
        if all(len(o) == 1 for o in options) and [o[0] for o in options] == line.split():
            return None
        found = {}
        for words in itertools.islice(itertools.product(*options), 256):
            hit = self._command(" ".join(words))
            if hit is not None:
                found[" ".join(words)] = hit
        return next(iter(found.values())) if len(found) == 1 else None

    def apply_config(self, line: str) -> None:
        """Apply a grammar line with the per-device config faults (disconnect, reject)."""
        assert self.editor is not None
        faults = self.dev.faults
        if faults.disconnect_after is not None and self.config_lines >= faults.disconnect_after:
            raise Disconnect()
        self.config_lines += 1
        if faults.reject and re.search(faults.reject, line):
            raise InvalidInput(line.split(), 0)
        self.editor.apply(line)


def word_column(line: str, index: int) -> int:
    """Column of word `index` in `line` (for the `^` marker)."""
    spans = [m.start() for m in re.finditer(r"\S+", line)]
    if not spans:
        return 0
    return spans[min(index, len(spans) - 1)]


def to_text(out: Output) -> str:
    """CLI rendering of a handler result (a JSON answer, `| json`, prints indented)."""
    return json.dumps(out, indent=2) if isinstance(out, dict) else out
