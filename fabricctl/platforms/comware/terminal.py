"""How a Comware V7 CLI looks over SSH: the running-config command, its prompts, its error forms,
and the mark a push leaves while its commit delay is armed."""

from __future__ import annotations

import calendar
import re
import time
from dataclasses import dataclass

from fabricctl.config.tree import parse_tree
from fabricctl.platforms.base import Fetch

FETCH = Fetch(
    show_running="display current-configuration",
    show_saved="display saved-configuration",
    prompt=r"[<\[][^\]>\r\n]+[\]>]\s*$",  # <host> in user view, [host] / [host-view] in system view
    netmiko_device_type="hp_comware",
    api_plugin="napalm",  # napalm-h3c-comware's getters, over SSH (napalm_over_ssh)
)
#: The switch's clock, read to follow an armed `configuration commit delay` on the switch's own time.
SHOW_CLOCK = "display clock"
#: `display clock` as real switches print it (ntc-templates' hp_comware display_clock captures):
#: `19:35:31 UTC Sat 01/08/2011`, or local time with a `Time Zone : Z5 add 05:00:00` line after.
_CLOCK = re.compile(
    r"(?m)^\s*(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?\s+\S+\s+\w+\s+(\d{1,2})/(\d{1,2})/(\d{4})\s*$"
)


def read_clock(text: str) -> float | None:
    """Seconds on the switch's clock from `display clock` (its own zone: only differences count),
    or None when the output is not a clock."""
    m = _CLOCK.search(text)
    if m is None:
        return None
    hour, minute, sec, frac, month, day, year = m.groups()
    try:
        whole = calendar.timegm((int(year), int(month), int(day), int(hour), int(minute), int(sec), 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return whole + (float(f"0.{frac}") if frac else 0.0)


#: A prompt at the start of a line: one per pasted line comes back.
PROMPT_LINE = r"(?m)^[<\[][^\]>\r\n]+[\]>]"
#: What a refused command prints: the forms H3C's Fundamentals guide documents ("% Unrecognized
#: command found at '^' position." and its Incomplete / Ambiguous / Too many parameters / Wrong
#: parameter siblings), "% Error: ..." and a refused commit ("% Failed to commit ..."), in any case.
#: Anchored at a line start, so an echoed description that says "error" is never one.
#: The same forms as a push's failure message quotes them (deploy/failures.py: cause `rejected`).
REFUSAL = r"% ?(unrecognized|incomplete|ambiguous|wrong parameter|too many)"
ERROR_PATTERN = (
    r"(?im)^\s*%\s*(?:error\b|failed\b|invalid\b|unrecognized command|incomplete command|"
    r"ambiguous command|too many parameters|wrong parameter)"
)

#: Comware shows no armed `configuration commit delay`, so a push marks its own: while the delay
#: runs, the switch holds an empty VPN instance `fabricctl-pending-<random>` whose description
#: names the push's whole mark (platforms/push.py `new_mark`: the run id and that random part,
#: which the run record holds before the delay is armed; tenant names never start with
#: `fabricctl`). The random part is in the instance's name so that the mark proves itself from
#: its first line. The delay's rollback removes the mark with the rest of the change; a
#: committed push removes it after the commit.
MARK = "ip vpn-instance fabricctl-pending-"


def mark_lines(mark: str) -> list[str]:
    return [f"{MARK}{mark.rsplit('-', 1)[-1]}", f" description run {mark}", " quit"]


def _marks(running: str) -> list[tuple[str, str]]:
    """(the mark's first line, the push mark its description names, or the random part of its
    name when the description never arrived) for each commit-delay mark in a config."""
    out = []
    for node in parse_tree(running):
        if node.text.startswith(MARK):
            words = next((c.text.split() for c in node.children if c.text.startswith("description ")), [])
            out.append((node.text, words[2] if len(words) > 2 else node.text[len(MARK) :]))
    return out


def marked_run(running: str) -> str | None:
    """The push mark of a commit-delay mark in a running config, or None when no push is in flight."""
    found = _marks(running)
    return found[0][1] if found else None


def proven(found: str, claimed: frozenset[str]) -> bool:
    """Is `found` (a `marked_run`) a mark the run records hold, whole or by its random part?"""
    return any(found in (mark, mark.rsplit("-", 1)[-1]) for mark in claimed)


def unmarked(running: str) -> str:
    """`running` without the mark: what it will be once the commit is through (as the switch
    lists it then, the mark's `#` separator gone with it)."""
    out: list[str] = []
    inside = False
    for line in running.splitlines():
        if line.startswith(MARK):
            inside = True
            if out and out[-1] == "#":  # the block's own separator goes with it
                out.pop()
            continue
        if inside and line.startswith(" ") and not line.startswith(" #"):
            continue
        inside = False
        out.append(line)
    return "\n".join(out) + "\n"


def unmark_lines(running: str) -> list[str]:
    """The lines that remove every commit-delay mark from `running`."""
    return [f"undo {line}" for line, _ in _marks(running)]


def pending(running: str, saved: str, extra: str | None) -> str | None:
    run = marked_run(running)
    if run is not None:
        return f"an interrupted apply (push {run}) left its change under an armed commit delay"
    run = marked_run(saved)
    if run is not None:
        return f"the saved config still carries the mark of interrupted push {run}"
    return None


#: The log buffer (H3C Network Management and Monitoring Command Reference, "Information center
#: commands": `display logbuffer` lists the buffer's messages, oldest first, under a summary).
#: H3C documents no command that displays an armed commit delay (Fundamentals Configuration
#: Guide, "Display and maintenance commands for configuration files"), so the switch's own log
#: of the commands users ran is where an armed one shows.
LOGBUFFER = "display logbuffer"
#: SHELL/6/SHELL_CMD, "A command was successfully executed" (H3C System Log Messages Reference),
#: in the log buffer's layout: `%Jan 20 23:31:03:567 2011 HP5930 SHELL/6/SHELL_CMD:
#: -Line=vty0-IPAddr=16.123.122.155-User=admin; Command is dis info-center` (the command as typed;
#: a sequence number, `%@9377%`, where the switch numbers its messages).
_SHELL_CMD = re.compile(
    r"^[%*#]?(?:@\d+[%*#])?(?P<when>\w{3}\s+\d{1,2} \d{1,2}:\d{2}:\d{2}(?::\d{1,3})? \d{4}) \S+ "
    r"SHELL/\d/SHELL_CMD: ?-Line=(?P<line>.*?)-IPAddr=(?P<address>.*?)-User=(?P<user>.*?); "
    r"Command is (?P<command>.+?)\s*$"
)


@dataclass(frozen=True)
class ArmedDelay:
    """A `configuration commit delay` the log shows armed and neither committed nor run out."""

    minutes: int
    armed: str  # the log's time stamp, as the switch printed it
    user: str
    address: str
    line: str
    deadline: float | None  # the switch's clock when it rolls back (None: the stamp was not read)

    def describe(self) -> str:
        return (
            f"a configuration commit delay of {self.minutes} minute(s) armed by {self.user or 'a user'} "
            f"from {self.address} ({self.line}) at {self.armed}"
        )


def _words_are(words: list[str], keywords: tuple[str, ...]) -> bool:
    """The typed words are the keywords, each whole or abbreviated (Comware takes any unique
    prefix: `con com del 5`)."""
    return len(words) == len(keywords) and all(
        k.startswith(w.lower()) for w, k in zip(words, keywords, strict=True)
    )


def _stamp(text: str) -> float | None:
    """Seconds on the switch's clock from a log stamp `Jan 20 23:31:03:567 2011` (its own zone,
    as `display clock` prints it: only differences count), or None."""
    m = re.fullmatch(
        r"(\w{3})\s+(\d{1,2}) (\d{1,2}:\d{2}:\d{2})(?::(\d{1,3}))? (\d{4})", " ".join(text.split())
    )
    if m is None:
        return None
    month, day, hms, millis, year = m.groups()
    try:
        whole = calendar.timegm(time.strptime(f"{month} {day} {hms} {year}", "%b %d %H:%M:%S %Y"))
    except ValueError:
        return None
    return whole + (int(millis) / 1000 if millis else 0.0)


def armed_delay(logbuffer: str, now: float | None) -> ArmedDelay | None:
    """The commit delay the log buffer shows armed at `now` (the switch's clock, `display clock`):
    the last `configuration commit delay N` logged with no `configuration commit` after it, whose
    N minutes have not run out. Armed again, the deadline moves (the rollback point does not).
    With no clock or an unreadable stamp it counts as armed: fabricctl never assumes a change
    someone else armed has gone."""
    armed: ArmedDelay | None = None
    for text in logbuffer.splitlines():
        m = _SHELL_CMD.match(text.strip())
        if m is None:
            continue
        words = m["command"].split()
        if (
            len(words) == 4
            and words[3].isdigit()
            and _words_are(words[:3], ("configuration", "commit", "delay"))
        ):
            at = _stamp(m["when"])
            minutes = int(words[3])
            deadline = at + 60 * minutes if at is not None else None
            armed = ArmedDelay(minutes, m["when"], m["user"], m["address"], m["line"], deadline)
        elif _words_are(words, ("configuration", "commit")):
            armed = None
    if armed is not None and armed.deadline is not None and now is not None and now >= armed.deadline:
        return None
    return armed
