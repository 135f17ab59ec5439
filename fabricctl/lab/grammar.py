"""Data-driven command grammar shared by the lab dialects.

Each platform's command reference (lab/devices/<platform>/commands.yaml, loaded by lab/reference.py)
declares its views as tables of `Rule`s written in a tiny token language (see `PLACEHOLDERS`;
`<int:lo-hi>` bounds a number). A line the reference does not accept in that view fails in the
lab exactly where a real switch would reject it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache

from netutils.constants import MAC_REGEX

from fabricctl.macs import mac_as


def _mac_placeholder(frmt: str) -> str:
    """netutils' MAC_DOT_FOUR -> the token `mac-dot-four`."""
    return frmt.lower().replace("_", "-")


_IP = r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}"

#: Placeholder name -> regex for one token (or part of one).
PLACEHOLDERS: dict[str, str] = {
    "int": r"\d+",
    "num": r"\d+(?:\.\d+)?",
    "ip": _IP,
    "mask": _IP,
    "cidr": _IP + r"/(?:3[0-2]|[12]?\d)",
    # an IPv4 or IPv6 prefix (NVUE's `<ip-prefix-id>`)
    "prefix": _IP + r"/(?:3[0-2]|[12]?\d)|[0-9a-fA-F:]*:[0-9a-fA-F:.]*/(?:12[0-8]|1[01]\d|[1-9]?\d)",
    "name": r"[A-Za-z0-9][A-Za-z0-9_.:/@+-]*",
    "word": r"\S+",
    # one word of a command the shell already split: quoted words may hold spaces (NVUE's values)
    "value": r".+",
    "rd": r"(?:" + _IP + r"|\d+(?:\.\d+)?):\d+",
    "port": r"\d+(?:/\d+)?",
    "time": r"\d{1,2}:\d{2}:\d{2}",
    # a MAC address in one of netutils' forms: <mac-colon-two> (hh:hh:hh:hh:hh:hh), <mac-dot-four>
    # (hhhh.hhhh.hhhh), <mac-dash-four> (hhhh-hhhh-hhhh) ...; a NOS that takes several names each
    # (`{<mac-dot-four>|<mac-colon-two>}`) and its reference's `mac_format` says how it prints one.
    **{_mac_placeholder(frmt): pattern for frmt, pattern in MAC_REGEX.items()},
}


def _rd_in_range(value: str) -> bool:
    """A route distinguisher or route target in one of its three documented forms (RFC 4364
    section 4.2; H3C/HPE `route-distinguisher`: "16-bit AS number:32-bit user-defined number",
    "32-bit IP address:16-bit user-defined number", "32-bit AS number:16-bit user-defined number,
    where the minimum value of the AS number is 65536"): the number after the colon must fit."""
    admin, _, number = value.rpartition(":")
    if "." in admin and admin.count(".") == 3:  # an IPv4 address: 16-bit number
        return int(number) <= 0xFFFF
    if "." in admin:  # a 4-byte ASN in dotted form: 16-bit number
        high, low = (int(x) for x in admin.split("."))
        return high <= 0xFFFF and low <= 0xFFFF and int(number) <= 0xFFFF
    asn = int(admin)
    if asn <= 0xFFFF:
        return int(number) <= 0xFFFFFFFF
    return asn <= 0xFFFFFFFF and int(number) <= 0xFFFF


#: Placeholder name -> a check of a value whose shape already matched (a number in range).
VALUE_CHECKS: dict[str, Callable[[str], bool]] = {"rd": _rd_in_range}

#: Token.verdict: the word does not have the token's shape / has it but is out of range / fits.
NO_MATCH, OUT_OF_RANGE, MATCH = 0, 1, 2
_TEXT = "<text>"
_PART = re.compile(r"(<[a-z-]+(?::\d+-\d+)?>|\{[^}]+\})")
_PLACEHOLDER = re.compile(r"<([a-z-]+)(?::(\d+)-(\d+))?>")


@dataclass(frozen=True)
class Token:
    """One word of a command: a regex plus the numeric ranges its `<int:lo-hi>` parts allow."""

    regex: re.Pattern[str]
    ranges: tuple[tuple[int, int], ...] = ()
    checks: tuple[Callable[[str], bool], ...] = ()

    def verdict(self, word: str) -> int:
        """MATCH, OUT_OF_RANGE (a value of the right shape the device refuses: a VLAN 5000, an
        RD number past 16 bits) or NO_MATCH."""
        m = self.regex.fullmatch(word)
        if m is None:
            return NO_MATCH
        # (a group of an alternative the word did not take is None: `{auto|<int:1-255>}`)
        if all(
            m[f"r{i}"] is None or lo <= int(m[f"r{i}"]) <= hi for i, (lo, hi) in enumerate(self.ranges)
        ) and all(m[f"v{i}"] is None or check(m[f"v{i}"]) for i, check in enumerate(self.checks)):
            return MATCH
        return OUT_OF_RANGE

    def fullmatch(self, word: str) -> bool:
        return self.verdict(word) == MATCH


@cache  # one Token per spelling: a reference repeats `interface`, `<name>` hundreds of times
def _compile_token(spec: str) -> Token:
    """Turn one token spec such as `Ethernet<port>`, `<int:1-4094>`, `{route|bridge}` or
    `{auto|<int:1-255>}` (keywords or values) into a Token."""
    ranges: list[tuple[int, int]] = []
    checks: list[Callable[[str], bool]] = []

    def placeholder(part: str) -> str:
        m = _PLACEHOLDER.fullmatch(part)
        if m is None:
            return re.escape(part)
        if m[2] is not None:
            ranges.append((int(m[2]), int(m[3])))
            return f"(?P<r{len(ranges) - 1}>\\d+)"
        if m[1] in VALUE_CHECKS:
            checks.append(VALUE_CHECKS[m[1]])
            return f"(?P<v{len(checks) - 1}>{PLACEHOLDERS[m[1]]})"
        return f"(?:{PLACEHOLDERS[m[1]]})"

    out: list[str] = []
    for part in _PART.split(spec):
        if not part:
            continue
        if part.startswith("{"):
            out.append("(?:" + "|".join(placeholder(a) for a in part[1:-1].split("|")) + ")")
        else:
            out.append(placeholder(part) if part.startswith("<") else re.escape(part))
    return Token(re.compile("".join(out)), tuple(ranges), tuple(checks))


@dataclass(frozen=True)
class Rule:
    """One accepted command shape in one mode.

    key: number of leading tokens naming a last-value-wins setting (None = set semantics:
    the whole line is its own key). neg: fewest tokens a negation may give (default: key,
    or the whole line). child: mode entered when the line opens a block. keep: the block
    is hardware (physical port) and negation only clears it. hidden: the positive default
    form, accepted but never shown (EOS `switchport`). resets: prefixes of sibling lines the
    device clears when this setting changes (binding a port to another VRF drops its addresses;
    `*`: every sibling but `reset_keeps`, as a port's link mode does).
    """

    pattern: str
    key: int | None = None
    child: str | None = None
    neg: int | None = None
    keep: bool = False
    hidden: bool = False
    resets: tuple[str, ...] = ()
    reset_keeps: tuple[str, ...] = ()  # with resets ["*"]: the settings that survive the reset
    #: What the vendor documents say about the command (the command reference, lab/devices/<platform>/commands.yaml):
    #: the value in force when the line is absent, where the switch shows it, the source ids and
    #: how sure the source is (V: read in a vendor document; P: a vendor document names it, its syntax
    #: or view for this device not read).
    default: str | None = None
    shows: str | None = None
    sources: tuple[str, ...] = ()
    confidence: str = ""
    note: str = ""
    tokens: tuple[Token | None, ...] = field(init=False, repr=False, compare=False)
    #: The words that are MAC addresses (a `<mac-...>` token), by position.
    macs: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        specs = self.pattern.split()
        toks = tuple(None if t == _TEXT else _compile_token(t) for t in specs)
        object.__setattr__(self, "tokens", toks)
        object.__setattr__(self, "macs", tuple(i for i, t in enumerate(specs) if "<mac-" in t))

    def depth(self, words: Sequence[str]) -> tuple[bool, int]:
        """(full match?, number of leading words matched) for error positions."""
        for i, tok in enumerate(self.tokens):
            if tok is None:
                return (len(words) > i, len(words) if len(words) > i else i)
            if i >= len(words):
                return (False, i)
            if not tok.fullmatch(words[i]):
                return (False, i)
        return (len(words) == len(self.tokens), min(len(words), len(self.tokens)))

    def negatable_by(self, words: Sequence[str]) -> bool:
        """True when `no/undo <words>` names this setting (full line or its key prefix)."""
        full, depth = self.depth(words)
        if full:
            return True
        least = self.neg if self.neg is not None else self.key
        return least is not None and depth == len(words) and len(words) >= least


def _keywords(spec: str) -> list[str]:
    """The literal words a token spec stands for (`{route|bridge}`, `vsi`); none for a value."""
    if spec.startswith("{") and spec.endswith("}") and "<" not in spec:
        return spec[1:-1].split("|")
    return [] if "<" in spec or "{" in spec else [spec]


@dataclass(frozen=True)
class Mode:
    """A configuration mode (a view): its rules and how its prompt suffix comes from the opener."""

    rules: tuple[Rule, ...]
    prompt: Callable[[list[str]], str] = lambda words: ""
    title: str = ""


@dataclass
class _Node:
    """One step of a mode's rules as a tree of tokens: a word goes to the child its keyword
    names, or to each child whose value token takes it."""

    keywords: dict[str, _Node] = field(default_factory=dict)
    values: dict[str, tuple[Token, _Node]] = field(default_factory=dict)
    ends: list[int] = field(default_factory=list)  # rules (by position) that end here
    rest: list[int] = field(default_factory=list)  # rules whose free text runs from here


def _index(rules: Sequence[Rule]) -> _Node:
    root = _Node()
    for n, rule in enumerate(rules):
        node = root
        for spec, tok in zip(rule.pattern.split(), rule.tokens, strict=True):
            if tok is None:  # <text>: the rest of the line
                node.rest.append(n)
                break
            if "<" not in spec and "{" not in spec:
                node = node.keywords.setdefault(spec, _Node())
            else:
                node = node.values.setdefault(spec, (tok, _Node()))[1]
        else:
            node.ends.append(n)
    return root


@dataclass(frozen=True)
class Grammar:
    """A platform's modes plus its negation keywords; `root` is the global config mode."""

    modes: dict[str, Mode]
    negations: tuple[str, ...]
    root: str = "global"
    #: How the NOS prints a MAC it accepts in several forms (netutils' format name, the
    #: reference's `mac_format`); None: as it was typed.
    mac_format: str | None = None

    def spelled(self, rule: Rule, words: Sequence[str]) -> list[str]:
        """`words` of a line `rule` accepts as the device prints them (a MAC in its `mac_format`)."""
        if self.mac_format is None or not rule.macs:
            return list(words)
        return [mac_as(w, self.mac_format) if i in rule.macs else w for i, w in enumerate(words)]

    @cached_property
    def _trees(self) -> dict[str, _Node]:
        """Each mode's rules as a token tree: a line is found in time of its length, not of the
        number of rules (NVUE's reference holds about a thousand paths)."""
        return {name: _index(mode.rules) for name, mode in self.modes.items()}

    @cached_property
    def _found(self) -> Callable[[str, tuple[str, ...]], Rule | None]:
        """`find`'s answers, remembered (bounded): a fabric's configs repeat most of their lines
        (every port's QoS and PFC lines, every tenant's ACL shape), and each commit looks them up
        again. The rules never change after the reference is read, as `_trees` assumes too."""
        return lru_cache(maxsize=1 << 16)(self._find)

    def find(self, mode: str, words: Sequence[str]) -> Rule | None:
        """The rule that fully accepts `words` in `mode` (the first in the reference's order)."""
        return self._found(mode, tuple(words))

    def _find(self, mode: str, words: tuple[str, ...]) -> Rule | None:
        found: list[int] = []
        nodes = [self._trees[mode]]
        for i, word in enumerate(words):
            step: list[_Node] = []
            for node in nodes:
                if word in node.keywords:
                    step.append(node.keywords[word])
                step += [child for tok, child in node.values.values() if tok.fullmatch(word)]
                if node.rest and i < len(words):
                    found += node.rest
            nodes = step
        for node in nodes:
            found += node.ends
        rules = self.modes[mode].rules
        return next((rules[n] for n in sorted(set(found)) if rules[n].depth(words)[0]), None)

    def find_negation(self, mode: str, words: Sequence[str]) -> Rule | None:
        """The rule a `no`/`undo` line (without the keyword) negates, if any."""
        for rule in self.modes[mode].rules:
            if rule.negatable_by(words):
                return rule
        return None

    def expand(self, mode: str, words: Sequence[str]) -> list[str] | None:
        """`words` with each abbreviated keyword completed, as a switch's CLI takes any
        unambiguous prefix of a keyword (`int` for `interface`); None when a word is ambiguous
        or no rule of `mode` goes on with it. Values (names, numbers, text) are never expanded."""
        viable = list(self.modes[mode].rules)
        out: list[str] = []
        for i, word in enumerate(words):
            exact: list[Rule] = []
            keywords: dict[
                str, list[Rule]
            ] = {}  # rules taking `word` as it is; keyword -> rules it completes
            for rule in viable:
                specs = rule.pattern.split()
                if any(spec == _TEXT for spec in specs[:i]):
                    exact.append(rule)  # free text runs to the end of the line
                    continue
                if i >= len(specs):
                    continue
                tok = rule.tokens[i]
                if tok is None or tok.fullmatch(word):
                    exact.append(rule)
                    continue
                for kw in _keywords(specs[i]):
                    if kw.startswith(word):
                        keywords.setdefault(kw, []).append(rule)
            if exact:
                out.append(word)
                viable = exact
            elif len(keywords) == 1:
                ((kw, viable),) = keywords.items()
                out.append(kw)
            else:
                return None
        return out

    def next_words(self, mode: str, words: Sequence[str], partial: str) -> list[str]:
        """What `?` lists after `words` (a line's complete words) in `mode`: each next token as
        the reference spells it (`mtu <int:46-9008>` gives `<int:46-9008>`), those starting with
        `partial`, and `<cr>` when the words already make a full command."""
        done = self.expand(mode, words) if words else []
        if done is None:
            return []
        out: dict[str, None] = {}
        for rule in self.modes[mode].rules:
            specs = rule.pattern.split()
            full, depth = rule.depth(done)
            if full and not partial:
                out["<cr>"] = None
            if depth == len(done) and len(specs) > len(done):
                spec = specs[len(done)]
                for kw in _keywords(spec) or [spec]:
                    if kw.startswith(partial) or kw.startswith("<"):
                        out[kw] = None
        return sorted(out, key=lambda w: (w == "<cr>", w.startswith("<"), w))

    def out_of_range(self, mode: str, words: Sequence[str], index: int) -> bool:
        """True when word `index` has the shape a rule of `mode` expects there but a value the
        device refuses (Comware then answers "Wrong parameter", not "Unrecognized command")."""
        body = words[1:] if words and words[0] in self.negations else words
        for rule in self.modes[mode].rules:
            for seq, at in ((words, index), (body, index - (len(words) - len(body)))):
                if 0 <= at < len(seq) and at < len(rule.tokens) and rule.depth(seq)[1] == at:
                    tok = rule.tokens[at]
                    if tok is not None and tok.verdict(seq[at]) == OUT_OF_RANGE:
                        return True
        return False

    def error_at(self, mode: str, words: Sequence[str]) -> int:
        """Index of the first word no rule of `mode` accepts (for `^` / token markers)."""
        best = 0
        rules = self.modes[mode].rules
        body = words
        if words and words[0] in self.negations:
            body = words[1:]
        for rule in rules:
            best = max(best, rule.depth(words)[1])
            if body is not words:
                best = max(best, 1 + rule.depth(body)[1])
        return min(best, max(len(words) - 1, 0))
