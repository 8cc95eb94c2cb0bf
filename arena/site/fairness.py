"""The site's fair-play blocks: a tournament's deal commitment and secret, clones, kingmaking.

Read-only, from the tables ``arena run`` fills (``deal_secrets``, ``clone_pairs``,
``kingmaking``; docs/schema.md). A database made before those tables existed still renders:
its tournaments show as dealt from public seeds, without reports. The secret is shown only by
the rule of :func:`arena.secrecy.shown_secret`: once the tournament has finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from arena.secrecy import shown_secret
from arena.site.data import BotRef


@dataclass
class Fairness:
    """What the tournament page shows about its deals and its entrants' independence."""

    tournament_id: str
    commitment: str | None  # None: made before deal secrets
    secret: str | None  # None until the tournament has finished
    clones: list[dict[str, Any]] = field(default_factory=list)
    kingmaking: list[dict[str, Any]] = field(default_factory=list)

    @property
    def flagged_clones(self) -> list[dict[str, Any]]:
        """The clone pairs above the threshold."""
        return [c for c in self.clones if c["flagged"]]

    @property
    def flagged_kingmaking(self) -> list[dict[str, Any]]:
        """The kingmaking rows whose interval lies clearly off the expectation."""
        return [k for k in self.kingmaking if k["flagged"]]


def fairness(
    db: sqlite_utils.Database, tournament_id: str, status: str, refs: dict[int, BotRef]
) -> Fairness:
    """The fair-play facts of one tournament (``status``: its status, which gates the secret)."""
    tables = set(db.table_names())
    if "deal_secrets" not in tables:
        return Fairness(tournament_id, None, None)
    row = next(
        db.query(
            "SELECT s.commitment, s.secret FROM tournaments t "
            "LEFT JOIN deal_secrets s ON s.id = t.secret_id WHERE t.id = ?",
            [tournament_id],
        ),
        {"commitment": None, "secret": None},
    )
    out = Fairness(tournament_id, row["commitment"], shown_secret(status, row["secret"]))
    for table, rows, order in (
        ("clone_pairs", out.clones, "share DESC, bot_a, bot_b"),
        ("kingmaking", out.kingmaking, "flagged DESC, bot_a, bot_b"),
    ):
        sql = f"SELECT * FROM {table} WHERE tournament_id = ? ORDER BY {order}"
        for r in db.query(sql, [tournament_id]):
            if r["bot_a"] in refs and r["bot_b"] in refs:
                a, b = refs[r["bot_a"]], refs[r["bot_b"]]
                rows.append({**r, "a": a, "b": b, "flagged": bool(r["flagged"])})
    return out
