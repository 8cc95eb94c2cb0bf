"""What a ladder is and did, as :class:`arena.api.Arena` returns it: its status as stored
(``arena ladder --status``) and the result of one run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.store import LadderEpoch, LadderMember, LadderSet, StoredTournament
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
