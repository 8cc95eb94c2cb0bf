"""The site's fair-play blocks: a tournament's deal commitment and secret, clones, kingmaking.

Read-only, from the tables ``arena run`` fills (``deal_secrets``, ``clone_pairs``,
``kingmaking``; docs/schema.md). The secret is shown only by the rule of
:func:`arena.matches.secrecy.shown_secret` (applied by :meth:`arena.store.Store.tournaments`): once
the tournament has finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.site.data import BotRef, Tournament
from arena.store import Store


@dataclass
class Fairness:
    """What the tournament page shows about its deals and its entrants' independence."""

    tournament_id: str
    commitment: str
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


def fairness(store: Store, tournament: Tournament, refs: dict[int, BotRef]) -> Fairness:
    """The fair-play facts of one tournament: its deal commitment, its secret once it has
    finished, and its clone and kingmaking reports."""
    out = Fairness(tournament.id, tournament.commitment, tournament.secret)
    clones, kingmaking = store.report_rows(tournament.id)
    for rows, found in ((out.clones, clones), (out.kingmaking, kingmaking)):
        for r in found:
            if r["bot_a"] in refs and r["bot_b"] in refs:
                a, b = refs[r["bot_a"]], refs[r["bot_b"]]
                rows.append({**r, "a": a, "b": b, "flagged": bool(r["flagged"])})
    return out
