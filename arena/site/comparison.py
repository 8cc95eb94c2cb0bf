"""A comparison's page (``arena compare``): its evidence chart, its verdict, its three roles.

Read through :func:`arena.tournaments.compare.comparison`, the same re-reading of the stored sets
that ``arena compare --json`` and ``arena standings --tournament ID`` print.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.site.charts import LineChart, line_chart
from arena.site.data import BotRef
from arena.stats.sequential import Status
from arena.store import Store
from arena.tournaments.compare import ROLES, Comparison, Role, comparison

ROLE_NAMES = {"a": "A", "b": "B", "third": "third seat"}
"""How each role is labelled on the page."""


@dataclass(frozen=True)
class RoleRow:
    """One row of the roles table: the role, its bot (for the link) and its record."""

    label: str
    bot: BotRef
    record: Role


@dataclass(frozen=True)
class ComparisonView:
    """Everything a comparison's page shows."""

    comparison: Comparison
    bots: dict[str, BotRef]
    """By role: ``a``, ``b``, ``third``."""
    roles: list[RoleRow]
    chart: LineChart

    @property
    def result(self) -> Status:
        """Where the test stands (sets, rate, interval, LLR, decision)."""
        return self.comparison.result


def llr_chart(c: Comparison) -> LineChart:
    """Each gambler's log capital after each set, between the two bounds that stop the test:
    the evidence against ``p <= p0`` rising towards H1's bound, the evidence against
    ``p >= p1`` drawn downwards towards H0's (each set's real evidence, not its share of a
    bound)."""
    trail = c.test.trail
    if not trail:
        return line_chart([], x_label="sets", y_label="log evidence")
    last = len(trail)
    h1 = [(0.0, 0.0, 0.0, 0.0)] + [(k, e, e, e) for k, (e, _) in enumerate(trail, 1)]
    h0 = [(0.0, 0.0, 0.0, 0.0)] + [(k, -e, -e, -e) for k, (_, e) in enumerate(trail, 1)]
    up, low = c.design.upper, c.design.lower
    return line_chart(
        [
            (f"against p <= {c.design.p0:g}", h1),
            (f"against p >= {c.design.p1:g} (drawn down)", h0),
            (f"accept H1 at {up:+.2f}", [(0.0, up, up, up), (last, up, up, up)]),
            (f"accept H0 at {low:+.2f}", [(0.0, low, low, low), (last, low, low, low)]),
        ],
        x_label="sets",
        y_label="log evidence",
    )


def comparison_view(store: Store, tid: str, refs: dict[int, BotRef]) -> ComparisonView:
    """The page of comparison ``tid``."""
    c = comparison(store, tid)
    bots = {r: refs[c.bots[r].id] for r in ROLES}
    roles = [RoleRow(ROLE_NAMES[r.role], bots[r.role], r) for r in c.roles]
    return ComparisonView(c, bots, roles, llr_chart(c))
