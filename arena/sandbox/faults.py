"""A bot's fault in one line: its kind, where in the bot's own file, and the error.

A stored fault message is the bot's error text, often followed by the traceback the sandbox
captured (``KeyError: 'dummy'`` then ``Traceback ...``, ``File "/bot/raiser.py", line 5, in
act``, ...). The message is bot-controlled and its layout may change, so it is read
defensively: the bot's own file and line come from the last traceback frame in that file
(else the last frame outside the arena's host), and a message without one is shown by its first
line. Everything returned is one line, stripped of control characters and capped.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Final

from arena.untrusted import clean_line

SUMMARY_CHARS: Final = 300
"""Longest one-line summary."""

_FRAME: Final = re.compile(r'^\s*File "([^"\n]{1,400})", line (\d{1,9})')
_HEADER: Final = re.compile(r"^(.{1,2000}) \(([^()/\n]{1,200}), line (\d{1,9})\)$")
"""The sandbox's own first line: ``KeyError: 'dummy' (raiser.py, line 5)``."""


def location(message: str, filename: str | None = None) -> str | None:
    """``"raiser.py, line 5"``: where the bot's own code failed, from a traceback in ``message``.

    ``filename`` is the bot's file name as stored; frames in a file of that name win, else
    the last frame that is not the arena's bot host.
    """
    frames = [(m[1], int(m[2])) for m in map(_FRAME.match, message.splitlines()) if m]
    if not frames:
        return None
    own = [f for f in frames if filename and PurePosixPath(f[0]).name == filename]
    outside = [f for f in frames if "/arena/" not in f[0] and not f[0].startswith("<")]
    if not (own or outside):
        return None
    path, line = (own or outside)[-1]
    return f"{PurePosixPath(path).name}, line {line}"


def first_line(message: str) -> str:
    """The first non-blank line of ``message`` (the error itself), or ``(no message)``."""
    for line in message.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def summary(message: object, filename: str | None = None) -> str:
    """``"raiser.py, line 5: KeyError: 'dummy'"``: the error, prefixed by where it happened."""
    text = message if isinstance(message, str) else str(message)
    error = first_line(text)
    header = _HEADER.match(error)
    where: str | None
    if header:
        error, where = header[1], f"{header[2]}, line {header[3]}"
    else:
        where = location(text, filename)
    return clean_line(f"{where}: {error}" if where else error, SUMMARY_CHARS)


def describe(fault: Any, filename: str | None = None) -> str:
    """A fault (a :class:`arena.sandbox.Fault` or a ``faults`` row) in one line:
    ``"crash at decision 3: raiser.py, line 5: KeyError: 'dummy'"`` (decisions from 1), or
    ``"failed to load: raiser.py, line 1: SyntaxError: ..."``."""
    get = fault.get if isinstance(fault, dict) else lambda k: getattr(fault, k, None)
    decision = get("decision")
    kind = clean_line(get("kind") or "fault", 40)
    if decision is not None:
        head = f"{kind} at decision {int(decision) + 1}"
    else:  # before its first decision: "failed to load", "timeout while loading"
        head = "failed to load" if kind == "load" else f"{kind} while loading"
    return f"{head}: {summary(get('message') or '', filename)}"
