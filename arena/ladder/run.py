"""A ladder as a :class:`arena.tournaments.schedules.Schedule`:
:func:`arena.tournaments.tournament.run` drives it like every other run, and it never runs out.

Each step re-reads the field from the store (:func:`arena.ladder.field.sync`: new
submissions join, a new version replaces the old, retired bots leave), asks the rule for the
next set (:meth:`arena.ladder.Ladder.next_set`) and hands out its six seatings on one deal
seed. It yields :data:`arena.tournaments.runner.WAIT` while the set ``lookahead + 1`` steps back is
not stored, and it stops only when asked: Ctrl-C or SIGTERM (the run's interrupts), or a bound
(``max_sets``, ``seconds``). A set is stored whole or not at all (:meth:`LadderSchedule.write`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

from arena.engine import Rules
from arena.errors import ArenaError
from arena.ladder import epochs as epochs_
from arena.ladder.field import FieldChanged, State, current_field, restore, set_result, sync
from arena.ladder.ratings import LadderStanding
from arena.ladder.settings import (  # noqa: F401  (re-exported: the ladder's settings)
    DEFAULT_LOOKAHEAD,
    DEFAULT_STANDINGS_EVERY,
    LadderSettings,
    ladder_config,
)
from arena.matches.record import MatchRecord
from arena.matches.scheduler import SEATINGS, Entrant, MatchSpec, set_key, tournament_id
from arena.sandbox import Limits
from arena.sandbox.botfile import bundled_names
from arena.store import LADDER, BotVersion, LadderSet, Store, now
from arena.store.kinds import KINDS
from arena.tournaments.entrants import resolve
from arena.tournaments.runner import WAIT, Wait
from arena.tournaments.schedules import ScheduleBase
from arena.tournaments.tournament import Plan, check_key
from arena.untrusted import clean_line

SetsStored = Callable[[Store, Sequence[int]], object]
"""``on_sets_stored(store, steps)``: called after sets are stored (the live pages' hook)."""


class LadderSchedule(ScheduleBase):
    """The schedule of a ladder (see the module's docstring)."""

    exact = False
    kind = KINDS[LADDER]

    def __init__(
        self,
        store: Store,
        lid: str,
        settings: LadderSettings,
        bundled: Sequence[str],
        on_sets_stored: SetsStored | None = None,
        on_field_change: FieldChanged | None = None,
    ) -> None:
        self.tid = lid
        self.settings = settings
        self.bundled = list(bundled)
        self.on_sets_stored = on_sets_stored
        self.on_field_change = on_field_change
        self.store = store
        """The store it decides in: each set is recorded there before it is handed out."""
        self.total: int | None = None  # no bar: a ladder never runs out
        self.handed = self.stored_now = 0
        self.reason: str | None = None
        self.table: list[LadderStanding] = []
        self.partial: dict[int, dict[int, MatchRecord]] = {}
        self.scheduled: dict[int, tuple[int, int, int]] = {}
        """The bots of each set handed out, in the rule's order, by step."""
        self.versions: dict[int, BotVersion] = {}
        self.clock = time.monotonic()
        self.state, self.epochs, self.read = self._read(store)
        """The rule's state rebuilt from every stored step, the ladder's epochs, and the
        fingerprint of what they were read from (:meth:`arena.store.Store.ladder_state`)."""

    def _read(self, store: Store) -> tuple[State, epochs_.Epochs, str]:
        s = self.settings
        read = store.ladder_state(self.tid)
        state = restore(store, self.tid, s.seed, s.params, s.lookahead)
        return state, epochs_.Epochs(store, self.tid, s.seed, s.epoch_sets), read

    # -- the protocol ---------------------------------------------------------------------

    def start(self, store: Store) -> bool:
        """Under the run lock: read the ladder again if another run changed it since this
        schedule was made, close the epochs that are done, write the standings."""
        self.store = self.epochs.store = store
        self.clock = time.monotonic()
        if store.ladder_state(self.tid) != self.read:
            self.state, self.epochs, self.read = self._read(store)
        self.epochs.close_ready()
        self._standings()
        return True

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """The sets lost to the last stop first (same step, bots and deal), then a new set
        per step, waiting while the set ``lookahead + 1`` steps back is not stored."""
        for lost in self.state.unfinished:
            if self._bounded():
                return
            yield self._matches(lost)
        while not self._bounded():
            step = self.state.ladder.step
            while not self.state.ready(step):
                yield WAIT
                if self._bounded():
                    return
            row = self._decide(step)
            if row is None:
                return
            yield self._matches(row)

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        """Store every set whose six matches are in, each in one transaction with its
        ``finished_at``; keep the first matches of a set until the rest come (a set cut
        short by a stop is never stored)."""
        for r in records:
            self.partial.setdefault(r.round, {})[r.seating] = r
        kept: list[MatchRecord] = []
        steps = []
        for step in sorted(self.partial):
            got = self.partial[step]
            if len(got) < len(SEATINGS):
                continue
            del self.partial[step]
            if step in self.state.finished:
                continue
            done = [got[k] for k in range(len(SEATINGS))]
            store.finish_ladder_set(self.tid, step, done)
            bots = self.scheduled[step]
            self.state.finish(step, set_result(bots, ((r.bots, r.placements) for r in done)))
            kept += done
            steps.append(step)
        if steps:
            self.stored_now += len(steps)
            self.epochs.close_ready()
            if self.stored_now % self.settings.standings_every < len(steps):
                self._standings()
            if self.on_sets_stored is not None:
                self.on_sets_stored(store, steps)
        return kept

    def describe(self) -> str:
        """The live line: sets stored, sets per second, the leader."""
        rate = self.stored_now / max(1e-9, time.monotonic() - self.clock)
        shown = self.state.shown
        leader = self._name(shown.ids[int(shown.theta.argmax())]) if shown.n else "none yet"
        return (
            f"ladder: {len(self.state.finished)} sets ({self.stored_now} now, {rate:.2f}/s), "
            f"leader {leader}"
        )

    def finish(self, store: Store, completed: bool) -> None:
        """Write the standings of every stored set; say why it stopped."""
        self._standings()
        if not completed:
            self.reason = "interrupted"

    def why(self) -> str:
        """Why the ladder stopped, and how to go on."""
        reason = self.reason or "its bound was reached"
        return (
            f"ladder {self.tid} stopped ({reason}) after {self.stored_now} sets in this run, "
            f"{len(self.state.finished)} stored in all; the same command resumes it"
        )

    # -- helpers --------------------------------------------------------------------------

    def _decide(self, step: int) -> LadderSet | None:
        """The set at ``step`` (its results counted up to the lookahead): the field brought up
        to date, the rule's pick, its epoch opened (the commitment published first), and the
        set recorded before it is handed out, so that a resume plays it again with the same
        bots and deal. None when the field has fewer than three bots (the reason kept)."""
        self.state.count_until(step - self.settings.lookahead - 1)
        playing = sync(self.store, self.tid, self.state, self.bundled, self.on_field_change)
        if len(playing) < 3:
            self.reason = "the field has fewer than three bots"
            return None
        epoch = self.epochs.open_for(step)
        pick = self.state.ladder.next_set()
        key = set_key(epochs_.members_of(self._entrants(pick.bots)))
        self.store.schedule_ladder_set(self.tid, step, pick.bots, epoch, key, pick.reason)
        return LadderSet(step, pick.bots, epoch, key, pick.reason, now(), None)

    def _bounded(self) -> bool:
        s = self.settings
        if s.max_sets is not None and self.handed >= s.max_sets:
            self.reason = self.reason or f"{s.max_sets} sets played"
            return True
        if s.seconds is not None and time.monotonic() - self.clock >= s.seconds:
            self.reason = self.reason or f"{s.seconds:g} seconds passed"
            return True
        return False

    def _version(self, vid: int) -> BotVersion:
        if vid not in self.versions:
            self.versions[vid] = self.store.bot_version(vid)
        return self.versions[vid]

    def _entrants(self, bots: Sequence[int]) -> tuple[Entrant, Entrant, Entrant]:
        a, b, c = (self._version(v) for v in bots)
        return (
            Entrant(a.name, a.sha256, a.id),
            Entrant(b.name, b.sha256, b.id),
            Entrant(c.name, c.sha256, c.id),
        )

    def _name(self, vid: int) -> str:
        return clean_line(self._version(vid).name, 60)

    def _matches(self, row: LadderSet) -> list[MatchSpec]:
        secret = self.epochs.secret(row.epoch)
        self.handed += 1
        self.scheduled[row.step] = row.bots
        return epochs_.set_matches(
            self.tid, row.step, self._entrants(row.bots), self.settings.seed, secret
        )

    def _standings(self) -> None:
        """Rewrite the ladder's ``ratings`` rows from the shown table (every stored set)."""
        self.table = self.state.shown.standings()
        self.store.write_ladder_standings(
            self.tid,
            [
                {
                    "bot_version_id": s.bot,
                    "rating": s.rating,
                    "rating_low": s.low,
                    "rating_high": s.high,
                    "units": s.sets,
                }
                for s in self.table
            ],
        )


def plan_ladder(
    store: Store,
    bundled: Sequence[str] = (),
    settings: LadderSettings | None = None,
    *,
    rules: Rules | None = None,
    limits: Limits | None = None,
    on_sets_stored: SetsStored | None = None,
    on_field_change: FieldChanged | None = None,
) -> Plan:
    """Create (or find again) the ladder of these bundled bots and settings in ``store``.

    Its field is every submitted bot not retired and the bundled bots named (``random``,
    ``heuristic``, ``montecarlo``); it needs three. Refusals are one ArenaError line.
    """
    settings = (settings or LadderSettings()).check()
    rules, limits = rules or Rules(), limits or Limits()
    reserved = bundled_names()
    for name in bundled:
        if name not in reserved:
            raise ArenaError(
                f"a ladder names only bundled bots ({', '.join(sorted(reserved))}), not "
                f"{clean_line(name, 80)!r}: submit other bots with `arena submit FILE`, they "
                "join the field"
            )
    if len(set(bundled)) != len(bundled):
        raise ArenaError("a bundled bot is named twice")
    if bundled:
        resolve(store, list(bundled), minimum=0)  # registered (again when its file changed)
    versions = current_field(store, bundled)
    if len(versions) < 3:
        have = ", ".join(v.name for v in versions) or "none"
        raise ArenaError(
            f"a ladder needs at least three bots in its field (has {have}): submit bots with "
            "`arena submit FILE`, or name bundled bots (arena ladder random heuristic)"
        )
    config = ladder_config(bundled, settings, rules, limits)
    lid = tournament_id(config)
    secret = store.ensure_ladder(lid, config)
    schedule = LadderSchedule(
        store, lid, settings, sorted(bundled), on_sets_stored, on_field_change
    )
    return Plan(
        lid, config, versions, rules, limits, schedule, secret.commitment, store.match_count(lid),
        check_key(secret.secret),
    )  # fmt: skip
