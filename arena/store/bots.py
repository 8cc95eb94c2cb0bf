"""Bots and their versions in the store: submitting a version, looking versions up.

A bot's ``source`` is stored here and read only by the tournament runner; listings and the
site never select it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.errors import NotFound
from arena.store.base import StoreBase
from arena.store.rows import ListedVersion
from arena.store.schema import now


def sha256_text(source: str) -> str:
    """The hex SHA-256 of a bot's source (UTF-8)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BotVersion:
    """One stored version of a bot."""

    id: int
    bot_id: int
    name: str
    version: int
    sha256: str
    source: str
    filename: str
    author: str | None
    submitted_at: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> BotVersion:
        """Build from a ``bot_versions`` row."""
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


class BotRecords(StoreBase):
    """The ``bots`` and ``bot_versions`` tables."""

    def latest_version(self, name: str) -> BotVersion | None:
        """The latest stored version of the bot called ``name``, if any."""
        rows = self.rows(
            "SELECT v.* FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            "WHERE b.name = ? ORDER BY v.version DESC LIMIT 1",
            [name],
        )
        return BotVersion.from_row(rows[0]) if rows else None

    def add_bot_version(
        self,
        name: str,
        source: str,
        filename: str,
        author: str | None = None,
        owner: str | None = None,
        *,
        guard: Callable[[], str | None] | None = None,
    ) -> tuple[BotVersion, bool]:
        """Store ``source`` as a new version of bot ``name`` unless it equals the latest one.

        A new name is bound to ``owner`` (an owner id, see :mod:`arena.tournaments.owners`); so is a
        name stored without one. Whether this owner may add a version is the caller's check
        (:func:`arena.tournaments.entrants.check_owner`), passed as ``guard``: it runs inside
        the write's transaction, so no other process can bind the name between the check and
        the write (a check made earlier, before seconds of sandbox checks, can be stale); it
        raises to refuse, and returns the owner to bind (replacing ``owner``). Returns the (new
        or latest) version and whether it was created.
        """
        digest = sha256_text(source)
        with self._transaction():
            latest = self.latest_version(name)
            if latest is not None and latest.sha256 == digest:
                return latest, False
            if guard is not None:
                owner = guard()
            stamp = now()
            if latest is None:
                cur = self.conn.execute(
                    "INSERT INTO bots (name, created_at) VALUES (?, ?)", (name, stamp)
                )
                bot_id, version = int(cur.lastrowid or 0), 1
            else:
                bot_id, version = latest.bot_id, latest.version + 1
            if owner is not None:
                self.conn.execute(
                    "UPDATE bots SET owner = ? WHERE id = ? AND owner IS NULL", (owner, bot_id)
                )
            self.conn.execute(
                "INSERT INTO bot_versions (bot_id, version, sha256, source, filename, name, "
                "author, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (bot_id, version, digest, source, filename, name, author, stamp),
            )
        created = self.latest_version(name)
        assert created is not None
        return created, True

    def bot_owners(self) -> dict[str, str | None]:
        """Every bot name with its owner id (None: stored without one, by a library call)."""
        return {r[0]: r[1] for r in self.conn.execute("SELECT name, owner FROM bots")}

    def latest_versions(self) -> list[BotVersion]:
        """The latest version of every submitted bot, by name."""
        rows = self.rows(
            "SELECT v.* FROM bot_versions v JOIN ("
            "  SELECT bot_id, MAX(version) AS version FROM bot_versions GROUP BY bot_id"
            ") last USING (bot_id, version) ORDER BY v.name"
        )
        return [BotVersion.from_row(r) for r in rows]

    def bot_version(self, version_id: int) -> BotVersion:
        """The bot version with this id."""
        rows = self.rows("SELECT * FROM bot_versions WHERE id = ?", [version_id])
        if not rows:
            raise NotFound(f"no bot version {version_id}")
        return BotVersion.from_row(rows[0])

    def bot_listing(self) -> list[ListedVersion]:
        """Every bot version with its bot's name and owner, oldest first within each bot."""
        rows = self.conn.execute(
            "SELECT v.id, v.name, v.version, v.sha256, v.author, v.filename, v.submitted_at, "
            "length(v.source) AS size, b.owner FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            "ORDER BY v.name, v.version"
        )
        return [ListedVersion(*r) for r in rows]
