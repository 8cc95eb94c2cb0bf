"""The one family of errors a user must see: the CLI turns each into one line and exit code 1."""

from __future__ import annotations


class ArenaError(Exception):
    """An error to report to the user in one clear line (no traceback)."""
