"""A bot on disk as an :class:`~arena.sandbox.runtime.Artifact`: one source file (its runtime
by extension) or a directory with a manifest (docs/writing-a-bot.md, "Multi-file bots").

The manifest is ``bot.toml`` or ``arena.json`` at the top of the directory::

    language = "rust"          # a key of arena.sandbox.runtimes.RUNTIMES
    entry = "src/main.rs"      # the file the bot starts from, relative to the directory
    name = "crab"              # optional: the name to store it under (default: the directory's)

Every regular file under the directory is part of the artifact (hidden files and directories,
``target/``, ``build/``, ``node_modules/`` and ``__pycache__/`` left out), within the bot's
``source_bytes`` limit and :data:`MAX_FILES` files.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any, Final

from arena.errors import ArenaError
from arena.sandbox.pyfiles import python_source
from arena.sandbox.runtime import Artifact
from arena.sandbox.runtimes import RUNTIMES, runtime_for, runtime_of

__all__ = ["load_artifact", "read_manifest", "MANIFESTS", "MAX_FILES"]

MANIFESTS: Final = ("bot.toml", "arena.json")
MAX_FILES: Final = 200
_SKIPPED: Final = frozenset({"target", "build", "node_modules", "__pycache__"})


def load_artifact(path: str | os.PathLike[str], max_bytes: int = 1 << 20) -> Artifact:
    """The bot at ``path`` (a source file or a directory with a manifest) as an artifact.

    Raises :class:`ArenaError` (one line) for an unknown extension or language, a missing
    toolchain, a bad manifest, or files over ``max_bytes`` together.
    """
    p = Path(path)
    if p.is_dir():
        return _directory(p, max_bytes)
    runtime = runtime_for(p)
    data = _read(p, max_bytes)
    return Artifact(runtime.language, ((p.name, data),), p.name)


def _read(p: Path, cap: int) -> bytes:
    try:
        with open(p, "rb") as f:
            data = f.read(cap + 1)
    except OSError as e:
        raise ArenaError(f"cannot read bot file {p}: {e.strerror}") from None
    if len(data) > cap:
        raise ArenaError(f"{p}: over the limit of {cap} bytes")
    return data


def read_manifest(d: Path) -> dict[str, Any]:
    """The manifest of bot directory ``d`` (``bot.toml`` first); ArenaError when none is valid."""
    for name in MANIFESTS:
        f = d / name
        if not f.is_file():
            continue
        try:
            text = f.read_text(encoding="utf-8")
            data = tomllib.loads(text) if name.endswith(".toml") else json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise ArenaError(f"{f}: not a valid manifest ({e})") from None
        if not isinstance(data, dict):
            raise ArenaError(f"{f}: the manifest is not a table of keys")
        return data
    raise ArenaError(f"{d}: a bot directory needs a manifest ({' or '.join(MANIFESTS)})")


def _directory(d: Path, max_bytes: int) -> Artifact:
    meta = read_manifest(d)
    language, entry = meta.get("language"), meta.get("entry")
    if not isinstance(language, str) or not isinstance(entry, str):
        raise ArenaError(f"{d}: the manifest needs language and entry (strings)")
    if language not in RUNTIMES:
        _named(d, language)  # raises: no runtime for it
    files: list[tuple[str, bytes]] = []
    total = 0
    for root, dirs, names in os.walk(d):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in _SKIPPED)
        for name in sorted(names):
            f = Path(root) / name
            if name.startswith(".") or not f.is_file() or f.is_symlink():
                continue
            rel = f.relative_to(d).as_posix()
            data = _read(f, max_bytes)
            total += len(data)
            if total > max_bytes:
                raise ArenaError(f"{d}: its files are over the limit of {max_bytes} bytes")
            files.append((rel, data))
            if len(files) > MAX_FILES:
                raise ArenaError(f"{d}: over {MAX_FILES} files")
    entry = PurePosixPath(entry).as_posix()
    if entry not in {rel for rel, _ in files}:
        raise ArenaError(f"{d}: the manifest's entry {entry!r} is not a file of the directory")
    _named(d, language)  # a missing toolchain: one line naming the language
    artifact = Artifact(language, tuple(sorted(files)), entry)
    if language == "python":  # its files as the bot host will stage them
        why = python_source(artifact)
        if isinstance(why, str):
            raise ArenaError(f"{d}: {why}")
    return artifact


def _named(d: Path, language: str) -> None:
    """:func:`runtime_of`, its error naming the directory."""
    try:
        runtime_of(language)
    except ArenaError as e:
        raise ArenaError(f"{d}: {e}") from None
