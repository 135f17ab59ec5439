"""Render a DeviceIntent into the platform's configuration text (stage `render`).

Templates are logic-free: every decision (which lines exist, on which port, in which order) is
made by the compile stage and arrives as DeviceIntent fields. This module only provides the
Jinja environment and a few filters that *format* values (addresses, MACs, queue names).

Search path: `<fabric root>/templates` first, so a fabric repo can override any template file
(for example `templates/eos/bgp.j2`), then the built-in templates shipped in `templates/`.

Template context: every DeviceIntent field as a top-level name (`interfaces`, `bgp`, `qos`, ...)
plus `intent` itself. Undefined names fail the render (StrictUndefined), and any value holding a
newline or control character is refused, so free text can never add a CLI line.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from ipaddress import IPv4Interface
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from fabricctl.compile.intent import DeviceIntent, Node

#: Templates shipped with fabricctl (`templates/<platform>/device.j2` + per-feature files).
BUILTIN_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

#: Comware queue names for local precedence 0..7 (`qos wrr <name> ...`).
COMWARE_QUEUES = ("be", "af1", "af2", "af3", "af4", "ef", "cs6", "cs7")


class RenderError(Exception):
    """A template could not be rendered for one device; the message names device and template."""


def cidr_ip(value: str) -> str:
    """'10.0.0.1/31' -> '10.0.0.1' (a bare address is returned as is)."""
    return str(IPv4Interface(value).ip)


def cidr_mask(value: str) -> str:
    """'10.0.0.1/31' -> '255.255.255.254' (Comware wants dotted masks)."""
    return str(IPv4Interface(value).netmask)


def cidr_wildcard(value: str) -> str:
    """'10.1.0.0/16' -> '0.0.255.255' (Comware ACL rules take wildcard masks)."""
    return str(IPv4Interface(value).hostmask)


def cidr_network(value: str) -> str:
    """'10.1.2.3/16' -> '10.1.0.0': the network address, for ACL source/destination."""
    return str(IPv4Interface(value).network.network_address)


def _mac_digits(value: str) -> str:
    digits = "".join(c for c in value.lower() if c not in ":-.")
    if len(digits) != 12 or any(c not in "0123456789abcdef" for c in digits):
        raise ValueError(f"not a MAC address: {value!r}")
    return digits


def mac_comware(value: str) -> str:
    """'00:00:5e:00:01:01' -> '0000-5e00-0101'."""
    d = _mac_digits(value)
    return f"{d[0:4]}-{d[4:8]}-{d[8:12]}"


def mac_eos(value: str) -> str:
    """'00:00:5e:00:01:01' -> '0000.5e00.0101' (the form `show running-config` prints)."""
    d = _mac_digits(value)
    return f"{d[0:4]}.{d[4:8]}.{d[8:12]}"


def queue_name_comware(value: int) -> str:
    """Queue number 0..7 -> Comware queue name (3 -> 'af3', 6 -> 'cs6')."""
    return COMWARE_QUEUES[value]


def num(value: float) -> str:
    """1.0 -> '1', 0.2 -> '0.2': seconds as the CLI prints them, no float noise."""
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return repr(float(value))


FILTERS: dict[str, Callable[..., str]] = {
    "cidr_ip": cidr_ip,
    "cidr_mask": cidr_mask,
    "cidr_wildcard": cidr_wildcard,
    "cidr_network": cidr_network,
    "mac_comware": mac_comware,
    "mac_eos": mac_eos,
    "queue_name_comware": queue_name_comware,
    "num": num,
}


def _one_line(value: Any) -> Any:
    """Refuse any value that would break out of its CLI line (invariant 7: no injection)."""
    if isinstance(value, str) and any(c in value for c in "\r\n\x00\x1b"):
        raise ValueError(f"refusing to render a multi-line or control-character value: {value!r}")
    return value


class _IntentSandbox(SandboxedEnvironment):
    """Field reads on DeviceIntent nodes skip the per-access sandbox checks; all else is unchanged."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, Node) and attribute in type(obj).model_fields:
            return obj.__dict__[attribute]
        return super().getattr(obj, attribute)


@functools.lru_cache(maxsize=32)
def _environment(search_path: tuple[str, ...]) -> SandboxedEnvironment:
    """One environment per search path: Jinja caches compiled templates on it."""
    env = _IntentSandbox(
        loader=jinja2.FileSystemLoader(list(search_path)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_one_line,
    )
    env.filters.update(FILTERS)
    return env


def normalise(text: str) -> str:
    """Drop trailing whitespace and blank lines; end with exactly one newline."""
    lines = [line.rstrip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line) + "\n"


class Renderer:
    """Renders DeviceIntents with the fabric's own templates first, then the built-in ones."""

    def __init__(self, root: Path | None = None) -> None:
        paths = [] if root is None else [Path(root).resolve() / "templates"]
        paths.append(BUILTIN_TEMPLATES)
        # dict.fromkeys: the fabricctl repo itself is a fabric root whose templates/ is built in.
        self.search_path: tuple[str, ...] = tuple(dict.fromkeys(str(p) for p in paths))
        self.env = _environment(self.search_path)

    def render(self, intent: DeviceIntent) -> str:
        """The full configuration fabricctl owns on this switch, as the switch would print it."""
        name = f"{intent.platform}/device.j2"
        context = {field: getattr(intent, field) for field in type(intent).model_fields}
        try:
            text = self.env.get_template(name).render(intent=intent, **context)
        except jinja2.TemplateNotFound as exc:
            raise RenderError(
                f"{intent.name}: no template {exc.name!r} for platform {intent.platform!r} "
                f"(searched {', '.join(self.search_path)})"
            ) from exc
        except (jinja2.TemplateError, ValueError, IndexError) as exc:
            raise RenderError(f"{intent.name} ({name}{_where(exc)}): {exc}") from exc
        return normalise(text)


def _where(exc: BaseException) -> str:
    """' line N of file' from the template frame of a traceback, when Jinja left one."""
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.lineno:
        return f", {exc.filename or exc.name} line {exc.lineno}"
    tb = exc.__traceback__
    found = ""
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith(".j2"):
            found = f", {filename} line {tb.tb_lineno}"
        tb = tb.tb_next
    return found
