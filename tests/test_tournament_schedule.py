"""The duplicate round-robin schedule: counts, seatings, stable ids and seeds (pure, no I/O)."""

from __future__ import annotations

import collections
import itertools
from math import comb

import pytest

from arena.matches.scheduler import (
    SEATINGS,
    Entrant,
    match_count,
    match_id,
    match_seed,
    schedule,
    tournament_id,
)


def field(n: int) -> list[Entrant]:
    return [Entrant(f"bot{i}", f"{i:064x}", i + 1) for i in range(n)]


@pytest.mark.parametrize(("n", "rounds"), [(3, 1), (3, 4), (4, 2), (5, 3), (7, 1)])
def test_schedule_has_every_set_round_and_seating_once(n: int, rounds: int) -> None:
    specs = list(schedule("t", field(n), rounds, 7))
    assert len(specs) == comb(n, 3) * rounds * 6 == match_count(n, rounds)
    assert len({s.match_id for s in specs}) == len(specs)
    by_unit = collections.defaultdict(list)
    for s in specs:
        by_unit[(s.set_key, s.round)].append(s)
    assert len(by_unit) == comb(n, 3) * rounds
    for group in by_unit.values():
        # Duplicate: the six seatings of a set and round share one seed...
        assert len({s.seed for s in group}) == 1
        assert sorted(s.seating for s in group) == list(range(6))
        # ...and every bot sits in every seat exactly twice.
        for seat in range(3):
            assert collections.Counter(s.seats[seat].name for s in group) == {
                name: 2 for name in {e.name for e in group[0].seats}
            }


def test_seatings_are_the_six_permutations() -> None:
    assert sorted(SEATINGS) == sorted(itertools.permutations(range(3)))


def test_seeds_differ_between_rounds_and_sets() -> None:
    specs = list(schedule("t", field(5), 3, 7))
    seeds = {(s.set_key, s.round): s.seed for s in specs}
    assert len(set(seeds.values())) == len(seeds)


def test_seed_depends_only_on_tournament_seed_set_and_round() -> None:
    a, b, c, d = field(4)
    # A golden value: changing the derivation would silently change every stored tournament.
    assert match_seed(7, [a, b, c], 0) == 133850314169748865
    assert match_seed(7, [c, a, b], 0) == match_seed(7, [a, b, c], 0)
    assert match_seed(8, [a, b, c], 0) != match_seed(7, [a, b, c], 0)
    assert match_seed(7, [a, b, c], 1) != match_seed(7, [a, b, c], 0)
    # Adding a bot to the field changes neither the seeds nor the ids of the existing sets.
    three = {(s.set_key, s.round, s.seating): s for s in schedule("t", [a, b, c], 2, 7)}
    four = {(s.set_key, s.round, s.seating): s for s in schedule("t", [d, c, b, a], 2, 7)}
    for key, spec in three.items():
        assert four[key].seed == spec.seed
        assert four[key].match_id == spec.match_id


def test_a_new_version_of_a_bot_changes_its_seeds() -> None:
    a, b, c = field(3)
    c2 = Entrant(c.name, "f" * 64, 99)
    assert match_seed(7, [a, b, c], 0) != match_seed(7, [a, b, c2], 0)


def test_match_id_is_stable_and_depends_on_seat_order() -> None:
    a, b, c = field(3)
    assert match_id("t", [a, b, c], 0) == match_id("t", [a, b, c], 0)
    assert match_id("t", [a, b, c], 0) != match_id("t", [b, a, c], 0)
    assert match_id("t", [a, b, c], 0) != match_id("u", [a, b, c], 0)
    assert len(match_id("t", [a, b, c], 0)) == 12


def test_schedule_does_not_depend_on_entrant_order() -> None:
    bots = field(5)
    one = [s.to_dict() for s in schedule("t", bots, 2, 3)]
    other = [s.to_dict() for s in schedule("t", list(reversed(bots)), 2, 3)]
    assert one == other


def test_schedule_refuses_two_bots_with_one_name() -> None:
    a, b, _ = field(3)
    with pytest.raises(ValueError, match="distinct names"):
        list(schedule("t", [a, b, Entrant("bot0", "e" * 64, 9)], 1, 1))


def test_tournament_id_is_a_hash_of_every_config_part() -> None:
    base = {
        "bots": [{"name": "a", "sha256": "1"}],
        "rounds": 2,
        "seed": 1,
        "rules": {},
        "limits": {},
    }
    tid = tournament_id(base)
    assert tid == tournament_id(dict(reversed(list(base.items()))))  # key order is irrelevant
    for key, value in [
        ("rounds", 3),
        ("seed", 2),
        ("rules", {"deck": 32}),
        ("limits", {"decision_seconds": 2}),
        ("bots", [{"name": "a", "sha256": "2"}]),
    ]:
        assert tournament_id({**base, key: value}) != tid


@pytest.mark.parametrize(("n", "rounds", "workers"), [(3, 1, 2), (3, 3, 2), (5, 2, 1), (6, 4, 8)])
def test_a_batch_holds_whole_duplicate_sets_in_order(n: int, rounds: int, workers: int) -> None:
    """The seatings of one set and round (the same deals) are never split between batches, so
    no two of them run at the same time; every match is in exactly one batch, in order."""
    from arena.engine import Rules
    from arena.sandbox import BotSource, Limits
    from arena.tournaments.runner import MAX_BATCH, batches

    entrants = field(n)
    specs = list(schedule("t", entrants, rounds, 7))
    sources = {e.key: BotSource(e.name, "class Bot: pass\n") for e in entrants}
    out = list(
        batches(
            specs,
            workers=workers,
            rules=Rules(),
            limits=Limits(),
            unsafe_no_sandbox=False,
            sources=sources,
        )
    )
    assert [s for b in out for s in b.matches] == specs  # the schedule is already set by set
    where = {s.match_id: i for i, b in enumerate(out) for s in b.matches}
    for s in specs:
        twins = [t for t in specs if (t.set_key, t.round) == (s.set_key, s.round)]
        assert {where[t.match_id] for t in twins} == {where[s.match_id]}
    assert all(len(b.matches) <= max(MAX_BATCH, 6) for b in out)
    assert all(set(b.sources) == {e.key for m in b.matches for e in m.seats} for b in out)
    assert len(out) > 1 or comb(n, 3) * rounds == 1  # still cut into many tasks
