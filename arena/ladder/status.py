"""What a ladder is and did, as :class:`arena.api.Arena` returns it: its status as stored
(``arena ladder --status``) and the result of one run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.store import LadderEpoch, LadderMember, LadderSet, Store, StoredTournament
from arena.tournaments.standings import Standing

if TYPE_CHECKING:
    from arena.tournaments.tournament import Plan, RunResult


@dataclass
class LadderStatus:
    """A ladder as stored (``arena ladder --status``)."""

    tournament: StoredTournament
    """Its ``tournaments`` row, with the live status."""
    epochs: list[LadderEpoch]
    """Each with its commitment, and its secret once closed."""
    members: list[LadderMember]
    sets: int
    """Sets stored."""
    in_flight: list[LadderSet]
    """Sets scheduled and not stored (being played, or lost to a kill: played again first)."""
    standings: list[Standing]
    """Its latest standings, best first."""

    @property
    def tid(self) -> str:
        """The ladder's id."""
        return self.tournament.id

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (names are checked bot names)."""
        return {
            "id": self.tid,
            "status": self.tournament.status,
            "sets": self.sets,
            "matches": self.tournament.total_matches,
            "epochs": [e.to_dict() for e in self.epochs],
            "field": [m.name for m in self.members if m.left_reason is None],
            "left": [
                {"name": m.name, "version_id": m.version_id, "reason": m.left_reason}
                for m in self.members
                if m.left_reason is not None
            ],
            "in_flight": [{"step": s.step, "bots": list(s.bots)} for s in self.in_flight],
            "standings": [dataclasses.asdict(s) for s in self.standings],
        }


def ladder_status(store: Store, lid: str) -> LadderStatus:
    """Ladder ``lid`` as stored: its row, epochs, members, sets and its own standings."""
    return LadderStatus(
        store.tournament(lid),
        store.ladder_epochs(lid),
        store.ladder_members(lid),
        store.finished_set_count(lid),
        store.ladder_sets(lid, unfinished=True),
        _ladder_standings(store, lid),
    )


def _ladder_standings(store: Store, lid: str) -> list[Standing]:
    # The ladder's own ratings, as it stored them (not a Plackett-Luce refit).
    rows, _ = store.read_standings(lid)
    versions = {r["bot_version_id"]: store.bot_version(r["bot_version_id"]) for r in rows}
    return sorted((Standing.from_row(r, versions) for r in rows), key=lambda s: s.rank or 0)


@dataclass
class LadderRun:
    """What one :meth:`arena.api.Arena.ladder` did."""

    plan: Plan
    """The ladder: its id, configuration and the field it started with."""
    result: RunResult
    """What was played in this call (``completed`` False: Ctrl-C or SIGTERM; ``stopped``
    says why it stopped)."""
    workers: int
    log_path: Path | None
    status: LadderStatus
    """The ladder after the run."""
    site: Path | None = None
    """``index.html`` of the site, when rendered."""

    @property
    def tid(self) -> str:
        """The ladder's id."""
        return self.plan.tid
