"""Tournaments: registering bots, planning a duplicate round robin, running it, standings.

The pieces live in their own modules: :mod:`arena.scheduler` (which matches, their ids and
seeds), :mod:`arena.runner` (worker processes behind an executor), :mod:`arena.store` (SQLite)
and :mod:`arena.ratings` (Plackett-Luce and bootstrap). This module ties them together for the
``submit``, ``run`` and ``standings`` commands.
"""

from __future__ import annotations

import ast
import concurrent.futures as cf
import logging
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Final

import multiprocessing_logging  # type: ignore[import-untyped]
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from arena import ratings, runner
from arena.engine import Rules
from arena.errors import ArenaError
from arena.scheduler import (
    Entrant,
    MatchSpec,
    match_count,
    schedule,
    tournament_id,
)
from arena.store import BotVersion, Store, now, sha256_text

log = logging.getLogger(__name__)


SMOKE_SEEDS: Final = (1, 2)
"""Seeds of the smoke matches ``arena submit`` plays against the bundled bots."""

MAX_NAME: Final = 64


# --- bot files ------------------------------------------------------------------------------


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


# --- planning -------------------------------------------------------------------------------


@dataclass
class Plan:
    """A tournament ready to run: its identity, its bots and the matches still to play."""

    tid: str
    config: dict[str, Any]
    versions: list[BotVersion]
    rules: Rules
    limits: dict[str, Any]
    matches: list[MatchSpec]
    todo: list[MatchSpec]

    @property
    def total(self) -> int:
        """Matches in the whole tournament."""
        return len(self.matches)


def plan(
    store: Store,
    versions: Sequence[BotVersion],
    *,
    rounds: int,
    seed: int,
    rules: Rules,
    limits: dict[str, Any],
) -> Plan:
    """Create (or find again) the tournament of these bots and settings; list what is left."""
    if rounds < 1:
        raise ArenaError(f"--rounds must be at least 1, not {rounds}")
    if len(versions) < 3:
        have = ", ".join(v.name for v in versions) or "none"
        raise ArenaError(f"a tournament needs at least three bots (have {have})")
    names = [v.name for v in versions]
    if len(set(names)) != len(names):
        raise ArenaError("a tournament cannot have two bots with the same name")
    versions = sorted(versions, key=lambda v: v.name)
    config = {
        "bots": [{"name": v.name, "sha256": v.sha256} for v in versions],
        "rounds": rounds,
        "seed": seed,
        "rules": rules.to_dict(),
        "limits": dict(sorted(limits.items())),
    }
    tid = tournament_id(config)
    entrants = [Entrant(v.name, v.sha256, v.id) for v in versions]
    matches = list(schedule(tid, entrants, rounds, seed))
    assert len(matches) == match_count(len(entrants), rounds)
    store.ensure_tournament(tid, config, [v.id for v in versions], len(matches))
    done = store.finished_match_ids(tid)
    todo = [m for m in matches if m.match_id not in done]
    return Plan(tid, config, versions, rules, limits, matches, todo)


# --- running --------------------------------------------------------------------------------


@dataclass
class RunResult:
    """What one ``arena run`` did."""

    tid: str
    total: int
    played: int
    already: int
    completed: bool
    seconds: float
    standings: list[ratings.BotStanding] = field(default_factory=list)


class _RateColumn(ProgressColumn):
    """Matches per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} matches/s", style="progress.data.speed")


@contextmanager
def run_log(path: Path | None, level: int = logging.INFO) -> Iterator[None]:
    """Send the ``arena`` logger, worker processes included, to the run's log file.

    multiprocessing-logging wraps the handlers so forked workers send their records to this
    process over a queue; it refuses any start method but ``fork``, so that is pinned first
    (Python 3.14 defaults to forkserver).
    """
    if path is None:
        yield
        return
    if multiprocessing.get_start_method(allow_none=True) is None:
        multiprocessing.set_start_method("fork")
    logger = logging.getLogger("arena")
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    old_level = logger.level
    logger.setLevel(min(level, old_level) if old_level else level)
    logger.addHandler(handler)
    try:
        multiprocessing_logging.install_mp_handler(logger)
    except AssertionError:
        logger.removeHandler(handler)
        handler.close()
        raise ArenaError(
            "arena run needs the 'fork' start method, but multiprocessing is set to "
            f"{multiprocessing.get_start_method()!r}"
        ) from None
    try:
        yield
    finally:
        wrappers = [
            h
            for h in logger.handlers
            if isinstance(h, multiprocessing_logging.MultiProcessingHandler)
        ]
        multiprocessing_logging.uninstall_mp_handler(logger)
        for w in wrappers:
            w.close()  # drains the queue into the wrapped handler, then closes both
        logger.removeHandler(handler)
        logger.setLevel(old_level)


@contextmanager
def _interrupts() -> Iterator[threading.Event]:
    """Turn the first Ctrl-C (or SIGTERM) into a flag the run polls; a second one aborts."""
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if flag.is_set():
            raise KeyboardInterrupt
        flag.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def run(
    store: Store,
    the_plan: Plan,
    *,
    workers: int,
    unsafe: bool = False,
    console: Console | None = None,
    log_path: Path | None = None,
    executor: cf.Executor | None = None,
) -> RunResult:
    """Play every match of ``the_plan.todo`` in ``workers`` processes, storing each batch.

    ``executor`` replaces the local process pool (a cluster's executor whose workers run
    :func:`arena.runner.init_worker`); it is shut down at the end like the local one.
    Ctrl-C stops cleanly: nothing new starts, running batches finish their current match,
    every finished match is stored and the tournament is marked ``interrupted``.
    """
    if workers < 1:
        raise ArenaError(f"--workers must be at least 1, not {workers}")
    console = console or Console()
    tid, todo = the_plan.tid, the_plan.todo
    started = time.perf_counter()
    already = the_plan.total - len(todo)
    played = 0
    sources = {f"{v.name}:{v.sha256}": (v.name, v.source, v.filename) for v in the_plan.versions}
    work = runner.batches(
        todo,
        workers=workers,
        rules=the_plan.rules,
        limits=the_plan.limits,
        unsafe_no_sandbox=unsafe,
        sources=sources,
    )
    completed = True
    if todo and executor is None:
        # Fail here, in one line, rather than in every worker's initializer (which would only
        # surface as a broken process pool).
        from arena.sandbox.layers import plan as sandbox_plan

        sandbox_plan(unsafe)
    if todo:
        with run_log(log_path), _interrupts() as interrupted:
            log.info("tournament %s: %d matches to play, %d workers", tid, len(todo), workers)
            stop = runner.fork_context().Event()
            columns = (
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _RateColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
            )
            with Progress(*columns, console=console, transient=False) as progress:
                task = progress.add_task("matches", total=the_plan.total, completed=already)

                def store_batch(records: list[dict[str, Any]]) -> None:
                    nonlocal played
                    store.write_results(tid, records)
                    played += len(records)
                    progress.advance(task, len(records))

                if executor is None:
                    executor = runner.make_executor(workers, the_plan.limits, unsafe, stop)
                try:
                    completed = runner.drive(
                        executor,
                        work,
                        in_flight=2 * workers,
                        on_results=store_batch,
                        should_stop=interrupted.is_set,
                        on_stop=stop.set,
                    )
                except ArenaError:
                    store.set_status(tid, "interrupted")
                    raise
                except Exception as e:
                    store.set_status(tid, "interrupted")
                    raise ArenaError(f"a worker failed: {type(e).__name__}: {e}") from None
                except BaseException:  # a second Ctrl-C: workers drop their batches at once
                    stop.set()
                    store.set_status(tid, "interrupted")
                    raise
                finally:
                    executor.shutdown(wait=True, cancel_futures=True)
            log.info("tournament %s: %d matches stored in this run", tid, played)
    store.set_status(tid, "finished" if completed else "interrupted")
    result = RunResult(
        tid, the_plan.total, played, already, completed, time.perf_counter() - started
    )
    result.standings = save_standings(store, tid)
    return result


# --- standings ------------------------------------------------------------------------------


def standings(store: Store, tid: str) -> list[ratings.BotStanding]:
    """The standings of tournament ``tid`` from its stored matches."""
    names = {v.id: v.name for v in store.tournament_entrants(tid)}
    return ratings.compute(ratings.seat_results(store.seat_results(tid)), names)


def save_standings(store: Store, tid: str) -> list[ratings.BotStanding]:
    """Compute the standings of ``tid`` and store them in ``ratings`` and ``pairwise``."""
    table = standings(store, tid)
    stamp = now()
    store.write_standings(
        tid,
        [
            {
                "tournament_id": tid,
                "bot_version_id": s.bot,
                "name": s.name,
                "rank": s.rank,
                "rating": s.rating,
                "rating_low": None if math.isnan(s.rating_low) else s.rating_low,
                "rating_high": None if math.isnan(s.rating_high) else s.rating_high,
                "matches": s.matches,
                "wins": s.wins,
                "mean_place": s.mean_place,
                "faults": s.faults,
                "computed_at": stamp,
            }
            for s in table
        ],
        [
            {
                "tournament_id": tid,
                "bot_a": s.bot,
                "bot_b": other,
                "matches": int(p["matches"]),
                "above": p["above"],
                "rate": p["rate"],
                "low": None if p["low"] != p["low"] else p["low"],  # NaN -> NULL
                "high": None if p["high"] != p["high"] else p["high"],
            }
            for s in table
            for other, p in s.above.items()
        ],
    )
    return table


def standings_table(table: Sequence[ratings.BotStanding], title: str = "Standings") -> Table:
    """The standings as a rich table for the terminal."""
    t = Table(title=title)
    for col, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("rating", "right"),
        ("95% interval", "right"),
        ("matches", "right"),
        ("wins", "right"),
        ("mean place", "right"),
        ("faults", "right"),
    ):
        t.add_column(col, justify=justify)  # type: ignore[arg-type]
    for s in table:
        t.add_row(
            str(s.rank),
            s.name,
            f"{s.rating:.0f}",
            "n/a" if math.isnan(s.rating_low) else f"{s.rating_low:.0f} - {s.rating_high:.0f}",
            str(s.matches),
            str(s.wins),
            "-" if s.mean_place is None else f"{s.mean_place:.2f}",
            str(s.faults),
        )
    return t


def pairwise_table(table: Sequence[ratings.BotStanding]) -> Table:
    """How often the row bot placed above the column bot, with a 95 % interval."""
    t = Table(title="Placed above (row over column, 95% interval)")
    t.add_column("")
    for s in table:
        t.add_column(s.name, justify="center")
    for s in table:
        cells = []
        for o in table:
            p = s.above.get(o.bot)
            if o.bot == s.bot or p is None:
                cells.append("-")
            else:
                ci = "" if math.isnan(p["low"]) else f" ({p['low']:.0%}-{p['high']:.0%})"
                cells.append(f"{p['rate']:.0%}{ci}")
        t.add_row(s.name, *cells)
    return t


def default_workers() -> int:
    """Worker processes when ``--workers`` is not given: the usable cores."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def replay_text(store: Store, match_id: str) -> str:
    """A stored match as text, hand by hand (``arena replay``)."""
    from arena.engine import HandResult
    from arena.transcript import format_hand

    m, hands = store.match(match_id)
    names = [store.bot_version(m[f"bot{s}"]).name for s in range(3)]
    labels = [f"{n} (seat {s})" for s, n in enumerate(names)]
    out = [
        f"Match {m['id']} of tournament {m['tournament_id']}: round {m['round']}, "
        f"seating {m['seating']}, seed {m['seed']}",
        "Seats: " + ", ".join(labels),
        "",
    ]
    for h in hands:
        out.append(format_hand(HandResult.from_dict(h), labels))
        out.append("")
    for f in store.match_faults(m["id"]):
        at = "loading" if f["decision"] is None else f"decision {f['decision']}"
        out.append(f"Fault: {labels[f['seat']]}: {f['kind']} at {at}: {f['message']}")
    final = ", ".join(f"{labels[s]} {m[f'score{s}']} (place {m[f'place{s}']})" for s in range(3))
    out.append(f"Final: {final}.{' Truncated at the hand limit.' if m['truncated'] else ''}")
    return "\n".join(out)
