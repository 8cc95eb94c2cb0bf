"""A running ladder's field and the state of its rule, kept in step with the store.

The rule (:class:`arena.ladder.Ladder`) sees everything in **step order**: before step ``s``
is scheduled it has counted exactly the sets ``0 .. s - lookahead - 1`` (all of them, none
after), then the field's changes at ``s`` (bots that left, by version id, then bots that
joined), then it picks. What it decides is so a function of the seed, the field's history and
the results, never of which worker finished first: serial and parallel runs agree, and a
resumed run rebuilds the same state from ``ladder_bots`` and ``ladder_sets``
(:func:`restore`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from arena.errors import ArenaError
from arena.events import Joined, Left
from arena.ladder.policy import Ladder, Parameters
from arena.ladder.ratings import LadderRatings, SetResult
from arena.sandbox.botfile import bundled_names
from arena.store import BotVersion, LadderSet, Store
from arena.tournaments.owners import BUNDLED
from arena.untrusted import clean_line

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FieldChange:
    """A bot version that joined or left a running ladder's field at ``step`` (the event of
    ``on_field_change``: ``arena ladder`` prints it, the run's log records it)."""

    step: int
    name: str
    version: int
    joined: bool
    reason: str | None = None
    """Why it left: ``retired`` or ``replaced`` (by a newer version); None when it joined."""

    def event(self, lid: str) -> Joined | Left:
        """The change as the library's event (:mod:`arena.events`) of ladder ``lid``."""
        if self.joined:
            return Joined(lid, self.step, self.name, self.version)
        return Left(lid, self.step, self.name, self.version, self.reason or "retired")

    def describe(self) -> str:
        """One line: ``set 40: frank (version 2) joins the ladder``."""
        who = f"{clean_line(self.name, 40)} (version {self.version})"
        if self.joined:
            return f"set {self.step}: {who} joins the ladder"
        if self.reason == "replaced":
            return f"set {self.step}: {who} leaves the ladder, replaced by its new version"
        return f"set {self.step}: {who} leaves the ladder ({self.reason})"


FieldChanged = Callable[[FieldChange], object]


def set_result(
    bots: tuple[int, int, int], matches: Iterable[tuple[Sequence[int], Sequence[int]]]
) -> SetResult:
    """A stored set as the ratings count it: per match (``(bots by seat, places by seat)``,
    in seating order) the places of ``bots[0]``, ``bots[1]``, ``bots[2]``."""
    places = []
    for seated, placed in matches:
        by_bot = dict(zip(seated, placed, strict=True))
        places.append((by_bot[bots[0]], by_bot[bots[1]], by_bot[bots[2]]))
    return SetResult(bots, tuple(places))


@dataclass
class State:
    """The rule and what it has counted: finished sets wait in ``results`` until their
    turn in step order. The table shown (``shown``) counts every stored set at once, in
    step order too, so it is ahead of the rule's by the sets within the lookahead."""

    ladder: Ladder
    lookahead: int
    shown: LadderRatings = field(default_factory=LadderRatings)
    to_show: dict[int, SetResult] = field(default_factory=dict)
    showing: int = 0
    """The next step the shown table counts."""
    results: dict[int, SetResult] = field(default_factory=dict)
    finished: set[int] = field(default_factory=set)
    recorded: int = 0
    """The next step to count."""
    unfinished: list[LadderSet] = field(default_factory=list)
    """Sets scheduled but not stored when the state was restored: played again first."""
    bot_of: dict[int, int] = field(default_factory=dict)
    """Each version's bot id (a new version of the same bot replaces it)."""

    def ready(self, step: int) -> bool:
        """Whether ``step`` may be scheduled: every set ``lookahead + 1`` or more steps
        before it is stored."""
        return all(s in self.finished for s in range(self.recorded, step - self.lookahead))

    def count_until(self, last: int) -> None:
        """Count the sets up to ``last`` (finished, in step order) in the ratings."""
        while self.recorded <= last and self.recorded in self.results:
            self.ladder.record(self.results.pop(self.recorded))
            self.recorded += 1

    def finish(self, step: int, result: SetResult) -> None:
        """A set was stored: kept for the rule, and counted in the shown table once every
        earlier set is."""
        self.finished.add(step)
        self.results[step] = result
        self.to_show[step] = result
        while self.showing in self.to_show:
            shown = self.to_show.pop(self.showing)
            self.shown.add_bots(shown.bots)
            self.shown.add_set(shown)
            self.showing += 1


def _apply(
    lad: Ladder,
    joins: dict[int, list[int]],
    leaves: dict[int, list[int]],
    step: int,
    owners: dict[int, str | None],
) -> None:
    for v in sorted(leaves.get(step, ())):
        if v in lad.entries:
            lad.retire(v)
    for v in sorted(joins.get(step, ())):
        lad.join(v, owners.get(v))


def restore(store: Store, lid: str, seed: int, params: Parameters, lookahead: int) -> State:
    """The rule's state after every stored step of ladder ``lid``, rebuilt in step order:
    the field's changes as stored, each set as scheduled, each result counted when the live
    run counted it."""
    state = State(Ladder(seed=seed, params=params), lookahead)
    joins: dict[int, list[int]] = {}
    leaves: dict[int, list[int]] = {}
    owner_of = store.bot_owners()
    owners: dict[int, str | None] = {}
    for m in store.ladder_members(lid):
        state.bot_of[m.version_id] = m.bot_id
        owners[m.version_id] = owner_of.get(m.name)
        joins.setdefault(m.joined_step, []).append(m.version_id)
        if m.left_step is not None:
            leaves.setdefault(m.left_step, []).append(m.version_id)
    sets = store.ladder_sets(lid)
    matches: dict[int, list[tuple[Sequence[int], Sequence[int]]]] = {}
    for step, _, *rest in store.ladder_places(lid):
        matches.setdefault(step, []).append((rest[:3], rest[3:]))
    for row in sets:
        if row.finished_at is not None:
            state.finish(row.step, set_result(row.bots, matches.get(row.step, [])))
        else:
            state.unfinished.append(row)
    for row in sets:
        state.count_until(row.step - lookahead - 1)
        _apply(state.ladder, joins, leaves, row.step, owners)
        state.ladder.schedule(row.bots, row.reason)
    _apply(state.ladder, joins, leaves, len(sets), owners)
    return state


def current_field(store: Store, bundled: Sequence[str]) -> list[BotVersion]:
    """The field now: the latest version of every submitted bot not retired, and of the
    bundled bots named (``bundled``)."""
    named = [store.latest_version(n) for n in bundled]
    return [
        *store.ladder_field(exclude=bundled_names()),
        *(v for v in named if v is not None),
    ]


def sync(
    store: Store,
    lid: str,
    state: State,
    bundled: Sequence[str],
    on_change: FieldChanged | None = None,
) -> list[BotVersion]:
    """Bring the rule's field up to the store's at the next step: versions no longer in it
    leave (``replaced`` when their bot has a newer one, else ``retired``), new ones join;
    each change is logged and told to ``on_change``. Returns the field."""
    lad, step = state.ladder, state.ladder.step
    now = current_field(store, bundled)
    wanted = {v.id: v for v in now}
    bots = {v.bot_id for v in now}
    active = set(lad.active())
    changes = []
    for v in sorted(active - wanted.keys()):
        reason = "replaced" if state.bot_of.get(v) in bots else "retired"
        lad.retire(v)
        store.leave_ladder(lid, v, step, reason)
        gone = store.bot_version(v)
        changes.append(FieldChange(step, gone.name, gone.version, False, reason))
    owner_of = store.bot_owners()
    # A name stored without an owner can gain one later: the rule reads the owners as they
    # are now, as a resumed ladder (restore) does, so the two choose alike.
    for v in wanted.keys() & active:
        lad.entries[v].owner = owner_of.get(wanted[v].name)
    for v in sorted(wanted.keys() - active):
        lad.join(v, owner_of.get(wanted[v].name))  # an owner's bots share a wait bound
        store.join_ladder(lid, v, step)
        state.bot_of[v] = wanted[v].bot_id
        changes.append(FieldChange(step, wanted[v].name, wanted[v].version, True))
    for change in changes:
        log.info("ladder %s: %s", lid, change.describe())
        if on_change is not None:
            on_change(change)
    return now


def retire_bot(
    store: Store, name: str, *, owner: str | None, force: bool = False
) -> tuple[BotVersion, bool]:
    """Retire bot ``name`` from every ladder's field (``arena retire``): its results stay,
    it plays no new set. Its owner's key (or ``force``, the organiser's override; ``owner``
    None: a trusted library caller) is checked as for a new version. A bundled bot cannot be
    retired (it plays only when named). Returns its latest version and whether it changed
    (False: already retired). Submitting it again (:func:`arena.tournaments.entrants.submit`) brings
    it back."""
    if name in bundled_names():
        raise ArenaError(
            f"{name!r} is a bundled bot: it plays in a ladder only when named on the command "
            "line, so there is nothing to retire"
        )
    version = store.latest_version(name)
    if version is None:
        raise ArenaError(f"no bot named {name!r} in {store.path}")
    current = store.bot_owners().get(name)
    if current == BUNDLED:
        raise ArenaError(f"{name!r} is a bundled bot's name; it cannot be retired")
    if owner is not None and current != owner and not force:
        whose = "belongs to another owner key" if current else "has no owner key"
        raise ArenaError(
            f"bot {name!r} {whose}: only its owner retires it (or the organiser, with `force`)"
        ).naming("force")
    return version, store.set_retired(name, True)
