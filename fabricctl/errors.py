"""Errors every stage may raise and the CLI turns into one line and exit 1 (never a traceback).

Kept apart and import-free so the CLI can catch them without loading any stage.
"""

from __future__ import annotations


class StageError(Exception):
    """A stage could not finish for a reason the user can act on; the message is one line."""
