"""Scripted bots for engine tests: one ordered script of decisions for all three seats.

A step says who must be asked, in which phase, what ``obs["legal"]`` must be, and what to
answer. Written as text, it reads like the rules::

    "1 bid1 pass order > order"        seat 1, phase bid1, legal [pass, order], answers order
    "0 play 9H JD > 9H"                 seat 0 may play 9H or JD (in the engine's order)
    "1 keep #252 > JH AH QH TH AC"      252 options (each checked: 5 distinct sorted cards)
    "2 alone * > pass"                  any legal list (not checked)

or as a tuple ``(seat, phase, legal_or_None, action)`` when the answer is not a string.
Every observation is also checked against the contract's key set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.cards import sort_cards
from arena.engine import Deal

WORKED_DEAL = Deal(
    hands=[
        ["JD", "9C", "TC", "KS", "QS"],
        ["JH", "AH", "KC", "QC", "9S"],
        ["KH", "AD", "KD", "QD", "TS"],
    ],
    dummy=["QH", "TH", "AS", "AC", "9D"],
    kitty=["9H", "TD", "JC", "JS"],
)
"""The deal of docs/rules.md section 11's worked example (dealer seat 0, up-card 9H)."""

CONTRACT_KEYS = frozenset(
    {
        "phase",
        "seat",
        "dealer",
        "scores",
        "hand",
        "upcard",
        "bids",
        "pickup",
        "trump",
        "maker",
        "alone",
        "sitting_out",
        "tricks",
        "trick",
        "legal",
        "rules",
        "hand_number",
        "history",
    }
)
"""The keys of an observation (docs/writing-a-bot.md, "The observation")."""
EXTRA_KEYS = frozenset({"discards"})
"""Documented additions present in every observation."""


def check_contract(obs: dict[str, Any]) -> None:
    """Assert the observation has exactly the contract keys (plus the documented extras)."""
    expected = CONTRACT_KEYS | EXTRA_KEYS | ({"dummy"} if obs["phase"] == "keep" else set())
    assert set(obs) == expected, f"keys differ: {sorted(set(obs) ^ expected)}"


def check_keep_options(options: list[list[str]], pool_size: int) -> None:
    """Assert ``options`` are all the 5-card subsets of a pool, each sorted, none repeated."""
    n = {10: 252, 11: 462}[pool_size]
    assert len(options) == n
    assert len({tuple(o) for o in options}) == n
    assert all(len(set(o)) == 5 and o == sort_cards(o) for o in options)


@dataclass
class Step:
    """One expected decision and the answer to give."""

    seat: int
    phase: str
    legal: list[Any] | int | None  # exact list, a count (keep), or None: not checked
    action: Any


def parse_step(step: str | tuple[int, str, Any, Any]) -> Step:
    """A step from its text form (see the module docstring) or a raw tuple."""
    if isinstance(step, tuple):
        return Step(*step)
    head, _, answer = step.partition(">")
    seat, phase, *legal_tokens = head.split()
    legal: list[Any] | int | None
    if legal_tokens == ["*"]:
        legal = None
    elif len(legal_tokens) == 1 and legal_tokens[0].startswith("#"):
        legal = int(legal_tokens[0][1:])
    else:
        legal = legal_tokens
    tokens = answer.split()
    action: Any = tokens if phase == "keep" else tokens[0]
    return Step(int(seat), phase, legal, action)


class Script:
    """Three bots answering from one script; ``then`` plays on once the script runs out."""

    def __init__(
        self,
        steps: Sequence[str | tuple[int, str, Any, Any]],
        then: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        self.steps = [parse_step(s) for s in steps]
        self.then = then
        self.position = 0
        self.seen: list[dict[str, Any]] = []  # every observation, in order

    @property
    def bots(self) -> list[ScriptedSeat]:
        """One bot per seat, all reading this script."""
        return [ScriptedSeat(self, s) for s in range(3)]

    def act(self, seat: int, obs: dict[str, Any]) -> Any:
        """Check the observation against the next step and answer it."""
        check_contract(obs)
        assert obs["seat"] == seat
        self.seen.append(obs)
        i = self.position
        if i >= len(self.steps):
            assert self.then is not None, f"script over, but seat {seat} asked in {obs['phase']}"
            return self.then(obs)
        step = self.steps[i]
        self.position += 1
        where = f"step {i} ({step.seat} {step.phase})"
        assert (seat, obs["phase"]) == (step.seat, step.phase), (
            f"{where}: asked seat {seat} in {obs['phase']}, legal {obs['legal']}"
        )
        if isinstance(step.legal, int):
            check_keep_options(obs["legal"], len(obs["hand"]) + len(obs["dummy"]))
            assert len(obs["legal"]) == step.legal
        elif step.legal is not None:
            assert obs["legal"] == step.legal, f"{where}: legal {obs['legal']}"
        return step.action

    def finished(self) -> None:
        """Assert every step was used."""
        left = self.steps[self.position :]
        assert not left, f"{len(left)} steps never asked, first: {left[0]}"


class ScriptedSeat:
    """The bot of one seat: forwards to the shared :class:`Script`."""

    def __init__(self, script: Script, seat: int) -> None:
        self.script = script
        self.seat = seat

    def act(self, obs: dict[str, Any]) -> Any:
        """Answer from the script."""
        return self.script.act(self.seat, obs)


def last_legal(obs: dict[str, Any]) -> Any:
    """A policy that ends matches: orders up, declines, never goes alone."""
    return obs["legal"][-1]
