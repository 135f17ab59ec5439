"""The one test of "free text stays on one line", shared by every input reader and by render.

A value reaches a switch CLI inside one command line. Any character that a terminal, a CLI
parser or `str.splitlines` treats as the end of a line (\\n \\r \\v \\f \\x1c-\\x1e \\x85 U+2028
U+2029), or any other control character (C0, DEL, C1: ESC sequences, NUL, tab), would let a
value start a command of its own. Validate refuses such values in every input file, and render
refuses them again at the template boundary with this same function (invariant 7).
"""

from __future__ import annotations

import re
import unicodedata

#: Unicode categories refused in free text: controls (Cc: C0, DEL, C1), line and paragraph
#: separators (Zl, Zp), and lone surrogates (Cs: a YAML escape can make one; no file can hold it).
_REFUSED_CATEGORIES = frozenset(("Cc", "Zl", "Zp", "Cs"))

_NAMES = {
    "\n": "line feed",
    "\r": "carriage return",
    "\t": "tab",
    "\x00": "NUL",
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x1b": "escape",
    "\x1c": "file separator",
    "\x1d": "group separator",
    "\x1e": "record separator",
    "\x7f": "delete",
    "\x85": "next line",
    "\u2028": "line separator",
    "\u2029": "paragraph separator",
}

#: What free text may hold, as error messages say it.
ALLOWED = "text on one line: no line breaks, tabs or other control characters"


def is_refused(char: str) -> bool:
    """True for a character that can end or rewrite a CLI line (see the module docstring)."""
    return unicodedata.category(char) in _REFUSED_CATEGORIES


def refused_chars(value: str) -> list[str]:
    """The distinct refused characters of `value`, in order of appearance ([] when it is safe)."""
    if value.isprintable():  # the common case: one C-level pass, nothing to refuse
        return []
    return [c for c in dict.fromkeys(value) if is_refused(c)]


def describe(char: str) -> str:
    """'the line separator U+2028': how an error names a refused character (never the value)."""
    name = _NAMES.get(char)
    if name is None:
        name = "surrogate" if unicodedata.category(char) == "Cs" else "control character"
    return f"the {name} U+{ord(char):04X}"


def one_line_problem(value: str) -> str | None:
    """Why `value` cannot be used as one-line free text, or None when it can."""
    bad = refused_chars(value)
    if not bad:
        return None
    listed = ", ".join(describe(c) for c in bad[:3]) + (" and others" if len(bad) > 3 else "")
    return f"contains {listed}, which {'is' if len(bad) == 1 else 'are'} not allowed"


#: Refused anywhere in an input file's text, comments included (a YAML reader ends a comment at
#: U+2028 or U+0085, so the rest of that "comment" would be read as data): every refused
#: character except tab (the YAML reader names a tab in indentation itself) and line feed. A
#: carriage return is refused too once CR LF line ends are read as LF.
_IN_FILE = re.compile(
    "["
    + "".join(f"\\x{c:02x}" for c in range(0xA0) if is_refused(chr(c)) and chr(c) not in "\t\n")
    + "\u2028\u2029]"
)


def first_refused_in_file(text: str) -> int | None:
    """Offset of the first character no input file may contain anywhere, or None."""
    found = _IN_FILE.search(text)
    return found.start() if found else None


def printable(value: str) -> str:
    """`value` safe to print on a terminal: every refused character (a line break, ESC, a C1
    control, a separator) written as its escape (\\n, \\x1b, \\u2028), the rest as is. For text
    read from files (run records, locks, plan files) that goes to a screen."""
    if value.isprintable():
        return value
    return "".join(repr(c)[1:-1] if is_refused(c) else c for c in value)
