"""What the ``arena`` commands show: standings, pairwise and collusion tables, faults, matches,
bots, tournaments and replays, as rich tables and lines for the terminal and as the documents
the ``--json`` options print.

Every piece of text a bot controls (its name, author, file name, fault messages) goes into a
``rich.text.Text`` (never parsed as markup, so ``[/oops]`` is shown as typed) after
:func:`arena.untrusted.clean_line` (no control characters, so no escape sequence reaches the
terminal, and one line, so nothing can pose as the arena's own output). Rounds, seatings and
decisions are numbered from 1 here, as everywhere the user reads them (the database keeps its
0-based columns); seats keep the protocol's 0, 1, 2.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from arena import stats
from arena.engine import HandResult
from arena.sandbox import faults
from arena.store import (
    BotFault,
    ListedFault,
    ListedMatch,
    ListedTournament,
    ListedVersion,
    Store,
)
from arena.tournaments.owners import describe as describe_owner
from arena.tournaments.standings import StandingsReport
from arena.untrusted import clean, clean_line
from arena.views.collusion import collusion_flags
from arena.views.documents import FaultJSON, MatchJSON, SeatJSON, StandingsJSON, TournamentJSON
from arena.views.tables import fit, grid, name_column, plain, short_time
from arena.views.transcript import format_hand

if TYPE_CHECKING:  # a read command prints without loading the tournament runner or events
    from arena.events import Planned
    from arena.tournaments.driving import Judge
    from arena.tournaments.tournament import RunResult


def _name(names: dict[int, str], bot: int) -> Text:
    return plain(names[bot], 60)


# --- runs ---------------------------------------------------------------------------------


def plan_lines(e: Planned) -> list[RenderableType]:
    """``arena run`` before it plays: the tournament, its size, and its deal commitment."""
    head = (
        f"Tournament {e.tid}: {len(e.bots)} bots, "
        + ("" if e.exact else "at most ")
        + f"{e.total or 0} matches"
        + (f" ({e.stored} already stored)" if e.stored else "")
        + f", {e.workers} worker{'s' * (e.workers != 1)}"
    )
    finished = e.exact and e.stored == e.total
    when = (
        "its secret is revealed: arena verify checks every deal"
        if finished
        else "the secret is revealed when it finishes"
    )
    deals = Text(f"Deal commitment {e.commitment} ({when})")
    return [head, deals]


def run_lines(result: RunResult, db_path: object, log_path: object) -> list[RenderableType]:
    """``arena run`` after it played: the standings, each faulty bot's faults, and what was
    played and stored where."""
    rate = result.played / result.seconds if result.seconds > 0 else 0.0
    summary = Text(
        f"Played {result.played} matches in {result.seconds:.1f} s ({rate:.1f}/s); "
        f"{result.already + result.played}/{result.total} stored in {db_path} (log: {log_path})"
    )
    return [
        standings_table(result.standings, title=f"Standings of {result.tid}"),
        *fault_digest_lines(fault_digest(result.faults)),
        *([] if result.stopped is None else [Text(result.stopped)]),
        *judge_lines(result.judge),
        summary,
    ]


def judge_lines(judge: Judge | None) -> list[Text]:
    """A cluster run's checks of its workers: what was played again, and each worker dropped
    with why (nothing for a local run)."""
    if judge is None:
        return []
    lines = [
        Text(
            f"Checked the workers: {judge.replayed} matches played again on another worker, "
            f"{judge.refereed} on this machine"
        )
    ]
    lines += [
        Text(f"Dropped worker {clean_line(name, 200)}: {why}", style="bold red")
        for name, why in judge.dropped.items()
    ]
    return lines


# --- standings ------------------------------------------------------------------------------


def standings_table(
    table: Sequence[stats.BotStanding],
    title: str = "Standings",
    retired: Collection[str] = (),
) -> Table:
    """The standings as a rich table for the terminal; a bot retired from the ladder
    (``retired``, by name) keeps its row, its name marked ``(retired)``."""
    t = grid(title)
    t.add_column("#", justify="right")
    name_column(t)
    for col in ("rating (95%)", "matches", "wins", "mean place", "faults"):
        t.add_column(col, justify="right", no_wrap=True)
    for s in table:
        t.add_row(
            "-" if s.rank is None else str(s.rank),
            plain(f"{s.name} (retired)" if s.name in retired else s.name, 72),
            stats.rating_text(s.rating, s.rating_low, s.rating_high, s.bound),
            str(s.matches),
            str(s.wins),
            "-" if s.mean_place is None else f"{s.mean_place:.2f}",
            str(s.faults),
        )
    notes = stats.rating_notes(table)
    if notes:
        t.caption = notes
    return fit(t)


WIDTH: Final = 80
"""The terminal width the tables are built for."""

PAIRWISE_SHOWN: Final = 10
"""Bots of the placed-above matrix shown in the terminal (the first by rank): more columns do
not fit a terminal, and drawing them cost a 30-bot ladder's ``arena standings`` half its time.
Every pair is in ``--json`` and on the site."""


def pairwise_table(table: Sequence[stats.BotStanding], width: int = WIDTH) -> Table:
    """How often the row bot placed above the column bot, with a 95 % interval. The columns
    are the bots' places in the standings (1, 2, ...), so that the table stays narrow; when
    the intervals would not fit ``width`` columns (six bots or more), the rates alone (the
    intervals are in ``--json``), never a cell cut in the middle of a number. Of more than
    :data:`PAIRWISE_SHOWN` bots, the first that many by rank."""
    cut = len(table) > PAIRWISE_SHOWN
    more = f"top {PAIRWISE_SHOWN} of {len(table)}; all pairs, intervals: --json"
    table = table[:PAIRWISE_SHOWN]
    rows = [
        ["-" if o.bot == s.bot else _percent(s.above.get(o.bot), True) for o in table]
        for s in table
    ]
    names = min(24, max((len(s.name) for s in table), default=3))
    cell = max((len(c) for r in rows for c in r), default=1)
    intervals = len(str(len(table))) + 2 + names + len(table) * (cell + 2) <= width
    title, caption = "Placed above (%): row bot over column bot, 95% interval", None
    if cut:
        caption = more
    if not intervals:  # a title as wide as the narrow table, the rest under it
        title = "Placed above (%): row over column"
        caption = more if cut else "95% intervals: --json"
        rows = [
            ["-" if o.bot == s.bot else _percent(s.above.get(o.bot), False) for o in table]
            for s in table
        ]
    t = grid(title, caption)
    t.add_column("#", justify="right")
    name_column(t)
    for i, _ in enumerate(table, 1):
        t.add_column(str(i), justify="center", no_wrap=True)
    for i, (s, cells) in enumerate(zip(table, rows, strict=True), 1):
        t.add_row(str(i), plain(s.name, 60), *cells)
    return fit(t)


def _percent(p: stats.Pair | None, interval: bool) -> str:
    """A placed-above rate in percent, short: ``62 (55-69)`` (``62`` without ``interval``)."""
    if p is None:
        return "-"
    i = p.interval
    if i is None or not interval:
        return f"{100 * p.rate:.0f}"
    return f"{100 * p.rate:.0f} ({100 * i.low:.0f}-{100 * i.high:.0f})"


def standings_lines(report: StandingsReport, retired: Collection[str] = ()) -> list[RenderableType]:
    """``arena standings``: the tournament, its standings and pairwise tables, the collusion
    flags and each faulty bot's faults in one line each (lines as :class:`Text`, to print
    unwrapped)."""
    t = report.tournament
    head = (
        f"Tournament {t.id} ({t.status}): {report.played}/{t.total_matches} matches, "
        f"seed {t.seed}, {t.rounds} rounds"
    )
    return [
        head,
        standings_table(report.table, retired=retired),
        pairwise_table(report.table),
        *collusion_flags(report.clones, report.kingmaking, report.names),
        *fault_digest_lines(fault_digest(report.faults)),
    ]


def standings_json(report: StandingsReport) -> StandingsJSON:
    """The ``arena standings --json`` object (docs/tournaments.md): the tournament's id and
    settings, counts, and ``bots``, one object per bot, best first. No dates: the same
    tournament gives the same object, whenever and however often it was run."""
    t = report.tournament
    versions = {v.id: (v.version, v.sha256) for v in report.entrants}
    bots = stats.to_json(report.table, versions)
    return {
        "tournament": t.id,
        "commitment": report.commitment,
        "status": t.status,
        "seed": t.seed,
        "rounds": t.rounds,
        "counts": {
            "bots": len(bots),
            "matches_played": report.played,
            "matches_total": t.total_matches,
            "faults": sum(b["faults"] for b in bots),
        },
        "bots": bots,
    }


# --- faults ---------------------------------------------------------------------------------


@dataclass
class BotFaults:
    """One bot's faults in a tournament, grouped by kind and place in the bot's code."""

    bot: str
    count: int = 0
    lines: Counter[str] = field(default_factory=Counter)
    """Faults per group, by the group's key (``crash``, ``crash raiser.py, line 5``)."""
    example: dict[str, str] = field(default_factory=dict)
    """The first fault of each group in one line: its kind, where and what."""
    first_match: dict[str, str] = field(default_factory=dict)


def fault_digest(rows: Sequence[BotFault]) -> list[BotFaults]:
    """Per bot with faults (rows of :meth:`arena.store.Store.faults_by_bot`): how many, and
    each group of them (one kind at one place in the bot's file) in one line, its first
    fault's (``crash: raiser.py, line 5: KeyError: 'dummy'``), with a match showing it."""
    out: dict[str, BotFaults] = {}
    for r in rows:
        entry = out.setdefault(r.name, BotFaults(r.name))
        # The details (a decision, the legal moves of the moment) differ from match to
        # match; the kind and the place in the code do not.
        key = f"{r.kind} {faults.location(str(r.message or ''), r.filename) or ''}"
        entry.count += 1
        entry.lines[key] += 1
        entry.example.setdefault(key, f"{r.kind}: {faults.summary(r.message, r.filename)}")
        entry.first_match.setdefault(key, r.match_id)
    return list(out.values())


def fault_digest_lines(digests: Sequence[BotFaults], *, per_bot: int = 3) -> list[Text]:
    """Per bot with faults: how many, and its most frequent faults in one line each, with a
    match to replay."""
    out: list[Text] = []
    for d in digests:
        line = Text("Faults of ")
        line.append_text(plain(d.bot, 60))
        line.append(f": {d.count} match{'es' * (d.count != 1)} forfeited")
        out.append(line)
        for key, n in d.lines.most_common(per_bot):
            item = Text(f"  {n} x ")
            item.append_text(plain(d.example[key], 300))
            first = "first in" if n > 1 else "in"
            item.append(f"  ({first} arena replay {d.first_match[key]})", style="dim")
            out.append(item)
        rest = len(d.lines) - per_bot
        if rest > 0:
            more = sum(n for _, n in d.lines.most_common()[per_bot:])
            out.append(
                Text(
                    f"  ... and {more} more at {rest} other place{'s' * (rest != 1)} in the "
                    "code (arena faults)"
                )
            )
    return out


def fault_records(rows: Sequence[ListedFault]) -> list[FaultJSON]:
    """``arena faults --json``: rows of :meth:`arena.store.Store.fault_listing` as objects.

    Each: ``match``, ``tournament``, ``bot``, ``version``, ``seat``, ``kind``, ``decision``
    (from 1, None while loading), ``round``, ``seating``, ``summary`` (one line: where in the
    bot's file and the error), ``message`` (as stored, controls stripped), and the seat's think
    time in that match: ``clock_seconds`` (wall time on its match clock: loading and every
    decision) and ``cpu_seconds`` (its process's CPU).
    """
    return [
        {
            "match": f.match_id,
            "tournament": f.tournament_id,
            "bot": r.name,
            "version": r.version,
            "seat": f.seat,
            "kind": f.kind,
            "decision": None if f.decision is None else int(f.decision) + 1,
            "round": r.round + 1,
            "seating": r.seating + 1,
            "summary": faults.summary(f.message, r.filename),
            "message": clean(f.message),
            "clock_seconds": r.clock_seconds,
            "cpu_seconds": r.cpu_seconds,
        }
        for r in rows
        for f in [r.fault]
    ]


def faults_table(records: Sequence[FaultJSON], total: int, *, wide: bool = False) -> Table:
    """``arena faults``: one line per fault (of :func:`fault_records`); in 80 columns the
    summary is cut at the terminal's edge (its file and line come first), ``wide`` adds the
    seat and wraps the whole summary."""
    t = grid(f"Faults ({_count(len(records), total)})")
    t.add_column("match", no_wrap=True)
    name_column(t)
    if wide:
        t.add_column("seat", justify="right")
    t.add_column("kind", no_wrap=True)
    t.add_column("decision", no_wrap=True, justify="right")
    t.add_column("where and what", no_wrap=not wide, overflow="fold" if wide else "ellipsis")
    for r in records:
        at = "loading" if r["decision"] is None else str(r["decision"])
        t.add_row(
            r["match"],
            plain(f"{r['bot']} v{r['version']}", 60),
            *([str(r["seat"])] if wide else []),
            plain(r["kind"], 40),
            at,
            plain(r["summary"], 300),
        )
    return fit(t, len(t.columns) - 1)


def fault_details(records: Sequence[FaultJSON]) -> list[Text]:
    """``arena faults --full``: each fault with its whole message, every line of it indented
    behind a bar so that nothing in it can pass for the arena's own output."""
    out: list[Text] = []
    for r in records:
        at = "loading" if r["decision"] is None else f"decision {r['decision']}"
        head = Text(f"Match {r['match']} (round {r['round']}, seating {r['seating']} of 6), ")
        head.append_text(plain(f"{r['bot']} v{r['version']}", 60))
        head.append(f" in seat {r['seat']}: ")
        head.append_text(plain(r["kind"], 40))
        head.append(f" at {at}")
        head.append(
            f" (think time in the match: {r['clock_seconds']:.2f} s wall on its clock, "
            f"{r['cpu_seconds']:.2f} s CPU)"
        )
        out.append(head)
        for line in str(r["message"]).splitlines() or [""]:
            out.append(Text("  | ", style="dim") + plain(line, 300))
    return out


# --- matches, bots, tournaments -------------------------------------------------------------


def match_records(rows: Sequence[ListedMatch]) -> list[MatchJSON]:
    """``arena matches --json``: the matches of :meth:`arena.store.Store.match_listing` as
    objects.

    Each: ``id``, ``tournament``, ``round``, ``seating`` (from 1), ``seed``, ``hands``,
    ``truncated``, ``faults`` and ``seats``: per seat ``bot``, ``version``, ``score``,
    ``place``, ``faulted``."""
    out: list[MatchJSON] = []
    for r in rows:
        m = r.match
        out.append(
            {
                "id": m.id,
                "tournament": m.tournament_id,
                "round": m.round + 1,
                "seating": m.seating + 1,
                "seed": m.seed,
                "hands": m.hands_played,
                "truncated": m.truncated,
                "faults": m.faults,
                "seats": [
                    {
                        "seat": s,
                        "bot": r.names[s],
                        "version": r.versions[s],
                        "score": m.scores[s],
                        "place": m.places[s],
                        "faulted": s in r.faulted,
                    }
                    for s in range(3)
                ],
            }
        )
    return out


def matches_table(records: Sequence[MatchJSON], total: int, *, wide: bool = False) -> Table:
    """``arena matches``: one line per match (of :func:`match_records`), each seat's bot with
    its score and place; ``wide`` adds the hands played."""
    t = grid(
        f"Matches ({_count(len(records), total)})",
        caption="each seat: score (place) bot; ! faulted",
    )
    t.add_column("match", no_wrap=True)
    t.add_column("rnd", justify="right")
    t.add_column("seating", justify="right", no_wrap=True)
    for s in range(3):
        t.add_column(f"seat {s}", no_wrap=not wide, overflow="fold" if wide else "ellipsis")
    if wide:
        t.add_column("hands", justify="right")
    for r in records:
        cells: list[Text | str] = [r["id"], str(r["round"]), f"{r['seating']}/6"]
        cells += [_seat(seat) for seat in r["seats"]]
        if wide:
            cells.append(f"{r['hands']}{' (cut)' if r['truncated'] else ''}")
        t.add_row(*cells)
    return fit(t, 3, 4, 5)


def _seat(seat: SeatJSON) -> Text:
    """``10 (1) heuristic``, with ``!`` after the place when the seat faulted: the score and
    place first, so that a name too long for 80 columns is what gets cut."""
    out = Text(f"{seat['score']} ({seat['place']})")
    if seat["faulted"]:
        out.append("!", style="red")
    return out + Text(" ") + plain(seat["bot"], 40)


def bots_table(rows: Sequence[ListedVersion], me: str | None, *, wide: bool = False) -> Table:
    """``arena bots``: every version with its owner as seen by whoever runs the command; in 80
    columns the name, version, owner, date and author (cut at the edge), ``wide`` adds the
    hash and the file and shows everything whole."""
    table = grid("Bots")
    name_column(table, "name")
    table.add_column("ver", justify="right")
    table.add_column("owner", no_wrap=True)
    table.add_column("submitted", no_wrap=True)
    if wide:
        table.add_column("sha256", no_wrap=True)
        table.add_column("file")
    table.add_column("author", no_wrap=not wide, overflow="fold" if wide else "ellipsis")
    for r in rows:
        table.add_row(
            plain(r.name, 60),
            str(r.version),
            describe_owner(r.owner, me),
            r.submitted_at if wide else short_time(r.submitted_at),
            *((r.sha256[:12], plain(r.filename, 80)) if wide else ()),
            plain(r.author, 80),
        )
    return fit(table, len(table.columns) - 1)


def tournament_record(listed: ListedTournament) -> TournamentJSON:
    """``arena tournaments --json``: one tournament as an object, its live ``status``, stored
    matches (``done``), ``commitment`` and ``secret`` (None until it has finished)."""
    t = listed.tournament
    return {
        "id": t.id,
        "kind": t.kind,
        "status": t.status,
        "seed": t.seed,
        "rounds": t.rounds,
        "total_matches": t.total_matches,
        "done": listed.done,
        "created_at": t.created_at,
        "updated_at": t.updated_at,
        "commitment": listed.commitment,
        "secret": listed.secret,
    }


def tournaments_table(
    rows: Sequence[ListedTournament],
    *,
    wide: bool = False,
    fields: Mapping[str, Sequence[str]] | None = None,
) -> Table:
    """``arena tournaments``: status (live), progress, when, and the bots (cut at the edge in
    80 columns); ``wide`` adds the seed, rounds and deal commitment and shows every name.
    A ladder's bots are its field now (``fields``, by ladder id): its configuration names
    only the bundled bots it was started with, and its matches have no planned total."""
    table = grid("Tournaments")
    table.add_column("id", no_wrap=True, min_width=16)
    for col in ("status", "matches", "last run"):
        table.add_column(col, no_wrap=True)
    if wide:
        for col in ("seed", "rounds", "commitment"):
            table.add_column(col, no_wrap=True)
    table.add_column("bots", no_wrap=not wide, overflow="fold" if wide else "ellipsis")
    for listed in rows:
        r = listed.tournament
        config = json.loads(r.config)
        bots = [str(b["name"]) for b in config.get("bots", ())]
        names, progress = ", ".join(bots), f"{listed.done}/{r.total_matches}"
        if r.is_comparison:  # A, B and the third seat
            names = f"compare {bots[0]} with {bots[1]} (third {bots[2]})"
        elif r.is_ladder:
            names = "ladder: " + ", ".join((fields or {}).get(r.id, config.get("bundled", [])))
            progress = str(listed.done)
        extra = [str(r.seed), str(r.rounds), listed.commitment[:16]]
        table.add_row(
            r.id,
            r.status,
            progress,
            r.updated_at if wide else short_time(r.updated_at),
            *(extra if wide else []),
            plain(names, 400),
        )
    return fit(table, len(table.columns) - 1)


def _count(shown: int, total: int) -> str:
    return f"{total}" if shown >= total else f"{shown} of {total}; --limit 0 shows all"


# --- replays and logs -----------------------------------------------------------------------


def log_lines(labels: Sequence[str], logs: Sequence[str | None]) -> list[Text]:
    """What each seat's bot printed (``arena logs``, ``arena demo``): a heading per seat,
    then every line of its output behind a bar, stripped of control characters, so that
    nothing a bot prints can pass for the arena's own output or move the terminal's cursor."""
    out: list[Text] = []
    for label, text in zip(labels, logs, strict=True):
        lines = (text or "").splitlines()
        head = Text(f"{clean_line(label, 80)} printed ")
        head.append(f"{len(lines)} line{'s' * (len(lines) != 1)}" + (":" if lines else "."))
        out.append(head)
        out += [Text("  | ", style="dim") + plain(line, 1000) for line in lines]
    return out


def match_log_lines(store: Store, match_id: str) -> list[Text]:
    """``arena logs``: the match's heading and what each of its bots printed, as stored
    (capped by the sandbox)."""
    m, _ = store.match(match_id)
    names = [store.bot_version(m.bots[s]).name for s in range(3)]
    logs = store.match_logs(m.id)
    head = Text(f"Match {m.id}: round {m.round + 1}, seating {m.seating + 1} of 6")
    labels = [f"{clean_line(n, 60)} (seat {s})" for s, n in enumerate(names)]
    return [head, *log_lines(labels, [logs.get(s) for s in range(3)])]


def replay_text(store: Store, match_id: str) -> str:
    """A stored match as text, hand by hand (``arena replay``)."""
    m, hands = store.match(match_id)
    versions = [store.bot_version(m.bots[s]) for s in range(3)]
    # Names were checked at submission; a database from before that may hold anything.
    labels = [f"{clean_line(v.name, 60)} (seat {s})" for s, v in enumerate(versions)]
    out = [
        f"Match {m.id} of tournament {m.tournament_id}: round {m.round + 1}, "
        f"seating {m.seating + 1} of 6, seed {m.seed}",
        "Seats: " + ", ".join(labels),
        "",
    ]
    for h in hands:
        out.append(format_hand(HandResult.from_dict(h), labels))
        out.append("")
    for f in store.match_faults(m.id):
        # One line: a bot's message cannot print a line that looks like the arena's own.
        fault = faults.describe(f, versions[f.seat].filename)
        out.append(f"Fault: {labels[f.seat]}: {fault}")
    if len(out) > 3 + 2 * len(hands):
        out.append(f"(the whole fault messages: arena faults --match {m.id} --full)")
    final = ", ".join(f"{labels[s]} {m.scores[s]} (place {m.places[s]})" for s in range(3))
    out.append(f"Final: {final}.{' Truncated at the hand limit.' if m.truncated else ''}")
    return "\n".join(out)
