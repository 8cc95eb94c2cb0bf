"""The clone and kingmaking reports as the terminal shows them (``arena standings
--collusion``) and as its ``--json`` prints them, and the flags the standings add below their
table. Bot names are cleaned and literal (:func:`arena.views.tables.plain`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from rich.table import Table
from rich.text import Text

from arena.stats import collusion
from arena.stats.collusion import ClonePairDict, KingmakingDict
from arena.tournaments.standings import StandingsReport
from arena.views.tables import fit, grid, name_column, plain


def _name(names: dict[int, str], bot: int) -> Text:
    return plain(names[bot], 60)


def collusion_flags(
    clones: Sequence[collusion.ClonePair],
    king: Sequence[collusion.KingmakingRow],
    names: dict[int, str],
) -> list[Text]:
    """One line per flagged pair (``arena standings``), or one line saying there is none."""
    lines: list[Text] = []
    for p in clones:
        if p.flagged and p.share is not None:
            line = Text("Possible clones: ")
            line.append_text(_name(names, p.bot_a))
            line.append(" and ")
            line.append_text(_name(names, p.bot_b))
            line.append(
                f" made the same decision on the same observation {p.identical} times in "
                f"{p.comparable} ({p.share:.1%})"
            )
            lines.append(line)
    for r in king:
        if r.flagged and r.low is not None and r.high is not None:
            line = Text("Kingmaking flag: with ")
            line.append_text(_name(names, r.bot_a))
            line.append(" in the match, ")
            line.append_text(_name(names, r.bot_b))
            line.append(
                f" placed above the third bot {r.rate:.0%} of {r.matches} times "
                f"(95% {r.low:.0%}-{r.high:.0%}); the ratings expect {r.expected:.0%}"
            )
            lines.append(line)
    if not lines:
        compared = sum(p.comparable for p in clones)
        lines.append(
            Text(
                f"No clone pair above {collusion.CLONE_SHARE:.0%} of identical decisions "
                f"({compared} compared) and no kingmaking flag (arena standings --collusion "
                "for the tables)"
            )
        )
    return lines


def clone_table(clones: Sequence[collusion.ClonePair], names: dict[int, str]) -> Table:
    """The clone report as a rich table."""
    t = grid(f"Identical decisions on identical observations (flag: > {collusion.CLONE_SHARE:.0%})")
    name_column(t, "bots")
    for col in ("identical", "compared"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("flag", no_wrap=True)
    for p in clones:
        share = "-" if p.share is None else f"{p.share:.1%}"
        flag = "possible clones" if p.flagged else ""
        pair = _name(names, p.bot_a) + Text(" / ") + _name(names, p.bot_b)
        t.add_row(pair, share, str(p.comparable), flag)
    return fit(t)


def kingmaking_table(king: Sequence[collusion.KingmakingRow], names: dict[int, str]) -> Table:
    """The kingmaking table as a rich table."""
    t = grid("With A in the match: B placed above the third bot, vs the ratings")
    name_column(t, "A")
    name_column(t, "B")
    for col in ("matches", "B above", "95%", "expected", "flag"):
        t.add_column(col, justify="left" if col == "flag" else "right", no_wrap=True)
    for r in king:
        ci = "n/a" if r.low is None or r.high is None else f"{r.low:.0%}-{r.high:.0%}"
        t.add_row(
            _name(names, r.bot_a),
            _name(names, r.bot_b),
            str(r.matches),
            f"{r.rate:.0%}",
            ci,
            f"{r.expected:.0%}",
            "off" if r.flagged else "",
        )
    return fit(t)


class CollusionJSON(TypedDict):
    """``arena standings --collusion --json``: both reports' rows
    (:class:`arena.stats.collusion.ClonePairDict`, :class:`arena.stats.collusion.KingmakingDict`)
    with the bots by name."""

    tournament: str
    clones: list[dict[str, object]]
    kingmaking: list[dict[str, object]]


def collusion_json(report: StandingsReport) -> CollusionJSON:
    """Both reports as one JSON-ready object, bots by name (``arena standings --collusion
    --json``)."""
    names = report.names

    def named(row: ClonePairDict | KingmakingDict) -> dict[str, object]:
        return {**row, "bot_a": names[row["bot_a"]], "bot_b": names[row["bot_b"]]}

    return {
        "tournament": report.tournament.id,
        "clones": [named(p.as_dict()) for p in report.clones],
        "kingmaking": [named(r.as_dict()) for r in report.kingmaking],
    }
