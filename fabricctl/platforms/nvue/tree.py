"""NVUE's YAML as nested mappings that remember the line each key is on: what the read-back parser
and the health readers walk. Scalars stay text (YAML's `on` stays "on", `9216` stays "9216")."""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from fabricctl.config.readback import Src


@dataclass
class Obj:
    """One mapping: values are text, or mappings of their own; `lines` gives each key's line."""

    values: dict[str, str | Obj] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def obj(self, *path: str) -> Obj:
        """The mapping at `path` below this one (an empty one where any step is missing)."""
        at: Obj = self
        for key in path:
            nxt = at.values.get(key)
            if not isinstance(nxt, Obj):
                return Obj()
            at = nxt
        return at

    def text(self, *path: str) -> str | None:
        """The scalar at `path`, or None."""
        value = self.obj(*path[:-1]).values.get(path[-1])
        return value if isinstance(value, str) else None

    def choice(self, *path: str) -> str | None:
        """A choice at `path`: NVUE writes one as an object of one member (`state: {up: {}}`);
        a scalar (`state: up`) reads the same."""
        value = self.obj(*path[:-1]).values.get(path[-1])
        if isinstance(value, Obj) and len(value.values) == 1:
            return next(iter(value.values))
        return value if isinstance(value, str) else None

    def names(self) -> list[str]:
        return list(self.values)


def _build(node: yaml.Node) -> str | Obj:
    if isinstance(node, yaml.MappingNode):
        out = Obj()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            out.values[key] = _build(value_node)
            out.lines[key] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):  # a set of members, as NVUE prints a few lists
        out = Obj()
        for member in node.value:
            out.values[str(member.value)] = Obj()
            out.lines[str(member.value)] = member.start_mark.line + 1
        return out
    return str(node.value)


def load(text: str) -> Obj:
    """The `set` part(s) of a `nv config show -o yaml` (or a bare mapping), merged; the header is
    not config. Raises yaml.YAMLError on text that is not YAML."""
    root = yaml.compose(text, Loader=yaml.BaseLoader)
    merged = Obj()
    parts: list[Obj] = []
    if isinstance(root, yaml.SequenceNode):
        for item in root.value:
            part = _build(item)
            if isinstance(part, Obj) and isinstance(part.values.get("set"), Obj):
                parts.append(part.obj("set"))
    elif isinstance(root, yaml.MappingNode):
        part = _build(root)
        assert isinstance(part, Obj)
        parts.append(part)
    for part in parts:
        _merge(merged, part)
    return merged


def _merge(into: Obj, part: Obj) -> None:
    for key, value in part.values.items():
        have = into.values.get(key)
        if isinstance(have, Obj) and isinstance(value, Obj):
            _merge(have, value)
        else:
            into.values[key] = value
            into.lines[key] = part.lines[key]


def src(obj: Obj, key: str, *words: str) -> Src:
    """Where `key` of `obj` is set, named as the `nv set` path that sets it (`words`: the path
    down to `obj`), which says more in a proof than the bare YAML line."""
    value = obj.values.get(key)
    tail = f" {value}" if isinstance(value, str) else ""
    return Src(obj.lines.get(key, 0), " ".join((*words, key)) + tail)
