"""The SQLite store (``arena.db``) through sqlite-utils: schema, bots, tournaments, results.

Only the parent process writes (workers return plain records); writes are batched, one
transaction per batch, and idempotent: every row is upserted by its natural key, so storing a
batch twice changes nothing. The schema is documented for users in ``docs/schema.md``.

One module per entity of the database, each a part of the one :class:`Store` holding every
read and write of that entity's tables, whoever calls it (a run, a listing, the site):

- :mod:`arena.store.dbfile`: the file (created private, connected, locked, errors in one line)
- :mod:`arena.store.schema`: the one schema (version 1) and creating it
- :mod:`arena.store.base`: opening and checking a database, transactions, live run status,
  the SQL fragments the entities share
- :mod:`arena.store.bots`: bots and their versions (:class:`~arena.store.bots.BotStore`)
- :mod:`arena.store.tournaments`: tournaments, their deal secrets and entrants
- :mod:`arena.store.matches`: stored matches, their seats and hands
- :mod:`arena.store.faults`: the faults and logs of stored matches
- :mod:`arena.store.totals`: running totals of the stored matches per bot version and pair,
  kept in the transaction that stores them (what the pages read instead of lifetime sums)
- :mod:`arena.store.standings`: the derived tables (ratings, pairwise, collusion reports,
  the reports cache), replaced whole
- :mod:`arena.store.ladder`: a ladder's field, deal-secret epochs and sets
- :mod:`arena.store.authors`: the authors of ``arena web`` (token hashes) and their own page
- :mod:`arena.store.humans`: human games (a person against two bots), each stored whole
- :mod:`arena.store.kinds`: the one table of kinds of run
- :mod:`arena.store.rows`: the typed, frozen rows every read returns (never a dict)
"""

from __future__ import annotations

from arena.store.authors import Author, AuthorLog, AuthorStore, UploadCheck
from arena.store.bots import BotStore, BotVersion, sha256_text
from arena.store.faults import FaultStore
from arena.store.humans import HumanGameStore
from arena.store.ladder import LadderEpoch, LadderMember, LadderSet, LadderStore
from arena.store.matches import LOG_CAP, MatchStore
from arena.store.rows import (
    BotFault,
    CachedReports,
    DuplicateHand,
    DuplicateSeat,
    FinishedSeat,
    FlaggedClone,
    ListedEpoch,
    ListedFault,
    ListedMatch,
    ListedTournament,
    ListedVersion,
    LogText,
    OpponentTotal,
    PlaceCount,
    PlaceTotal,
    PlayCounts,
    SeatPlace,
    SeatTiming,
    StoredBot,
    StoredDeal,
    StoredFault,
    StoredMatch,
    StoredSeat,
    StoredTournament,
    VersionRef,
    VersionSummary,
    WorkerCheck,
)
from arena.store.schema import COMPARE, HUMAN, LADDER, ROUND_ROBIN, VERSION, now
from arena.store.standings import LadderLine, StandingStore
from arena.store.tournaments import TournamentStore

__all__ = [
    "Author",
    "AuthorLog",
    "BotFault",
    "CachedReports",
    "DuplicateHand",
    "FlaggedClone",
    "LadderLine",
    "ListedEpoch",
    "OpponentTotal",
    "PlayCounts",
    "FinishedSeat",
    "ListedFault",
    "ListedMatch",
    "ListedTournament",
    "ListedVersion",
    "LogText",
    "DuplicateSeat",
    "SeatPlace",
    "StoredDeal",
    "PlaceCount",
    "PlaceTotal",
    "SeatTiming",
    "StoredBot",
    "StoredFault",
    "StoredMatch",
    "StoredSeat",
    "StoredTournament",
    "UploadCheck",
    "WorkerCheck",
    "VersionRef",
    "VersionSummary",
    "COMPARE",
    "HUMAN",
    "LADDER",
    "LadderEpoch",
    "LadderMember",
    "LadderSet",
    "LOG_CAP",
    "VERSION",
    "ROUND_ROBIN",
    "BotVersion",
    "Store",
    "now",
    "sha256_text",
]


class Store(
    AuthorStore,
    HumanGameStore,
    BotStore,
    TournamentStore,
    LadderStore,
    MatchStore,
    FaultStore,
    StandingStore,
):
    """An open ``arena.db`` (see :class:`arena.store.base.StoreBase` for opening it): every
    read and write of the arena's database goes through one of these, each method on the
    part of the entity whose tables it reads or writes. Every read returns typed rows
    (:mod:`arena.store.rows`), never a dict."""
