"""Generate the lab's NVUE grammar table from NVIDIA's NVUE command reference.

    python tools/nvue_reference.py --docs <CumulusNetworks/docs checkout> --release 5.17

reads, in that checkout,

- every page of `content/cumulus-linux-<NNN>/NVUE-Command-Reference/Set-and-Unset-Commands/`:
  one `## nv set <path>` heading per command, its value sentence ("You can set a value between
  552 and 9216", "You can specify `up` or `down`"), its release notes ("In Cumulus Linux 5.14 and
  earlier, ..."), its version history ("Introduced in Cumulus Linux 5.0.0") and its example;
- the "New and Changed NVUE Commands" page of every release from 5.15 up to the target
  (`content/cumulus-linux-5NN/Whats-New/New-and-Changed-NVUE-Commands.md`): the table of each
  renamed command, old form and new form with its values (`(enabled\\|disabled)`);
- tools/nvue_errata.yaml: the few paths the command reference spells other than the user guide
  of the same release, each with the page that settles it,

and writes fabricctl/lab/devices/nvue/commands.yaml: one entry per `nv set` path with its value
type, range or choices, its default, the release it holds from, the form it replaced and the page
it came from, plus the commit of the checkout it read and each page's git blob id. Facts only: no
sentence of the reference is copied into the table. The table is committed; the lab's NVUE
grammar is this table (fabricctl/lab/reference.py).

How NVUE prints a path (a scalar `mtu: 9216`, a collection member `10.0.0.1/31: {}`, a choice
`state: {up: {}}`) is not in the reference; the shape rules below say it, from the NVUE API's
documented payloads.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPOSITORY = "CumulusNetworks/docs"
PAGES = "content/cumulus-linux-{rel}/NVUE-Command-Reference/Set-and-Unset-Commands"
CHANGES = "content/cumulus-linux-{rel}/Whats-New/New-and-Changed-NVUE-Commands.md"
URL = "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-{rel}/{path}/"
ERRATA = Path(__file__).with_name("nvue_errata.yaml")
OUT = Path(__file__).resolve().parents[1] / "fabricctl" / "lab" / "devices" / "nvue" / "commands.yaml"
#: The first release whose "New and Changed NVUE Commands" renames paths (`ip` -> `ipv4`, `enable
#: on` -> `state enabled`).
FIRST_CHANGES = (5, 15)

#: A placeholder's name -> the lab's token for its value (fabricctl/lab/grammar.py PLACEHOLDERS).
#: Names not listed take any one word.
TOKENS = {
    "interface-id": "<name>",
    "interface-name": "<name>",
    "vrf-id": "<name>",
    "vrf-name": "<name>",
    "acl-id": "<name>",
    "domain-id": "<name>",
    "ip-prefix-id": "<prefix>",
    "ipv4-prefix-id": "<cidr>",
    "ipv6-prefix-id": "<prefix>",
    "static-network-id": "<prefix>",
    "aggregate-route-id": "<prefix>",
    "ip-sub-prefix-id": "<prefix>",
    "vni-id": "<int:1-16777214>",
}
#: Placeholders that name a scalar's value, not a collection member: the path ends before them
#: (`nv set evpn vni 10 rd 10.0.0.1:20` prints `rd: 10.0.0.1:20`; `ipv4 address 10.0.0.1/31`
#: prints `address: {10.0.0.1/31: {}}`).
VALUE_PLACEHOLDERS = {
    "value",
    "integer",
    "rd-id",
    "mac-address",
    "mac",
    "profile-name",
    "interface-name",
    "instance-name",
    "source-address",
    "shared-address",
    "ipv4-multicast",
    "source-ip",
    "source-mac",
    "source-mac-mask",
    "fabric-id",
    "prefix",
    "vrf-name",
    "spiffe-id",
    "ip-address",
    "ip-address-id",
}
#: ...except in these paths, where NVUE keeps a collection (`gateway: {10.0.0.1: {}}`).
COLLECTION_PATHS = {"interface * ipv4 gateway *", "interface * ipv6 gateway *"}
#: Paths NVUE writes as an object of one member, the chosen value (`link: {state: {up: {}}}`;
#: NVUE API: the interface PATCH payload): setting another value replaces it.
CHOICES = {"interface * link state", "interface * link breakout *", "interface * ipv4 vrr vrr-state"}

_HEADING = re.compile(r"^##\s+(?:<h>)?\s*(.*?)\s*(?:</h>)?\s*$")
_INTRODUCED = re.compile(r"Introduced in Cumulus Linux (\d+\.\d+(?:\.\d+)?)")
#: A range stated for the value ("a value between 552 and 9216", "a priority between 0 and 240"),
#: not an aside ("typically between 2 and 3 seconds").
_BETWEEN = re.compile(
    r"(?:value|number|integer|priority|cost) (?:value )?between (\d+)(?: \([^)]*\))? and (\d+)"
)
_TICKS = re.compile(r"`([^`\s]+)`")
_LISTS = re.compile(
    r"(?:you can (?:specify|set|sepcify)|can be|set (?:the value|this option|a value) (?:to|of)|"
    r"type can be|following (?:options|modes|settings)|specify:|^- `)",
    re.IGNORECASE,
)
_DEFAULT = re.compile(r"default (?:setting|value|mode|port)? ?is `?([\w.:-]+?)`?(?:[ .,]|$)")
_NOTE = re.compile(r"\{\{%notice \w+%\}\}(.*?)\{\{%/notice%\}\}", re.DOTALL)
_EARLIER = re.compile(r"In Cumulus Linux (\d+\.\d+)(?:\.\d+)? and earlier", re.IGNORECASE)
_GONE = re.compile(r"Cumulus Linux (\d+\.\d+) and later no longer supports this command")
_OLD_FORM = re.compile(r"the command is `nv set ([^`]+)`")


def release_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


@dataclass
class Entry:
    """One `nv set` path as a page states it."""

    words: list[str]  # literal words and <placeholder> names
    page: str
    value: str | None = None  # the value token (None: an object, or a collection member)
    default: str | None = None
    since: str = ""
    before: str = ""  # the form it replaced, where a release note names it
    choice: bool = False
    sources: list[str] = field(default_factory=list)

    @property
    def shape(self) -> str:
        return " ".join("*" if w.startswith("<") else w for w in self.words)


def _clean_heading(text: str) -> str:
    text = text.replace("\\<", "<").replace("\\>", ">")
    text = re.sub(r"(?<=[a-z])<", " <", text)  # `rule<rule-id>` (a heading's typo)
    return " ".join(text.split())


def _blocks(text: str) -> Iterator[tuple[str, str]]:
    """(heading, body) of each `## nv set` entry, HTML comments (retired entries) removed."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    heading, body = None, []
    for line in text.splitlines():
        m = _HEADING.match(line) if line.startswith("## ") else None
        if m:
            if heading is not None:
                yield heading, "\n".join(body)
            heading, body = _clean_heading(m[1]), []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        yield heading, "\n".join(body)


def _example(body: str) -> list[str]:
    for line in body.splitlines():
        m = re.search(r"\$ nv set (.*)$", line)
        if m:
            return m[1].split()
    return []


def _prose(body: str) -> str:
    """The entry's sentences: without code blocks, notes or the version history."""
    body = re.sub(r"```.*?```", "", body, flags=re.DOTALL)
    body = _NOTE.sub("", body)
    return body.split("### Version History")[0]


def _values(sentences: str) -> tuple[list[str], tuple[int, int] | None]:
    """(choices, range) a value sentence names: backticked words of a 'You can specify ...'
    sentence or list, and a 'between X and Y' range."""
    words: list[str] = []
    span: tuple[int, int] | None = None
    for sentence in re.split(r"(?<=[.:])\s+|\n", sentences):
        if _LISTS.search(sentence) and "default" not in sentence.split("`")[0].lower():
            words += [w for w in _TICKS.findall(sentence) if not w.startswith("<") and w != "nv"]
        m = _BETWEEN.search(sentence)
        if m and span is None:
            span = (int(m[1]), int(m[2]))
    seen: dict[str, None] = dict.fromkeys(w.rstrip(".,") for w in words if re.fullmatch(r"[\w.:/-]+", w))
    return list(seen), span


def value_token(words: list[str], span: tuple[int, int] | None) -> str | None:
    parts = [*words, f"<int:{span[0]}-{span[1]}>"] if span else list(words)
    return alternatives(parts)


def alternatives(parts: list[str]) -> str | None:
    """One token for a value's alternatives: `up`, `<int:1-255>` or `{auto|<int:1-255>}`."""
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else "{" + "|".join(parts) + "}"


def parse_page(text: str, page: str, release: tuple[int, ...]) -> list[Entry]:
    entries = []
    for heading, body in _blocks(text):
        if not heading.startswith("nv set "):
            continue
        notes = " ".join(_NOTE.findall(body))
        gone = _GONE.search(notes)
        if gone and release_tuple(gone[1]) <= release:
            continue  # listed, but not taken by this release
        words = heading.split()[2:]
        prose = _prose(body)
        choices, span = _values(prose)
        if not choices and re.search(r"instead of `state enabled`|you specify `on` or `off`", notes):
            choices = ["enabled", "disabled"]  # the 5.15 rename of on/off to enabled/disabled
        entry = Entry(words, page)
        if m := _INTRODUCED.search(body):
            entry.since = m[1]
        if m := _EARLIER.search(notes):  # the form (path or values) holds from the next release
            major, minor = release_tuple(m[1])[:2]
            entry.since = f"{major}.{minor + 1}"
        if m := _OLD_FORM.search(notes):
            entry.before = m[1]
        if (m := _DEFAULT.search(prose)) and m[1] not in ("disabled.", ""):
            entry.default = m[1]
        example = _example(body)
        last = words[-1]
        entry.choice = Entry(words, page).shape in CHOICES
        if last.startswith("<") and entry.choice:  # `link breakout 2x` prints `breakout: {2x: {}}`
            entry.words, entry.value = words[:-1], value_token(choices, span) or "<word>"
        elif last.startswith("<"):
            name = last[1:-1]
            token = value_token(choices, span) or TOKENS.get(name, "<word>")
            if name in VALUE_PLACEHOLDERS and entry.shape not in COLLECTION_PATHS:
                entry.words, entry.value = words[:-1], token
            else:
                entry.words = [*words[:-1], f"<{name}>"]
                entry.value = None
                if token != TOKENS.get(name, "<word>"):
                    entry.words[-1] = token  # a member whose ids the sentence bounds
        else:
            token = value_token(choices, span)
            if token is None and len(example) > len(words):
                token = "<value>"  # a value the page does not type
            entry.value = token
        entries.append(entry)
    return entries


_ROW = re.compile(r"^\|\s*`([^`]*)`\s*\|\s*`([^`]*)`\s*\|")


def _split_form(form: str) -> tuple[list[str], str | None]:
    """`nv set <path> (a\\|b)` -> (path words, value token)."""
    form = form.replace("\\|", "|").strip()
    words = form.split()[2:]
    if not words:
        return [], None
    tail = words[-1]
    # a keyword glued to its values by a typo: `stateenabled|disabled`
    glued = re.fullmatch(r"([a-z-]+?)(enabled|on)\|(.*)", tail)
    if glued and glued[1]:
        words = [*words[:-1], glued[1], f"{glued[2]}|{glued[3]}"]
        tail = words[-1]
    if "|" in tail or (tail.startswith("(") and tail.endswith(")")):
        alts = []
        for alt in tail.strip("()").split("|"):
            span = re.fullmatch(r"(\d+)-(\d+)", alt)
            alts.append(f"<int:{span[1]}-{span[2]}>" if span else ("<word>" if alt.startswith("<") else alt))
        return words[:-1], alternatives(alts)
    return words, None


def parse_changes(text: str, page: str) -> tuple[list[Entry], set[str], dict[str, str]]:
    """The renamed commands of a release: (new forms, shapes of renamed-away paths, shape -> old form)."""
    new: list[Entry] = []
    gone: set[str] = set()
    before: dict[str, str] = {}
    since = re.search(r'version: "(\d+\.\d+)"', text)
    for line in text.splitlines():
        m = _ROW.match(line)
        if not m or not m[2].startswith("nv set"):
            continue
        old_words, _ = _split_form(m[1])
        words, token = _split_form(m[2])
        old = Entry(old_words, page).shape
        entry = Entry(words, page, since=since[1] if since else "")
        if old != entry.shape:
            gone.add(old)
            before[entry.shape] = " ".join(old_words)
        if words and words[-1].startswith("<") and token is None:
            name = words[-1][1:-1]
            if name in VALUE_PLACEHOLDERS:
                entry.words, token = words[:-1], TOKENS.get(name, "<word>")
        entry.value = token
        new.append(entry)
    return new, gone, before


def git_blob(data: bytes) -> str:
    """The id git gives the file (`git hash-object`): any checkout can check the page read."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def checkout_commit(docs: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(docs), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def _token(word: str) -> str:
    """A path word as the lab's grammar spells it: keywords as they are, a placeholder as its
    value token (fabricctl/lab/grammar.py PLACEHOLDERS)."""
    if re.fullmatch(r"<(?:name|cidr|prefix|word|value|int:\d+-\d+)>|\{[^}]+\}", word):
        return word
    if word.startswith("<"):
        return TOKENS.get(word[1:-1], "<word>")
    return word


def _rule(entry: Entry) -> dict[str, object]:
    cmd = [_token(w) for w in entry.words]
    rule: dict[str, object] = {"cmd": " ".join([*cmd, *([entry.value] if entry.value else [])])}
    if entry.value:
        rule["key"] = len(entry.words)
    if entry.choice:
        rule["resets"] = ["*"]
    if entry.default is not None:
        rule["default"] = entry.default
    rule["src"] = entry.sources
    rule["conf"] = "V"
    if entry.since:
        rule["since"] = entry.since
    if entry.before:
        rule["before"] = entry.before
    return rule


def _page_id(name: str) -> str:
    return "ref-" + name.lower()


def generate(
    docs: Path, release: str, errata: Path = ERRATA, provenance: dict[str, str] | None = None
) -> str:
    rel = release_tuple(release)
    tag = f"{rel[0]}{rel[1]}"
    pages_dir = docs / PAGES.format(rel=tag)
    if not pages_dir.is_dir():
        raise SystemExit(f"{pages_dir}: no NVUE command reference of release {release} in this checkout")
    sources: dict[str, dict[str, str]] = {}
    entries: list[Entry] = []
    for path in sorted(pages_dir.glob("*.md")):
        if path.name.startswith("_"):
            continue
        data = path.read_bytes()
        sid = _page_id(path.stem)
        sources[sid] = _source(docs, path, data, release, provenance)
        entries += parse_page(data.decode("utf-8"), sid, rel)
    gone: set[str] = set()
    before: dict[str, str] = {}
    changed: list[Entry] = []
    for minor in range(FIRST_CHANGES[1], rel[1] + 1):
        path = docs / CHANGES.format(rel=f"{rel[0]}{minor}")
        if rel[0] != FIRST_CHANGES[0] or not path.is_file():
            continue
        data = path.read_bytes()
        sid = f"cl{rel[0]}{minor}-changed"
        sources[sid] = _source(docs, path, data, f"{rel[0]}.{minor}", provenance)
        new, renamed, old = parse_changes(data.decode("utf-8"), sid)
        changed += new
        gone |= renamed
        before.update(old)
    for raw in yaml.safe_load(errata.read_text(encoding="utf-8")) or []:
        sid = raw["id"]
        sources[sid] = {"url": raw["url"], "section": raw["section"], "device": raw["device"]}
        words, token = raw["path"].split(), raw.get("value")
        entries.append(Entry(words, sid, value=token, since=str(raw.get("since", ""))))
    table: dict[str, Entry] = {}
    for entry in [*entries, *changed]:
        if entry.shape in gone or not entry.words:
            continue  # a path a rename retired (the page's own example may still spell it)
        have = table.get(entry.shape)
        if have is None:
            entry.sources = [entry.page]
            entry.before = entry.before or before.get(entry.shape, "")
            table[entry.shape] = entry
            continue
        if entry.page not in have.sources:
            have.sources.append(entry.page)
        if entry.page.endswith("-changed"):  # the form holds from the release that renamed it
            have.since = entry.since
        if have.value in (None, "<value>") and entry.value not in (None, "<value>"):
            have.value = entry.value
        have.before = have.before or entry.before
    doc = {
        "platform": "nvue",
        "title": f"NVIDIA Cumulus Linux {release} NVUE (Spectrum-4 SN5600)",
        "intro": (
            "Flat object model: `nv set <path> <value>` / `nv unset <path>` stage into a pending "
            "revision; `nv config apply [--confirm <time>]` makes it the applied configuration, which "
            "`nv config show` prints as YAML. Every path below is one the NVUE command reference of "
            f"Cumulus Linux {release} lists."
        ),
        "release": release,
        "generated": {
            "by": "tools/nvue_reference.py",
            "repository": REPOSITORY,
            "commit": checkout_commit(docs),
            "pages": len(sources),
        },
        "negations": ["unset"],
        "root": "set",
        "sources": sources,
        "views": {
            "set": {
                "title": "the NVUE object model (`nv set` paths)",
                "prompt": "",
                "commands": [_rule(e) for e in sorted(table.values(), key=lambda e: e.words)],
            }
        },
    }
    header = (
        "# Generated by tools/nvue_reference.py from NVIDIA's NVUE command reference "
        f"(CumulusNetworks/docs, Cumulus Linux {release}); do not edit: regenerate.\n"
    )
    return header + yaml.safe_dump(doc, sort_keys=False, width=200, allow_unicode=True)


def _source(
    docs: Path, path: Path, data: bytes, release: str, provenance: dict[str, str] | None
) -> dict[str, str]:
    rel = path.relative_to(docs).as_posix()
    page = rel.split("/", 2)[2].removesuffix(".md")
    tag = "".join(release.split(".")[:2])
    out = {
        "url": URL.format(rel=tag, path=page),
        "section": " > ".join(page.replace("-", " ").split("/")),
        "device": f"NVIDIA Cumulus Linux {release}",
        "path": rel,
        "blob": git_blob(data),
    }
    if provenance and path.name in provenance:
        out["read_from"] = provenance[path.name]
    return out


def _provenance(path: Path | None) -> dict[str, str] | None:
    if path is None:
        return None
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, where = line.partition(" ")
        if name.strip():
            out[name.strip()] = where.strip()
    return out


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=Path, required=True, help="a checkout of CumulusNetworks/docs")
    ap.add_argument("--release", default="5.17", help="the Cumulus Linux release (default 5.17)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--provenance",
        type=Path,
        help="for pages not read from a git checkout: lines `<page file> <where it was read>`",
    )
    args = ap.parse_args(list(argv) if argv is not None else None)
    text = generate(args.docs, args.release, provenance=_provenance(args.provenance))
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {text.count('- cmd: ')} paths", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
