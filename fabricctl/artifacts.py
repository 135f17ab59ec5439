"""Write the reviewable artifacts of a compile: <switch>.intent.yaml and <switch>.cfg.

A switch whose intent is byte-identical to what is already on disk is not rendered again, so a
one-tenant change re-renders only the switches that tenant lands on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from fabricctl.compile.intent import DeviceIntent
from fabricctl.render import Renderer

try:
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - pure-Python PyYAML
    _Dumper = yaml.SafeDumper


def intent_yaml(intent: DeviceIntent) -> str:
    """Stable YAML of one switch's intent (field order of the model, no sorting surprises)."""
    return yaml.dump(intent.model_dump(mode="json"), Dumper=_Dumper, sort_keys=False, width=200)


def _write_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return True


@dataclass
class RenderStats:
    rendered: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    lines: int = 0


def write_artifacts(
    intents: dict[str, DeviceIntent], renderer: Renderer, out: Path, force: bool = False
) -> RenderStats:
    """Render changed switches into `out`; skip those whose intent file already matches."""
    out.mkdir(parents=True, exist_ok=True)
    stats = RenderStats()
    for name, intent in intents.items():
        intent_text = intent_yaml(intent)
        cfg, intent_file = out / f"{name}.cfg", out / f"{name}.intent.yaml"
        if (
            not force
            and cfg.is_file()
            and intent_file.is_file()
            and intent_file.read_text(encoding="utf-8") == intent_text
        ):
            stats.unchanged.append(name)
            continue
        text = renderer.render(intent)
        _write_if_changed(cfg, text)
        _write_if_changed(intent_file, intent_text)  # last: a failed render is retried next time
        stats.rendered.append(name)
        stats.lines += text.count("\n")
    return stats
