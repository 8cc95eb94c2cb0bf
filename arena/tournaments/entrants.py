"""Bot files for tournaments: reading, static checks, owners, sandbox validation, registering.

A bot file is untrusted: this process reads at most ``source_bytes`` of it and parses it once
(its name and author come from the syntax tree, never from importing it); anything that runs it
goes through :mod:`arena.sandbox`. Its name, author and file name are checked or cleaned here,
at the boundary, before anything is stored (:mod:`arena.untrusted`).
"""

from __future__ import annotations

import ast
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from arena.engine import Rules
from arena.errors import ArenaError, BadBotFile, NotFound
from arena.sandbox import BotPool, BotSource, faults, validate_bot
from arena.sandbox.artifacts import load_artifact, read_manifest
from arena.sandbox.botfile import bundled, bundled_bots, bundled_name, bundled_names, declared
from arena.sandbox.pool import VALIDATION_PARTNERS
from arena.sandbox.runtime import Artifact
from arena.sandbox.runtimes import runtime_for
from arena.store import BotVersion, Store, sha256_text
from arena.store.bots import one_file
from arena.tournaments.owners import BUNDLED
from arena.untrusted import MAX_AUTHOR, clean_line, name_problem, name_skeleton

if TYPE_CHECKING:
    from arena.sandbox import Limits

__all__ = [
    "DEFAULT_SOURCE_BYTES",
    "BotFile",
    "SameBot",
    "check_field",
    "check_name",
    "check_owner",
    "declared",
    "read_bot_file",
    "register_files",
    "resolve",
    "submit",
    "validate",
]

SMOKE_SEEDS: Final = (1, 2)
"""Seeds of the smoke matches ``arena submit`` plays against the bundled bots."""

SMOKE_OPPONENTS: Final = ("random", "heuristic")
"""The bundled bots the smoke matches seat beside the new bot: the two that answer at once.
The Monte-Carlo bot searches every decision and made most of a submit's wait; the new bot's
check (does it load and play whole matches without a fault) does not depend on its opponents'
strength, and the random bot's bids and plays reach more of the game's situations."""

DEFAULT_SOURCE_BYTES: Final = 1 << 20
"""Largest bot file read (the sandbox's ``Limits.source_bytes`` default)."""


@dataclass(frozen=True)
class BotFile:
    """A bot read from disk (a file, or a directory with a manifest), with the name and
    author it will be stored under; ``source`` is its entry file's text."""

    name: str
    source: str
    filename: str
    author: str | None
    artifact: Artifact | None = None

    @property
    def bot(self) -> Artifact:
        """What the sandbox runs and the store keeps (a ``.py`` file: a one-file artifact)."""
        return self.artifact or one_file("python", self.source, self.filename)


def runnable(bot: BotVersion | BotFile) -> BotSource | Artifact:
    """What the pool plays for a stored version or a read file: a Python file as the
    :class:`BotSource` it always was, any other bot as its artifact."""
    art = bot.artifact if isinstance(bot, BotVersion) else bot.bot
    if art.language == "python" and len(art.files) == 1:
        return BotSource(bot.name, bot.source, bot.filename)
    return art


def check_name(name: str, origin: str = "`name`") -> str:
    """A bot name as stored, or an ArenaError saying what is wrong and where it came from
    (``origin``; ```name```: the ``name`` setting)."""
    problem = name_problem(name)
    if problem is not None:
        bad = ArenaError(f"bad bot name {clean_line(name, 60)!r} ({origin}): {problem}")
        raise bad.naming("name")
    return name


def _read_source(path: Path, max_bytes: int) -> str:
    # Size first, and never more than the cap read: an 8 MB file (or /dev/zero) costs nothing.
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise BadBotFile(f"{path} is not a regular file")
        if st.st_size > max_bytes:
            raise BadBotFile(_too_big(path, st.st_size, max_bytes)).naming("source_bytes")
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise BadBotFile(f"cannot read bot file {path}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise BadBotFile(_too_big(path, len(data), max_bytes)).naming("source_bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadBotFile(f"cannot read bot file {path}: not UTF-8 text ({e.reason})") from None


def _too_big(path: Path, size: int, max_bytes: int) -> str:
    return (
        f"{path} is {size:,} bytes; a bot file may have at most {max_bytes:,} bytes "
        "(`source_bytes`)"
    )


def _parse(source: str, path: Path) -> ast.Module:
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as e:
        raise BadBotFile(f"{path}: syntax error on line {e.lineno}: {e.msg}") from None
    except ValueError as e:  # e.g. NUL bytes
        raise BadBotFile(f"{path}: {e}") from None
    except (RecursionError, MemoryError):
        raise BadBotFile(f"{path}: too deeply nested to parse") from None
    if not any(isinstance(n, ast.ClassDef) and n.name == "Bot" for n in tree.body):
        raise BadBotFile(f"{path} defines no class Bot")
    return tree


def read_bot_file(
    path: str | Path, name: str | None = None, *, max_bytes: int = DEFAULT_SOURCE_BYTES
) -> BotFile:
    """Read, size-check and parse (once) a bot file that must define a class ``Bot``.

    Its name: ``name``, else the file's ``Bot.name``, else the file stem; it must pass
    :func:`arena.untrusted.name_problem`. Its author is cleaned and capped.
    """
    path = Path(path)
    if path.is_dir() or path.suffix.lower() != ".py":
        return _read_other(path, name, max_bytes)
    source = _read_source(path, max_bytes)
    tree = _parse(source, path)
    if name is not None:
        chosen = check_name(name)
    elif (inside := declared(tree, "name")) is not None:
        chosen = check_name(inside, f"Bot.name in {clean_line(path.name, 80)}; or pass `name`")
    else:
        chosen = check_name(path.stem, "the file name; set Bot.name or pass `name`")
    author = declared(tree, "author")
    return BotFile(
        chosen,
        source,
        clean_line(path.name, 255),
        None if author is None else clean_line(author, MAX_AUTHOR) or None,
    )


NAME_COMMENT: Final = re.compile(r"\barena:\s*name\s*=\s*([A-Za-z0-9_.+-]+)")
"""How a one-file bot in another language names itself, in a comment near its top
(``// arena: name=my-c-bot``): what ``Bot.name`` is to a Python file."""


def name_comment(source: str) -> str | None:
    """The name a one-file bot declares in an ``arena: name=`` comment in its first 4 KiB."""
    found = NAME_COMMENT.search(source[:4096])
    return found.group(1) if found else None


def _read_other(path: Path, name: str | None, max_bytes: int) -> BotFile:
    """A bot in another language (by extension) or a directory with a manifest: its name is
    ``name``, else the manifest's ``name`` (a directory) or its ``arena: name=`` comment (one
    file), else the file stem or directory name."""
    if not path.is_dir():
        _read_source(path, max_bytes)  # a regular UTF-8 file within the size limit
        runtime_for(path)  # an unknown extension or a missing toolchain: one line
    artifact = load_artifact(path, max_bytes)
    entry = dict(artifact.files)[artifact.entry].decode("utf-8", "replace")
    if path.is_dir():
        declared_name, where = read_manifest(path).get("name"), "'s manifest"
    else:
        declared_name, where = name_comment(entry), " (its `arena: name=` comment)"
    if name is not None:
        chosen = check_name(name)
    elif isinstance(declared_name, str):
        chosen = check_name(declared_name, f"name in {clean_line(path.name, 80)}{where}")
    else:
        chosen = check_name(path.stem, "the file name; set name in a manifest or pass `name`")
    filename = clean_line(path.name, 255) if path.is_dir() else artifact.entry
    return BotFile(chosen, entry, filename, None, artifact)


def check_owner(
    store: Store, bot: BotFile, owner: str | None, *, force: bool = False
) -> str | None:
    """Whether ``owner`` may store ``bot`` under its name; the owner id to bind it to.

    The bundled bots' names (and file stems, and anything that reads like them) are reserved
    for the bundled files themselves. A new name must not read like a stored one
    (:func:`arena.untrusted.name_skeleton`: letter case, I/l/1, O/0, rn/m, punctuation). An
    existing name takes new versions from its owner only, or from anyone with ``force``; a
    name stored without an owner (by a library call with ``owner`` None) needs ``force`` once,
    which binds it to ``owner``. With
    ``owner`` None (a trusted library caller) only the reserved names are checked.
    """
    looks = name_skeleton(bot.name)
    for path in bundled_bots():
        reserved = bundled_name(path)
        if looks in (name_skeleton(reserved), name_skeleton(path.stem)):
            if bot.name == reserved and sha256_text(bot.source) == sha256_text(
                path.read_text(encoding="utf-8")
            ):
                return BUNDLED
            raise ArenaError(
                f"the name {bot.name!r} is reserved for the bundled bot {reserved!r} (names that "
                "read alike are too); give yours another name (Bot.name or `name`)"
            ).naming("name")
    if owner is None:
        return None
    owners = store.bot_owners()
    if bot.name not in owners:
        close = [n for n in owners if name_skeleton(n) == looks]
        if close:
            raise ArenaError(
                f"the name {bot.name!r} reads like the existing bot {close[0]!r} (it differs "
                "only in letter case, I/l/1, O/0, rn/m or punctuation); give yours another "
                "name (Bot.name or `name`)"
            ).naming("name")
        return owner
    current = owners[bot.name]
    if current == owner or force:
        return owner
    if current is None:
        raise ArenaError(
            f"bot {bot.name!r} has no owner key (stored without one); submitting it with "
            "`force` stores this version and binds the name to your key"
        ).naming("force")
    raise ArenaError(
        f"bot {bot.name!r} belongs to another owner key; give yours another name "
        "(Bot.name or `name`), or ask the organiser to store it with `force`"
    ).naming("name", "force")


def validate(bot: BotFile, limits: Limits, *, smoke: bool, unsafe: bool) -> None:
    """Check a bot in the sandbox: it loads, and with ``smoke`` it plays whole matches against
    the bundled bots without a fault. Raises ArenaError naming the file, the fault's kind and
    where in the bot's own file it failed (``raiser.py, line 5: KeyError: 'dummy'``)."""
    me = runnable(bot)
    # One pool: the bot's host starts once. No refill after a match (nothing plays on), but
    # every host the check needs started at once, side by side on the machine's cores: the
    # new bot's (when it is a Python bot), the two validation partners', and with ``smoke``
    # the bundled opponents'. Each is still a host of its own bot, started as any other.
    pool = BotPool(limits, unsafe_no_sandbox=unsafe, spare_hosts=0)
    try:
        others = _opponents() if smoke else []
        python = isinstance(me, BotSource) or me.language == "python"
        pool.start_spares(int(python) + VALIDATION_PARTNERS + len(others))
        fault = validate_bot(me, pool=pool)
        if fault is not None:
            raise BadBotFile(
                f"{bot.filename} failed its sandbox check: {faults.describe(fault, bot.filename)}"
            )
        if smoke:
            _smoke(bot, me, pool, others)
    finally:
        pool.close()


def _opponents() -> list[BotSource]:
    """The bundled bots of the smoke matches (:data:`SMOKE_OPPONENTS`) found here."""
    by_name = {bundled_name(p): p for p in bundled_bots()}
    return [
        BotSource(name, by_name[name].read_text(encoding="utf-8"), by_name[name].name)
        for name in SMOKE_OPPONENTS
        if name in by_name
    ]


def _smoke(bot: BotFile, me: BotSource | Artifact, pool: BotPool, others: list[BotSource]) -> None:
    """The smoke matches of :func:`validate`, in ``pool``, against ``others``."""
    if not others:
        raise ArenaError("no bundled bots to play the smoke matches against")
    for k, seed in enumerate(SMOKE_SEEDS):
        # Sit the new bot at a different seat each time, between two bundled bots.
        a, b = others[k % len(others)], others[(k + 1) % len(others)]
        seats = [me, a, b][-k % 3 :] + [me, a, b][: -k % 3]
        outcome = pool.play_match(seats, seed, Rules())
        mine = outcome.fault_of(seats.index(me))
        if mine is not None:
            raise BadBotFile(
                f"{bot.filename} failed its smoke match (seed {seed}): "
                f"{faults.describe(mine, bot.filename)}"
            )


class Submitted(NamedTuple):
    """What :func:`submit` did: the bot's (new or latest) ``version``, whether it was
    ``created``, and whether a retired bot ``rejoined`` the ladder's field."""

    version: BotVersion
    created: bool
    rejoined: bool = False


def submit(
    store: Store,
    path: str | Path,
    name: str | None,
    limits: Limits,
    *,
    unsafe: bool,
    owner: str | None = None,
    force: bool = False,
    max_bytes: int | None = None,
) -> Submitted:
    """Validate a bot file and store it as a new version when its source changed.

    Every check that needs no sandbox (size, syntax, name, owner) comes first. ``max_bytes``
    defaults to the ``source_bytes`` of ``limits``. A retired bot (``arena retire``) submitted
    again by its owner, new content or the same, comes back into the ladder's field.
    """
    cap = limits.source_bytes if max_bytes is None else max_bytes
    bot = read_bot_file(path, name, max_bytes=cap)
    latest = store.latest_version(bot.name)
    same = latest is not None and latest.sha256 == bot.bot.sha256
    retired = store.is_retired(bot.name)
    if same and not retired:
        assert latest is not None
        return Submitted(latest, False)
    check_owner(store, bot, owner, force=force)  # refused before seconds of sandbox checks
    if not same:
        validate(bot, limits, smoke=True, unsafe=unsafe)
    # Checked again inside the write's transaction: another owner may have stored the same
    # new name while this one was in the sandbox.
    stored = store.add_bot_version(
        bot.name,
        bot.bot,
        bot.filename,
        bot.author,
        guard=lambda: check_owner(store, bot, owner, force=force),
    )
    if retired:  # a retired bot submitted again by its owner comes back (arena retire)
        store.set_retired(bot.name, False)
    return Submitted(*stored, rejoined=retired)


def register_files(
    store: Store,
    paths: Sequence[str | Path],
    *,
    owner: str | None = None,
    max_bytes: int = DEFAULT_SOURCE_BYTES,
) -> list[BotVersion]:
    """Register bot files given to ``arena run`` (a new version when the source changed).

    Only static checks run here: a bot that fails at run time is the tournament's business (its
    matches record the fault), and ``arena submit`` is the place for the sandbox smoke test.
    """
    files = [read_bot_file(p, max_bytes=max_bytes) for p in paths]
    _check_distinct([str(p) for p in paths], files)
    return _store_all(store, files, owner)


def _store_all(
    store: Store, picked: Sequence[BotFile | BotVersion], owner: str | None
) -> list[BotVersion]:
    # Every owner check before anything is stored: a refused field stores nothing.
    binds: list[str | None] = []
    for p in picked:
        if isinstance(p, BotFile):
            latest = store.latest_version(p.name)
            same = latest is not None and latest.sha256 == p.bot.sha256
            binds.append(None if same else check_owner(store, p, owner))
        else:
            binds.append(None)
    return [
        p
        if isinstance(p, BotVersion)
        else store.add_bot_version(
            p.name, p.bot, p.filename, p.author, bind, guard=_recheck(store, p, owner)
        )[0]
        for p, bind in zip(picked, binds, strict=True)
    ]


def _recheck(store: Store, bot: BotFile, owner: str | None) -> Callable[[], str | None]:
    # The owner check again, inside the write's transaction (see submit).
    return lambda: check_owner(store, bot, owner)


class SameBot(ArenaError):
    """Two arguments name the same bot (or two bots share a name): bad input of the caller."""


def _check_distinct(args: Sequence[str], picked: Sequence[BotFile | BotVersion]) -> None:
    seen: dict[str, int] = {}
    for i, p in enumerate(picked):
        j = seen.setdefault(p.name, i)
        if j == i:
            continue
        a, b = args[j], args[i]
        files = isinstance(picked[i], BotFile) and isinstance(picked[j], BotFile)
        if files and a != b and not _same_file(a, b):
            raise SameBot(f"two bots are named {p.name!r}: {a} and {b}")
        raise SameBot(f"bot {p.name!r} is given twice ({a}, {b})")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def resolve(
    store: Store,
    args: Sequence[str],
    *,
    owner: str | None = None,
    max_bytes: int = DEFAULT_SOURCE_BYTES,
    minimum: int = 3,
) -> list[BotVersion]:
    """The bots of ``arena run ARGS``: each a bot file of any supported language or a bot
    directory with a manifest (registered), a bundled bot's name
    (``random``, ``heuristic``, ``montecarlo``: its file, registered on first use and again when
    it changed) or a submitted bot's name (its latest version); no ARGS means every submitted
    bot. ``minimum`` is the fewest bots the caller needs (``arena compare`` resolves two).

    Everything is checked before anything is stored: a bad field registers no file.
    """
    if not args:
        found = store.latest_versions()
        check_field([v.name for v in found], minimum)
        return found
    picked: list[BotFile | BotVersion] = []
    reserved = bundled_names()
    for a in args:
        if Path(a).is_file() or Path(a).is_dir():  # a directory: a bot with a manifest
            picked.append(read_bot_file(a, max_bytes=max_bytes))
        elif a in reserved:
            picked.append(read_bot_file(bundled(a)))
        else:
            version = store.latest_version(a)
            if version is None:
                raise NotFound(
                    f"unknown bot {clean_line(a, 80)!r}: neither a bot file, a bundled bot "
                    f"({', '.join(sorted({bundled_name(p) for p in bundled_bots()}))}) nor a "
                    "submitted bot's name"
                )
            picked.append(version)
    _check_distinct(list(args), picked)
    check_field([p.name for p in picked], minimum)
    return _store_all(store, picked, owner)


def check_field(names: Sequence[str], minimum: int = 3) -> None:
    """A tournament needs three (``minimum``) or more bots with distinct names."""
    if len(names) < minimum:
        raise ArenaError(
            f"a tournament needs at least three bots (have {', '.join(names) or 'none'})"
            if minimum == 3
            else f"need at least {minimum} bots (have {', '.join(names) or 'none'})"
        )
