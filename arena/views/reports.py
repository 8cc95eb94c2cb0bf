"""The duplicate reports of a round robin: duplicate score, seat and dealer bias, cycles.

One assembly (:func:`build`) over the statistics of :mod:`arena.stats.duplicate` and the standings'
pairwise table; ``arena standings`` prints it (:func:`terminal`), ``arena standings --json``
adds :meth:`Reports.to_dict` to its object, and the site renders the same :class:`Reports`.

The reports are stored with the standings (the ``reports`` table), like the ratings: made once
after the matches change (:func:`tournament_reports`, :func:`standings_with_reports`), then
read back, since at 100k matches they take seconds to compute.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypedDict, TypeVar

from rich.table import Table
from rich.text import Text

from arena import stats
from arena.errors import ArenaError
from arena.stats import collusion
from arena.stats.duplicate import (
    Cycle,
    CycleDict,
    DuplicateScore,
    DuplicateScoreDict,
    Estimate,
    SeatBias,
    SeatBiasDict,
    SeatRecord,
    cycles,
    duplicate_scores,
    seat_bias,
    seat_records,
)
from arena.store import Store
from arena.tournaments.standings import (
    StandingsReport,
    clone_report,
    current_standings,
    kingmaking_report,
    standings_report,
)
from arena.untrusted import clean_line
from arena.views.tables import fit, grid, name_column, plain


class NamedScore(DuplicateScoreDict):
    """A bot's duplicate score with its name."""

    name: str


class DuplicateDict(TypedDict):
    """The ``duplicate`` key of ``arena standings --json``."""

    bots: list[NamedScore]
    luck_share: float | None


class ReportsDict(TypedDict):
    """:meth:`Reports.to_dict`."""

    duplicate: DuplicateDict
    seat_bias: SeatBiasDict
    cycles: list[CycleDict]


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
    def luck_share(self) -> float | None:
        """The bots' :attr:`~arena.stats.duplicate.DuplicateScore.luck_share`, pooled: the
        cards' share of raw points' variance, which the par removes (0: none)."""
        co = sum(d.luck[0] for d in self.scores)
        var = sum(d.luck[1] for d in self.scores)
        return co / var if var > 0 else None

    def cycle_names(self, cycle: Cycle) -> list[str]:
        """The bots of a cycle by name, in order."""
        return [self.names.get(b, str(b)) for b in cycle.bots]

    def to_dict(self) -> ReportsDict:
        """The keys ``duplicate``, ``seat_bias`` and ``cycles`` of ``arena standings --json``."""
        share = self.luck_share
        return {
            "duplicate": {
                "bots": [
                    {"name": self.names.get(d.bot, str(d.bot)), **d.to_dict()} for d in self.scores
                ],
                "luck_share": None if share is None else round(share, 3),
            },
            "seat_bias": self.bias.to_dict(),
            "cycles": [{**c.to_dict(), "bots": self.cycle_names(c)} for c in self.cycles],
        }


def build(records: Sequence[SeatRecord], table: Sequence[stats.BotStanding]) -> Reports:
    """The reports from a tournament's seat records and its standings (for the pairs)."""
    pairs = {(s.bot, o): p.interval for s in table for o, p in s.above.items()}
    return Reports(
        {s.bot: s.name for s in table},
        tuple(duplicate_scores(records)),
        seat_bias(records),
        tuple(cycles(pairs)),
    )


def tournament_reports(
    store: Store, tid: str, table: Sequence[stats.BotStanding] | None = None, *, save: bool = True
) -> Reports:
    """The reports of round robin ``tid`` (``table``: its standings, read when not given),
    as stored with them when they are up to date, else made (and stored, with ``save``)."""
    standings = current_standings(store, tid, save=save) if table is None else table
    records = store.duplicate_seats
    return _stored(
        store, tid, "duplicate", Reports, lambda: build(seat_records(records(tid)), standings),
        save,
    )  # fmt: skip


def standings_with_reports(
    store: Store, tid: str | None = None, *, refit: bool = False, save: bool = True
) -> tuple[StandingsReport, Reports]:
    """``arena standings``: the standings of tournament ``tid`` (default: the latest round
    robin) with every report, each read from the database when stored with the current
    standings, else made, and stored with ``save`` (a read, ``save=False``, writes nothing;
    ``refit``: the standings are recomputed, so all are)."""
    t = store.tournament(tid)

    def collusion_reports(
        table: list[stats.BotStanding],
    ) -> tuple[list[collusion.ClonePair], list[collusion.KingmakingRow]]:
        rated = {s.bot: s.rating for s in table if s.rating is not None}
        clones = _stored(
            store, t.id, "clones", list[collusion.ClonePair],
            lambda: clone_report(store, t.id), save,
        )  # fmt: skip
        king = _stored(
            store, t.id, "kingmaking", list[collusion.KingmakingRow],
            lambda: kingmaking_report(store, t.id, rated), save,
        )  # fmt: skip
        return clones, king

    report = standings_report(
        store, t.id, refit=refit, save=save, collusion_reports=collusion_reports
    )
    return report, tournament_reports(store, t.id, report.table, save=save)


# --- stored with the standings ----------------------------------------------------------------

T = TypeVar("T")


VERSION: Final = 2
"""The reports' version, stored with them: reports stored by another version are made again
(2: forfeits count 0 points, the luck share, kingmaking given each match's shared places)."""


def _stored(
    store: Store, tid: str, part: str, kind: Any, make: Callable[[], T], save: bool = True
) -> T:
    """Report ``part`` of tournament ``tid``: the stored one when it was made from every match
    stored so far (the standings it was made with are current: storing them drops it), else
    ``make()``, then stored with ``save``. A database that cannot be written now is only
    read."""
    matches = store.match_count(tid)
    found = store.read_reports(tid)
    current = (
        found is not None and found.matches == matches and found.body.get("version") == VERSION
    )
    if found is not None and current and part in found.body:
        return typing.cast(T, decode(kind, found.body[part]))
    value = make()
    if not save:
        return value
    body = found.body if found is not None and current else {"version": VERSION}
    try:
        store.write_reports(tid, matches, {**body, part: encode(value)})
    except ArenaError:
        pass  # busy or read-only: shown, not stored
    return value


def encode(value: Any) -> Any:
    """A report (dataclasses, tuples, dicts with any keys) as JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):  # keys may be ints: kept as pairs
        return [[encode(k), encode(v)] for k, v in value.items()]
    return value


@functools.cache
def _init_fields(kind: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's ``__init__`` fields and their types, resolved once per class (resolving
    the string annotations per row took most of a stored report's reading)."""
    hints = typing.get_type_hints(kind)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(kind) if f.init)


def decode(kind: Any, data: Any) -> Any:
    """The value of type ``kind`` that :func:`encode` made ``data`` from."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if dataclasses.is_dataclass(kind):
        make: Any = kind
        return make(**{name: decode(hint, data[name]) for name, hint in _init_fields(make)})
    if origin in (types.UnionType, typing.Union):
        if data is None:
            return None
        return decode(next(a for a in args if a is not type(None)), data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in data)
        return tuple(decode(a, v) for a, v in zip(args, data, strict=True))
    if origin is list:
        return [decode(args[0], v) for v in data]
    if origin is dict:
        return {decode(args[0], k): decode(args[1], v) for k, v in data}
    return data


# --- the terminal -----------------------------------------------------------------------------


def _estimate(e: Estimate, digits: int, signed: bool = False) -> str:
    # Short, for 80 columns: "+5.33 [+4.34,+6.33]".
    sign = "+" if signed else ""
    text = f"{e.value:{sign}.{digits}f}"
    if e.low is None or e.high is None:
        return text
    return f"{text} [{e.low:{sign}.{digits}f},{e.high:{sign}.{digits}f}]"


def duplicate_table(reports: Reports) -> Table:
    """Each bot's duplicate score next to its raw points, with 95 % intervals over deals."""
    t = grid("Duplicate score: points minus the par of the same cards (95% interval)")
    name_column(t)
    for col in ("duplicate score", "raw points", "luck share", "seats"):
        t.add_column(col, justify="right", no_wrap=True)
    for d in reports.scores:
        share = d.luck_share
        t.add_row(
            plain(reports.names.get(d.bot, str(d.bot)), 60),
            _estimate(d.score, 2, signed=True),
            _estimate(d.points, 2),
            "-" if share is None else f"{share:.2f}",
            str(d.matches),
        )
    pooled = reports.luck_share
    if pooled is not None:
        t.caption = (
            f"luck share {pooled:.2f} pooled: the cards' share of raw points' variance, which "
            f"the par removed (0: none; 0.5: half)"
        )
    return fit(t)


def bias_table(bias: SeatBias) -> Table:
    """Mean place and points by seat position relative to the first dealer."""
    # "n" (matches), not "matches": two-digit points would push the table past 80 columns.
    t = grid("Seat and dealer bias (position from the first dealer, 95% interval; n matches)")
    for col in ("position", "mean place", "mean points", "vs average", "n"):
        t.add_column(col, justify="left" if col == "position" else "right", no_wrap=True)
    for p in bias.positions:
        t.add_row(
            p.name,
            _estimate(p.place, 2),
            _estimate(p.points, 2),
            _estimate(p.edge, 2, signed=True),
            str(p.matches),
        )
    return fit(t)


def cycle_lines(reports: Reports) -> list[str]:
    """One line per significant cycle, or one saying there is none."""
    if not reports.cycles:
        return ["No non-transitive cycle with every edge significant."]
    out = []
    for c in reports.cycles:
        names = [clean_line(n, 60) for n in reports.cycle_names(c)]
        edges = ", ".join(
            f"{a} over {b} {i.low:.0%}-{i.high:.0%}"
            for a, b, i in zip(names, names[1:] + names[:1], c.intervals, strict=True)
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
