"""The duplicate reports of a round robin: duplicate score, seat and dealer bias, cycles.

One assembly (:func:`build`) over the statistics of :mod:`arena.duplicate` and the standings'
pairwise table; ``arena standings`` prints it (:func:`terminal`), ``arena standings --json``
adds :meth:`Reports.to_dict` to its object, and the site renders the same :class:`Reports`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from arena import ratings
from arena.duplicate import (
    Cycle,
    DuplicateScore,
    Estimate,
    SeatBias,
    SeatRecord,
    cycles,
    duplicate_scores,
    seat_bias,
    seat_records,
)
from arena.store import Store
from arena.tournament import current_standings
from arena.untrusted import clean_line
from arena.views import plain


@dataclass(frozen=True)
class Reports:
    """What duplicate play shows about one tournament (docs/evaluation.md)."""

    names: dict[int, str]
    """Bot version id -> name (untrusted text: escaped where shown)."""
    scores: tuple[DuplicateScore, ...]
    """Each bot's duplicate score, best first."""
    bias: SeatBias
    cycles: tuple[Cycle, ...]
    """Non-transitive cycles of the pairwise table with every edge significant."""

    @property
    def variance_ratio(self) -> float | None:
        """The bots' :attr:`~arena.duplicate.DuplicateScore.variance_ratio`, pooled: raw
        points' variance over the duplicate score's brought to the scale of raw points (1
        when the cards made no difference; above 1, the share of luck removed)."""
        pairs = [(d.points.variance, d.score.variance, d.scale) for d in self.scores]
        raw = sum(a for a, b, _ in pairs if a and b)
        dup = sum(b / f for a, b, f in pairs if a and b)
        return raw / dup if dup else None

    def cycle_names(self, cycle: Cycle) -> list[str]:
        """The bots of a cycle by name, in order."""
        return [self.names.get(b, str(b)) for b in cycle.bots]

    def to_dict(self) -> dict[str, Any]:
        """The keys ``duplicate``, ``seat_bias`` and ``cycles`` of ``arena standings --json``."""
        ratio = self.variance_ratio
        return {
            "duplicate": {
                "bots": [
                    {"name": self.names.get(d.bot, str(d.bot)), **d.to_dict()} for d in self.scores
                ],
                "variance_ratio": None if ratio is None else round(ratio, 3),
            },
            "seat_bias": self.bias.to_dict(),
            "cycles": [{**c.to_dict(), "bots": self.cycle_names(c)} for c in self.cycles],
        }


def build(records: Sequence[SeatRecord], table: Sequence[ratings.BotStanding]) -> Reports:
    """The reports from a tournament's seat records and its standings (for the pairs)."""
    pairs = {(s.bot, o): (p.low, p.high) for s in table for o, p in s.above.items()}
    return Reports(
        {s.bot: s.name for s in table},
        tuple(duplicate_scores(records)),
        seat_bias(records),
        tuple(cycles(pairs)),
    )


def tournament_reports(
    store: Store, tid: str, table: Sequence[ratings.BotStanding] | None = None
) -> Reports:
    """The reports of round robin ``tid`` (``table``: its standings, read when not given)."""
    if table is None:
        table = current_standings(store, tid)
    return build(seat_records(store.duplicate_seats(tid)), table)


# --- the terminal -----------------------------------------------------------------------------


def _estimate(e: Estimate, digits: int, signed: bool = False) -> str:
    sign = "+" if signed else ""
    text = f"{e.value:{sign}.{digits}f}"
    if e.low is None or e.high is None:
        return text
    return f"{text} [{e.low:{sign}.{digits}f}, {e.high:{sign}.{digits}f}]"


def duplicate_table(reports: Reports) -> Table:
    """Each bot's duplicate score next to its raw points, with 95 % intervals over deals."""
    t = Table(title="Duplicate score: points minus the par of the same cards (95% interval)")
    for col in ("bot", "duplicate score", "raw points", "variance ratio", "seats"):
        t.add_column(col, justify="left" if col == "bot" else "right")
    for d in reports.scores:
        ratio = d.variance_ratio
        t.add_row(
            plain(reports.names.get(d.bot, str(d.bot)), 60),
            _estimate(d.score, 2, signed=True),
            _estimate(d.points, 2),
            "-" if ratio is None else f"{ratio:.2f}",
            str(d.matches),
        )
    pooled = reports.variance_ratio
    if pooled is not None:
        t.caption = (
            f"pooled variance ratio {pooled:.2f}: the luck the par removed (1: none; 2: half "
            f"of raw points' variance was the cards')"
        )
    return t


def bias_table(bias: SeatBias) -> Table:
    """Mean place and points by seat position relative to the first dealer."""
    t = Table(title="Seat and dealer bias (position from the first dealer, 95% interval)")
    for col in ("position", "mean place", "mean points", "place vs average", "matches"):
        t.add_column(col, justify="left" if col == "position" else "right")
    for p in bias.positions:
        t.add_row(
            p.name,
            _estimate(p.place, 3),
            _estimate(p.points, 2),
            _estimate(p.edge, 3, signed=True),
            str(p.matches),
        )
    return t


def cycle_lines(reports: Reports) -> list[str]:
    """One line per significant cycle, or one saying there is none."""
    if not reports.cycles:
        return ["No non-transitive cycle with every edge significant."]
    out = []
    for c in reports.cycles:
        names = [clean_line(n, 60) for n in reports.cycle_names(c)]
        edges = ", ".join(
            f"{a} over {b} {lo:.0%}-{hi:.0%}"
            for a, b, (lo, hi) in zip(names, names[1:] + names[:1], c.intervals, strict=True)
        )
        out.append(f"Cycle: {' > '.join(names)} > {names[0]} (every edge significant: {edges})")
    return out


def terminal(reports: Reports) -> list[Table | Text]:
    """What ``arena standings`` prints of the reports, in order (lines as :class:`Text`, to
    print unwrapped: a verdict stays one line to read or grep)."""
    out: list[Table | Text] = []
    if reports.scores:
        out.append(duplicate_table(reports))
    if reports.bias.positions:
        out += [bias_table(reports.bias), Text(f"Seat bias verdict: {reports.bias.verdict}")]
    return [*out, *(Text(line) for line in cycle_lines(reports))]
