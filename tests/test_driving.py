"""What a cluster run compares and decides about a worker's claims (arena.tournaments.driving):
which records agree, which matches a cross-check picks, how long a worker may hold a batch.
The whole flow, with hostile workers on a real cluster, is tests/test_cluster_claims.py."""

from __future__ import annotations

import dataclasses

from arena.engine import Rules, play_match
from arena.matches.record import MatchRecord, SeatStats
from arena.matches.scheduler import Entrant, MatchSpec
from arena.sandbox import Fault, Limits
from arena.sandbox.values import MatchOutcome
from arena.tournaments.driving import Judge, batch_deadline, differs, match_seconds, picked
from arena.tournaments.runner import Batch, outcome_record


class First:
    def act(self, obs: dict[str, object]) -> object:
        return obs["legal"][0]  # type: ignore[index]


SEATS = (Entrant("a", "1" * 64, 1), Entrant("b", "2" * 64, 2), Entrant("c", "3" * 64, 3))


def record(i: int = 0) -> MatchRecord:
    spec = MatchSpec(f"m{i}", 0, 0, i, "1,2,3", SEATS, deal_seed=f"deal{i}")
    m = play_match([First(), First(), First()], spec.deal_seed, Rules())
    outcome = MatchOutcome(m, [], list(m.placements), [{}, {}, {}], ["", "", ""])
    return outcome_record(spec, outcome, 0.5)


def test_records_agree_on_play_not_on_timings_or_wording() -> None:
    r = record()
    timed = dataclasses.replace(
        r, duration_seconds=9.0, stats=(SeatStats(r.stats[0].decisions, r.stats[0].asked, 3.0),) * 3
    )
    assert differs(r, dataclasses.replace(timed, stats=r.stats)) is None
    fault = Fault(1, "timeout", "used over 1 s of CPU on one decision", 4)
    worded = dataclasses.replace(fault, message="no answer within 5 s (wall clock) on one decision")
    a = dataclasses.replace(r, faults=(fault,), logs=("x", "", ""))
    assert differs(a, dataclasses.replace(r, faults=(worded,))) is None
    assert differs(a, r) == "the faults differ (seat 1 timeout against none)"
    later = dataclasses.replace(fault, decision=5)
    assert differs(a, dataclasses.replace(r, faults=(later,))) is not None
    assert differs(r, dataclasses.replace(r, placements=(3, 2, 1))) == "the scores or places differ"
    other = record(1)
    assert differs(r, dataclasses.replace(other, match_id=r.match_id)) == "the play differs"


def test_cross_checks_pick_a_reproducible_share_under_a_key_of_their_own() -> None:
    ids = [f"{i:012x}" for i in range(4000)]
    key = b"k" * 32
    chosen = [m for m in ids if picked(key, 0.1, m)]
    assert 340 < len(chosen) < 460  # a tenth, give or take five standard deviations
    assert chosen == [m for m in ids if picked(key, 0.1, m)]  # the same every time
    assert chosen != [m for m in ids if picked(b"j" * 32, 0.1, m)]  # another secret, others
    assert not any(picked(key, 0.0, m) for m in ids) and all(picked(key, 1.0, m) for m in ids)
    judge = Judge(0.0, key)
    r = record()
    assert not judge.wants_check(r)
    assert judge.wants_check(dataclasses.replace(r, faults=(Fault(0, "crash", "boom", 0),)))


def test_a_batch_deadline_follows_the_limits() -> None:
    limits = Limits(match_cpu_seconds=0.2)
    assert match_seconds(limits) == 3 * 5 * 0.2  # computing: the CPU budget at 5x
    specs = tuple(MatchSpec(f"m{i}", 0, i, 0, "1,2,3", SEATS, deal_seed="d") for i in range(6))
    batch = Batch(Rules(), limits, False, {}, specs)
    assert batch_deadline(batch) == 46.0
    # The defaults: 100 s of computing a seat is more than the clock's 30 s bank.
    assert batch_deadline(dataclasses.replace(batch, limits=Limits())) == 2 * 6 * 300 + 10
    # A long clock: a bot may wait through its whole bank, and is not faulted.
    assert match_seconds(Limits(clock_bank_seconds=600.0)) == 3 * 600
