"""Authors of ``arena web``: their names and the hashes of their tokens, and what an author's
own page reads (their bots, and those bots' faults and logs).

The token is never stored: only its owner id (:func:`arena.tournaments.owners.owner_id`, a
salted SHA-256), which is also what ``bots.owner`` holds for the bots the author stored. A
token is looked up by that hash (an index lookup on a value an attacker cannot choose without
knowing a token), so no comparison of secrets happens in Python at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from arena.errors import ArenaError, NotFound
from arena.store.base import StoreBase
from arena.store.schema import now


@dataclass(frozen=True)
class Author:
    """One row of ``authors``: a name allowed to upload bots with its token."""

    name: str
    created_at: str
    revoked_at: str | None
    owner: str
    """The owner id of the author's token (the hash stored; never the token)."""

    @property
    def revoked(self) -> bool:
        """Whether the token was taken back (``arena authors revoke``)."""
        return self.revoked_at is not None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Author:
        """From an ``authors`` row."""
        return cls(row["name"], row["created_at"], row["revoked_at"], row["token_hash"])


@dataclass(frozen=True)
class AuthorLog:
    """What one of an author's bots printed in one match (capped when stored)."""

    match_id: str
    name: str
    version: int
    text: str
    truncated: bool


CheckStatus = Literal["pending", "stored", "unchanged", "refused"]

STOPPED: str = "the web service stopped before this upload was checked; upload it again"
"""The reason given to an upload still ``pending`` when ``arena web`` starts again."""


@dataclass(frozen=True)
class UploadCheck:
    """One bot's latest upload through ``arena web`` and its check: ``pending`` until done,
    then ``stored`` (a new ``version``), ``unchanged`` (the same content as ``version``) or
    ``refused`` (``reason``: one line)."""

    name: str
    author: str
    status: CheckStatus
    submitted_at: str
    version: int | None = None
    reason: str | None = None
    checked_at: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (what ``GET /api/bots/NAME`` answers)."""
        return {
            "name": self.name,
            "status": self.status,
            "version": self.version,
            "reason": self.reason,
            "submitted_at": self.submitted_at,
            "checked_at": self.checked_at,
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> UploadCheck:
        """From an ``upload_checks`` row."""
        return cls(
            row["name"], row["author"], row["status"], row["submitted_at"], row["version"],
            row["reason"], row["checked_at"],
        )  # fmt: skip


class AuthorStore(StoreBase):
    """The ``authors`` table, the checks of their uploads, and the private reads of an
    author's page."""

    def add_author(self, name: str, owner: str) -> Author:
        """Store a new author with the owner id of their token (:class:`ArenaError`: the name
        is taken, revoked or not)."""
        try:
            with self._transaction():
                self.conn.execute(
                    "INSERT INTO authors (name, token_hash, created_at) VALUES (?, ?, ?)",
                    (name, owner, now()),
                )
        except sqlite3.IntegrityError:
            raise ArenaError(f"author {name!r} already exists in {self.path}") from None
        return self.author(name)

    def author(self, name: str) -> Author:
        """Author ``name`` (:class:`NotFound`: no such author)."""
        rows = self._rows("SELECT * FROM authors WHERE name = ?", [name])
        if not rows:
            raise NotFound(f"no author {name!r} in {self.path}")
        return Author.from_row(rows[0])

    def author_by_owner(self, owner: str) -> Author | None:
        """The author whose token has owner id ``owner``, revoked or not (None: nobody's)."""
        rows = self._rows("SELECT * FROM authors WHERE token_hash = ?", [owner])
        return Author.from_row(rows[0]) if rows else None

    def author_list(self) -> list[Author]:
        """Every author, by name."""
        return [Author.from_row(r) for r in self._rows("SELECT * FROM authors ORDER BY name")]

    def revoke_author(self, name: str) -> tuple[Author, bool]:
        """Revoke author ``name``'s token; whether it changed (False: already revoked)."""
        author = self.author(name)
        if author.revoked:
            return author, False
        with self._transaction():
            self.conn.execute(
                "UPDATE authors SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                (now(), name),
            )
        return self.author(name), True

    def rotate_author(self, name: str, owner: str) -> Author:
        """Give author ``name`` the token of owner id ``owner`` in place of their old one, and
        their bots with it, in one transaction (:class:`ArenaError`: revoked)."""
        author = self.author(name)
        if author.revoked:
            raise ArenaError(f"author {name!r} is revoked: add them under a new name")
        with self._transaction():
            self.conn.execute("UPDATE authors SET token_hash = ? WHERE name = ?", (owner, name))
            self.conn.execute("UPDATE bots SET owner = ? WHERE owner = ?", (owner, author.owner))
        return self.author(name)

    def owned_bots(self, owner: str) -> list[str]:
        """The names of the bots bound to owner id ``owner``, by name."""
        rows = self.conn.execute("SELECT name FROM bots WHERE owner = ? ORDER BY name", (owner,))
        return [r[0] for r in rows]

    def owned_logs(self, owner: str, limit: int) -> list[AuthorLog]:
        """What the bots of owner id ``owner`` printed, newest matches first, at most
        ``limit`` seats."""
        rows = self._rows(
            "SELECT l.match_id, v.name, v.version, l.text, l.truncated FROM bot_logs l "
            "JOIN bot_versions v ON v.id = l.bot_version_id JOIN bots b ON b.id = v.bot_id "
            "JOIN matches m ON m.id = l.match_id WHERE b.owner = ? "
            "ORDER BY m.finished_at DESC, l.match_id, l.seat LIMIT ?",
            [owner, limit],
        )
        return [
            AuthorLog(r["match_id"], r["name"], r["version"], r["text"], bool(r["truncated"]))
            for r in rows
        ]

    def record_check(self, check: UploadCheck) -> None:
        """Keep ``check`` as its author's latest upload of its bot (replacing the one before)."""
        with self._transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO upload_checks (name, author, status, version, reason, "
                "submitted_at, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    check.name, check.author, check.status, check.version, check.reason,
                    check.submitted_at, check.checked_at,
                ),
            )  # fmt: skip

    def upload_check(self, author: str, name: str) -> UploadCheck | None:
        """``author``'s latest upload of bot ``name`` through ``arena web`` (None: none)."""
        rows = self._rows(
            "SELECT * FROM upload_checks WHERE author = ? AND name = ?", [author, name]
        )
        return UploadCheck.from_row(rows[0]) if rows else None

    def upload_checks(self, author: str) -> list[UploadCheck]:
        """The latest upload of each bot ``author`` uploaded, by name."""
        rows = self._rows("SELECT * FROM upload_checks WHERE author = ? ORDER BY name", [author])
        return [UploadCheck.from_row(r) for r in rows]

    def abandon_pending_checks(self) -> int:
        """Refuse every upload still ``pending`` (its check died with the process that ran
        it), saying so; how many."""
        with self._transaction():
            cur = self.conn.execute(
                "UPDATE upload_checks SET status = 'refused', reason = ?, checked_at = ? "
                "WHERE status = 'pending'",
                (STOPPED, now()),
            )
        return cur.rowcount
