"""Euchre Arena from Python: one :class:`Arena` holds the database and how to play, and each
``arena`` command is one call on it.

```python
from arena import Arena

with Arena("arena.db", workers=2) as arena:
    done = arena.run(["my_bot.py", "heuristic", "random"], rounds=4, seed=1)
    for row in arena.standings():
        print(row.rank, row.name, row.rating, row.low, row.high)
```

The library never prints: what happens while a run plays (planned, matches stored, a set
done, a bot joined or left, a fault, stopped) is an event of :mod:`arena.events` passed to
``on_event``. Errors are :class:`~arena.errors.ArenaError`, of a class a caller can catch
(:class:`~arena.errors.NotFound`, :class:`~arena.errors.AlreadyRunning`,
:class:`~arena.errors.BadBotFile`, :class:`~arena.errors.DatabaseBusy`,
:class:`~arena.errors.DatabaseDamaged`; :class:`~arena.errors.InvalidSetting` names the
parameter out of range).
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

from arena.engine import Rules
from arena.errors import AlreadyRunning, ArenaError, NotFound
from arena.matches.scheduler import tournament_id
from arena.sandbox.values import Limits
from arena.store import (
    Author,
    BotVersion,
    LadderEpoch,
    ListedFault,
    ListedMatch,
    ListedTournament,
    ListedVersion,
    Store,
    StoredTournament,
)
from arena.store.runlock import RunLock
from arena.tournaments import authors as author_tokens
from arena.tournaments.owners import current_owner
from arena.tournaments.standings import Standing, StandingsReport, TournamentRun

# What plays, checks or renders is imported by the method that does it (FUNCTION_LEVEL in
# tests/test_layout.py): a read (`arena standings`, `arena ladder --status`) loads neither the
# tournament runner, the sandbox's pool nor the site.
if TYPE_CHECKING:
    import concurrent.futures as cf

    from arena.events import OnEvent
    from arena.ladder.settings import LadderSettings
    from arena.ladder.status import LadderRun, LadderStatus
    from arena.matches.secrecy import SecretFile, Verification
    from arena.stats.sequential import Design
    from arena.tournaments.botclass import BotClass
    from arena.tournaments.compare import Comparison, ComparisonRun
    from arena.tournaments.entrants import Submitted
    from arena.tournaments.human import HumanGame
    from arena.tournaments.tournament import Plan, RunResult, RunSettings
    from arena.views.reports import Reports

__all__ = [
    "Arena", "LadderRun", "LadderSettings", "HumanGame", "LadderStatus", "RunSettings",
    "Standing", "TournamentRun", "check_bot",
]  # fmt: skip

_THIRD: Final = "heuristic"
""":data:`arena.tournaments.compare.DEFAULT_THIRD` (a test checks that the two agree)."""


def __getattr__(name: str) -> Any:
    # Exported, but made where they are used: loaded when first asked for.
    if name == "RunSettings":
        from arena.tournaments.tournament import RunSettings

        return RunSettings
    if name in ("LadderSettings", "LadderStatus", "LadderRun"):
        from arena.ladder import settings, status

        return getattr(settings if name == "LadderSettings" else status, name)
    if name == "HumanGame":
        from arena.tournaments.human import HumanGame

        return HumanGame
    raise AttributeError(f"module 'arena.api' has no attribute {name!r}")


MEMORY = ":memory:"
"""The database name of an in-memory database (gone when the :class:`Arena` closes)."""


Bot = str | Path | type
"""A bot as :meth:`Arena.run` takes it: a bot file, a bundled or submitted bot's name, or
(with ``unsafe=True``) a Python class with an ``act(obs)`` method."""


class Arena:
    """An arena database and how its matches are played: the one object under every
    ``arena`` command.

    ``db``: the SQLite file (created when missing, unless ``create=False``: then a missing
    file is :class:`~arena.errors.NotFound` and a read-only one is read as it is), or
    ``":memory:"`` for a database that lives as long as this object (scripts and tests).
    ``workers`` local worker processes (default: the usable cores), or ``executor`` (a
    cluster's, :func:`arena.cluster.client.open_executor`; it is shut down at the end of the
    run it plays); ``unsafe`` runs trusted bots without the sandbox's isolation layers (and
    lets :meth:`run` take Python classes). ``on_event(event)`` hears what happens while runs
    play (:mod:`arena.events`; None: no one); nothing is printed. ``log_path``: the runs' log
    file (default: the database's name with ``.log``; none for ``":memory:"``).

    Use it in a ``with`` block, or call :meth:`close`: the database stays open between
    calls.
    """

    def __init__(
        self,
        db: str | Path,
        *,
        workers: int | None = None,
        executor: cf.Executor | None = None,
        unsafe: bool = False,
        on_event: OnEvent | None = None,
        log_path: str | Path | None = None,
        create: bool = True,
    ) -> None:
        self.db = db
        self.in_memory = str(db) == MEMORY
        if workers is not None:
            from arena.tournaments.tournament import check_worker_count

            workers = check_worker_count(workers)
        self.workers = workers
        self.executor = executor
        self.unsafe = unsafe
        self.on_event: OnEvent = on_event or (lambda event: None)  # no one listens
        self.log_path = Path(log_path) if log_path else None
        if self.log_path is None and not self.in_memory:
            self.log_path = Path(db).with_suffix(".log")
        self.store = Store(db, create=create)

    def __repr__(self) -> str:
        return f"Arena({str(self.db)!r}, workers={self.workers!r}, unsafe={self.unsafe!r})"

    def close(self) -> None:
        """Close the database (an in-memory one is gone)."""
        self.store.close()

    def __enter__(self) -> Arena:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.store.__exit__(kind, exc, tb)

    # --- bots ----------------------------------------------------------------------------

    def submit(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        force: bool = False,
        max_source_bytes: int | None = None,
        author: str | None = None,
    ) -> Submitted:
        """Check a bot file in the sandbox and store it as its bot's new version (``arena
        submit``): it must load and play smoke matches without a fault
        (:class:`~arena.errors.BadBotFile` otherwise; nothing is stored). The same content
        again stores nothing; a retired bot comes back into the ladder's field. ``name``
        overrides ``Bot.name``; ``force`` stores it under a name of another owner key (the
        organiser's override). ``author``: store it as that author's bot (``arena web``: the
        owner key is their token) instead of with ``$ARENA_OWNER_KEY`` or the key file."""
        from arena.tournaments.entrants import submit as submit_bot

        owner = current_owner() if author is None else author_tokens.owner_of(self.store, author)
        return submit_bot(
            self.store, path, name, Limits(), unsafe=self.unsafe, owner=owner,
            force=force, max_bytes=max_source_bytes,
        )  # fmt: skip

    def retire(self, name: str, *, force: bool = False) -> tuple[BotVersion, bool]:
        """Retire bot ``name`` from the ladder's field (``arena retire``), checked against
        this user's owner key (``force``: the organiser's override): its results stay, it
        plays no new set. Returns its latest version and whether it changed (False: already
        retired). Submitting it again brings it back."""
        from arena.ladder import field as ladder_field

        return ladder_field.retire_bot(self.store, name, owner=current_owner(), force=force)

    # --- authors (arena web) --------------------------------------------------------------

    def add_author(self, name: str) -> tuple[Author, str]:
        """Add an author who may upload bots through ``arena web`` (``arena authors add``):
        the author and their token, shown only now; it is the owner key of their bots."""
        return author_tokens.add_author(self.store, name)

    def rotate_author(self, name: str) -> tuple[Author, str]:
        """The author and a new token (``arena authors rotate``): the old one, its sessions
        and ``ARENA_OWNER_KEY`` stop working; their bots move to the new one."""
        return author_tokens.rotate_author(self.store, name)

    def authors(self) -> list[Author]:
        """Every author, by name (``arena authors list``)."""
        return self.store.author_list()

    def revoke_author(self, name: str) -> tuple[Author, bool]:
        """Take ``name``'s token back (``arena authors revoke``); False: already revoked."""
        return self.store.revoke_author(name)

    def author_for_token(self, token: str) -> Author | None:
        """The author whose valid (unrevoked) token is ``token``, or None."""
        return author_tokens.author_for_token(self.store, token)

    def author_bots(self, name: str) -> list[str]:
        """The names of the bots author ``name`` owns (stored with their token)."""
        return self.store.owned_bots(self.store.author(name).owner)

    # --- runs ----------------------------------------------------------------------------

    def run(
        self,
        bots: Sequence[Bot] = (),
        *,
        rounds: int | None = None,
        seed: int = 1,
        settings: RunSettings | None = None,
        site: bool | str | Path = False,
    ) -> TournamentRun:
        """Play the duplicate round robin of ``bots`` (``arena run``) and store every match.

        ``bots``: bot files (registered under their ``Bot.name``, else their stem), bundled
        bots' names (``random``, ``heuristic``, ``montecarlo``), submitted bots' names, or
        with ``unsafe=True`` Python classes (:mod:`arena.tournaments.botclass`); none: every
        submitted bot. ``rounds`` deal seeds per set of three bots (default 20), each in all
        6 seatings; ``seed`` the tournament seed; ``settings`` the rest
        (:class:`RunSettings`; ``rounds`` given here wins). ``site``: render the standings
        site when the run finishes (True: beside the database; a path: there). The same call
        again after an interruption plays only the missing matches.
        """
        from arena.tournaments import tournament
        from arena.views.reports import standings_with_reports

        settings = settings or tournament.RunSettings()
        if rounds is not None:
            settings = dataclasses.replace(settings, rounds=rounds)
        with self._bot_files(bots) as names:
            the_plan = tournament.prepare(self.store, names, seed=seed, settings=settings)
            result, workers = self._play(the_plan)
        versions = {v.id: v for v in the_plan.versions}
        rows = [Standing.of(s, versions) for s in result.standings]
        if result.standings:  # the run writes what `arena standings` reads, once
            standings_with_reports(self.store, the_plan.tid)
        done = TournamentRun(the_plan, result, rows, workers, self.log_path)
        if site is not False and done.completed:
            done.site = self.render(None if site is True else site, feature=done.tid)
        return done

    def compare(
        self,
        a: Bot,
        b: Bot,
        third: Bot = _THIRD,
        *,
        design: Design | None = None,
        seed: int = 1,
        max_source_bytes: int | None = None,
    ) -> ComparisonRun:
        """Is A stronger than B? Play duplicate sets until the sequential test of ``design``
        decides (``arena compare``; docs/evaluation.md). A, B and the third are bots as
        :meth:`run` takes them. The same call again continues an interrupted comparison;
        A and B the same bot is :class:`arena.tournaments.entrants.SameBot`."""
        from arena.tournaments import compare as comparisons

        with self._bot_files([a, b, third]) as (fa, fb, ft):
            return comparisons.run_comparison(
                self.store, fa, fb, ft, design=design, seed=seed, workers=self.workers,
                max_source_bytes=max_source_bytes, unsafe=self.unsafe, executor=self.executor,
                log_path=self.log_path, on_event=self.on_event,
            )  # fmt: skip

    def ladder(
        self,
        bundled: Sequence[str] = (),
        *,
        max_sets: int | None = None,
        settings: LadderSettings | None = None,
        site: bool | str | Path = False,
        site_every: int = 5,
    ) -> LadderRun:
        """Run the database's ladder (``arena ladder``) until stopped: Ctrl-C, SIGTERM, or a
        bound (``max_sets``, or ``settings.seconds``).

        Its field is every submitted bot not retired, plus the ``bundled`` bots named; a bot
        submitted while it runs joins at the next step (:class:`arena.events.Joined`), a new
        version replaces the old (:class:`arena.events.Left`). ``settings``
        (:class:`LadderSettings`): the seed and sets per epoch (with ``bundled``, the
        ladder's identity: the same call resumes it), the lookahead, this run's bounds.
        ``site``: render the site every ``site_every`` sets and at the end. One ladder runs
        on a database at a time (:class:`~arena.errors.AlreadyRunning`)."""
        from arena.ladder.run import plan_ladder
        from arena.ladder.settings import LadderSettings
        from arena.ladder.status import LadderRun, ladder_status

        settings = settings or LadderSettings()
        if max_sets is not None:
            settings = dataclasses.replace(settings, max_sets=max_sets)
        out = None if site is False or site is True else Path(site)
        lid: list[str] = []
        hook = self._sets_hook(lid, out, site_every if site is not False else None)
        with self._one_ladder():
            the_plan = plan_ladder(
                self.store, bundled, settings, on_sets_stored=hook,
                on_field_change=lambda change: self.on_event(change.event(lid[0])),
            )  # fmt: skip
            lid.append(the_plan.tid)
            result, workers = self._play(the_plan)
        status = ladder_status(self.store, the_plan.tid)
        done = LadderRun(the_plan, result, workers, self.log_path, status)
        if site is not False:
            done.site = self.render(out, feature=the_plan.tid)
        return done

    def play_human(
        self,
        opponents: Sequence[str],
        *,
        seat: int = 0,
        seed: int | None = None,
        name: str = "human",
        seconds: float | None = None,
    ) -> HumanGame:
        """Start a match of a person (``name``, at ``seat``) against two bots, played in a
        background thread; the bots are ``opponents`` (bundled or submitted bots' names, or
        files) and run sandboxed as in every match. ``seconds``: the person's time per
        decision (default :data:`arena.sandbox.human.HUMAN_SECONDS`, 120; the bots keep their
        limits). The returned :class:`HumanGame` says what to
        decide and takes the answers; at the end the match is stored as a human game
        (replayable, never rated). ``seed``: the public seed (default: a fresh one); the deals
        come from a deal secret drawn for the game and revealed at its end."""
        from arena.sandbox.human import HUMAN_SECONDS
        from arena.tournaments.entrants import resolve
        from arena.tournaments.human import start_game

        versions = resolve(self.store, list(opponents), owner=current_owner(), minimum=2)
        if len(versions) != 2:
            raise ArenaError(f"name two opponents, not {len(versions)}").naming("opponents")
        return start_game(
            self.store, versions, seat=seat, seed=seed, name=name,
            seconds=HUMAN_SECONDS if seconds is None else seconds,
            unsafe=self.unsafe,
        )  # fmt: skip

    # --- reading -------------------------------------------------------------------------

    def bots(self) -> list[ListedVersion]:
        """Every submitted bot version, with its owner key (``arena bots``)."""
        return self.store.bot_listing()

    def tournaments(self) -> list[ListedTournament]:
        """Every tournament, comparison and ladder, the most recently run first (``arena
        tournaments``)."""
        return self.store.tournaments()

    def ladder_field(self, lid: str) -> list[str]:
        """The names of the bots in ladder ``lid``'s field now."""
        return [m.name for m in self.store.ladder_members(lid) if m.left_step is None]

    def epochs(self, lid: str) -> list[LadderEpoch]:
        """Ladder ``lid``'s deal-secret epochs: each with its commitment, its secret once
        closed."""
        return self.store.ladder_epochs(lid)

    def export_secret(self, tid: str) -> tuple[SecretFile, bool]:
        """Tournament ``tid``'s deal secret as a secret file (``arena tournaments --export``),
        and whether it is revealed (False: whoever reads it knows every deal of the unfinished
        tournaments of its seed)."""
        from arena.matches.secrecy import export_secret

        return export_secret(self.store, tid)

    def matches(
        self, *, bot: str | None = None, tid: str | None = None, limit: int | None = None
    ) -> tuple[list[ListedMatch], int]:
        """The stored matches of tournament ``tid`` (default: the latest round robin), or
        those ``bot`` played, at most ``limit``; and how many there are (``arena matches``)."""
        self.store.check_bot(bot)
        return self.store.match_listing(bot=bot, tid=self.tournament(tid).id, limit=limit)

    def faults(
        self,
        *,
        bot: str | None = None,
        tid: str | None = None,
        match: str | None = None,
        limit: int | None = None,
    ) -> tuple[list[ListedFault], int]:
        """The faults of tournament ``tid`` (default: the latest round robin) or of one
        ``match`` (an id or prefix), or only ``bot``'s; and how many (``arena faults``)."""
        self.store.check_bot(bot)
        if match is not None:
            return self.store.fault_listing(bot=bot, match=self.store.match(match)[0].id)
        return self.store.fault_listing(bot=bot, tid=self.tournament(tid).id, limit=limit)

    def standings(self, tid: str | None = None) -> list[Standing]:
        """The standings of tournament ``tid`` (an id or prefix; default: the latest round
        robin), best first: one :class:`Standing` per bot, for a round robin and a ladder
        alike."""
        return self.report(tid).rows

    def report(self, tid: str | None = None, *, refit: bool = False) -> StandingsReport:
        """What ``arena standings`` shows of tournament ``tid``: the standings, the clone
        and kingmaking reports, the faults. A read: what is not stored up to date is computed
        and shown, not written (``refit``: the standings recomputed and stored, with every
        report)."""
        from arena.views.reports import standings_with_reports

        return standings_with_reports(self.store, tid, refit=refit, save=refit)[0]

    def duplicate(self, report: StandingsReport, *, save: bool = False) -> Reports:
        """The duplicate reports of the tournament of ``report`` (:meth:`report`): duplicate
        scores, seat bias, non-transitive cycles (stored too with ``save``)."""
        from arena.views.reports import tournament_reports

        return tournament_reports(self.store, report.tournament.id, report.table, save=save)

    def is_retired(self, name: str) -> bool:
        """Whether bot ``name`` is retired from the ladder's field (:meth:`retire`)."""
        return self.store.is_retired(name)

    def tournament(self, tid: str | None = None) -> StoredTournament:
        """Tournament ``tid`` (an id or prefix; default: the latest round robin) as stored
        (:class:`~arena.errors.NotFound`: none)."""
        return self.store.tournament(tid)

    def comparison(self, tid: str) -> Comparison:
        """The comparison ``tid`` as stored: its test, verdict and roles."""
        from arena.tournaments import compare as comparisons

        return comparisons.comparison(self.store, self.store.tournament(tid).id)

    def ladder_status(
        self, bundled: Sequence[str] = (), settings: LadderSettings | None = None
    ) -> LadderStatus:
        """The ladder that :meth:`ladder` with these ``bundled`` bots and ``settings`` runs,
        or else the latest ladder of the database (:class:`~arena.errors.NotFound`: none)."""
        from arena.ladder import status
        from arena.ladder.settings import LadderSettings, ladder_config

        config = ladder_config(bundled, settings or LadderSettings(), Rules(), Limits())
        try:
            t = self.store.tournament(tournament_id(config))
        except NotFound:
            listed = self.store.tournaments()
            ladders = [r.tournament for r in listed if r.tournament.is_ladder]
            if not ladders:
                raise NotFound(f"no ladder in {self.db} yet (arena ladder starts one)") from None
            t = ladders[0]
        return status.ladder_status(self.store, t.id)

    def verify(self, tid: str | None = None, *, epoch: int | None = None) -> Verification:
        """Recompute the stored deals of a finished tournament (``tid``: an id or prefix;
        default the latest round robin), or with ``epoch`` of one closed epoch of a ladder,
        from the revealed secret (``arena verify``). A deal that differs is in the returned
        report; nothing to verify yet is an :class:`~arena.errors.ArenaError`."""
        from arena.ladder.epochs import verify_epoch
        from arena.matches.secrecy import verify as verify_tournament

        if epoch is not None:
            return verify_epoch(self.store, tid, epoch)
        t = self.store.tournament(tid)
        if t.is_ladder:
            raise ArenaError(
                f"{t.id} is a ladder: it is verified an epoch at a time (`epoch`), once the "
                "epoch is closed (`arena ladder --status` lists them)"
            ).naming("epoch")
        return verify_tournament(self.store, t.id)

    def render(
        self,
        out: str | Path | None = None,
        *,
        with_logs: bool = False,
        full: bool = False,
        replays: int | None = None,
        feature: str | None = None,
    ) -> Path:
        """Render the standings site (``arena render``) into ``out`` (default: beside the
        database, named after it with ``-site``), writing only the pages whose data changed
        (``full``: all), keeping ``replays`` replay pages per tournament. Returns the path
        of ``index.html`` (``replays`` None: :data:`arena.site.RECENT_REPLAYS`)."""
        from arena.site import RECENT_REPLAYS, publish_site
        from arena.site import update as site_update

        replays = RECENT_REPLAYS if replays is None else replays
        if not self.in_memory:
            return publish_site(
                self.db, out, with_logs=with_logs, full=full, replays=replays, feature=feature
            )
        if out is None:
            raise ArenaError("an in-memory database has no folder beside it: give `out`")
        site_update(self.store, out, with_logs=with_logs, replays=replays, feature=feature)
        return Path(out) / "index.html"

    # --- plumbing ------------------------------------------------------------------------

    def _play(self, the_plan: Plan) -> tuple[RunResult, int]:
        from arena.tournaments import tournament

        workers = tournament.worker_count(self.workers, self.executor)
        self.on_event(tournament.planned(self.store, the_plan, workers))
        result = tournament.run(
            self.store, the_plan, workers=workers, unsafe=self.unsafe, on_event=self.on_event,
            log_path=self.log_path, executor=self.executor,
        )  # fmt: skip
        return result, workers

    @contextmanager
    def _bot_files(self, bots: Sequence[Bot]) -> Iterator[list[str]]:
        """``bots`` as the names and files a plan takes: each Python class written to a file
        of its own for the run (``unsafe`` only)."""
        with ExitStack() as stack:
            classes: list[BotClass] = [b for b in bots if isinstance(b, type)]
            files: dict[int, Path] = {}
            if classes:
                if not self.unsafe:
                    raise ArenaError(
                        "a Python class plays only without the sandbox: make the Arena with "
                        "`unsafe`=True (trusted bots only), or save the bot to a file"
                    ).naming("unsafe")
                from arena.tournaments.botclass import class_files

                folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
                written = class_files(classes, folder)
                files = {id(c): f for c, f in zip(classes, written, strict=True)}
            yield [str(files[id(b)]) if isinstance(b, type) else str(b) for b in bots]

    def _sets_hook(
        self, lid: list[str], out: Path | None, every: int | None
    ) -> Callable[[Store, Sequence[int]], None]:
        """After sets are stored: :class:`arena.events.SetDone`, and every ``every`` sets
        (None: never) the site brought up to date, its front page featuring the ladder."""
        from arena.events import SetDone

        count = 0

        def hook(store: Store, steps: Sequence[int]) -> None:
            nonlocal count
            self.on_event(SetDone(lid[-1], tuple(steps)))
            before, count = count, count + len(steps)
            if every is not None and count // every > before // every:
                from arena.site import site_folder
                from arena.site import update as site_update

                target = out or (None if self.in_memory else site_folder(self.db))
                if target is not None:
                    site_update(store, target, feature=lid[-1])

        return hook

    @contextmanager
    def _one_ladder(self) -> Iterator[None]:
        """One ladder at a time on a database: a run lock of its own beside the ladder's."""
        if self.in_memory:
            yield
            return
        lock = RunLock(self.store.path, "ladder")
        try:
            lock.__enter__()
        except AlreadyRunning as e:
            raise AlreadyRunning(f"a ladder is already running on this database: {e}") from None
        try:
            yield
        finally:
            lock.__exit__(None, None, None)


def check_bot(path: str | Path, limits: Limits | None = None) -> list[str]:
    """``arena check``: every protocol-v1 problem of the bot at ``path`` (a file of any
    supported language, or a directory with a manifest), one line each; empty when it conforms.
    Runs it in the real sandbox; :class:`ArenaError` for a file that is no bot."""
    from arena.sandbox.artifacts import load_artifact
    from arena.sandbox.check import check_bot as _check_artifact

    limits = limits or Limits()
    return _check_artifact(load_artifact(path, limits.source_bytes), limits)
