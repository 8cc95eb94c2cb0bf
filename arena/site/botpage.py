"""The data of a bot's page: versions, standings, opponents, play statistics, faults, logs.

Like :mod:`arena.site.data`, read-only and never selecting a bot's source.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import sqlite_utils

from arena.site.data import (
    BotRef,
    Fault,
    MatchRow,
    Standing,
    Tournament,
    faults,
    json_value,
    matches,
    safe_id,
)
from arena.site.replay import play_stats


@dataclass
class VersionRow:
    """One stored version of a bot (never its source)."""

    version: int
    sha256: str
    filename: str
    author: str | None
    submitted_at: str
    matches: int
    mean_place: float | None


@dataclass
class OpponentRow:
    """How a bot fared against one opponent in the matches they shared."""

    opponent: BotRef
    matches: int
    above: float
    mean_place: float

    @property
    def rate(self) -> float:
        """Fraction of shared matches placed above the opponent (ties count one half)."""
        return self.above / self.matches if self.matches else 0.0


@dataclass
class LogExcerpt:
    """The start of what a bot printed in one match (only with ``--with-logs``)."""

    match_id: str
    text: str
    cut: bool

    @property
    def match_href(self) -> str:
        """Path of the match page, relative to the site root."""
        return f"matches/{self.match_id}.html"


@dataclass
class BotDetail:
    """Everything a bot's page shows."""

    bot_id: int
    name: str
    created_at: str
    latest: BotRef
    versions: list[VersionRow]
    standings: list[tuple[Tournament, Standing]]
    opponents: list[OpponentRow]
    faults: list[Fault]
    logs: list[LogExcerpt]
    play: dict[str, int]
    seats: int
    decisions: int
    asked: int
    think_seconds: float
    max_think_seconds: float
    recent: list[MatchRow]

    @property
    def href(self) -> str:
        """URL of the bot's page, relative to the site root."""
        return self.latest.href

    @property
    def ms_per_decision(self) -> float | None:
        """Mean time in ``act`` per call, in milliseconds."""
        return 1000 * self.think_seconds / self.asked if self.asked else None


LOG_EXCERPT_CHARS = 2000
"""How much of one match's log a bot page shows."""
LOG_EXCERPTS = 10
"""How many matches' logs a bot page shows."""


def bot_details(
    db: sqlite_utils.Database,
    refs: dict[int, BotRef],
    all_standings: dict[str, list[Standing]],
    tours: list[Tournament],
    *,
    with_logs: bool,
) -> Iterator[BotDetail]:
    """Every bot's page data, by bot (all its versions together)."""
    by_bot: dict[int, list[BotRef]] = defaultdict(list)
    for ref in refs.values():
        by_bot[ref.bot_id].append(ref)
    for bot in db.query("SELECT id, name, created_at FROM bots ORDER BY name"):
        mine = sorted(by_bot.get(bot["id"], []), key=lambda r: r.version)
        if not mine:
            continue
        ids = [r.version_id for r in mine]
        marks = ",".join("?" * len(ids))
        versions = [
            VersionRow(v["version"], v["sha256"], v["filename"] or "", v["author"],
                       v["submitted_at"], v["n"], v["mp"])
            for v in db.query(
                f"""SELECT v.version, v.sha256, v.filename, v.author, v.submitted_at,
                           COUNT(s.match_id) AS n, AVG(s.place) AS mp
                    FROM bot_versions v LEFT JOIN match_seats s ON s.bot_version_id = v.id
                    WHERE v.id IN ({marks}) GROUP BY v.id ORDER BY v.version DESC""",
                ids,
            )
        ]  # fmt: skip
        placed = [
            (t, s) for t in tours for s in all_standings.get(t.id, []) if s.bot.version_id in ids
        ]
        opp: dict[int, list[float]] = {}
        for r in db.query(
            f"""SELECT a.place AS pa, b.place AS pb, b.bot_version_id AS ob
                FROM match_seats a JOIN match_seats b
                  ON a.match_id = b.match_id AND a.seat != b.seat
                WHERE a.bot_version_id IN ({marks})""",
            ids,
        ):
            o = refs[r["ob"]].bot_id
            acc = opp.setdefault(o, [0, 0.0, 0])
            acc[0] += 1
            acc[1] += 1.0 if r["pa"] < r["pb"] else 0.5 if r["pa"] == r["pb"] else 0.0
            acc[2] += r["pa"]
        opponents = sorted(
            (
                OpponentRow(max(by_bot[o], key=lambda r: r.version), int(n), above, pl / n)
                for o, (n, above, pl) in opp.items()
            ),
            key=lambda row: (-row.rate, row.opponent.name.lower()),
        )
        hands = [
            {"trump": h["trump"], "maker": h["maker"], "alone": json_value(h["alone"], []),
             "points": json_value(h["points"], [0, 0, 0]), "seat": h["seat"]}
            for h in db.query(
                f"""SELECT h.trump, h.maker, h.alone, h.points, s.seat
                    FROM hands h JOIN match_seats s ON s.match_id = h.match_id
                    WHERE s.bot_version_id IN ({marks})""",
                ids,
            )
        ]  # fmt: skip
        play = {"hands": 0, "maker": 0, "alone": 0, "made": 0, "euchred": 0, "defended": 0}
        for seat in range(3):
            for k, v in play_stats([h for h in hands if h["seat"] == seat], seat).items():
                play[k] += v
        t = next(
            db.query(
                f"""SELECT COUNT(*) AS seats, COALESCE(SUM(decisions), 0) AS d,
                           COALESCE(SUM(asked), 0) AS a, COALESCE(SUM(think_seconds), 0) AS ts,
                           COALESCE(MAX(max_think_seconds), 0) AS mx
                    FROM match_seats WHERE bot_version_id IN ({marks})""",
                ids,
            )
        )
        logs: list[LogExcerpt] = []
        if with_logs and "bot_logs" in db.table_names():
            for lg in db.query(
                f"""SELECT match_id, text FROM bot_logs WHERE bot_version_id IN ({marks})
                    ORDER BY match_id LIMIT {LOG_EXCERPTS}""",
                ids,
            ):
                text = lg["text"] or ""
                logs.append(
                    LogExcerpt(
                        safe_id(lg["match_id"]),
                        text[:LOG_EXCERPT_CHARS],
                        len(text) > LOG_EXCERPT_CHARS,
                    )
                )
        recent = matches(
            db,
            refs,
            f"id IN (SELECT match_id FROM match_seats WHERE bot_version_id IN ({marks}))",
            ids,
        )
        recent.sort(key=lambda m: m.finished_at or "", reverse=True)
        yield BotDetail(
            bot_id=bot["id"],
            name=bot["name"],
            created_at=bot["created_at"],
            latest=mine[-1],
            versions=versions,
            standings=placed,
            opponents=opponents,
            faults=faults(db, refs, f"bot_version_id IN ({marks})", ids),
            logs=logs,
            play=play,
            seats=t["seats"],
            decisions=t["d"],
            asked=t["a"],
            think_seconds=t["ts"],
            max_think_seconds=t["mx"],
            recent=recent[:30],
        )
