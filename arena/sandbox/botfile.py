"""Loading a bot file in *this* process: for trusted bots, research and tests only.

Untrusted bots go through :mod:`arena.sandbox`, which loads them in a locked-down process.
"""

from __future__ import annotations

import ast
import functools
import sys
import types
from pathlib import Path
from typing import Any

from arena.errors import ArenaError


def _bundled_dir() -> Path:
    # A source checkout has bots/ beside the package; an installed wheel ships the same files
    # as the package arena.bundled_bots.
    tree = Path(__file__).resolve().parents[2] / "bots"
    if (tree / "random_bot.py").is_file():
        return tree
    return Path(__file__).resolve().parents[1] / "bundled_bots"


BUNDLED_BOTS = _bundled_dir()
"""The directory of the reference bots (``bots/`` of the source tree, or the installed copy)."""


def bundled_bots() -> list[Path]:
    """Every bundled reference bot file, sorted by name."""
    return sorted(p for p in BUNDLED_BOTS.glob("*.py") if not p.name.startswith("_"))


def declared(source: str | ast.Module, attr: str) -> str | None:
    """The string literal assigned to ``Bot.<attr>`` in a bot file, read without running it.

    ``source`` is the file's text or its parsed syntax tree. The file is untrusted: it is
    parsed, never imported, in this process.
    """
    if isinstance(source, str):
        try:
            source = ast.parse(source)
        except (SyntaxError, ValueError):
            return None
    for node in source.body:
        if isinstance(node, ast.ClassDef) and node.name == "Bot":
            for stmt in node.body:
                targets = (
                    stmt.targets
                    if isinstance(stmt, ast.Assign)
                    else [stmt.target]
                    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
                    else []
                )
                value = getattr(stmt, "value", None)
                if (
                    any(isinstance(t, ast.Name) and t.id == attr for t in targets)
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    return value.value
    return None


def bundled_name(path: Path) -> str:
    """The tournament name of a bundled bot file: its ``Bot.name``, else its stem."""
    stat = path.stat()
    return _declared_name(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _declared_name(path: Path, mtime_ns: int, size: int) -> str:
    # Parsed once per version of the file: a submit asks for every bundled name several times
    # (the reserved names, the smoke matches' opponents), and the Monte-Carlo bot is long.
    return declared(path.read_text(encoding="utf-8"), "name") or path.stem


def bundled_names() -> dict[str, Path]:
    """Every bundled bot by its tournament name (``random``) and by its file stem
    (``random_bot``)."""
    out: dict[str, Path] = {}
    for path in bundled_bots():
        out[path.stem] = path
        out[bundled_name(path)] = path
    return out


def bundled(name: str) -> Path:
    """Path of a bundled reference bot by tournament name (``"random"``, ``"heuristic"``,
    ``"montecarlo"``) or file stem (``"random_bot"``)."""
    path = bundled_names().get(name)
    if path is None:
        known = ", ".join(sorted({bundled_name(p) for p in bundled_bots()}))
        raise ArenaError(f"no bundled bot {name!r} (the bundled bots: {known})")
    return path


def load_bot_class(path: str | Path) -> type[Any]:
    """Run the file at ``path`` as a fresh module and return its ``Bot`` class.

    The file is read once and its UTF-8 text compiled, as the sandbox does: a coding cookie
    changes nothing (compiled from the raw bytes, ``# coding: unicode_escape`` would make the
    text a reader sees run other code).
    """
    path = Path(path)
    try:
        source = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise ArenaError(f"cannot read bot file {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ArenaError(f"{path}: not UTF-8 text (byte {e.start})") from None
    name = f"arena_bot_{path.stem}_{abs(hash(source)) & 0xFFFFFF:x}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        code = compile(source, str(path), "exec", dont_inherit=True)
        exec(code, module.__dict__)
    except Exception as e:  # a broken bot file is the user's input, reported in one line
        sys.modules.pop(name, None)
        raise ArenaError(f"{path}: {type(e).__name__}: {e}") from None
    cls = getattr(module, "Bot", None)
    if not isinstance(cls, type) or not callable(getattr(cls, "act", None)):
        raise ArenaError(f"{path} defines no class Bot with an act(obs) method")
    return cls
