"""The match clock: each bot's wall-clock budget for a whole match, like a chess clock.

A bot starts its match with a *bank* of wall-clock seconds; each decision adds an *increment*
when it starts (Fischer), and every turn of the bot (its loading turn and each decision,
forced ones included) is charged the wall time it took, waiting included. So by the end of its
``n``-th decision a bot has used at most ``bank + n * increment`` seconds. Only the bot's own
turns run its clock: the time another bot takes, sleeping or thinking, is never charged to it.

The per-decision limits stay (``decision_seconds`` of CPU, 5 times that on the wall clock as a
backstop): a turn ends at whichever comes first. Pure arithmetic, no processes: the seat proxy
(:mod:`arena.sandbox.proxy`) does the timing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.rules import Observation

__all__ = ["MatchClock", "where"]


@dataclass(slots=True)
class MatchClock:
    """One bot's clock in one match: ``bank`` seconds plus ``increment`` a decision.

    ``used`` is the wall time charged so far, ``decisions`` the decisions started (each
    brought its increment) and ``allowed`` the wall time given so far: the bank and those
    increments. Kept as plain numbers: the seat proxy reads them at every decision.
    """

    bank: float
    increment: float
    used: float = 0.0
    decisions: int = 0
    allowed: float = field(init=False)

    def __post_init__(self) -> None:
        self.allowed = self.bank

    @property
    def remaining(self) -> float:
        """Seconds left on the clock (negative once it has run out)."""
        return self.allowed - self.used

    def start_decision(self) -> float:
        """Start a decision: add its increment, return the seconds the bot now has."""
        self.decisions += 1
        self.allowed = self.bank + self.decisions * self.increment  # no drift from summing
        return self.allowed - self.used

    def charge(self, seconds: float) -> bool:
        """Charge a finished turn its wall time; whether the clock still has time left
        (a turn may use the clock up exactly)."""
        self.used += max(0.0, seconds)
        return self.used <= self.allowed

    def ran_out(self, place: str, elapsed: float = 0.0) -> str:
        """The fault message for a bot whose clock ran out at ``place`` (:func:`where`), with
        ``elapsed`` seconds of the current turn not yet charged: the clock's figures."""
        used = self.used + max(0.0, elapsed)
        n = self.decisions
        loading = "loading" if n == 0 else f"loading and {n} decision{'s' if n != 1 else ''}"
        return (
            f"ran out of its match clock {place}: {used:.2f} s of wall time used over {loading}; "
            f"the clock gave {self.bank:g} s + {n} x {self.increment:g} s = {self.allowed:.2f} s"
        )


def where(obs: Observation | None) -> str:
    """Where in the match a decision is, for a fault message: ``"loading"``, ``"in phase bid1
    of hand 2"``, ``"playing trick 3 of hand 2"`` (hands and tricks counted from 1)."""
    if obs is None:
        return "loading"
    phase = str(obs.get("phase", "?"))
    hand = obs.get("hand_number")
    of_hand = f" of hand {int(hand) + 1}" if isinstance(hand, int) else ""
    if phase == "play":
        tricks = obs.get("tricks")
        trick = (len(tricks) if isinstance(tricks, list) else 0) + 1
        return f"playing trick {trick}{of_hand}"
    return f"in phase {phase}{of_hand}"
