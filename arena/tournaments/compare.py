"""``arena compare A B``: is A stronger than B? The sequential test of
:mod:`arena.stats.sequential`, played for real.

A comparison is a tournament of kind ``compare`` (:data:`arena.store.COMPARE`). Each of its
**sets** is one deal seed played in all six seatings of A, B and a third bot (the bundled
heuristic unless ``--third``), sandboxed, by the same worker processes as a round robin
(:func:`arena.tournaments.tournament.run`). The bots sit by *role* (A, B, third), not by bot
version: the third may be A or B itself (``arena compare heuristic random`` seats the heuristic
twice), so a match's seating, not its bot ids, says who is A. Set ``k`` is stored as round ``k``;
seating ``s`` seats role ``SEATINGS[s][seat]`` at each seat; the public seed of a set is the round
robin's (:func:`arena.matches.scheduler.match_seed` of its three bots and ``k``), so ``arena
verify`` checks a comparison's deals as any other tournament's.

Its identity is its configuration (A, B and the third by name and source hash, p0, p1,
alpha, beta, the most sets, the seed, the rules and the limits): the same command again finds
it and continues it. New sets are scheduled while the test is undecided; matches finish in any
order, and :class:`arena.stats.sequential.SetQueue` releases set scores to the test only when a set
is complete and every earlier set has been released, so a parallel run decides exactly as a
serial one (sets that were already being played when it decided are stored but not counted).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.engine import Rules
from arena.errors import ArenaError
from arena.events import OnEvent, ignore
from arena.matches.record import MatchRecord
from arena.matches.scheduler import SEATINGS, Entrant, MatchSpec, duplicate_set, tournament_id
from arena.matches.secrecy import SecretFile
from arena.sandbox import Limits
from arena.stats.sequential import Design, SequentialTest, SetQueue, Status, half_points, replay
from arena.store import COMPARE, BotVersion, Store
from arena.store.kinds import KINDS
from arena.tournaments.entrants import DEFAULT_SOURCE_BYTES, resolve
from arena.tournaments.owners import current_owner
from arena.tournaments.runner import Wait
from arena.tournaments.schedules import ScheduleBase
from arena.tournaments.tournament import Plan, RunResult, planned, run, worker_count
from arena.untrusted import clean_line

ROLES: Final = ("a", "b", "third")
"""The three roles of a comparison, in the order of ``SEATINGS``' member indices."""

DEFAULT_THIRD: Final = "heuristic"
"""The third seat when ``--third`` is not given (docs/evaluation.md says why)."""

DEFAULT_MAX_SETS: Final = 1000
"""Sets after which an undecided comparison ends inconclusive (6,000 matches)."""


def compare_match_id(tid: str, set_index: int, seating: int) -> str:
    """A comparison's match id: from its set and seating (the same bot may sit twice)."""
    text = f"arena/compare/{tid}/{set_index}/{seating}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def set_matches(
    tid: str,
    members: tuple[Entrant, Entrant, Entrant],
    index: int,
    tournament_seed: int,
    secret: bytes | None,
) -> list[MatchSpec]:
    """The six matches of set ``index``: ``members`` are A, B and the third (ids by set and
    seating: the same bot may sit twice)."""
    return duplicate_set(
        members, index, tournament_seed, secret,
        lambda seats, set_index, seating: compare_match_id(tid, set_index, seating),
    )  # fmt: skip


def points_of_a(seating: int, places: Sequence[int]) -> int:
    """A's half-points over B in one match of a comparison, from its seating and places."""
    perm = SEATINGS[seating]
    return half_points(places[perm.index(0)], places[perm.index(1)])


class CompareSchedule(ScheduleBase):
    """The lazy schedule of a comparison (a :class:`arena.tournaments.schedules.Schedule`): one set
    after another while the test is undecided, at most ``design.max_sets``."""

    exact = False
    kind = KINDS[COMPARE]

    def __init__(
        self,
        tid: str,
        members: tuple[Entrant, Entrant, Entrant],
        tournament_seed: int,
        secret: bytes | None,
        design: Design,
    ) -> None:
        self.tid = tid
        self.members = members
        self.seed = tournament_seed
        self.secret = secret
        self.design = design
        self.total: int | None = None  # no bar: a test stops when it has seen enough
        self.test = SequentialTest(design)
        self.queue = SetQueue()
        self.done: set[str] = set()

    def start(self, store: Store) -> bool:
        """Feed the stored matches through a fresh queue and test; whether it is undecided."""
        self.test, self.queue = SequentialTest(self.design), SetQueue()
        self.done = store.finished_match_ids(self.tid)
        for rnd, seating, *places in store.seating_results(self.tid):
            self._add(rnd, seating, places[:3])
        return self.test.decision is None

    def _add(self, set_index: int, seating: int, places: Sequence[int]) -> None:
        for score in self.queue.add(set_index, seating, points_of_a(seating, places)):
            if self.test.decision is None:
                self.test.add(score)

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """The missing matches of the next set, while the test is undecided."""
        index = self.queue.next_set
        cap = self.design.max_sets
        while self.test.decision is None and (cap is None or index < cap):
            todo = [
                m
                for m in set_matches(self.tid, self.members, index, self.seed, self.secret)
                if m.match_id not in self.done
            ]
            if todo:
                yield todo
            index += 1

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        """Store the batch; feed its matches to the queue, and the sets it releases to the
        test."""
        store.write_results(self.tid, records)
        for r in records:
            self.done.add(r.match_id)
            self._add(r.round, r.seating, r.placements)
        return records

    def describe(self) -> str:
        """The live line: sets, rate with its interval, evidence between its bounds."""
        return self.test.status().line()

    def finish(self, store: Store, completed: bool) -> None:
        """Once decided, record the sets it took and the matches stored."""
        if completed and self.test.decision is not None:
            store.set_extent(self.tid, self.test.sets, store.match_count(self.tid))

    def why(self) -> str:
        """The verdict so far (names are checked bot names; cleaned for older databases)."""
        a, b = (clean_line(m.name, 60) for m in self.members[:2])
        return self.test.status().verdict(a, b)


def _identity(role: str, v: BotVersion) -> dict[str, str]:
    return {"role": role, "name": v.name, "sha256": v.sha256}


def plan_comparison(
    store: Store,
    a: str,
    b: str,
    third: str = DEFAULT_THIRD,
    *,
    design: Design,
    seed: int,
    rules: Rules,
    limits: Limits,
    owner: str | None = None,
    max_bytes: int = DEFAULT_SOURCE_BYTES,
    secret_file: SecretFile | None = None,
) -> Plan:
    """Create (or find again) the comparison of A and B with this third and design.

    A, B and the third are bot files, bundled bots' names or submitted bots' names
    (:func:`arena.tournaments.entrants.resolve`). A and B must be two bots with two names (else
    :class:`arena.tournaments.entrants.SameBot`); the third may be either of them.
    """
    if design.max_sets is None:
        raise ArenaError("a comparison needs a most number of sets")
    if secret_file is not None and secret_file.seed != seed:
        raise ArenaError(
            f"the secret file holds the deal secret of seed {secret_file.seed}, not of {seed}"
        )
    va, vb = resolve(store, [a, b], owner=owner, max_bytes=max_bytes, minimum=2)
    (vc,) = resolve(store, [third], owner=owner, max_bytes=max_bytes, minimum=1)
    config = {
        "kind": COMPARE,
        "bots": [_identity(r, v) for r, v in zip(ROLES, (va, vb, vc), strict=True)],
        "p0": design.p0,
        "p1": design.p1,
        "alpha": design.alpha,
        "beta": design.beta,
        "rounds": design.max_sets,
        "seed": seed,
        "rules": rules.to_dict(),
        "limits": dict(sorted(limits.to_dict().items())),
    }
    tid = tournament_id(config)
    versions = list({v.id: v for v in (va, vb, vc)}.values())
    secret = store.ensure_tournament(
        tid,
        config,
        [v.id for v in versions],
        len(SEATINGS) * design.max_sets,
        secret=None if secret_file is None else secret_file.secret,
        kind=COMPARE,
    )
    members = (
        Entrant(va.name, va.sha256, va.id),
        Entrant(vb.name, vb.sha256, vb.id),
        Entrant(vc.name, vc.sha256, vc.id),
    )
    schedule = CompareSchedule(tid, members, seed, secret.secret, design)
    return Plan(tid, config, versions, rules, limits, schedule, secret.commitment)


# --- reading a stored comparison --------------------------------------------------------------


@dataclass(frozen=True)
class Role:
    """How one role (A, B or the third) fared in the sets the test counted."""

    role: str
    bot: BotVersion
    matches: int
    wins: int
    place_sum: int
    points_sum: int

    @property
    def mean_place(self) -> float | None:
        """Mean place over its matches."""
        return self.place_sum / self.matches if self.matches else None

    @property
    def mean_points(self) -> float | None:
        """Mean final score over its matches (0 for a match it forfeited by a fault)."""
        return self.points_sum / self.matches if self.matches else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (the name is a checked bot name)."""
        mp, pts = self.mean_place, self.mean_points
        return {
            "name": self.bot.name,
            "version": self.bot.version,
            "sha256": self.bot.sha256,
            "matches": self.matches,
            "wins": self.wins,
            "mean_place": None if mp is None else round(mp, 4),
            "mean_points": None if pts is None else round(pts, 4),
        }


@dataclass(frozen=True)
class Comparison:
    """A stored comparison, re-read: its bots, design, test (replayed) and roles."""

    tid: str
    status: str
    """The tournament's live status (running, interrupted, finished)."""
    bots: dict[str, BotVersion]
    """By role: ``a``, ``b``, ``third``."""
    design: Design
    test: SequentialTest
    matches: int
    """Matches stored (a parallel run may have stored some past the decision)."""
    roles: tuple[Role, ...]
    seed: int

    @property
    def result(self) -> Status:
        """Where the test stands."""
        return self.test.status()

    def names(self) -> tuple[str, str]:
        """A's and B's names as printed (checked when stored; cleaned for older databases)."""
        return clean_line(self.bots["a"].name, 60), clean_line(self.bots["b"].name, 60)

    def verdict(self) -> str:
        """The result in words."""
        return self.result.verdict(*self.names())

    def to_dict(self) -> dict[str, Any]:
        """The ``arena compare --json`` object (docs/evaluation.md)."""
        return {
            **self.result.to_dict(matches=self.matches),
            "max_sets": self.design.max_sets,
            "tournament": self.tid,
            "status": self.status,
            "seed": self.seed,
            "bots": {r.role: r.to_dict() for r in self.roles},
            "verdict": self.verdict(),
        }


def set_scores(rows: Sequence[Sequence[int]]) -> list[int]:
    """The scores of the complete sets among ``(round, seating, places...)`` rows, in set
    order, up to the first set that is not complete."""
    queue = SetQueue()
    scores: list[int] = []
    for rnd, seating, *places in rows:
        scores += queue.add(rnd, seating, points_of_a(seating, places[:3]))
    return scores


def comparison(store: Store, tid: str) -> Comparison:
    """The comparison ``tid`` as stored (an ArenaError if it is not one)."""
    t = store.tournament(tid)
    config = json.loads(t.config)
    if not t.is_comparison:
        raise ArenaError(f"tournament {t.id} is not a comparison")
    by_identity = {(v.name, v.sha256): v for v in store.tournament_entrants(t.id)}
    bots = {b["role"]: by_identity[(b["name"], b["sha256"])] for b in config["bots"]}
    design = Design(config["p0"], config["p1"], config["alpha"], config["beta"], config["rounds"])
    rows = store.seating_results(t.id)
    test = replay(design, set_scores(rows))
    return Comparison(
        t.id, t.status, bots, design, test, len(rows), _roles(bots, rows, test.sets),
        t.seed,
    )  # fmt: skip


def _roles(
    bots: dict[str, BotVersion], rows: Sequence[Sequence[int]], sets: int
) -> tuple[Role, ...]:
    """Each role's matches, wins, places and points in the first ``sets`` sets. A forfeit
    counts as what it is: the seat placed last and scored 0 points, whatever the fallback
    that finished its hands scored."""
    tally = {r: [0, 0, 0, 0] for r in ROLES}
    for rnd, seating, *rest in rows:
        if rnd >= sets:
            continue
        places, points, forfeited = rest[:3], rest[3:6], rest[6]
        for seat, member in enumerate(SEATINGS[seating]):
            t = tally[ROLES[member]]
            t[0] += 1
            t[1] += places[seat] == 1
            t[2] += places[seat]
            t[3] += 0 if forfeited >> seat & 1 else points[seat]
    return tuple(Role(r, bots[r], *tally[r]) for r in ROLES)


# --- running a comparison end to end -----------------------------------------------------------


@dataclass(frozen=True)
class ComparisonRun:
    """What one :func:`run_comparison` did."""

    comparison: Comparison
    """The comparison after the run: its test, verdict (:meth:`Comparison.verdict`), roles."""
    result: RunResult
    """What was played in this call (``completed`` False: interrupted)."""
    workers: int
    log_path: Path | None


def run_comparison(
    store: Store,
    a: str | Path,
    b: str | Path,
    third: str | Path = DEFAULT_THIRD,
    *,
    design: Design | None = None,
    seed: int = 1,
    workers: int | None = None,
    max_source_bytes: int | None = None,
    unsafe: bool = False,
    executor: cf.Executor | None = None,
    log_path: Path | None = None,
    on_event: OnEvent = ignore,
) -> ComparisonRun:
    """Is A stronger than B? Play duplicate sets in ``store`` until the sequential test of
    ``design`` decides (``arena compare``; :meth:`arena.Arena.compare` is the documented call).

    A, B and the third are bot files or bot names (:func:`plan_comparison`); ``design`` defaults to
    ``Design(max_sets=DEFAULT_MAX_SETS)``. ``workers`` local worker processes (default: the
    usable cores) or ``executor`` play. ``on_event`` hears :class:`arena.events.Planned` with
    the comparison as stored before any match is played, then the run's progress. The same
    call again continues an interrupted comparison. Refusals are
    :class:`~arena.errors.ArenaError` (:class:`arena.tournaments.entrants.SameBot` when A and
    B are one bot).
    """
    design = design or Design(max_sets=DEFAULT_MAX_SETS)
    if design.max_sets is None:
        design = dataclasses.replace(design, max_sets=DEFAULT_MAX_SETS)
    workers = worker_count(workers, executor)
    bots = (str(a), str(b), str(third))
    limits = Limits()
    owner = current_owner() if any(Path(x).is_file() for x in bots) else None
    max_bytes = limits.source_bytes if max_source_bytes is None else max_source_bytes
    the_plan = plan_comparison(
        store, *bots, design=design, seed=seed, rules=Rules(), limits=limits, owner=owner,
        max_bytes=max_bytes,
    )  # fmt: skip
    on_event(planned(store, the_plan, workers))
    result = run(
        store, the_plan, workers=workers, unsafe=unsafe, on_event=on_event, log_path=log_path,
        executor=executor,
    )  # fmt: skip
    return ComparisonRun(comparison(store, the_plan.tid), result, workers, log_path)
