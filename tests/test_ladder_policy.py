"""The ladder's scheduling rule (arena.ladder.policy) on synthetic bots: new bots first, the
wait bound, neighbours meet, determinism, and a step that never enumerates the triples."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from bench_support import BENCH

from arena.ladder import SetResult
from arena.ladder.policy import Ladder, Parameters, Pick

sys.path.insert(0, str(BENCH))

from ladder_model import World, play_set, strengths  # noqa: E402


def run(lad: Ladder, truth: np.ndarray, steps: int, rng: np.random.Generator) -> list[Pick]:
    """Run the ladder for ``steps`` sets, each recorded before the next is chosen."""
    out = []
    for _ in range(steps):
        pick = lad.next_set()
        lad.record(SetResult(pick.bots, play_set(truth[list(pick.bots)], rng, World())))
        out.append(pick)
    return out


def play(
    lad: Ladder, truth: np.ndarray, steps: int, rng: np.random.Generator
) -> list[tuple[int, ...]]:
    """The triples of :func:`run`, in order."""
    return [pick.bots for pick in run(lad, truth, steps, rng)]


def field(n: int, seed: int = 1, params: Parameters | None = None) -> tuple[Ladder, np.ndarray]:
    lad = Ladder(seed=seed, params=params or Parameters())
    for b in range(n):
        lad.join(b)
    return lad, strengths(n, 1.5, seed)


def test_a_new_bot_plays_at_the_next_step_and_is_the_focus_for_its_first_sets() -> None:
    lad, truth = field(15)
    rng = np.random.default_rng(3)
    play(lad, truth, 200, rng)
    lad.join(15)
    truth = np.append(truth, 0.4)
    picks = run(lad, truth, 40, rng)
    assert 15 in picks[0].bots and picks[0].reason == "new"
    mine = [i for i, p in enumerate(picks) if 15 in p.bots]
    # Until it has min_sets sets, only an overdue bot (the wait bound) goes before it.
    head = picks[: mine[Parameters().min_sets - 1] + 1]
    assert all(15 in p.bots or p.reason == "overdue" for p in head)
    assert all(p.reason in ("new", "provisional", "overdue") for p in head)


def test_a_new_version_replaces_the_old_one() -> None:
    lad, truth = field(6)
    rng = np.random.default_rng(4)
    play(lad, truth, 30, rng)
    lad.replace(2, 6)
    truth = np.append(truth, truth[2])
    assert 2 not in lad.active() and 6 in lad.active()
    picks = play(lad, truth, 40, rng)
    assert 6 in picks[0]
    assert all(2 not in t for t in picks)
    assert lad.ratings.sets[lad.ratings.index[2]] > 0  # the old version keeps its results


@pytest.mark.parametrize("n", [12, 40])
def test_no_bot_waits_more_than_the_bound(n: int) -> None:
    lad, truth = field(n, seed=n)
    bound = lad.params.wait_bound(n)
    rng = np.random.default_rng(5)
    last = {b: -1 for b in range(n)}
    worst = 0
    for s, t in enumerate(play(lad, truth, 12 * n, rng)):
        for b in t:
            worst = max(worst, s - last[b] - 1)
            last[b] = s
    worst = max(worst, *(12 * n - 1 - v for v in last.values()))
    assert 0 < worst <= bound


def test_neighbours_in_the_order_meet() -> None:
    lad, truth = field(30, seed=2)
    play(lad, truth, 900, np.random.default_rng(6))
    order = [line.bot for line in lad.ratings.standings()]
    unmet = [
        (a, b)
        for a, b in zip(order, order[1:], strict=False)
        if (min(a, b), max(a, b)) not in lad.meetings
    ]
    assert unmet == []


def test_a_share_of_the_sets_ties_the_ends_of_the_table_to_each_other() -> None:
    """Past the newcomers, about ``random_sets`` of the steps play a uniformly random triple,
    so every bot meets bots from across the table, not only its neighbours: the level of
    the bottom of the table against the top is measured directly (the shown intervals' honesty
    rests on it: docs/ladder.md, coverage)."""
    lad, truth = field(30, seed=4)
    picks = run(lad, truth, 900, np.random.default_rng(11))
    free = [p for p in picks if p.reason in ("random", "neighbours", "information", "explore")]
    share = sum(p.reason == "random" for p in free) / len(free)
    assert abs(share - lad.params.random_sets) < 0.06, share
    rank = np.argsort(np.argsort(-truth))
    top, bottom = set(np.flatnonzero(rank < 10).tolist()), np.flatnonzero(rank >= 20).tolist()
    across = {b: 0 for b in bottom}
    for p in picks:
        if p.reason == "random" and top & set(p.bots):
            for b in set(p.bots) & set(bottom):
                across[b] += 1
    assert min(across.values()) >= 1, across
    off = Ladder(seed=4, params=Parameters(random_sets=0.0))
    for b in range(30):
        off.join(b)
    assert "random" not in {p.reason for p in run(off, truth, 300, np.random.default_rng(11))}


def test_neighbour_sets_serve_the_bot_with_the_fewest_sets_among_its_neighbours() -> None:
    """Past the random sets, ``neighbour_sets`` of the steps play the bot with the fewest
    sets between two of its ``neighbours`` nearest on each side in the shown order."""
    lad, truth = field(30, seed=5)
    run(lad, truth, 200, np.random.default_rng(12))
    seen = 0
    for _ in range(300):
        fewest = min(lad.entries[b].scheduled for b in lad.active())
        order = [s.bot for s in lad.ratings.standings()]
        pick = lad.next_set()
        lad.record(
            SetResult(
                pick.bots, play_set(truth[list(pick.bots)], np.random.default_rng(seen), World())
            )
        )
        if pick.reason != "neighbours":
            continue
        seen += 1
        focal, *partners = pick.bots
        assert lad.entries[focal].scheduled - 1 == fewest
        # Ranks from the table before the set: theta's order, the one the rule reads.
        rank = {b: i for i, b in enumerate(order)}
        assert all(abs(rank[b] - rank[focal]) <= lad.params.neighbours for b in partners)
    p = lad.params
    assert abs(seen / 300 - (1 - p.random_sets) * p.neighbour_sets) < 0.1, seen


def test_the_same_seed_and_results_give_the_same_ladder() -> None:
    runs = []
    for _ in range(2):
        lad, truth = field(20, seed=9)
        runs.append(play(lad, truth, 150, np.random.default_rng(7)))
    assert runs[0] == runs[1]
    lad, truth = field(20, seed=10)
    assert play(lad, truth, 150, np.random.default_rng(7)) != runs[0]


def test_a_step_scores_a_bounded_number_of_triples_whatever_the_field() -> None:
    """Counted, not timed: C(n, 3) grows 29-fold from 40 to 120 bots; the triples scored
    per step stay within the candidate list's pairs, whatever the field."""
    p = Parameters(min_sets=2)  # soon past the newcomers' sets
    scored: dict[int, list[int]] = {}
    for n in (40, 120):
        lad, truth = field(n, seed=n, params=p)
        picks = run(lad, truth, 2 * n + 30, np.random.default_rng(8))[-30:]
        assert {pick.reason for pick in picks} >= {"information"}
        scored[n] = [pick.scored for pick in picks if pick.reason == "information"]
    cap = math.comb(2 * p.neighbours + 1 + p.uncertain + p.stale + p.random_partners, 2)
    assert 0 < max(scored[40]) <= cap and 0 < max(scored[120]) <= cap
    assert max(scored[120]) < 1.5 * max(scored[40])


def test_a_field_smaller_than_three_is_one_clear_error() -> None:
    lad = Ladder(seed=1)
    lad.join(1)
    lad.join(2)
    with pytest.raises(ValueError, match="needs three bots"):
        lad.next_set()
    with pytest.raises(ValueError, match="three different bots"):
        lad.schedule((1, 1, 2))


def test_the_examples_in_the_docstrings_run() -> None:
    import doctest

    import arena.ladder.policy
    import arena.ladder.ratings

    for module in (arena.ladder.policy, arena.ladder.ratings):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_the_example_of_the_ladder_page_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "ladder.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.M | re.S)
    (code,) = [b for b in blocks if "from arena.ladder import Ladder" in b]  # the rule alone
    exec(compile(code, "docs/ladder.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert sorted(int(line.split()[0]) for line in lines) == [1, 2, 3, 4, 5, 6]


def test_a_focal_bots_partners_bracket_its_estimate() -> None:
    """A provisional bot plays between two partners, one rated above it and one below
    (duplicate play measures a bot between two others best); with the whole field on one
    side the rule still fills the set."""
    lad, truth = field(20, seed=3)
    rng = np.random.default_rng(12)
    play(lad, truth, 150, rng)
    lad.join(20)
    truth = np.append(truth, 0.1)
    picks = run(lad, truth, 12, rng)
    focus = [p for p in picks if p.reason in ("new", "provisional") and 20 in p.bots]
    assert len(focus) == lad.params.min_sets
    from arena.ladder.policy import _View

    view = _View(lad, lad.active())
    mine = view.theta[view.pos[20]]
    pairs = [(a, b) for a in range(20) for b in range(a + 1, 20)]
    kept = view.bracketing(20, pairs)
    assert kept and len(kept) < len(pairs)
    for a, b in kept:
        assert (view.theta[view.pos[a]] > mine) != (view.theta[view.pos[b]] > mine)
    top = int(np.argmax(view.theta))
    others = [(a, b) for a in range(21) for b in range(a + 1, 21) if top not in (a, b)]
    assert view.bracketing(top, others) == others  # nobody above it: every pair stays


def longest_waits(lad: Ladder, truth: np.ndarray, steps: int) -> dict[int, int]:
    """Each bot's longest wait (sets scheduled between two of its own) over ``steps`` sets,
    counted from a step after every bot has played and the ones overdue since have caught up
    (new bots go first, even before overdue ones)."""
    rng = np.random.default_rng(6)
    play(lad, truth, len(lad.active()), rng)
    last = {b: lad.entries[b].last - lad.step for b in lad.active()}
    worst = dict.fromkeys(lad.active(), 0)
    for s, t in enumerate(play(lad, truth, steps, rng)):
        for b in t:
            if b in last:
                worst[b] = max(worst[b], s - last[b] - 1)
            last[b] = s
    for b in lad.active():
        worst[b] = max(worst[b], steps - last[b] - 1)
    return worst


@pytest.mark.parametrize("owned", [False, True], ids=["each-bot-its-own", "one-owner-of-50"])
def test_an_owners_bots_count_together_toward_the_wait_bound(owned: bool) -> None:
    """Eleven owners with a bot each and one owner with 50: counted by owner, the field is
    twelve owners and the eleven keep the bound of twelve (12 sets), the 50 share theirs
    (each 12 x 50); counted by bot, the one owner pushes everyone's bound to 61."""
    lad = Ladder(seed=2)
    for b in range(61):
        lad.join(b, owner=("many" if b >= 11 else f"solo{b}") if owned else None)
    truth = strengths(61, 1.5, 2)
    bounds = lad.bounds()
    worst = longest_waits(lad, truth, 400)
    solo = max(worst[b] for b in range(11))
    if owned:
        assert {bounds[b] for b in range(11)} == {12} and bounds[11] == 600
        assert solo <= 12
        assert all(worst[b] <= bounds[b] for b in range(11, 61))
    else:
        assert set(bounds.values()) == {61} and lad.params.wait_bound(61) == 61
        assert solo > 12  # what the owner's 50 bots cost everyone else
