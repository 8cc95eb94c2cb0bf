"""Human games in the store (:mod:`arena.tournaments.human`): the stand-in bot version that
holds a person's seat, and a finished game stored whole in one transaction (its tournament of
kind ``human``, its match, its secret revealed), so no reader ever sees half of one."""

from __future__ import annotations

from collections.abc import Sequence

from arena.matches.record import MatchRecord
from arena.sandbox.runtime import Artifact
from arena.store.bots import BotStore, BotVersion
from arena.store.kinds import HUMAN_OWNER
from arena.store.matches import MatchStore
from arena.store.schema import HUMAN, now
from arena.store.tournaments import TournamentStore


class HumanGameStore(BotStore, TournamentStore, MatchStore):
    """The rows of human games."""

    def human_version(self, name: str) -> BotVersion:
        """The stand-in bot version that holds the seat of the person called ``name`` in a
        stored human game: bot ``name (human)`` (no submission can take such a name), owned by
        :data:`~arena.store.kinds.HUMAN_OWNER`, retired at once so it never enters a field."""
        label = f"{name} (human)"
        artifact = Artifact("human", (("human", b""),), "human")
        version, created = self.add_bot_version(label, artifact, "human", None, HUMAN_OWNER)
        if created:
            with self._transaction():
                self.conn.execute(
                    "UPDATE bots SET retired_at = ? WHERE id = ? AND retired_at IS NULL",
                    (now(), version.bot_id),
                )
        return version

    def write_human_game(
        self,
        tid: str,
        config: dict[str, object],
        version_ids: Sequence[int],
        record: MatchRecord,
        secret: bytes,
    ) -> None:
        """Store a finished human game: its tournament (kind ``human``, dealt from
        ``secret``), its one match, finished and its secret revealed, in one transaction."""
        with self._transaction():
            self._put_tournament(tid, dict(config), version_ids, 1, secret, HUMAN)
            self._put_results(tid, [record])
            self._put_status(tid, "finished")
