"""The site's fair-play blocks: a tournament's deal commitment and secret, clones, kingmaking.

Read-only, from the tables ``arena run`` fills (``deal_secrets``, ``clone_pairs``,
``kingmaking``; docs/schema.md). The secret is shown only by the rule of
:func:`arena.matches.secrecy.shown_secret` (applied by :meth:`arena.store.Store.tournaments`): once
the tournament has finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.site.data import BotRef, Tournament
from arena.stats.collusion import ClonePairDict, KingmakingDict
from arena.store import Store


class ShownClonePair(ClonePairDict):
    """A stored clone pair with its bots for the page."""

    a: BotRef
    b: BotRef


class ShownKingmaking(KingmakingDict):
    """A stored kingmaking row with its bots for the page."""

    a: BotRef
    b: BotRef


@dataclass
class Fairness:
    """What the tournament page shows about its deals and its entrants' independence."""

    tournament_id: str
    commitment: str
    secret: str | None  # None until the tournament has finished
    clones: list[ShownClonePair] = field(default_factory=list)
    kingmaking: list[ShownKingmaking] = field(default_factory=list)

    @property
    def flagged_clones(self) -> list[ShownClonePair]:
        """The clone pairs above the threshold."""
        return [c for c in self.clones if c["flagged"]]

    @property
    def flagged_kingmaking(self) -> list[ShownKingmaking]:
        """The kingmaking rows whose interval lies clearly off the expectation."""
        return [k for k in self.kingmaking if k["flagged"]]


def fairness(store: Store, tournament: Tournament, refs: dict[int, BotRef]) -> Fairness:
    """The fair-play facts of one tournament: its deal commitment, its secret once it has
    finished, and its clone and kingmaking reports."""
    out = Fairness(tournament.id, tournament.commitment, tournament.secret)
    clones, kingmaking = store.report_rows(tournament.id)
    shown = [r for r in clones if r["bot_a"] in refs and r["bot_b"] in refs]
    out.clones = [
        {**r, "a": refs[r["bot_a"]], "b": refs[r["bot_b"]], "flagged": bool(r["flagged"])}
        for r in shown
    ]
    kept = [r for r in kingmaking if r["bot_a"] in refs and r["bot_b"] in refs]
    out.kingmaking = [
        {**r, "a": refs[r["bot_a"]], "b": refs[r["bot_b"]], "flagged": bool(r["flagged"])}
        for r in kept
    ]
    return out
