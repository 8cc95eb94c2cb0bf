"""The SQLite store (``arena.db``) through sqlite-utils: schema, bots, tournaments, results.

Only the parent process writes (workers return plain records); writes are batched, one
transaction per batch, and idempotent: every row is upserted by its natural key, so storing a
batch twice changes nothing. The schema is documented for users in ``docs/schema.md``.

One module per concern, all of them methods of the one :class:`Store`:

- :mod:`arena.store.dbfile`: the file (created private, connected, locked, errors in one line)
- :mod:`arena.store.schema`: the one schema (version 1) and creating it
- :mod:`arena.store.base`: opening and checking a database, transactions, live run status
- :mod:`arena.store.bots`: bots and their versions
- :mod:`arena.store.tournaments`: tournaments, their deal secrets and entrants
- :mod:`arena.store.results`: finished matches, and the standings and reports derived from them
- :mod:`arena.store.totals`: running totals of the stored matches per bot version and pair,
  kept in the transaction that stores them (what the pages read instead of lifetime sums)
- :mod:`arena.store.ladder`: a ladder's field, deal-secret epochs and sets, retiring bots
- :mod:`arena.store.pages`: what the static site reads
- :mod:`arena.store.listings`: what the listing commands read
- :mod:`arena.store.authors`: the authors of ``arena web`` (token hashes) and their own page
- :mod:`arena.store.humans`: human games (a person against two bots), each stored whole
- :mod:`arena.store.sitestate`: what an incremental render compares, bounded match lists,
  a ladder's tables as its page reads them
"""

from __future__ import annotations

from arena.store.authors import Author, AuthorLog, AuthorRecords
from arena.store.bots import BotRecords, BotVersion, sha256_text
from arena.store.humans import HumanGames
from arena.store.ladder import LadderEpoch, LadderMember, LadderRecords, LadderSet
from arena.store.listings import ListingReads
from arena.store.pages import PageReads
from arena.store.results import LOG_CAP, MatchRecords
from arena.store.rows import (
    BotFault,
    DuplicateSeat,
    FinishedSeat,
    ListedFault,
    ListedMatch,
    ListedTournament,
    ListedVersion,
    LogText,
    PlaceCount,
    PlaceTotal,
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
)
from arena.store.schema import COMPARE, HUMAN, LADDER, ROUND_ROBIN, VERSION, now
from arena.store.sitestate import SiteState
from arena.store.tournaments import TournamentRecords

__all__ = [
    "Author",
    "AuthorLog",
    "BotFault",
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
    AuthorRecords,
    HumanGames,
    BotRecords,
    TournamentRecords,
    LadderRecords,
    MatchRecords,
    PageReads,
    ListingReads,
    SiteState,
):
    """An open ``arena.db`` (see :class:`arena.store.base.StoreBase` for opening it): every
    read and write of the arena's database goes through one of these."""
