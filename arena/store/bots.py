"""Bots and their versions in the store (``bots``, ``bot_versions``): submitting a version,
looking versions up, retiring a bot, and the reads of bots that the listings and the site's
pages make (never a bot's source).

A bot version is an :class:`~arena.sandbox.runtime.Artifact` (language, files, entry point):
a one-file bot keeps its file in ``source`` (under ``filename``), a multi-file bot all its
files in ``files`` (:func:`pack_files`) and its entry file's text in ``source``. The sources
are read only by the tournament runner; listings and the site never select them.
"""

from __future__ import annotations

import hashlib
import io
import json
import tokenize
from base64 import b64decode, b64encode
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import NotFound
from arena.sandbox.runtime import Artifact
from arena.store.base import StoreBase, among, counted, fingerprint
from arena.store.kinds import HUMAN_OWNER
from arena.store.rows import ListedVersion, StoredBot, VersionRef, VersionSummary
from arena.store.schema import now


def sha256_text(source: str) -> str:
    """The hex SHA-256 of a text (UTF-8)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def pack_files(files: tuple[tuple[str, bytes], ...]) -> bytes:
    """The ``files`` column of a multi-file bot: JSON ``[[path, base64], ...]``, by path."""
    return json.dumps([[p, b64encode(d).decode()] for p, d in files]).encode()


def unpack_files(blob: bytes) -> tuple[tuple[str, bytes], ...]:
    """Inverse of :func:`pack_files`."""
    return tuple((p, b64decode(d)) for p, d in json.loads(blob))


def one_file(language: str, source: str, filename: str) -> Artifact:
    """The artifact of a one-file bot (a ``.py`` file, a ``bot.c``)."""
    return Artifact(language, ((filename, source.encode("utf-8")),), filename)


_LAYOUT: frozenset[int] = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
     tokenize.ENCODING, tokenize.ENDMARKER}
)  # fmt: skip


_STARTS: frozenset[int] = frozenset(
    {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL}
)


def code_digest(source: str) -> str:
    """The SHA-256 of a bot's code with what does not change how it plays set aside: its
    comments, blank lines and layout (indentation as tokens, not spaces), its docstrings (a
    string standing alone as a statement) and the strings assigned to ``name`` and ``author``
    (the names a copy changes first). Two sources with one digest differ by nothing else:
    the site's clone flag calls them near-identical (docs/ladder.md). A source Python cannot
    tokenize keeps its plain SHA-256."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return sha256_text(source)
    kept: list[str] = []
    statement_start = True
    for i, tok in enumerate(tokens):
        if tok.type in _LAYOUT:
            if tok.type in _STARTS:
                statement_start = True
            if tok.type in (tokenize.INDENT, tokenize.DEDENT):
                kept.append(tokenize.tok_name[tok.type])
            continue
        follows = tokens[i + 1].type if i + 1 < len(tokens) else tokenize.ENDMARKER
        if tok.type == tokenize.STRING and statement_start and follows in _LAYOUT:
            continue  # a docstring, or a string statement: no effect on play
        if (
            tok.type == tokenize.STRING
            and len(kept) >= 2
            and kept[-1] == "="
            and kept[-2] in ("name", "author")
        ):
            kept.append("''")
        else:
            kept.append(tok.string)
        statement_start = False
    return sha256_text("\x1f".join(kept))


def _code_digest(artifact: Artifact, text: str) -> str:
    """What the clone flag compares: a one-file Python bot's :func:`code_digest`; any other
    bot's artifact hash (its code is compared byte for byte)."""
    single = len(artifact.files) == 1
    return code_digest(text) if artifact.language == "python" and single else artifact.sha256


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
    language: str = "python"
    entry: str = ""
    files: bytes | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> BotVersion:
        """Build from a ``bot_versions`` row."""
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})

    @property
    def artifact(self) -> Artifact:
        """The stored bot as the sandbox runs it (its hash is :attr:`sha256`)."""
        if self.files is None:
            return one_file(self.language, self.source, self.filename)
        return Artifact(self.language, unpack_files(self.files), self.entry)


class BotStore(StoreBase):
    """The ``bots`` and ``bot_versions`` tables."""

    def latest_version(self, name: str) -> BotVersion | None:
        """The latest stored version of the bot called ``name``, if any."""
        rows = self._rows(
            "SELECT v.* FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            "WHERE b.name = ? ORDER BY v.version DESC LIMIT 1",
            [name],
        )
        return BotVersion.from_row(rows[0]) if rows else None

    def add_bot_version(
        self,
        name: str,
        source: str | Artifact,
        filename: str,
        author: str | None = None,
        owner: str | None = None,
        *,
        guard: Callable[[], str | None] | None = None,
    ) -> tuple[BotVersion, bool]:
        """Store ``source`` as a new version of bot ``name`` unless it equals the latest one.

        ``source`` is a Python file's text (stored under ``filename``) or an artifact of any
        language; its :attr:`Artifact.sha256 <arena.sandbox.runtime.Artifact.sha256>` is the
        version's ``sha256``.

        A new name is bound to ``owner`` (an owner id, see :mod:`arena.tournaments.owners`); so is a
        name stored without one. Whether this owner may add a version is the caller's check
        (:func:`arena.tournaments.entrants.check_owner`), passed as ``guard``: it runs inside
        the write's transaction, so no other process can bind the name between the check and
        the write (a check made earlier, before seconds of sandbox checks, can be stale); it
        raises to refuse, and returns the owner to bind (replacing ``owner``). Returns the (new
        or latest) version and whether it was created.
        """
        artifact = one_file("python", source, filename) if isinstance(source, str) else source
        single = len(artifact.files) == 1 and artifact.files[0][0] == artifact.entry
        if single:
            filename = artifact.entry
        entry_bytes = dict(artifact.files)[artifact.entry]
        text = entry_bytes.decode("utf-8", "replace")
        files = None if single else pack_files(artifact.files)
        digest = artifact.sha256
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
                "author, submitted_at, language, entry, files, code_digest) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (bot_id, version, digest, text, filename, name, author, stamp)
                + (artifact.language, artifact.entry, files, _code_digest(artifact, text)),
            )
        created = self.latest_version(name)
        assert created is not None
        return created, True

    def code_twins(self, versions: Sequence[int] | None = None) -> list[tuple[int, int, str, str]]:
        """Pairs of versions whose bots have different owners (a bot stored without one counts
        as its own owner) and the same code, each pair in both orders: ``(version,
        other version, "identical", the SHA-256 of its text)`` for the same language and files
        (whatever the files are called), ``(...,
        "near-identical", the shared code digest)`` for the same :func:`code_digest` only.
        Only the pairs of ``versions`` when given. Neither source leaves the store."""
        mine = "" if versions is None else f" AND a.id IN ({', '.join('?' * len(versions))})"
        rows = self.conn.execute(
            "SELECT a.id, b.id, a.language = b.language AND a.source = b.source"
            " AND a.files IS b.files, a.source, a.code_digest FROM bot_versions a"
            " JOIN bot_versions b ON b.code_digest = a.code_digest AND b.id != a.id"
            " JOIN bots ba ON ba.id = a.bot_id JOIN bots bb ON bb.id = b.bot_id"
            " WHERE ba.id != bb.id"
            " AND (ba.owner IS NULL OR bb.owner IS NULL OR ba.owner != bb.owner)"
            + mine
            + " ORDER BY a.id, b.id",
            [int(v) for v in versions or ()],
        )
        return [
            (int(a), int(b), "identical", sha256_text(text))
            if same
            else (int(a), int(b), "near-identical", code)
            for a, b, same, text, code in rows
        ]

    def bot_owners(self) -> dict[str, str | None]:
        """Every bot name with its owner id (None: stored without one, by a library call)."""
        return {r[0]: r[1] for r in self.conn.execute("SELECT name, owner FROM bots")}

    def latest_versions(self) -> list[BotVersion]:
        """The latest version of every submitted bot, by name."""
        rows = self._rows(
            "SELECT v.* FROM bot_versions v JOIN ("
            "  SELECT bot_id, MAX(version) AS version FROM bot_versions GROUP BY bot_id"
            ") last USING (bot_id, version) JOIN bots b ON b.id = v.bot_id "
            "WHERE b.owner IS NOT ? ORDER BY v.name",
            [HUMAN_OWNER],
        )
        return [BotVersion.from_row(r) for r in rows]

    def bot_version(self, version_id: int) -> BotVersion:
        """The bot version with this id."""
        rows = self._rows("SELECT * FROM bot_versions WHERE id = ?", [version_id])
        if not rows:
            raise NotFound(f"no bot version {version_id}")
        return BotVersion.from_row(rows[0])

    def bot_listing(self) -> list[ListedVersion]:
        """Every bot version with its bot's name and owner, oldest first within each bot."""
        rows = self.conn.execute(
            "SELECT v.id, v.name, v.version, v.sha256, v.author, v.filename, v.submitted_at, "
            "length(v.source) AS size, b.owner FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            "WHERE b.owner IS NOT ? ORDER BY v.name, v.version",
            (HUMAN_OWNER,),
        )
        return [ListedVersion(*r) for r in rows]

    def check_bot(self, name: str | None) -> None:
        """Refuse a ``--bot`` name that no stored bot has (None: no filter, nothing to check)."""
        if name is None:
            return
        if self.conn.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone() is None:
            raise NotFound(f"no bot named {name!r} in {self.path} (arena bots lists them)")

    def version_by_key(self, name: str, sha256: str) -> BotVersion | None:
        """The stored version of bot ``name`` with this source hash."""
        rows = self._rows(
            "SELECT * FROM bot_versions WHERE name = ? AND sha256 = ? ORDER BY id LIMIT 1",
            [name, sha256],
        )
        return BotVersion.from_row(rows[0]) if rows else None

    # -- retiring (a ladder's field) ----------------------------------------------------------

    def set_retired(self, name: str, retired: bool) -> bool:
        """Mark bot ``name`` retired (out of every ladder's field) or back; whether it
        changed."""
        with self._transaction():
            cur = self.conn.execute(
                "UPDATE bots SET retired_at = ? WHERE name = ? AND (retired_at IS NULL) = ?",
                (now() if retired else None, name, retired),
            )
        return cur.rowcount > 0

    def is_retired(self, name: str) -> bool:
        """Whether bot ``name`` is retired (False: in the field, or no such bot)."""
        row = self.conn.execute(
            "SELECT retired_at IS NOT NULL FROM bots WHERE name = ?", (name,)
        ).fetchone()
        return bool(row and row[0])

    def ladder_field(self, exclude: Collection[str]) -> list[BotVersion]:
        """The latest version of every bot not retired, but those named in ``exclude`` (the
        bundled bots, which play only when named), by name."""
        rows = self._rows(
            "SELECT v.* FROM bot_versions v JOIN bots b ON b.id = v.bot_id JOIN ("
            "  SELECT bot_id, MAX(version) AS version FROM bot_versions GROUP BY bot_id"
            ") last USING (bot_id, version) WHERE b.retired_at IS NULL ORDER BY v.name"
        )
        return [BotVersion.from_row(r) for r in rows if r["name"] not in exclude]

    # -- the site's reads: no source -----------------------------------------------------

    def bot_rows(self) -> list[StoredBot]:
        """Every bot, oldest first (not the stand-ins of people in human games)."""
        rows = self.conn.execute(
            "SELECT id, name, created_at FROM bots WHERE owner IS NOT ? ORDER BY id", (HUMAN_OWNER,)
        )
        return [StoredBot(*r) for r in rows]

    def version_refs(self) -> list[VersionRef]:
        """Every bot version (no source), with its bot's latest version number and whether
        its bot is retired."""
        rows = self.conn.execute(
            "SELECT v.id, v.bot_id, v.name, v.version, v.author, "
            "(SELECT MAX(version) FROM bot_versions w WHERE w.bot_id = v.bot_id) AS latest, "
            "(SELECT retired_at IS NOT NULL FROM bots b WHERE b.id = v.bot_id) AS retired "
            "FROM bot_versions v"
        )
        return [VersionRef(r[0], r[1], r[2], r[3], r[4], r[5], retired=bool(r[6])) for r in rows]

    def version_rows(self, versions: Sequence[int]) -> list[VersionSummary]:
        """Each version (no source), newest first, with the seats it played in round robins
        and ladders and its mean place there (from the running totals)."""
        rows = self.conn.execute(
            "SELECT v.version, v.sha256, v.filename, v.author, v.submitted_at, "
            "COALESCE(SUM(t.seats), 0), CAST(SUM(t.place_sum) AS REAL) / SUM(t.seats) "
            "FROM bot_versions v LEFT JOIN seat_totals t ON t.bot_version_id = v.id "
            f"AND {counted('t.tournament_id')} WHERE {among('v.id', versions)} "
            "GROUP BY v.id ORDER BY v.version DESC",
            versions,
        )
        return [VersionSummary(*r) for r in rows]

    def bot_states(self) -> dict[int, str]:
        """A fingerprint per bot of its own rows (the bot, its versions without source): what
        an incremental render compares."""
        rows = self.conn.execute(
            "SELECT b.id, b.name, b.created_at, b.retired_at, v.id, v.version, v.sha256, "
            "v.filename, v.name, v.author, v.submitted_at FROM bots b "
            "LEFT JOIN bot_versions v ON v.bot_id = b.id ORDER BY b.id, v.id"
        ).fetchall()
        grouped: dict[int, list[tuple[object, ...]]] = {}
        for r in rows:
            grouped.setdefault(r[0], []).append(tuple(r))
        return {b: fingerprint(rs) for b, rs in grouped.items()}

    def bot_tournaments(self) -> dict[int, set[str]]:
        """The tournaments each bot (by bot id) was entered in or played in a ladder of."""
        out: dict[int, set[str]] = {}
        for bot, tid in self.conn.execute(
            "SELECT v.bot_id, t.tournament_id FROM tournament_bots t "
            "JOIN bot_versions v ON v.id = t.bot_version_id "
            "UNION SELECT v.bot_id, l.ladder_id FROM ladder_bots l "
            "JOIN bot_versions v ON v.id = l.bot_version_id "
            "UNION SELECT v.bot_id, s.tournament_id FROM seat_totals s "
            "JOIN bot_versions v ON v.id = s.bot_version_id"
        ):
            out.setdefault(bot, set()).add(tid)
        return out
