"""A ladder in the store: its row, its field (``ladder_bots``), its deal-secret epochs
(``ladder_epochs``), its scheduled sets (``ladder_sets``), retiring bots.

A ladder is a ``tournaments`` row of kind :data:`~arena.store.schema.LADDER`; its matches are
ordinary ``matches`` rows (``round`` = the set's step). A set is stored whole or not at all:
its six matches and its ``finished_at`` are written in one transaction
(:meth:`LadderStore.finish_ladder_set`). Each epoch has a deal secret of its own, drawn
fresh (origin ``ladder``, never shared with another tournament) and revealed when the epoch
closes (docs/ladder.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from arena.errors import ArenaError
from arena.matches import secrecy
from arena.matches.record import MatchRecord
from arena.matches.secrecy import DealSecret
from arena.store.base import Row, fingerprint
from arena.store.matches import MatchStore
from arena.store.rows import ListedEpoch
from arena.store.schema import LADDER, now
from arena.store.tournaments import LADDER_STATE

LADDER_ORIGIN = "ladder"
"""The ``origin`` of a ladder epoch's deal secret: drawn for that epoch alone."""


@dataclass(frozen=True)
class LadderMember:
    """A row of ``ladder_bots`` with its version's bot and name."""

    version_id: int
    bot_id: int
    name: str
    joined_step: int
    joined_at: str
    left_step: int | None
    left_at: str | None
    left_reason: str | None
    retired_at: str | None = None
    """When its bot was retired (``arena retire``; None: it was not)."""


class EpochDict(TypedDict):
    """:meth:`LadderEpoch.to_dict`: an epoch of a ladder (``arena tournaments --json``)."""

    epoch: int
    first_step: int
    opened_at: str
    closed_at: str | None
    commitment: str
    secret: str | None


@dataclass(frozen=True)
class LadderEpoch:
    """A row of ``ladder_epochs`` with its deal secret (revealed only once ``closed_at``)."""

    epoch: int
    first_step: int
    opened_at: str
    closed_at: str | None
    secret: DealSecret

    def to_dict(self) -> EpochDict:
        """JSON-ready: the commitment always, the secret only once the epoch is closed."""
        return {
            "epoch": self.epoch,
            "first_step": self.first_step,
            "opened_at": self.opened_at,
            "closed_at": self.closed_at,
            "commitment": self.secret.commitment,
            "secret": self.secret.secret.hex() if self.closed_at else None,
        }


@dataclass(frozen=True)
class LadderSet:
    """A row of ``ladder_sets``: one scheduled duplicate set (``finished_at`` None: in
    flight, or lost to a kill)."""

    step: int
    bots: tuple[int, int, int]
    epoch: int
    set_key: str
    reason: str
    scheduled_at: str
    finished_at: str | None


def _ladder_set(r: Row) -> LadderSet:
    return LadderSet(
        r["step"], (r["bot0"], r["bot1"], r["bot2"]), r["epoch"], r["set_key"], r["reason"],
        r["scheduled_at"], r["finished_at"],
    )  # fmt: skip


class LadderStore(MatchStore):
    """The ``ladder_bots``, ``ladder_epochs`` and ``ladder_sets`` tables (a ladder's own
    ratings are :meth:`arena.store.Store.write_ladder_standings`'s)."""

    def ensure_ladder(self, lid: str, config: Mapping[str, object]) -> DealSecret:
        """Create the ladder's row and its epoch 0 (a fresh secret), or mark an existing one
        running again; return epoch 0's secret."""
        stamp = now()
        with self._transaction():
            found = self.conn.execute(
                "SELECT secret_id FROM tournaments WHERE id = ?", (lid,)
            ).fetchone()
            if found is not None:
                self.conn.execute(
                    "UPDATE tournaments SET status = 'running', updated_at = ? WHERE id = ?",
                    (stamp, lid),
                )
                return self._ladder_secret(found[0])
            seed = config["seed"]
            assert isinstance(seed, int)  # every config has its seed
            secret_id = self._draw_secret(seed, stamp)
            self.db.table("tournaments").insert(
                {
                    "id": lid,
                    "config": json.dumps(config, sort_keys=True),
                    "seed": config["seed"],
                    "rounds": 0,
                    "rules": json.dumps(config["rules"], sort_keys=True),
                    "limits": json.dumps(config["limits"], sort_keys=True),
                    "status": "running",
                    "total_matches": 0,
                    "created_at": stamp,
                    "updated_at": stamp,
                    "finished_at": None,
                    "secret_id": secret_id,
                    "kind": LADDER,
                }
            )
            self.conn.execute(
                "INSERT INTO ladder_epochs (ladder_id, epoch, secret_id, first_step, opened_at) "
                "VALUES (?, 0, ?, 0, ?)",
                (lid, secret_id, stamp),
            )
            return self._ladder_secret(secret_id)

    def _draw_secret(self, seed: int, stamp: str) -> int:
        secret = secrecy.new_secret()
        cur = self.conn.execute(
            "INSERT INTO deal_secrets (seed, secret, commitment, origin, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (seed, secret.hex(), secrecy.commitment(secret), LADDER_ORIGIN, stamp),
        )
        return int(cur.lastrowid or 0)

    def _ladder_secret(self, secret_id: int) -> DealSecret:
        rows = self._rows("SELECT * FROM deal_secrets WHERE id = ?", [secret_id])
        return DealSecret.from_row(rows[0])

    def open_epoch(self, lid: str, epoch: int, first_step: int, seed: int) -> LadderEpoch:
        """Draw epoch ``epoch``'s secret and publish its commitment (idempotent)."""
        stamp = now()
        with self._transaction():
            if not self.conn.execute(
                "SELECT 1 FROM ladder_epochs WHERE ladder_id = ? AND epoch = ?", (lid, epoch)
            ).fetchone():
                self.conn.execute(
                    "INSERT INTO ladder_epochs (ladder_id, epoch, secret_id, first_step, "
                    "opened_at) VALUES (?, ?, ?, ?, ?)",
                    (lid, epoch, self._draw_secret(seed, stamp), first_step, stamp),
                )
        return next(e for e in self.ladder_epochs(lid) if e.epoch == epoch)

    def ladder_epochs(self, lid: str) -> list[LadderEpoch]:
        """The ladder's epochs, oldest first."""
        rows = self._rows(
            "SELECT e.epoch, e.first_step, e.opened_at, e.closed_at, s.* FROM ladder_epochs e "
            "JOIN deal_secrets s ON s.id = e.secret_id WHERE e.ladder_id = ? ORDER BY e.epoch",
            [lid],
        )
        return [
            LadderEpoch(
                r["epoch"], r["first_step"], r["opened_at"], r["closed_at"], DealSecret.from_row(r)
            )
            for r in rows
        ]

    def close_epoch(self, lid: str, epoch: int) -> bool:
        """Reveal epoch ``epoch``'s secret when a later epoch has opened and every set of it
        is stored; whether it is closed now."""
        stamp = now()
        with self._transaction():
            ready = self.conn.execute(
                "SELECT e.secret_id FROM ladder_epochs e WHERE e.ladder_id = ? AND e.epoch = ? "
                "AND e.closed_at IS NULL AND EXISTS (SELECT 1 FROM ladder_epochs l "
                "WHERE l.ladder_id = e.ladder_id AND l.epoch > e.epoch) AND NOT EXISTS ("
                "SELECT 1 FROM ladder_sets s WHERE s.ladder_id = e.ladder_id AND s.epoch = e.epoch "
                "AND s.finished_at IS NULL)",
                (lid, epoch),
            ).fetchone()
            if ready is None:
                return False
            self.conn.execute(
                "UPDATE deal_secrets SET revealed_at = coalesce(revealed_at, ?) WHERE id = ?",
                (stamp, ready[0]),
            )
            self.conn.execute(
                "UPDATE ladder_epochs SET closed_at = ? WHERE ladder_id = ? AND epoch = ?",
                (stamp, lid, epoch),
            )
        return True

    def ladder_state(self, lid: str) -> str:
        """A fingerprint of what a ladder's rule is rebuilt from: its field, epochs and sets,
        and the owners of the bots (it changes whenever a run of the ladder schedules or
        stores a set, or its field changes)."""
        parts = [self.conn.execute(sql, (lid,)).fetchall() for sql in LADDER_STATE[2:]]
        owners = self.conn.execute("SELECT id, owner FROM bots ORDER BY id").fetchall()
        return fingerprint([tuple(tuple(r) for r in p) for p in [*parts, owners]])

    def ladder_members(self, lid: str) -> list[LadderMember]:
        """Every bot version that joined the ladder, in the order it joined."""
        rows = self._rows(
            "SELECT l.*, v.bot_id, v.name, b.retired_at FROM ladder_bots l "
            "JOIN bot_versions v ON v.id = l.bot_version_id JOIN bots b ON b.id = v.bot_id "
            "WHERE l.ladder_id = ? ORDER BY l.joined_step, l.bot_version_id",
            [lid],
        )
        return [
            LadderMember(
                r["bot_version_id"],
                r["bot_id"],
                r["name"],
                r["joined_step"],
                r["joined_at"],
                r["left_step"],
                r["left_at"],
                r["left_reason"],
                r["retired_at"],
            )  # fmt: skip
            for r in rows
        ]

    def join_ladder(self, lid: str, version_id: int, step: int) -> None:
        """Enter a version in the field at ``step`` (one that left comes back: its row's
        ``left_*`` are cleared, it keeps its first ``joined_step``)."""
        with self._transaction():
            self.conn.execute(
                "INSERT INTO ladder_bots (ladder_id, bot_version_id, joined_step, joined_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (ladder_id, bot_version_id) DO UPDATE SET "
                "left_step = NULL, left_at = NULL, left_reason = NULL",
                (lid, version_id, step, now()),
            )
            self.conn.execute(
                "INSERT OR IGNORE INTO tournament_bots (tournament_id, bot_version_id) "
                "VALUES (?, ?)",
                (lid, version_id),
            )

    def leave_ladder(self, lid: str, version_id: int, step: int, reason: str) -> None:
        """Take a version out of the field at ``step``: ``retired`` or ``replaced``."""
        with self._transaction():
            self.conn.execute(
                "UPDATE ladder_bots SET left_step = ?, left_at = ?, left_reason = ? "
                "WHERE ladder_id = ? AND bot_version_id = ?",
                (step, now(), reason, lid, version_id),
            )

    def schedule_ladder_set(
        self, lid: str, step: int, bots: tuple[int, int, int], epoch: int, key: str, reason: str
    ) -> None:
        """Record a set as scheduled; refused (ArenaError) on an epoch whose secret is
        revealed, or an epoch not opened."""
        with self._transaction():
            open_ = self.conn.execute(
                "SELECT closed_at IS NULL FROM ladder_epochs WHERE ladder_id = ? AND epoch = ?",
                (lid, epoch),
            ).fetchone()
            if open_ is None or not open_[0]:
                raise ArenaError(
                    f"ladder {lid}: epoch {epoch} is {'closed' if open_ else 'not open'}; no set "
                    "is scheduled on a revealed (or undrawn) deal secret"
                )
            self.conn.execute(
                "INSERT INTO ladder_sets (ladder_id, step, bot0, bot1, bot2, epoch, set_key, "
                "reason, scheduled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (lid, step, *bots, epoch, key, reason, now()),
            )

    def finish_ladder_set(self, lid: str, step: int, records: Sequence[MatchRecord]) -> None:
        """Store a whole set: its matches and its ``finished_at``, in one transaction."""
        with self._transaction():
            self._put_results(lid, records)
            self.conn.execute(
                "UPDATE ladder_sets SET finished_at = ? WHERE ladder_id = ? AND step = ?",
                (now(), lid, step),
            )
            self.conn.execute(
                "UPDATE tournaments SET total_matches = (SELECT COUNT(*) FROM matches "
                "WHERE tournament_id = ?), rounds = ? WHERE id = ?",
                (lid, step + 1, lid),
            )

    def ladder_sets(self, lid: str, *, unfinished: bool = False) -> list[LadderSet]:
        """The ladder's sets in step order (``unfinished``: only those not stored)."""
        where = " AND finished_at IS NULL" if unfinished else ""
        rows = self._rows(
            f"SELECT * FROM ladder_sets WHERE ladder_id = ?{where} ORDER BY step", [lid]
        )
        return [_ladder_set(r) for r in rows]

    def finished_set_count(self, lid: str) -> int:
        """How many of the ladder's sets are stored."""
        row = self.conn.execute(
            "SELECT COUNT(finished_at) FROM ladder_sets WHERE ladder_id = ?", (lid,)
        ).fetchone()
        return int(row[0])

    def ladder_places(self, lid: str) -> list[tuple[int, int, int, int, int, int, int, int]]:
        """Every stored match of the ladder as ``(step, seating, bot0, bot1, bot2, place0,
        place1, place2)``, by step and seating."""
        return self.conn.execute(
            "SELECT round, seating, bot0, bot1, bot2, place0, place1, place2 FROM matches "
            "WHERE tournament_id = ? ORDER BY round, seating",
            (lid,),
        ).fetchall()

    def ladder_epoch_count(self, ladder_id: str) -> int:
        """How many epochs the ladder has opened."""
        return int(
            self.conn.execute(
                "SELECT COUNT(*) FROM ladder_epochs WHERE ladder_id = ?", (ladder_id,)
            ).fetchone()[0]
        )

    def ladder_set_counts(self, ladder_id: str) -> dict[int, tuple[int, int]]:
        """Per bot version: its finished sets in the ladder and the step of its latest."""
        seats = " UNION ALL ".join(
            f"SELECT bot{i} AS v, step FROM ladder_sets "
            "WHERE ladder_id = ? AND finished_at IS NOT NULL"
            for i in range(3)
        )
        rows = self.conn.execute(
            f"SELECT v, COUNT(*), MAX(step) FROM ({seats}) GROUP BY v", (ladder_id,) * 3
        )
        return {int(v): (int(n), int(last)) for v, n, last in rows}

    def ladder_epoch_rows(self, ladder_id: str, limit: int) -> list[ListedEpoch]:
        """The ladder's ``limit`` latest epochs, newest first, with their finished ``sets``,
        their secret's commitment and, once the epoch has closed (``closed_at``), the revealed
        ``secret``."""
        rows = self._rows(
            "SELECT e.*, s.commitment, s.secret FROM ladder_epochs e "
            "JOIN deal_secrets s ON s.id = e.secret_id WHERE e.ladder_id = ? "
            "ORDER BY e.epoch DESC LIMIT ?",
            [ladder_id, limit],
        )
        counts = dict(
            self.conn.execute(
                "SELECT epoch, COUNT(*) FROM ladder_sets WHERE ladder_id = ? AND epoch >= ? "
                "AND finished_at IS NOT NULL GROUP BY epoch",
                (ladder_id, rows[-1]["epoch"] if rows else 0),
            ).fetchall()
        )
        return [
            ListedEpoch(
                r["epoch"],
                r["first_step"],
                counts.get(r["epoch"], 0),
                r["commitment"],
                # never shown before its epoch closes
                None if r["closed_at"] is None else r["secret"],
                r["opened_at"],
                r["closed_at"],
            )  # fmt: skip
            for r in rows
        ]

    def ladder_set_rows(
        self,
        ladder_id: str,
        *,
        running: bool,
        limit: int,
        version: int | None = None,
    ) -> list[LadderSet]:
        """The ladder's sets in flight (``running``: ``finished_at`` NULL) or finished, newest
        step first, at most ``limit``; only those of one bot ``version`` when given."""
        where = "ladder_id = ? AND finished_at IS " + ("NULL" if running else "NOT NULL")
        params: list[object] = [ladder_id]
        if version is not None:
            where += " AND ? IN (bot0, bot1, bot2)"
            params.append(version)
        rows = self._rows(
            f"SELECT * FROM ladder_sets WHERE {where} ORDER BY step DESC LIMIT ?",
            [*params, limit],
        )
        return [_ladder_set(r) for r in rows]
