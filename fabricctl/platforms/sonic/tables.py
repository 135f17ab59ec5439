"""The text tables sonic-utilities' `show` commands print (Python's tabulate, "simple" format):
a header line, a line of dashes under each column, then a row per line, a blank line or a line of
dashes alone after the last; around them free text (`Capability codes: ...`, `Total entries
displayed: 3`). Columns are cut at the dashes' spans: a value may hold a space (`2000.00 MB/s`,
`GigabitEthernet 0/2`), a header may be right-aligned, and a trailing value may be empty."""

from __future__ import annotations

import re

_DASHES = re.compile(r"-+")


class TableError(ValueError):
    """Text that holds no table of the expected layout."""


def _underline(line: str) -> list[tuple[int, int]] | None:
    """The column spans of a header's underline (two columns or more), else None."""
    if not line.strip() or set(line.replace(" ", "")) != {"-"}:
        return None
    spans = [(m.start(), m.end()) for m in _DASHES.finditer(line)]
    return spans if len(spans) > 1 else None


def _cells(row: str, spans: list[tuple[int, int]]) -> list[str]:
    ends = [start for start, _ in spans[1:]] + [max(len(row), spans[-1][1])]
    return [row[start:end].strip() for (start, _), end in zip(spans, ends, strict=True)]


def text_tables(text: str, command: str) -> list[list[dict[str, str]]]:
    """Every table of a reply, each a list of rows (column header -> value)."""
    tables: list[list[dict[str, str]]] = []
    lines = text.splitlines()
    for i in range(1, len(lines)):
        spans = _underline(lines[i])
        if spans is None:
            continue
        header = _cells(lines[i - 1], spans)
        rows: list[dict[str, str]] = []
        for row in lines[i + 1 :]:
            if not row.strip() or set(row.strip()) == {"-"}:
                break
            cells = _cells(row, spans)
            if not cells[0]:
                raise TableError(f"{command}: row {row!r} has no {header[0]}")
            rows.append(dict(zip(header, cells, strict=True)))
        tables.append(rows)
    if not tables:
        raise TableError(f"{command}: no table in the reply")
    return tables
