"""Text a bot controls: the one place where it is capped, stripped and checked.

Everything a bot file or a bot process can put into the arena's output (its name, its author,
fault messages it provokes, what it prints, stray protocol lines) crosses a boundary once: at
``arena submit`` (names and author, read from the file) or at the sandbox's seat proxy (every
byte that comes back from a bot process). That boundary calls the functions here, so what is
stored in the database is already short and free of control characters. Rendering escapes it
once more for its medium: Jinja2's autoescape for HTML, :func:`rich.markup.escape` (or
``rich.text.Text``) for the terminal.

Standard library only, so the sandbox host may import it too.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

MAX_NAME: Final = 40
"""Longest bot name."""

MAX_AUTHOR: Final = 80
"""Longest ``author`` string kept from a bot file."""

MAX_MESSAGE: Final = 2000
"""Longest fault message kept (a traceback's last lines; the rest is cut with a marker)."""

NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
"""A bot name: ASCII letters, digits and ``_ . + -``, starting with a letter or digit.

No spaces, brackets, quotes, slashes or anything else that a terminal, a markup language, a
URL or a file name gives a meaning to, and no look-alike letters from other scripts, so two
different bots can never show the same name."""

_CUT: Final = " [... cut]"


def _is_control(ch: str) -> bool:
    # Cc: C0/C1 controls (ESC, BEL, CR, ...); Cf: format characters (bidi overrides, zero
    # widths) that can make text display as something it is not; Cs/Co/Cn: surrogates,
    # private use, unassigned.
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")


def strip_controls(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` without control and format characters (tabs become spaces).

    With ``keep_newlines``, ``\\n`` survives (tracebacks and logs keep their lines); every
    other control character, ``\\r`` and ESC included, is dropped.
    """
    out = []
    for ch in text:
        if ch == "\t":
            out.append(" ")
        elif ch == "\n" and keep_newlines:
            out.append(ch)
        elif not _is_control(ch):
            out.append(ch)
    return "".join(out)


def cap(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(_CUT))] + _CUT


def clean(text: object, limit: int = MAX_MESSAGE, *, keep_newlines: bool = True) -> str:
    """Any bot-controlled value as safe text: str() of it, controls stripped, capped.

    Capping happens before and after stripping, so a huge input costs at most ``4 * limit``
    characters of work.
    """
    raw = text if isinstance(text, str) else repr(text)
    raw = raw[: 4 * limit + 16]
    return cap(strip_controls(raw, keep_newlines=keep_newlines), limit)


def clean_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """Like :func:`clean`, on one line: newlines become spaces."""
    raw = text if isinstance(text, str) else repr(text)
    return clean(raw[: 4 * limit + 16].replace("\n", " "), limit, keep_newlines=False)


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid bot name, or None when it is."""
    if not name:
        return "a bot name cannot be empty"
    if len(name) > MAX_NAME:
        return f"a bot name has at most {MAX_NAME} characters"
    if not NAME_PATTERN.fullmatch(name):
        return (
            "a bot name uses only ASCII letters, digits and _ . + - "
            "(and starts with a letter or digit)"
        )
    return None


_LOOKALIKE_PAIRS: Final = (("rn", "m"), ("vv", "w"))
_LOOKALIKE_CHARS: Final = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l"})


def name_skeleton(name: str) -> str:
    """What ``name`` looks like at a glance: two names with one skeleton are look-alikes.

    Letter case, a trailing ``.py``, the punctuation ``_ . + -`` and the confusable shapes
    I/l/1, O/0, rn/m and vv/w are folded away: ``montecarIo``, ``rnontecarlo``,
    ``heuristic.`` and ``heuristic.py`` have the skeletons of ``montecarlo`` and
    ``heuristic``.

    >>> name_skeleton("rnontecarIo") == name_skeleton("montecarlo")
    True
    """
    s = name.casefold()
    s = s.removesuffix(".py")
    s = re.sub(r"[_.+\-]", "", s)
    for pair, single in _LOOKALIKE_PAIRS:
        s = s.replace(pair, single)
    return s.translate(_LOOKALIKE_CHARS)
