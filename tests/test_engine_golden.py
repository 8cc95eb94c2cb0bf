"""Golden playthroughs: seeded matches with fixed policies, every decision written out.

Each file under ``tests/golden/`` is the transcript of one match: per hand the deal, then one
line per decision (hand, seat, phase, legal, action), then the hand's results. The test plays
the match again and diffs line by line. After a deliberate change of the engine, rewrite the
files with ``python -m pytest tests/test_engine_golden.py --regen-golden`` and review the diff.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.cards import effective_suit, format_cards, power, sort_cards
from arena.engine import MatchResult, Rules, deal_for, play_match

GOLDEN = Path(__file__).parent / "golden"

Policy = Callable[[dict[str, Any]], Any]


def _strength(card: str, trump: str) -> int:
    """Trumps above everything, then plain cards by rank (for the greedy policy)."""
    suit = effective_suit(card, trump)
    return power(card, trump, suit)


def _count(hand: list[str], suit: str) -> int:
    return sum(effective_suit(c, suit) == suit for c in hand)


def greedy(obs: dict[str, Any]) -> Any:
    """A fixed, readable policy: bid on 3 trumps, go alone on 4, win cheaply or throw low."""
    phase, hand, legal = obs["phase"], obs["hand"], obs["legal"]
    trump = obs["trump"]
    if phase == "bid1":
        return "order" if _count(hand, obs["upcard"][1]) >= 3 else "pass"
    if phase == "pickup":
        return "pickup"
    if phase == "bid2":
        named = [x for x in legal if x != "pass"]
        best = max(named, key=lambda s: (_count(hand, s), s))
        return best if _count(hand, best) >= 3 or "pass" not in legal else "pass"
    if phase == "joker_trump":
        return legal[obs["hand_number"] % 4]  # blind: the hand is not shown
    if phase == "alone":
        return "alone" if _count(hand, trump) >= 4 and obs["seat"] == obs["maker"] else "pass"
    if phase == "discard":
        return min(legal, key=lambda c: (_strength(c, trump), c))
    if phase == "keep":
        pool = hand + obs["dummy"]
        return sort_cards(sorted(pool, key=lambda c: (-_strength(c, trump), c))[:5])
    # play
    if not obs["trick"]:
        return max(legal, key=lambda c: (_strength(c, trump), c))
    led = effective_suit(obs["trick"][0][1], trump)
    assert led is not None
    best = max(power(c, trump, led) for _, c in obs["trick"])
    winners = [c for c in legal if power(c, trump, led) > best]
    if winners:
        return min(winners, key=lambda c: (power(c, trump, led), c))
    return min(legal, key=lambda c: (_strength(c, trump), c))


def seeded_random(name: str) -> Policy:
    """Uniform over legal from a generator seeded by ``name`` (Mersenne Twister: portable)."""
    rng = random.Random(name)
    return lambda obs: obs["legal"][rng.randrange(len(obs["legal"]))]


@dataclass
class Golden:
    """One golden match."""

    name: str
    seed: int
    rules: Rules
    policies: tuple[str, str, str]  # "greedy" or "random"
    must_show: tuple[str, ...] = ()  # phases the transcript must contain (coverage guard)


CASES = [
    Golden("default-greedy", 1, Rules(), ("greedy", "greedy", "greedy"), ("pickup", "keep")),
    Golden("default-random", 6, Rules(), ("random", "random", "random"), ("bid2", "alone")),
    Golden(
        "deck32-stick-march4",
        3,
        Rules(deck=32, stick_the_dealer=True, lone_maker_march=4, target=7),
        ("greedy", "random", "greedy"),
        ("bid2", "discard"),
    ),
    Golden(
        "deck25-joker-and-variants",
        64,  # the Joker is turned up in the first hand
        Rules(
            deck=25,
            dealer_pickup="mandatory",
            round2_allow_turned_down=True,
            both_alone_lead="maker",
            lone_defender_scoring="lone_only",
            tie_policy="shared_win",
        ),
        ("random", "greedy", "random"),
        ("joker_trump", "alone"),
    ),
]


class Recorder:
    """A seat playing ``policy`` that writes down every decision it makes."""

    def __init__(self, policy: Policy, lines: dict[int, list[str]]) -> None:
        self.policy = policy
        self.lines = lines

    def act(self, obs: dict[str, Any]) -> Any:
        action = self.policy(obs)
        phase, legal = obs["phase"], obs["legal"]
        if phase == "keep":
            pool = f"{format_cards(obs['hand'])} + {format_cards(obs['dummy'])}"
            shown = f"{len(legal)} subsets of {pool}"
            said = format_cards(action)
        else:
            shown, said = " ".join(legal), action
        line = f"  h{obs['hand_number']} s{obs['seat']} {phase:<11} [{shown}] -> {said}"
        self.lines.setdefault(obs["hand_number"], []).append(line)
        return action


def _slash(values: list[int]) -> str:
    return "/".join(map(str, values))


def transcript(case: Golden) -> str:
    """Play the case's match and write it out."""
    lines: dict[int, list[str]] = {}
    policies = [
        greedy if p == "greedy" else seeded_random(f"golden/{case.name}/{seat}")
        for seat, p in enumerate(case.policies)
    ]
    m: MatchResult = play_match(
        [Recorder(p, lines) for p in policies], seed=case.seed, rules=case.rules
    )
    rules = " ".join(f"{k}={v}" for k, v in case.rules.to_dict().items())
    out = [
        f"# golden playthrough {case.name}: seed {case.seed}, policies {'/'.join(case.policies)}",
        f"# rules {rules}",
        f"# first dealer {m.first_dealer}",
    ]
    for h in m.hands:
        d = h.deal
        assert d == deal_for(case.seed, h.hand_number, case.rules)
        out.append(
            f"hand {h.hand_number}: dealer {h.dealer}, scores {_slash(h.scores_before)}, "
            f"up-card {h.upcard}"
        )
        hands = " | ".join(f"{s}: {format_cards(d.hands[s])}" for s in range(3))
        out.append(
            f"  deal {hands} | dummy: {format_cards(d.dummy)} | kitty: {format_cards(d.kitty)}"
        )
        out.extend(lines.get(h.hand_number, []))
        if h.passed_out:
            out.append("  passed out")
            continue
        pickup = {True: "yes", False: "no", None: "-"}[h.pickup]
        out.append(
            f"  trump {h.trump}, maker {h.maker}, pickup {pickup}, alone "
            f"{' '.join(map(str, h.alone)) or '-'}, sitting out "
            f"{'-' if h.sitting_out is None else h.sitting_out}"
        )
        gone = " | ".join(f"{s}: {format_cards(x)}" for s, x in enumerate(h.discards) if x)
        out.append(f"  discards {gone or '-'}")
        for i, t in enumerate(h.tricks, 1):
            cards = " ".join(f"{s}:{c}" for s, c in t["cards"])
            out.append(f"  trick {i}: {cards} -> {t['winner']}")
        out.append(f"  tricks won {_slash(h.tricks_won)}, points {_slash(h.points)}")
    out.append(
        f"final: scores {_slash(m.scores)}, winners {' '.join(map(str, m.winners)) or '-'}, "
        f"placements {_slash(m.placements)}, truncated {'yes' if m.truncated else 'no'}"
    )
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_playthrough(case: Golden, regen_golden: bool) -> None:
    text = transcript(case)
    assert transcript(case) == text, "the same seed and policies played a different match"
    for phase in case.must_show:
        assert f" {phase} " in text, f"{case.name} no longer covers the {phase} phase"
    path = GOLDEN / f"{case.name}.txt"
    if regen_golden:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
        return
    if not path.exists():
        pytest.fail(f"{path} is missing: run pytest with --regen-golden to write it")
    expected = path.read_text()
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), text.splitlines(), str(path), "this engine", lineterm=""
        )
        shown = list(diff)
        more = f"\n... {len(shown) - 120} more diff lines" if len(shown) > 120 else ""
        pytest.fail(f"{case.name} differs from its golden file:\n" + "\n".join(shown[:120]) + more)
