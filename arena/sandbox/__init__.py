"""Sandboxed bot hosts: every bot in its own locked-down process, time-limited, pristine per match.

The seam with the tournament (docs/architecture.md)::

    from arena.sandbox import Limits, BotSource, Fault, MatchOutcome, BotPool, probe, validate_bot

    with BotPool(Limits(decision_seconds=1.0)) as pool:
        outcome = pool.play_match([src0, src1, src2], seed=7, rules=Rules())

The wire protocol and what bots can rely on: docs/protocol.md.
"""

from __future__ import annotations

from arena.sandbox.layers import Layer, probe
from arena.sandbox.pool import BotPool, validate_bot
from arena.sandbox.values import (
    FAULT_KINDS,
    BotSource,
    Fault,
    FaultKind,
    Limits,
    MatchOutcome,
    SandboxUnavailable,
    bot_random_seed,
)

__all__ = [
    "Limits",
    "BotSource",
    "Fault",
    "FaultKind",
    "FAULT_KINDS",
    "MatchOutcome",
    "BotPool",
    "SandboxUnavailable",
    "Layer",
    "probe",
    "validate_bot",
    "bot_random_seed",
]
