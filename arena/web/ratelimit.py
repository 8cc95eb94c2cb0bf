"""Rate limits of ``arena web``, per client address and per author (docs/web.md).

Counted by the ``limits`` library (moving windows in this process's memory): a restart
forgets them, which is harmless, since they only slow down guessing and flooding. The public
pages are not limited here (many viewers may share one address behind a proxy); what costs
the server or could guess a secret is:

* every login attempt and every upload, per client address;
* failed logins and requests with a wrong token, per client address (a token has 256 bits:
  this only keeps the log and the CPU quiet);
* uploads per author, whatever address they come from (each costs seconds of sandbox checks).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Final

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter


@dataclass(frozen=True)
class RateRules:
    """The limits, each a ``limits`` string such as ``"10/minute;100/hour"``."""

    per_address: str = "60/minute"
    """Logins and uploads from one client address."""
    failures: str = "10/minute;50/hour"
    """Failed logins and wrong tokens from one client address."""
    uploads: str = "10/minute;60/hour"
    """Uploads by one author."""


DEFAULT_RULES: Final = RateRules()


class RateLimits:
    """The counters: :meth:`hit` spends one request of a rule, :meth:`retry_after` says when
    a refused client may try again."""

    def __init__(self, rules: RateRules = DEFAULT_RULES) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.rules: dict[str, list[RateLimitItem]] = {
            "address": parse_many(rules.per_address),
            "failure": parse_many(rules.failures),
            "upload": parse_many(rules.uploads),
        }

    def allowed(self, rule: str, key: str) -> bool:
        """Whether ``key`` is still under every limit of ``rule`` (nothing spent)."""
        return all(self.limiter.test(item, rule, key) for item in self.rules[rule])

    def hit(self, rule: str, key: str) -> bool:
        """Spend one request of ``rule`` for ``key``; False when a limit is already reached
        (nothing spent then)."""
        if not self.allowed(rule, key):
            return False
        for item in self.rules[rule]:
            self.limiter.hit(item, rule, key)
        return True

    def retry_after(self, rule: str, key: str) -> int:
        """Seconds until ``key`` may try ``rule`` again (at least 1)."""
        now = time.time()
        waits = [
            self.limiter.get_window_stats(item, rule, key).reset_time - now
            for item in self.rules[rule]
            if not self.limiter.test(item, rule, key)
        ]
        return max(1, math.ceil(max(waits, default=1)))
