"""Sandboxed bot hosts: every bot in its own locked-down process, time-limited, pristine per match.

The seam with the tournament (docs/architecture.md)::

    from arena.sandbox import Limits, BotSource, Fault, MatchOutcome, BotPool, probe, validate_bot

    with BotPool(Limits(decision_seconds=1.0)) as pool:
        outcome = pool.play_match([src0, src1, src2], seed=7, rules=Rules())

The wire protocol and what bots can rely on: docs/protocol.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from arena.sandbox.layers import Layer, probe
    from arena.sandbox.pool import BotPool, validate_bot

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

# The pool and the layers load when first asked for, not with the package: a module that
# needs only the sandbox's values (the store, the statistics, a read command) does not pay
# for the pool, the bot hosts' worlds and the native runtimes.
_LAZY = {"BotPool": "pool", "validate_bot": "pool", "Layer": "layers", "probe": "layers"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"arena.sandbox.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'arena.sandbox' has no attribute {name!r}")
