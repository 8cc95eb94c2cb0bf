"""The files of a Python bot of several files: checked, staged beside its entry, copied in.

A Python bot may be a directory with a manifest (docs/writing-a-bot.md, "Multi-file bots"):
its entry file holds the class ``Bot`` and imports the others (``import helpers``, a package
``strategy/``), or reads data files beside it (``os.path.dirname(__file__)``). Every file sits
in the entry's directory or below it (the manifest at the top aside); the bot host finds them
on ``sys.path`` after the arena's and the standard library's own modules (a bot's ``json.py``
shadows nothing).

The files go where the entry goes: under bubblewrap, sent to its host (one memfd) and written
into a tmpfs of the host's own on ``/bot`` (no host directory is bound, so no lookup of a
missing name leaves a trace in the machine's name cache; arena/sandbox/world.py); without it,
into the staging directory of its zygote.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from arena.sandbox.runtime import Artifact
from arena.sandbox.values import BotSource

__all__ = ["python_source", "write_bot_files", "bot_payload", "entry_name"]

_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_MANIFESTS = ("bot.toml", "arena.json")
# PEP 263: a coding declaration in a comment on one of the first two lines.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)


def _checked(path: str, data: bytes) -> str | None:
    """Why ``path`` cannot be one of a Python bot's other files, or None."""
    parts = PurePosixPath(path).parts
    if not parts or not all(_PART.fullmatch(p) for p in parts):
        return f"{path}: not a plain relative file name (letters, digits, . _ -)"
    if path.endswith(".py"):
        head = b"\n".join(data.split(b"\n", 2)[:2])
        cookie = _COOKIE.search(head)
        if cookie and cookie.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
            # The arena shows UTF-8 text; a cookie would make Python run other code.
            return f"{path}: a coding declaration other than utf-8"
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            return f"{path}: not UTF-8 text (byte {e.start})"
    return None


def python_source(artifact: Artifact, name: str = "bot") -> BotSource | str:
    """The Python bot of ``artifact`` as a :class:`BotSource` (its entry, and its other files
    by their paths from the entry's directory), or why it cannot be one."""
    files = dict(artifact.files)
    entry = PurePosixPath(artifact.entry)
    try:
        text = files[artifact.entry].decode("utf-8")
    except KeyError:
        return f"{artifact.entry}: the entry is not one of the bot's files"
    except UnicodeDecodeError as e:
        return f"{artifact.entry}: not UTF-8 text (byte {e.start})"
    others: list[tuple[str, bytes]] = []
    for path, data in artifact.files:
        if path == artifact.entry:
            continue
        p = PurePosixPath(path)
        if path in _MANIFESTS and entry.parent != p.parent:
            continue  # the manifest at the top, for an entry below it: not the bot's to read
        if entry.parent not in p.parents:
            return f"{path}: not in the directory of the entry {artifact.entry}"
        rel = str(p.relative_to(entry.parent))
        why = _checked(rel, data)
        if why is not None:
            return why
        others.append((rel, data))
    return BotSource(name, text, entry.name, tuple(others))


def write_bot_files(path: Path, source: BotSource) -> None:
    """Write the entry at ``path`` and the bot's other files beside it (read-only to others).
    Raises ValueError for a path that could leave the directory (:func:`python_source` makes
    none)."""
    path.write_text(source.source, encoding="utf-8")
    path.chmod(0o644)
    for rel, data in source.files:
        if not all(_PART.fullmatch(part) for part in PurePosixPath(rel).parts):
            raise ValueError(f"{rel!r}: not a plain relative file name")  # never outside
        out = path.parent / rel
        for d in reversed(out.relative_to(path.parent).parents[:-1]):
            (path.parent / d).mkdir(mode=0o755, exist_ok=True)
        out.write_bytes(data)
        out.chmod(0o644)


def entry_name(source: BotSource) -> str:
    """The name the bot's entry file gets in the sandbox: its own, in plain characters."""
    name = "".join(c for c in source.filename if c.isalnum() or c in "._-") or "bot.py"
    return name if name.endswith(".py") else name + ".py"


def bot_payload(source: BotSource) -> list[tuple[str, bytes]]:
    """The bot's files as ``(path under /bot, bytes)``, its entry first (what the bot host
    writes into its sandbox's ``/bot``). Raises ValueError for a path that could leave the
    directory or clash with the entry (:func:`python_source` makes none)."""
    entry = entry_name(source)
    out = [(entry, source.source.encode("utf-8"))]
    for rel, data in source.files:
        if not all(_PART.fullmatch(part) for part in PurePosixPath(rel).parts) or rel == entry:
            raise ValueError(f"{rel!r}: not a plain relative file name")
        out.append((str(PurePosixPath(rel)), data))
    return out
