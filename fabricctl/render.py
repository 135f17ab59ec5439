"""Render a DeviceIntent into the platform's configuration text (stage `render`).

Templates are logic-free: every decision (which lines exist, on which port, in which order) is
made by the compile stage and arrives as DeviceIntent fields. This module only provides the
Jinja environment and a few filters that *format* values (addresses, MACs, queue names).

Search path: `<fabric root>/templates` first, so a fabric repo can override any template file
(for example `templates/eos/bgp.j2`), then the built-in templates (the repository's top-level
`templates/`, shipped in the wheel as the package `fabricctl.templates`).

Template context: every DeviceIntent field as a top-level name (`interfaces`, `bgp`, `qos`, ...)
plus `intent` itself. Undefined names fail the render (StrictUndefined), and any value holding a
newline or control character is refused, so free text can never add a CLI line.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import math
import os
import re
import socket
from collections.abc import Callable, Mapping
from ipaddress import IPv4Interface
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta
from jinja2.sandbox import SandboxedEnvironment

from fabricctl import __version__
from fabricctl.compile.intent import DeviceIntent, Node, intent_digest
from fabricctl.errors import StageError
from fabricctl.model.text import one_line_problem
from fabricctl.platforms import get_platform
from fabricctl.platforms.base import Platform
from fabricctl.store import open_store

#: Templates shipped with fabricctl (`templates/<platform>/device.j2` + per-feature files).
BUILTIN_TEMPLATES = Path(str(importlib.resources.files("fabricctl.templates")))


class RenderError(StageError):
    """A template could not be rendered for one device; the message names device and template."""


#: A CIDR (or bare address) in the one spelling IPv4Interface prints back: decimal octets without
#: leading zeros, a prefix length 0-32. Such a value is read by arithmetic; any other spelling goes
#: through IPv4Interface (which accepts or refuses it as before). A 100k fabric renders about
#: 700,000 addresses: parsing them with IPv4Interface was a quarter of its render profile.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_CANONICAL = re.compile(rf"({_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET})(?:/(3[0-2]|[12]?[0-9]))?")


def _cidr(value: str) -> tuple[str, int]:
    """(address text, prefix length) of a CIDR ('10.0.0.1/31' -> ('10.0.0.1', 31))."""
    found = _CANONICAL.fullmatch(value) if isinstance(value, str) else None
    if found is not None:
        length = found[2]
        return found[1], 32 if length is None else int(length)
    iface = IPv4Interface(value)
    return str(iface.ip), iface.network.prefixlen


def _masked(value: str, host: bool) -> str:
    """The network address of a CIDR (host False) or its wildcard mask (host True)."""
    address, length = _cidr(value)
    if host:
        return _MASKS_WILD[length]
    network = int.from_bytes(socket.inet_aton(address), "big") & _MASK_INTS[length]
    return socket.inet_ntoa(network.to_bytes(4, "big"))


#: Dotted mask, mask as an integer and wildcard mask per prefix length.
_MASKS = tuple(str(IPv4Interface(f"0.0.0.0/{n}").netmask) for n in range(33))
_MASK_INTS = tuple(int(IPv4Interface(f"0.0.0.0/{n}").netmask) for n in range(33))
_MASKS_WILD = tuple(str(IPv4Interface(f"0.0.0.0/{n}").hostmask) for n in range(33))


def cidr_ip(value: str) -> str:
    """'10.0.0.1/31' -> '10.0.0.1' (a bare address is returned as is)."""
    return _cidr(value)[0]


def cidr_mask(value: str) -> str:
    """'10.0.0.1/31' -> '255.255.255.254' (for CLIs that want dotted masks)."""
    return _MASKS[_cidr(value)[1]]


def cidr_wildcard(value: str) -> str:
    """'10.1.0.0/16' -> '0.0.255.255' (for ACL rules that take wildcard masks)."""
    return _masked(value, host=True)


def cidr_network(value: str) -> str:
    """'10.1.2.3/16' -> '10.1.0.0': the network address, for ACL source/destination."""
    return _masked(value, host=False)


def num(value: float) -> str:
    """1.0 -> '1', 0.2 -> '0.2': seconds as the CLI prints them, no float noise."""
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return repr(float(value))


#: Formatting every platform's templates may use; each platform adds its own (Platform.filters).
FILTERS: dict[str, Callable[..., str]] = {
    "cidr_ip": cidr_ip,
    "cidr_mask": cidr_mask,
    "cidr_wildcard": cidr_wildcard,
    "cidr_network": cidr_network,
    "num": num,
}


def _one_line(value: Any) -> Any:
    """Refuse any value that would break out of its CLI line (invariant 7: no injection).

    The same character test validate applies to every input value (model/text.py), so a value
    that got past validate some other way (a user template, a hand-built intent) stops here.
    """
    if isinstance(value, str) and not value.isprintable():  # printable: nothing to refuse
        problem = one_line_problem(value)
        if problem is not None:
            raise ValueError(f"refusing to render a multi-line or control-character value: it {problem}")
    return value


#: Bumped by every Renderer: templates do not change during one run, so a cached template is
#: checked against the files once per Renderer, not on every include of every switch.
_RUN = [0]


class _OverridableLoader(jinja2.FileSystemLoader):
    """FileSystemLoader whose cached templates also go stale when an override appears earlier in
    the search path (or disappears): Jinja alone re-checks only the file a template came from."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        checked = [_RUN[0]]  # loaded during this run: current for the rest of it

        def still_current() -> bool:
            if checked[0] == _RUN[0]:
                return True
            current = uptodate() and self._resolve(template) == filename
            if current:
                checked[0] = _RUN[0]
            return current

        return source, filename, still_current

    def _resolve(self, template: str) -> str | None:
        pieces = jinja2.loaders.split_template_path(template)
        for folder in self.searchpath:
            candidate = os.path.join(folder, *pieces)
            if os.path.isfile(candidate):
                return os.path.normpath(candidate)
        return None


#: Field names per class for DeviceIntent node classes, None for any other class: one dict read
#: per template attribute (17.9 million of them in a 100k fabric's render).
_NODE_FIELDS: dict[type, frozenset[str] | None] = {}


def _field_names(cls: type) -> frozenset[str] | None:
    """A node class's fields (None for a class that is not a Node), looked up once per class:
    pydantic's `model_fields` is a descriptor call that cost a fifth of rendering a 448-switch
    fabric when read on every template attribute."""
    try:
        return _NODE_FIELDS[cls]
    except KeyError:
        names = frozenset(cls.model_fields) if issubclass(cls, Node) else None
        _NODE_FIELDS[cls] = names
        return names


class _IntentSandbox(SandboxedEnvironment):
    """Field reads on DeviceIntent nodes skip the per-access sandbox checks; all else is unchanged."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        try:
            names = _NODE_FIELDS[type(obj)]
        except KeyError:
            names = _field_names(type(obj))
        if names is not None and attribute in names:
            return obj.__dict__[attribute]
        return super().getattr(obj, attribute)


@functools.lru_cache(maxsize=32)
def _environment(search_path: tuple[str, ...], platform: str) -> SandboxedEnvironment:
    """One environment per search path and platform (its filters): Jinja caches compiled templates."""
    own = get_platform(platform).templates  # a NOS that ships its templates in its own package
    env = _IntentSandbox(
        loader=_OverridableLoader([*search_path, *([own] if own else [])]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_one_line,
    )
    env.filters.update(FILTERS)
    env.filters.update(get_platform(platform).filters)
    return env


def normalise(text: str) -> str:
    """Drop trailing whitespace and blank lines; end with exactly one newline."""
    return "\n".join(filter(None, map(str.rstrip, text.splitlines()))) + "\n"


def _text(value: bytes | None) -> str | None:
    """A stored config, or None when there is none or it is not UTF-8 text (rendered again)."""
    if value is None:
        return None
    try:
        return value.decode()
    except UnicodeDecodeError:
        return None


class Renderer:
    """Renders DeviceIntents with the fabric's own templates first, then the built-in ones."""

    def __init__(self, root: Path | None = None) -> None:
        self.own = None if root is None else Path(root).resolve() / "templates"
        paths = [] if self.own is None else [self.own]
        paths.append(BUILTIN_TEMPLATES)
        # dict.fromkeys: the fabricctl repo itself is a fabric root whose templates/ is built in.
        self.search_path: tuple[str, ...] = tuple(dict.fromkeys(str(p) for p in paths))
        self._digests: dict[str, str] = {}
        _RUN[0] += 1

    def environment(self, platform: str) -> SandboxedEnvironment:
        """The Jinja environment of one platform's templates (its filters added)."""
        return _environment(self.search_path, platform)

    def render_all(
        self, intents: Mapping[str, DeviceIntent], digests: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """Every intent's config: from the store (store.py) when it was rendered before from the
        same intent, templates and fabricctl code; the rest rendered now, and kept there.
        `digests` are the intents' digests when the caller has them already."""
        store = open_store()
        keys = {
            n: self.made_from(i.platform, (digests or {}).get(n) or intent_digest(i))
            for n, i in intents.items()
        }
        kept = store.get("config", keys.values()) if store is not None else {}
        out: dict[str, str] = {}
        new: dict[str, bytes] = {}
        for name, intent in intents.items():
            text = _text(kept.get(keys[name]))
            if text is None:
                text = self.render(intent)
                if store is not None:
                    new[keys[name]] = text.encode()
                    if len(new) >= 256:  # in batches: a 100k fabric's configs are 460 MB
                        store.put("config", new)
                        new = {}
            out[name] = text
        if store is not None:
            store.put("config", new)
            store.close()
        return out

    def made_from(self, platform: str, intent_digest: str) -> str:
        """What a config is made from, as a hash: its platform's templates and its intent."""
        return hashlib.sha256(f"{self.template_digest(platform)}\0{intent_digest}".encode()).hexdigest()

    def render(self, intent: DeviceIntent) -> str:
        """The full configuration fabricctl owns on this switch, as the switch would print it."""
        platform = get_platform(intent.platform)
        name = platform.device_template
        context = {field: getattr(intent, field) for field in type(intent).model_fields}
        try:
            text = self.environment(platform.name).get_template(name).render(intent=intent, **context)
        except jinja2.TemplateNotFound as exc:
            searched = ", then ".join(self._place(p) for p in self.search_path)
            raise RenderError(
                f"{intent.name}: no template {exc.name!r} for platform {intent.platform!r} (searched {searched})"
            ) from None
        except (jinja2.TemplateError, ValueError, IndexError, TypeError, AttributeError, KeyError) as exc:
            raise RenderError(f"{intent.name}: {self._where(exc, name)}: {_one_line_error(exc)}") from None
        return normalise(text)

    def _place(self, path: str) -> str:
        """A template file or folder as a user names it: `templates/...` or `built-in ...`."""
        for base, label in ((self.own, "templates"), (BUILTIN_TEMPLATES, "built-in templates")):
            if base is None:
                continue
            try:
                rel = Path(path).resolve().relative_to(base.resolve()).as_posix()
            except ValueError:
                continue
            return label + "/" if rel == "." else f"{label}/{rel}"
        return path

    def _where(self, exc: BaseException, top: str) -> str:
        """'templates/eos/acl.j2 line 3': the template frame nearest the error, if Jinja left one."""
        if isinstance(exc, jinja2.TemplateSyntaxError) and exc.lineno:
            return f"{self._place(exc.filename) if exc.filename else exc.name} line {exc.lineno}"
        tb = exc.__traceback__
        found = top
        while tb is not None:
            filename = tb.tb_frame.f_code.co_filename
            if filename.endswith(".j2"):
                found = f"{self._place(filename)} line {tb.tb_lineno}"
            tb = tb.tb_next
        return found

    def template_digest(self, platform: str) -> str:
        """sha256 over fabricctl's version and every template `<platform>/device.j2` pulls in.

        Whatever shapes a rendered config besides the intent: a switch is re-rendered when this
        changes (a template edited, a fabric override added, another fabricctl release).
        """
        if platform not in self._digests:  # once per run: the templates do not change during it
            digest = hashlib.sha256(f"fabricctl {__version__}\0".encode())
            for name, source in sorted(self._sources(get_platform(platform)).items()):
                digest.update(f"{name}\0{source}\0".encode())
            self._digests[platform] = digest.hexdigest()
        return self._digests[platform]

    def _sources(self, platform: Platform) -> dict[str, str]:
        """Template name -> source for the device template and all it includes or extends.

        A template name built at render time cannot be followed, so then every template of the
        platform counts (a change anywhere re-renders: never a stale config).
        """
        env = self.environment(platform.name)
        loader = env.loader
        assert loader is not None
        found: dict[str, str] = {}
        todo = [platform.device_template]
        while todo:
            name = todo.pop()
            if name in found:
                continue
            try:
                source = loader.get_source(env, name)[0]
            except jinja2.TemplateNotFound:
                found[name] = "(missing)"  # render() reports it; the digest only has to differ
                continue
            found[name] = source
            try:
                refs = list(jinja2.meta.find_referenced_templates(env.parse(source)))
            except jinja2.TemplateSyntaxError:
                continue  # render() reports it
            if None in refs:
                refs = [n for n in env.list_templates() if n.startswith(f"{platform.template_folder}/")]
            todo.extend(r for r in refs if r is not None)
        return found


def _one_line_error(exc: BaseException) -> str:
    """An exception as one line: its message, or its type when the message is empty."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
