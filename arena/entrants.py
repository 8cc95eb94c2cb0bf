"""Bot files for tournaments: reading, static checks, sandbox validation, registering.

A bot file is untrusted: this process only parses it (its name and author are read from the
syntax tree, never by importing it); anything that runs it goes through :mod:`arena.sandbox`.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.engine import Rules
from arena.errors import ArenaError
from arena.store import BotVersion, Store, sha256_text

SMOKE_SEEDS: Final = (1, 2)
"""Seeds of the smoke matches ``arena submit`` plays against the bundled bots."""

MAX_NAME: Final = 64


@dataclass(frozen=True)
class BotFile:
    """A bot file read from disk, with the name and author it will be stored under."""

    name: str
    source: str
    filename: str
    author: str | None


def declared(source: str, attr: str) -> str | None:
    """The string literal assigned to ``Bot.<attr>`` in ``source``, read without running it.

    The file is untrusted: it is parsed, never imported, in this process.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
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


def check_name(name: str) -> str:
    """A bot name as stored, or an ArenaError."""
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ArenaError(f"bad bot name {name!r}: 1 to {MAX_NAME} printable characters")
    return name


def read_bot_file(path: str | Path, name: str | None = None) -> BotFile:
    """Read a bot file. Its name: ``name``, else the file's ``Bot.name``, else the file stem."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ArenaError(f"cannot read bot file {path}: {reason}") from None
    chosen = name if name is not None else declared(source, "name") or path.stem
    return BotFile(check_name(chosen), source, path.name, declared(source, "author"))


def validate(bot: BotFile, limits: dict[str, Any], *, smoke: bool, unsafe: bool) -> None:
    """Check a bot in the sandbox: it loads, and with ``smoke`` it plays whole matches against
    the bundled bots without a fault. Raises ArenaError naming the file and the fault."""
    from arena.botfile import bundled_bots
    from arena.sandbox import BotPool, BotSource, Limits, validate_bot

    lim = Limits.from_dict(limits)
    me = BotSource(bot.name, bot.source, bot.filename)
    fault = validate_bot(me, lim, unsafe_no_sandbox=unsafe)
    if fault is not None:
        raise ArenaError(f"{bot.filename} failed validation: {fault.kind}: {_first_line(fault)}")
    if not smoke:
        return
    others = [BotSource(p.stem, p.read_text(encoding="utf-8"), p.name) for p in bundled_bots()]
    if not others:
        raise ArenaError("no bundled bots to play the smoke matches against")
    pool = BotPool(lim, unsafe_no_sandbox=unsafe)
    try:
        for k, seed in enumerate(SMOKE_SEEDS):
            # Sit the new bot at a different seat each time, between two bundled bots.
            a, b = others[k % len(others)], others[(k + 1) % len(others)]
            seats = [me, a, b][-k % 3 :] + [me, a, b][: -k % 3]
            outcome = pool.play_match(seats, seed, Rules())
            mine = outcome.fault_of(seats.index(me))
            if mine is not None:
                raise ArenaError(
                    f"{bot.filename} failed its smoke match (seed {seed}): "
                    f"{mine.kind}: {_first_line(mine)}"
                )
    finally:
        pool.close()


def _first_line(fault: Any) -> str:
    # A fault's message may carry the bot's traceback; the user gets one line.
    lines = [ln for ln in str(fault.message).splitlines() if ln.strip()]
    return lines[0] if lines else "(no message)"


def submit(
    store: Store, path: str | Path, name: str | None, limits: dict[str, Any], *, unsafe: bool
) -> tuple[BotVersion, bool]:
    """Validate a bot file and store it as a new version when its source changed."""
    bot = read_bot_file(path, name)
    check_static(bot, path)
    latest = store.latest_version(bot.name)
    if latest is not None and latest.sha256 == sha256_text(bot.source):
        return latest, False
    validate(bot, limits, smoke=True, unsafe=unsafe)
    return store.add_bot_version(bot.name, bot.source, bot.filename, bot.author)


def check_static(bot: BotFile, path: str | Path) -> None:
    """The checks that need no sandbox: the file parses and defines a class ``Bot``.

    The source is parsed, never run, in this process.
    """
    try:
        tree = ast.parse(bot.source, filename=str(path))
    except SyntaxError as e:
        raise ArenaError(f"{path}: syntax error on line {e.lineno}: {e.msg}") from None
    except ValueError as e:  # e.g. NUL bytes
        raise ArenaError(f"{path}: {e}") from None
    if not any(isinstance(n, ast.ClassDef) and n.name == "Bot" for n in tree.body):
        raise ArenaError(f"{path} defines no class Bot")


def register_files(store: Store, paths: Sequence[str | Path]) -> list[BotVersion]:
    """Register bot files given to ``arena run`` (a new version when the source changed).

    Only static checks run here: a bot that fails at run time is the tournament's business (its
    matches record the fault), and ``arena submit`` is the place for the sandbox smoke test.
    """
    files = [read_bot_file(p) for p in paths]
    seen: dict[str, str] = {}
    for f, p in zip(files, paths, strict=True):
        check_static(f, p)
        if f.name in seen:
            raise ArenaError(f"two bots are named {f.name!r}: {seen[f.name]} and {p}")
        seen[f.name] = str(p)
    return [store.add_bot_version(f.name, f.source, f.filename, f.author)[0] for f in files]


def resolve(store: Store, args: Sequence[str]) -> list[BotVersion]:
    """The bots of ``arena run ARGS``: each a bot file (registered) or a submitted bot's name
    (its latest version); no ARGS means every submitted bot.

    Everything is checked before anything is stored: a bad field registers no file.
    """
    if not args:
        found = store.latest_versions()
        check_field([v.name for v in found])
        return found
    picked: list[BotFile | BotVersion] = []
    for a in args:
        if Path(a).is_file():
            f = read_bot_file(a)
            check_static(f, a)
            picked.append(f)
            continue
        version = store.latest_version(a)
        if version is None:
            raise ArenaError(f"unknown bot {a!r}: neither a bot file nor a submitted bot's name")
        picked.append(version)
    names = [p.name for p in picked]
    for a, n in zip(args, names, strict=True):
        if names.count(n) > 1:
            others = [b for b, m in zip(args, names, strict=True) if m == n and b != a]
            if isinstance(picked[names.index(n)], BotFile) and all(
                Path(b).is_file() for b in others
            ):
                raise ArenaError(f"two bots are named {n!r}: {a} and {others[0]}")
            raise ArenaError(f"bot {n!r} is given twice")
    check_field(names)
    return [
        p
        if isinstance(p, BotVersion)
        else store.add_bot_version(p.name, p.source, p.filename, p.author)[0]
        for p in picked
    ]


def check_field(names: Sequence[str]) -> None:
    """A tournament needs three or more bots with distinct names."""
    if len(names) < 3:
        raise ArenaError(
            f"a tournament needs at least three bots (have {', '.join(names) or 'none'})"
        )
