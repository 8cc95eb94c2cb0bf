"""What ``arena faults`` and ``arena matches`` list: stored faults and matches, by bot and
tournament, as JSON-ready dicts.

Rounds and seatings are numbered from 1 here, as everywhere the user reads them (the database
keeps its 0-based columns); seats keep the protocol's 0, 1, 2. Bot-controlled text (fault
messages) comes out as one clean line (:mod:`arena.faults`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena import faults as faultlines
from arena.errors import ArenaError
from arena.store import Store


def _where(bot: str | None, tid: str | None, match: str | None) -> tuple[str, list[Any]]:
    clauses, params = [], []
    for column, value in (("v.name", bot), ("f.tournament_id", tid), ("f.match_id", match)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def check_bot(store: Store, name: str | None) -> None:
    """Refuse a ``--bot`` name that no stored bot has."""
    if name is not None and store.latest_version(name) is None:
        raise ArenaError(f"no bot named {name!r} in {store.path} (arena bots lists them)")


def faults(
    store: Store,
    *,
    bot: str | None = None,
    tid: str | None = None,
    match: str | None = None,
    limit: int | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Stored faults (of one bot, tournament or match, or all), newest first, and how many
    there are.

    Each: ``match``, ``tournament``, ``bot``, ``version``, ``seat``, ``kind``, ``decision``
    (from 1, None while loading), ``round``, ``seating``, ``summary`` (one line: where in the
    bot's file and the error) and ``message`` (as stored, controls stripped).
    """
    where, params = _where(bot, tid, match)
    base = (
        "FROM faults f JOIN bot_versions v ON v.id = f.bot_version_id "
        f"JOIN matches m ON m.id = f.match_id{where}"
    )
    total = int(store.conn.execute(f"SELECT COUNT(*) {base}", params).fetchone()[0])
    rows = store.rows(
        "SELECT f.match_id, f.tournament_id, f.seat, f.kind, f.message, f.decision, v.name, "
        f"v.version, v.filename, m.round, m.seating {base} "
        "ORDER BY m.finished_at DESC, f.match_id, f.seat LIMIT ?",
        [*params, -1 if limit is None else limit],
    )
    return [_fault(r) for r in rows], total


def _fault(r: dict[str, Any]) -> dict[str, Any]:
    from arena.untrusted import clean

    return {
        "match": r["match_id"],
        "tournament": r["tournament_id"],
        "bot": r["name"],
        "version": r["version"],
        "seat": r["seat"],
        "kind": r["kind"],
        "decision": None if r["decision"] is None else int(r["decision"]) + 1,
        "round": r["round"] + 1,
        "seating": r["seating"] + 1,
        "summary": faultlines.summary(r["message"], r["filename"]),
        "message": clean(r["message"]),
    }


@dataclass
class BotFaults:
    """One bot's faults in a tournament, grouped by their one-line description."""

    bot: str
    count: int = 0
    lines: Counter[str] = field(default_factory=Counter)
    first_match: dict[str, str] = field(default_factory=dict)


def fault_digest(store: Store, tid: str) -> list[BotFaults]:
    """Per bot with faults in tournament ``tid``: how many, and each kind of fault in one line
    (``crash at decision 3: raiser.py, line 5: KeyError: 'dummy'``) with a match showing it."""
    rows = store.rows(
        "SELECT f.match_id, f.kind, f.message, f.decision, v.name, v.filename "
        "FROM faults f JOIN bot_versions v ON v.id = f.bot_version_id "
        "WHERE f.tournament_id = ? ORDER BY v.name, f.match_id",
        [tid],
    )
    out: dict[str, BotFaults] = {}
    for r in rows:
        entry = out.setdefault(r["name"], BotFaults(r["name"]))
        # Decisions differ from match to match; the kind and place in the code do not.
        line = f"{r['kind']}: {faultlines.summary(r['message'], r['filename'])}"
        entry.count += 1
        entry.lines[line] += 1
        entry.first_match.setdefault(line, r["match_id"])
    return list(out.values())


def matches(
    store: Store, *, bot: str | None = None, tid: str | None = None, limit: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """Stored matches (with one bot, of one tournament, or all) in schedule order, and how
    many match. Each: ``id``, ``tournament``, ``round``, ``seating`` (from 1), ``seed``,
    ``hands``, ``truncated``, ``faults`` and ``seats``: per seat ``bot``, ``version``,
    ``score``, ``place``, ``faulted``."""
    clauses, params = [], []
    if tid is not None:
        clauses.append("m.tournament_id = ?")
        params.append(tid)
    if bot is not None:
        clauses.append("? IN (v0.name, v1.name, v2.name)")
        params.append(bot)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    base = (
        "FROM matches m JOIN bot_versions v0 ON v0.id = m.bot0 "
        "JOIN bot_versions v1 ON v1.id = m.bot1 JOIN bot_versions v2 ON v2.id = m.bot2" + where
    )
    total = int(store.conn.execute(f"SELECT COUNT(*) {base}", params).fetchone()[0])
    rows = store.rows(
        "SELECT m.*, v0.name AS name0, v1.name AS name1, v2.name AS name2, v0.version AS ver0, "
        "v1.version AS ver1, v2.version AS ver2, "
        "(SELECT group_concat(seat) FROM faults f WHERE f.match_id = m.id) AS faulted "
        f"{base} ORDER BY m.tournament_id, m.round, m.set_key, m.seating LIMIT ?",
        [*params, -1 if limit is None else limit],
    )
    return [_match(r) for r in rows], total


def _match(r: dict[str, Any]) -> dict[str, Any]:
    faulted = {int(s) for s in (r["faulted"] or "").split(",") if s}
    return {
        "id": r["id"],
        "tournament": r["tournament_id"],
        "round": r["round"] + 1,
        "seating": r["seating"] + 1,
        "seed": r["seed"],
        "hands": r["hands_played"],
        "truncated": bool(r["truncated"]),
        "faults": r["faults"],
        "seats": [
            {
                "seat": s,
                "bot": r[f"name{s}"],
                "version": r[f"ver{s}"],
                "score": r[f"score{s}"],
                "place": r[f"place{s}"],
                "faulted": s in faulted,
            }
            for s in range(3)
        ],
    }
