"""Terminal views of stored results (rich tables and lines) for the ``arena`` commands.

Every piece of text a bot controls (its name, author, file name, fault messages) goes into a
``rich.text.Text`` (never parsed as markup, so ``[/oops]`` is shown as typed) after
:func:`arena.untrusted.clean_line` (no control characters, so no escape sequence reaches the
terminal, and one line, so nothing can pose as the arena's own output). Rounds, seatings and
decisions are numbered from 1; seats keep the protocol's 0, 1, 2.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from arena.listings import BotFaults
from arena.owners import describe as describe_owner
from arena.untrusted import clean_line


def plain(value: object, limit: int = 200) -> Text:
    """Bot-controlled (or any stored) text as a one-line, control-free, literal rich Text."""
    return Text(clean_line("" if value is None else str(value), limit))


def fault_digest(digests: Sequence[BotFaults], *, per_bot: int = 3) -> list[Text]:
    """Per bot with faults: how many, and its most frequent faults in one line each, with a
    match to replay."""
    out: list[Text] = []
    for d in digests:
        line = Text("Faults of ")
        line.append_text(plain(d.bot, 60))
        line.append(f": {d.count} match{'es' * (d.count != 1)} forfeited")
        out.append(line)
        for text, n in d.lines.most_common(per_bot):
            item = Text(f"  {n} x ")
            item.append_text(plain(text, 300))
            item.append(f"  (arena replay {d.first_match[text]})", style="dim")
            out.append(item)
        rest = len(d.lines) - per_bot
        if rest > 0:
            out.append(Text(f"  ... and {rest} other kind{'s' * (rest != 1)} (arena faults)"))
    return out


def faults_table(rows: Sequence[dict[str, Any]], total: int) -> Table:
    """``arena faults``: one line per fault."""
    t = Table(title=f"Faults ({_count(len(rows), total)})")
    for col in ("match", "bot", "seat", "kind", "at", "where and what"):
        t.add_column(col, no_wrap=col in ("match", "at"))
    for r in rows:
        at = "loading" if r["decision"] is None else f"decision {r['decision']}"
        t.add_row(
            r["match"],
            plain(f"{r['bot']} v{r['version']}", 60),
            str(r["seat"]),
            plain(r["kind"], 40),
            at,
            plain(r["summary"], 300),
        )
    return t


def fault_details(rows: Sequence[dict[str, Any]]) -> list[Text]:
    """``arena faults --full``: each fault with its whole message, every line of it indented
    behind a bar so that nothing in it can pass for the arena's own output."""
    out: list[Text] = []
    for r in rows:
        at = "loading" if r["decision"] is None else f"decision {r['decision']}"
        head = Text(f"Match {r['match']} (round {r['round']}, seating {r['seating']} of 6), ")
        head.append_text(plain(f"{r['bot']} v{r['version']}", 60))
        head.append(f" in seat {r['seat']}: ")
        head.append_text(plain(r["kind"], 40))
        head.append(f" at {at}")
        out.append(head)
        for line in str(r["message"]).splitlines() or [""]:
            out.append(Text("  | ", style="dim") + plain(line, 300))
    return out


def matches_table(rows: Sequence[dict[str, Any]], total: int) -> Table:
    """``arena matches``: one line per match, seats with their score and place."""
    t = Table(title=f"Matches ({_count(len(rows), total)})")
    t.add_column("match", no_wrap=True)
    t.add_column("round", justify="right")
    t.add_column("seating", justify="right")
    for s in range(3):
        t.add_column(f"seat {s}: score (place)")
    t.add_column("hands", justify="right")
    for r in rows:
        cells: list[Text | str] = [r["id"], str(r["round"]), f"{r['seating']} of 6"]
        for seat in r["seats"]:
            cell = plain(seat["bot"], 40)
            cell.append(f" {seat['score']} ({seat['place']})")
            if seat["faulted"]:
                cell.append(" fault", style="red")
            cells.append(cell)
        cells.append(f"{r['hands']}{' (cut)' if r['truncated'] else ''}")
        t.add_row(*cells)
    return t


def bots_table(rows: Sequence[dict[str, Any]], me: str | None) -> Table:
    """``arena bots``: every version with its owner as seen by whoever runs the command."""
    table = Table(title="Bots")
    for col in ("name", "version", "sha256", "author", "file", "owner", "submitted"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            plain(r["name"], 60),
            str(r["version"]),
            r["sha256"][:12],
            plain(r["author"], 80),
            plain(r["filename"], 80),
            describe_owner(r["owner"], me),
            r["submitted_at"],
        )
    return table


def tournaments_table(rows: Sequence[dict[str, Any]]) -> Table:
    """``arena tournaments``: status (live), bots, progress."""
    table = Table(title="Tournaments")
    table.add_column("id", no_wrap=True, min_width=16)
    for col in ("status", "bots", "matches", "seed", "rounds", "last run", "commitment"):
        table.add_column(col)
    for r in rows:
        bots = [str(b["name"]) for b in json.loads(r["config"])["bots"]]
        names = ", ".join(bots)
        if r.get("kind") == "compare":  # A, B and the third seat
            names = f"compare {bots[0]} with {bots[1]} (third seat {bots[2]})"
        table.add_row(
            r["id"],
            r["status"],
            plain(names, 400),
            f"{r['done']}/{r['total_matches']}",
            str(r["seed"]),
            str(r["rounds"]),
            r["updated_at"],
            r["commitment"][:16] if r["commitment"] else "none (older)",
        )
    return table


def _count(shown: int, total: int) -> str:
    return f"{total}" if shown >= total else f"{shown} of {total}; --limit 0 shows all"
