"""How a ladder runs, and its identity: the settings a read of the ladder needs too.

Apart from :mod:`arena.ladder.run` so that ``arena ladder --status`` finds the ladder without
loading what plays it (the tournament runner, the worker pool, the sandbox's bot hosts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from arena.engine import Rules
from arena.errors import InvalidSetting
from arena.ladder import epochs as epochs_
from arena.ladder.policy import Parameters
from arena.sandbox.values import Limits
from arena.store import LADDER

DEFAULT_LOOKAHEAD: Final = 8
"""Sets scheduled beyond the last set whose result (and every earlier one) the rule has
counted: enough to keep a few workers busy, independent of their number (determinism)."""

DEFAULT_STANDINGS_EVERY: Final = 10
"""Sets stored between two rewrites of the ladder's ``ratings`` rows."""


@dataclass(frozen=True)
class LadderSettings:
    """How a ladder runs: its seed and epochs (part of its identity), the lookahead, the
    bounds of this run (None: until stopped), and the rule's parameters."""

    seed: int = 1
    epoch_sets: int = epochs_.DEFAULT_EPOCH_SETS
    lookahead: int = DEFAULT_LOOKAHEAD
    max_sets: int | None = None
    """Sets played by this run at most (sets played again after a stop included)."""
    seconds: float | None = None
    """No new set is handed out after this long; those in flight finish."""
    standings_every: int = DEFAULT_STANDINGS_EVERY
    params: Parameters = field(default_factory=Parameters)

    def check(self) -> LadderSettings:
        """Itself, or InvalidSetting naming the value out of range."""
        if self.epoch_sets < 1:
            raise InvalidSetting("epoch_sets", f"must be at least 1, not {self.epoch_sets}")
        if self.lookahead < 0:
            raise InvalidSetting("lookahead", f"must be at least 0, not {self.lookahead}")
        if self.max_sets is not None and self.max_sets < 0:
            raise InvalidSetting("max_sets", f"must be at least 0, not {self.max_sets}")
        if self.seconds is not None and not self.seconds > 0:
            raise InvalidSetting("seconds", f"must be more than 0, not {self.seconds}")
        if self.standings_every < 1:
            raise InvalidSetting(
                "standings_every", f"must be at least 1, not {self.standings_every}"
            )
        return self


def ladder_config(
    bundled: Sequence[str], settings: LadderSettings, rules: Rules, limits: Limits
) -> dict[str, object]:
    """A ladder's identity: the same command finds it again."""
    return {
        "kind": LADDER,
        "seed": settings.seed,
        "rules": rules.to_dict(),
        "limits": dict(sorted(limits.to_dict().items())),
        "bundled": sorted(bundled),
        "epoch_sets": settings.epoch_sets,
    }
