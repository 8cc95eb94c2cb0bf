"""The reference bots: legal in every phase and variant, deterministic, within their limits.

The bots are loaded from their files the way the arena loads them (``arena.sandbox.botfile``) and
driven through the real engine; ``play_match`` raises :class:`IllegalAction` on any answer that
is not legal, so finishing a match is itself the legality check.
"""

from __future__ import annotations

import ast
import itertools
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.cards import deck
from arena.engine import PHASES, Deal, IllegalAction, Rules, play_match
from arena.errors import ArenaError
from arena.sandbox.botfile import bundled, load_bot_class
from arena.sandbox.client import _PURE

BOT_NAMES = ("random_bot", "heuristic", "montecarlo")
SANDBOX_DECISION_SECONDS = 1.0  # the per-decision limit: CPU seconds of the bot's own process

VARIANTS = {
    "default": Rules(),
    "deck32": Rules(deck=32),
    "deck25": Rules(deck=25),
    "stick": Rules(stick_the_dealer=True),
    "turned_down": Rules(round2_allow_turned_down=True),
    "mandatory_pickup": Rules(dealer_pickup="mandatory"),
    "march4": Rules(lone_maker_march=4),
    "lone_only": Rules(lone_defender_scoring="lone_only"),
    "maker_leads": Rules(both_alone_lead="maker"),
    "shared_win": Rules(tie_policy="shared_win", target=5),
}


def make(name: str, seed: object, **kwargs: Any) -> Any:
    """A bot built as the arena builds it: ``random`` seeded first, then ``Bot()``."""
    cls = load_bot_class(bundled(name))
    random.seed(seed)
    if name == "montecarlo":
        # Fewer worlds keep the suite quick; the search is the same code.
        kwargs = {"play_worlds": 10, "bid_worlds": 6, **kwargs}
    return cls(**kwargs)


class Recorder:
    """Wraps a bot: checks each answer against ``obs["legal"]`` and times each decision."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.phases: set[str] = set()
        self.actions: list[Any] = []
        self.slowest = 0.0

    def act(self, obs: dict[str, Any]) -> Any:
        t0 = time.process_time()  # CPU, as the sandbox counts (load-proof)
        action = self.bot.act(obs)
        self.slowest = max(self.slowest, time.process_time() - t0)
        self.phases.add(obs["phase"])
        if obs["phase"] == "keep":
            assert sorted(action) in [sorted(k) for k in obs["legal"]]
            assert len(action) == 5
        else:
            assert action in obs["legal"], (obs["phase"], action, obs["legal"])
        self.actions.append(action if isinstance(action, str) else sorted(action))
        return action


def _chaos(seed: int) -> Any:
    """An opponent that orders, goes alone and picks up at random: it opens every phase."""
    return make("random_bot", f"chaos/{seed}")


def _joker_deal() -> Deal:
    """A 25-card deal whose up-card is the Joker (so the dealer names trump blind)."""
    cards = [c for c in deck(25) if c != "JK"]
    return Deal([cards[0:5], cards[5:10], cards[10:15]], cards[15:20], ["JK", *cards[20:24]])


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_phase_and_variant_is_answered_legally(name: str) -> None:
    seen: set[str] = set()
    for vname, rules in VARIANTS.items():
        # The bot in every seat against two chaotic random players, then three copies of it.
        for seat in range(3):
            me = Recorder(make(name, f"{vname}/{seat}"))
            bots: list[Any] = [_chaos(seat * 10 + k) for k in range(3)]
            bots[seat] = me
            deals = [_joker_deal()] if rules.deck == 25 else None
            m = play_match(bots, seed=f"{vname}/{seat}", rules=rules, dealer=seat, deals=deals)
            assert m.winners and not m.truncated
            seen |= me.phases
        if name != "montecarlo" or vname == "default":
            trio = [Recorder(make(name, f"{vname}/trio/{s}")) for s in range(3)]
            m = play_match(trio, seed=f"{vname}/trio", rules=rules)
            assert m.winners and not m.truncated
            for r in trio:
                seen |= r.phases
    assert seen == set(PHASES)


@pytest.mark.parametrize("name", BOT_NAMES)
def test_mid_match_states(name: str) -> None:
    for scores, dealer in (([9, 8, 7], 1), ([8, 9, 9], 2), ([0, 9, 0], 0)):
        bots = [Recorder(make(name, f"mid/{s}")) for s in range(3)]
        m = play_match(bots, seed=11, scores=scores, dealer=dealer)
        assert m.winners and max(m.scores) >= 10
        assert all(a >= b for a, b in zip(m.scores, scores, strict=True))


@pytest.mark.parametrize("name", BOT_NAMES)
def test_same_seed_same_actions(name: str) -> None:
    def run() -> list[Any]:
        bots = [Recorder(make(name, f"det/{s}")) for s in range(3)]
        m = play_match(bots, seed=5)
        return [h.log for h in m.hands]

    assert run() == run()


@pytest.mark.parametrize("vname", sorted(VARIANTS))
def test_montecarlo_is_deterministic_in_every_variant(vname: str) -> None:
    # Short matches (from 7-7-7) against a chaotic opponent, so bids, alone and the keep occur.
    rules = VARIANTS[vname]
    deals = [_joker_deal()] if rules.deck == 25 else None

    def run() -> list[Any]:
        bots = [make("montecarlo", f"{vname}/det"), make("heuristic", 1), _chaos(3)]
        m = play_match(bots, seed=vname, rules=rules, scores=[7, 7, 7], deals=deals)
        return [h.log for h in m.hands]

    first = run()
    assert first and first == run()


def test_different_seeds_change_the_random_bot() -> None:
    logs = []
    for tag in ("a", "b"):
        bots = [make("random_bot", f"{tag}/{s}") for s in range(3)]
        logs.append([h.log for h in play_match(bots, seed=5).hands])
    assert logs[0] != logs[1]


_DETERMINISM_SCRIPT = """
import random
from arena.sandbox.botfile import bundled, load_bot_class
from arena.engine import play_match
cls = load_bot_class(bundled({name!r}))
bots = []
for s in range(3):
    random.seed(f"hash/{{s}}")
    bots.append(cls(play_worlds=10, bid_worlds=6) if {name!r} == "montecarlo" else cls())
m = play_match(bots, seed=3)
print([h.log for h in m.hands])
"""


@pytest.mark.parametrize("name", ("heuristic", "montecarlo"))
def test_deterministic_across_processes_and_hash_seeds(name: str) -> None:
    # Each sandboxed match is a fresh process with its own string-hash seed: a bot that
    # iterated over a set of cards to make a choice would differ between them.
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        code = _DETERMINISM_SCRIPT.format(name=name)
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(proc.stdout)
    assert outs[0] == outs[1] and len(outs[0]) > 100


@pytest.mark.parametrize("name", BOT_NAMES)
def test_decisions_stay_under_the_sandbox_limit_at_default_settings(name: str) -> None:
    cls = load_bot_class(bundled(name))
    random.seed("time")
    bots = [Recorder(cls()) for _ in range(3)]
    play_match(bots, seed=2, scores=[6, 6, 6])
    assert max(b.slowest for b in bots) < SANDBOX_DECISION_SECONDS


class Worlds:
    """Wraps a montecarlo bot: records how many worlds each decision with a choice played out."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.done: dict[str, list[int]] = {"play": [], "before play": []}

    def act(self, obs: dict[str, Any]) -> Any:
        action = self.bot.act(obs)
        if len(obs["legal"]) > 1 and obs["phase"] != "joker_trump":
            self.done["play" if obs["phase"] == "play" else "before play"].append(
                self.bot.worlds_done
            )
        return action


def _worlds_in_a_match(clock: Any, budget: float, **kwargs: Any) -> dict[str, list[int]]:
    bot = Worlds(
        make(
            "montecarlo",
            "cap",
            play_worlds=7,
            bid_worlds=3,
            budget=budget,
            clock=clock,
            **kwargs,
        )
    )
    others = [make("heuristic", f"cap/{s}") for s in range(2)]
    play_match([bot, *others], seed=4, scores=[6, 7, 5])
    assert bot.done["play"] and bot.done["before play"]
    return bot.done


def test_montecarlo_stops_at_its_count_when_time_is_plenty() -> None:
    done = _worlds_in_a_match(lambda: 0.0, budget=0.15)  # a clock that never moves
    assert set(done["play"]) == {7} and set(done["before play"]) == {3}


def test_montecarlo_stops_drawing_worlds_when_the_clock_says_so() -> None:
    # A fake CPU clock 10 ms further on at every reading: the decision reads it once at its
    # start and once after each world, so a 25 ms budget ends every search after 3 worlds,
    # below both counts (the real clock is the same code, read the same way).
    ticks = itertools.count()
    done = _worlds_in_a_match(lambda: 0.01 * next(ticks), budget=0.025)
    assert set(done["play"]) == {3} and set(done["before play"]) == {3}
    done = _worlds_in_a_match(lambda: 0.01 * next(ticks), budget=0.005)
    assert set(done["play"]) == {1} and set(done["before play"]) == {1}


def test_montecarlo_stops_when_its_work_budget_is_spent() -> None:
    # A clock that never moves: only the work count ends these searches. One unit ends every
    # search after its first world; 800 units (a few worlds' work, more for cheap ones) end
    # searches after different numbers of worlds, every card search below its count of 7.
    done = _worlds_in_a_match(lambda: 0.0, budget=0.15, work_budget=1)
    assert set(done["play"]) == {1} and set(done["before play"]) == {1}
    done = _worlds_in_a_match(lambda: 0.0, budget=0.15, work_budget=800)
    every = done["play"] + done["before play"]
    assert max(done["play"]) < 7 and len(set(every)) > 2, done


def test_montecarlo_decides_the_same_whatever_its_clock_reads_below_the_safety_cap() -> None:
    # The same match at default settings with a clock that never moves and with one that
    # moves 1 ms at every reading (up to about 0.1 s a decision, below the 0.4 s safety cap):
    # every limit the bot uses counts work, so a slow or busy machine changes nothing.
    def run(clock: Any) -> list[Any]:
        cls = load_bot_class(bundled("montecarlo"))
        random.seed("clock")
        bots = [cls(clock=clock), make("heuristic", "clock/1"), make("montecarlo", "clock/2")]
        return [h.log for h in play_match(bots, seed=8, scores=[5, 5, 5]).hands]

    ticks = itertools.count()
    assert run(lambda: 0.0) == run(lambda: 0.001 * next(ticks))


def test_montecarlo_stops_early_on_clear_choices_and_searches_close_ones_to_its_count() -> None:
    # A clock that never moves: only the counts and the settling rule decide.
    cls = load_bot_class(bundled("montecarlo"))
    random.seed("settle")
    bot = Worlds(cls(play_worlds=40, bid_worlds=24, min_worlds=8, clock=lambda: 0.0))
    others = [make("heuristic", f"settle/{s}") for s in range(2)]
    play_match([bot, *others], seed=4)  # a whole match: some choices are close
    for phase, count in (("play", 40), ("before play", 24)):
        done = bot.done[phase]
        assert all(8 <= n <= count for n in done), (phase, done)
        assert 8 in done, f"no clear {phase} decision stopped early: {done}"
        assert count in done, f"no close {phase} decision went on to the count: {done}"


def _mc_module() -> Any:
    return sys.modules[load_bot_class(bundled("montecarlo")).__module__]


def test_settling_needs_a_clear_lead_over_every_other_action() -> None:
    settled = _mc_module()._settled
    clear = [[1.0, 0.0, 0.5], [0.9, 0.1, 0.4], [1.0, 0.2, 0.6], [0.8, 0.0, 0.5]]
    assert settled(clear)
    close = [[1.0, 0.9], [0.0, 0.2], [1.0, 0.9], [0.0, 0.1]]  # 0.05 ahead, noisily
    assert not settled(close)
    same = [[0.3, 0.3, 0.1], [0.7, 0.7, 0.2], [0.5, 0.5, 0.0]]  # two equivalent cards lead
    assert settled(same)
    behind_once = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert not settled(behind_once)


def test_trick_noise_rows_are_distributions_around_the_solvers_number() -> None:
    for table in _mc_module().TRICK_NOISE:
        assert len(table) == 6
        for solved, row in enumerate(table):
            assert len(row) == 6 and abs(sum(row) - 1.0) < 1e-9, row
            assert max(range(6), key=row.__getitem__) in (solved - 1, solved, solved + 1)


ALLOWED_IMPORTS = {
    "__future__",
    "random",
    "time",
    "math",
    "itertools",
    "typing",
    "collections",
    "collections.abc",
    "functools",
}
STAGED = {f"arena.{path.stem}" for path in _PURE}
"""The arena modules the sandbox stages for every bot (arena.cards and the rules modules)."""


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bot_imports_only_the_standard_library_and_staged_modules(name: str) -> None:
    tree = ast.parse(Path(bundled(name)).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            imported.add(str(node.module))
    assert imported <= ALLOWED_IMPORTS | STAGED, imported - ALLOWED_IMPORTS - STAGED
    assert all(m.split(".")[0] in sys.stdlib_module_names or m in STAGED for m in imported)
    assert STAGED == {
        "arena.cards",
        "arena.rules",
        "arena.keeps",
        "arena.game",
        "arena.worlds",
        "arena.solver",
    }


def test_an_illegal_bot_is_caught_by_the_engine() -> None:
    # The legality check the tests above rely on really rejects a bad answer.
    class Bad:
        def act(self, obs: dict[str, Any]) -> Any:
            return "XX"

    with pytest.raises(IllegalAction):
        play_match([Bad(), make("heuristic", 1), make("heuristic", 2)], seed=1)


# ----- what the heuristic knows -----


def _obs(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "phase": "play",
        "seat": 0,
        "dealer": 2,
        "scores": [0, 0, 0],
        "hand": [],
        "upcard": "9C",
        "bids": [],
        "pickup": None,
        "trump": "H",
        "maker": 1,
        "alone": [],
        "sitting_out": None,
        "tricks": [],
        "trick": [],
        "legal": [],
        "rules": Rules().to_dict(),
        "hand_number": 0,
        "history": [],
        "discards": [],
    }
    base.update(kw)
    return base


_ROUND2_HEARTS = [
    {"seat": 0, "round": 1, "action": "pass"},
    {"seat": 1, "round": 1, "action": "pass"},
    {"seat": 2, "round": 1, "action": "pass"},
    {"seat": 0, "round": 2, "action": "pass"},
    {"seat": 1, "round": 2, "action": "H"},
]


@pytest.mark.parametrize("name", ("heuristic", "montecarlo"))
def test_a_defender_does_not_overtrump_a_partner_who_holds_the_trick(name: str) -> None:
    # Seat 0 (co-defender) led the boss A of spades, the maker (seat 1) followed; we are last.
    hand = ["JH", "9D", "TD", "QC", "KC"]
    obs = _obs(
        seat=2, maker=1, upcard="TS", bids=_ROUND2_HEARTS, hand=hand, legal=hand,
        trick=[[0, "AS"], [1, "9S"]],
    )  # fmt: skip
    assert make(name, 1).act(obs) != "JH"


@pytest.mark.parametrize("name", ("heuristic", "montecarlo"))
def test_a_maker_ruffs_for_the_trick_it_needs(name: str) -> None:
    # The maker has 2 tricks; ruffing with KH now makes the third, while the unseen AH could
    # beat the KH on the last trick.
    tricks = [
        {"leader": 0, "cards": [[0, "AC"], [1, "JH"], [2, "9C"]], "winner": 1},
        {"leader": 1, "cards": [[1, "JD"], [2, "9H"], [0, "TH"]], "winner": 1},
        {"leader": 1, "cards": [[1, "AS"], [2, "QH"], [0, "QS"]], "winner": 2},
    ]
    obs = _obs(
        seat=1, maker=1, upcard="TS", bids=_ROUND2_HEARTS, hand=["KH", "9D"],
        legal=["KH", "9D"], tricks=tricks, trick=[[2, "KC"], [0, "TC"]],
    )  # fmt: skip
    assert make(name, 1).act(obs) == "KH"


def test_heuristic_keeps_every_trump_and_orders_a_monster() -> None:
    from itertools import combinations

    from arena.cards import sort_cards

    hand = ["JH", "9C", "TC", "KS", "QS"]
    dummy = ["AH", "KH", "JD", "AC", "9D"]
    legal = [list(k) for k in combinations(sort_cards(hand + dummy), 5)]
    obs = _obs(phase="keep", seat=1, maker=1, hand=hand, dummy=dummy, legal=legal, upcard="9H")
    kept = make("heuristic", 1).act(obs)
    assert {"JH", "JD", "AH", "KH"} <= set(kept) and "AC" in kept
    bid = _obs(
        phase="bid1",
        seat=0,
        dealer=2,
        trump=None,
        maker=None,
        hand=["JH", "JD", "AH", "KH", "QH"],
        upcard="9H",
        legal=["pass", "order"],
    )
    assert make("heuristic", 1).act(bid) == "order"
    assert make("montecarlo", 1).act(bid) == "order"
    weak = dict(bid, hand=["9C", "TC", "9S", "TS", "9D"])
    assert make("heuristic", 1).act(weak) == "pass"


def test_heuristic_beats_random_in_a_small_duplicate_set() -> None:
    # Not a benchmark: a bot with a broken strategy (but legal moves) fails this.
    above = total = 0
    for seed in range(4):
        for seat in range(3):
            bots: list[Any] = [make("random_bot", f"s{seed}/{k}") for k in range(3)]
            bots[seat] = make("heuristic", f"s{seed}/h")
            m = play_match(bots, seed=seed)
            for other in range(3):
                if other != seat:
                    total += 1
                    above += m.placements[seat] < m.placements[other]
    assert above / total > 0.75


def test_the_guide_example_bot_is_legal_and_beats_random(tmp_path: Path) -> None:
    # docs/writing-a-bot.md shows a worked example: it must really work as printed.
    import re

    guide = Path(__file__).resolve().parent.parent / "docs" / "writing-a-bot.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(encoding="utf-8"), re.S)
    (example,) = [b for b in blocks if 'name = "greedy"' in b]
    path = tmp_path / "greedy.py"
    path.write_text(example, encoding="utf-8")
    greedy = load_bot_class(path)
    above = total = 0
    for seed in range(3):
        for seat in range(3):
            bots: list[Any] = [make("random_bot", f"g{seed}/{k}") for k in range(3)]
            me = Recorder(greedy())
            bots[seat] = me
            m = play_match(bots, seed=seed, rules=Rules(deck=25 if seed == 2 else 24))
            for other in range(3):
                if other != seat:
                    total += 1
                    above += m.placements[seat] < m.placements[other]
    assert above / total > 0.7


@pytest.mark.slow
def test_montecarlo_plays_sandboxed_matches_at_the_default_limits() -> None:
    # The real thing: the bot file staged with arena.solver, in the sandbox, at the arena's
    # default limits (1 s of CPU per decision, 20 s per match), in all three seats at once.
    from arena.sandbox import BotPool, BotSource, Limits

    mc = BotSource.from_path(str(bundled("montecarlo")))
    others = [BotSource.from_path(str(bundled(n))) for n in ("heuristic", "random_bot")]
    with BotPool(Limits()) as pool:
        for seed, srcs in ((1, [mc, *others]), (2, [others[0], mc, mc])):
            out = pool.play_match(srcs, seed, Rules())
            assert out.faults == [] and out.result.winners
            for seat, src in enumerate(srcs):
                if src is mc:
                    stats = out.stats[seat]
                    assert stats["asked"] > 10
                    assert stats["max_think_seconds"] < Limits().decision_seconds
                    assert stats["cpu_seconds"] < Limits().match_cpu_seconds


# --- loading in this process: the sandbox's rule -----------------------------------------------


def test_load_bot_class_compiles_the_utf8_text_not_the_coding_cookie(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The trusted loader compiles the text the arena shows, as the sandbox does: the
    ``unicode_escape`` cookie's hidden line stays a comment."""
    path = Path(__file__).parent / "attacks" / "coding_cookie.py"
    cls = load_bot_class(path)
    assert cls().act({"legal": [7, 8]}) == 7
    out = capsys.readouterr().out
    assert "RAN" in out and "ESCAPED" not in out, out


def test_load_bot_class_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# coding: latin-1\nNAME = '\xe9'\nclass Bot:\n    def act(self, obs): ...\n")
    with pytest.raises(ArenaError, match=r"latin\.py: not UTF-8 text \(byte 26\)$"):
        load_bot_class(path)
