"""Deal secrecy: the secret behind a tournament's deals, its commitment, and verifying deals.

A tournament's public match seeds (:func:`arena.matches.scheduler.match_seed`) follow from public
facts: the tournament seed, the three bots' names and source hashes, and the round. Dealing from
them would let a bot that knows its opponents try every round against its own first hand and then
know every card of the match. So in a tournament the engine deals from a *deal seed*::

    deal seed = HMAC-SHA256(secret, "arena/deal/" + public match seed), as 64 hex digits

where the secret is 32 bytes from :mod:`secrets`, kept in the database, which bots never see.
The secret belongs to (database, tournament seed): tournaments of one seed share it, so adding
a bot leaves the deals of the existing sets unchanged, and duplicate play, resume and serial ==
parallel work as before. Commit, then reveal: from its creation a tournament shows the
commitment ``SHA-256(secret)``; once it has finished it shows the secret itself, and anyone can
recompute every stored deal (:func:`verify`, or the standard-library recipe in
docs/tournaments.md). A revealed secret is never drawn again for a new tournament: an author
who read it could bake the deals into a new bot.

The engine's API (``deal_for(seed, k)``, ``play_match(seed=...)``) is unchanged: the secret
enters only in the tournament layer. The recipe above is :func:`deal_seed`, which lives beside
the public seeds in :mod:`arena.matches.scheduler` (the schedule gives every match its deal seed)
and is re-exported here; this module builds on the scheduler, never the other way round.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from arena.engine import Rules, deal_for, first_dealer
from arena.errors import ArenaError
from arena.matches.scheduler import Entrant, deal_seed, match_seed
from arena.rules import DealDict

if TYPE_CHECKING:
    from arena.store import Store

SECRET_BYTES: Final = 32
"""Bytes of a deal secret: 256 bits, far beyond any search."""

FILE_FORMAT: Final = "euchre-arena deal secret 1"
"""The ``format`` key of a secret file (``arena tournaments --export``)."""

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def new_secret() -> bytes:
    """A fresh deal secret from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


def commitment(secret: bytes) -> str:
    """The public commitment to ``secret``: its SHA-256, 64 hex digits."""
    return hashlib.sha256(secret).hexdigest()


def shown_secret(status: str, secret_hex: str | None) -> str | None:
    """The secret as the public may see it: only once the tournament has finished.

    The one rule every output (``arena tournaments --json``, the site) follows: a running or
    interrupted tournament never reveals its secret.
    """
    return secret_hex if status == "finished" else None


@dataclass(frozen=True)
class DealSecret:
    """A stored deal secret (a ``deal_secrets`` row)."""

    id: int
    seed: int
    secret: bytes
    commitment: str
    origin: str  # "drawn" here, or "imported" from a secret file
    created_at: str
    revealed_at: str | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> DealSecret:
        """Build from a ``deal_secrets`` row."""
        return cls(
            row["id"],
            row["seed"],
            bytes.fromhex(row["secret"]),
            row["commitment"],
            row["origin"],
            row["created_at"],
            row["revealed_at"],
        )


@dataclass(frozen=True)
class SecretFile:
    """What ``arena tournaments --export`` writes and ``arena run --secret-file`` reads."""

    seed: int
    secret: bytes

    def to_json(self) -> str:
        """The file's text: one JSON object (with the commitment, to check on import)."""
        return json.dumps(
            {
                "format": FILE_FORMAT,
                "seed": self.seed,
                "secret": self.secret.hex(),
                "commitment": commitment(self.secret),
            },
            indent=2,
        )

    @classmethod
    def read(cls, path: str | Path) -> SecretFile:
        """Read and check a secret file; any problem is one :class:`ArenaError` line."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ArenaError(f"cannot read the secret file {path}: {e}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
            raise ArenaError(
                f"{path} is not a deal secret file (make one with `arena tournaments --export`)"
            )
        seed, hexed = data.get("seed"), data.get("secret")
        if type(seed) is not int or not isinstance(hexed, str) or not _HEX64.match(hexed):
            raise ArenaError(f"{path}: a secret file needs an integer seed and 64 hex digits")
        secret = bytes.fromhex(hexed)
        if data.get("commitment", commitment(secret)) != commitment(secret):
            raise ArenaError(f"{path}: the secret does not match the file's commitment")
        return cls(seed, secret)


# --- verification -----------------------------------------------------------------------


@dataclass
class Verification:
    """What :func:`verify` found: deals checked, and the matches whose deals differ."""

    tournament: str
    commitment: str
    deals: int = 0
    matches: int = 0
    differing: list[tuple[str, str]] = field(default_factory=list)  # (match id, why)
    totals: list[str] = field(default_factory=list)
    """The tournament's running totals (what the site shows per bot) that differ from a
    recomputation over its stored matches, one line each (:meth:`Store.totals_problems`)."""

    @property
    def ok(self) -> bool:
        """True when every stored deal is the deal of the secret and every running total
        is what the stored matches add up to."""
        return not self.differing and not self.totals

    def line(self) -> str:
        """The one line ``arena verify`` prints."""
        if self.differing:
            mid, why = self.differing[0]
            return (
                f"match {mid} {why} ({len(self.differing)} of {self.matches} matches of "
                f"tournament {self.tournament} differ)"
            )
        if self.totals:
            return (
                f"running total {self.totals[0]} ({len(self.totals)} of the totals of "
                f"tournament {self.tournament} differ from its stored matches)"
            )
        return (
            f"{self.deals} deals verified in {self.matches} matches of tournament "
            f"{self.tournament}: the revealed secret matches commitment {self.commitment}"
        )


def check_match(
    public_seed: int,
    expected_seed: int,
    secret: bytes | None,
    rules: Rules,
    hands_played: int,
    hands: Iterable[tuple[int, int, str, DealDict]],
) -> tuple[int, str | None]:
    """Check one stored match: its public seed and every hand's deal, dealer and up-card.

    ``hands`` are ``(hand_number, dealer, upcard, deal dict)`` in hand order. Returns the
    number of deals checked and, when something differs, why.
    """
    if public_seed != expected_seed:
        return 0, f"has public seed {public_seed}, not {expected_seed} as scheduled"
    seed: int | str = public_seed if secret is None else deal_seed(secret, public_seed)
    first = first_dealer(seed)
    n = 0
    for k, dealer, upcard, deal in hands:
        if k != n:
            return n, f"is missing hand {n}"
        want = deal_for(seed, k, rules).to_dict()
        if deal != want or upcard != want["kitty"][0]:
            return n, f"hand {k}: the stored cards are not the deal of its seed"
        if dealer != (first + k) % 3:
            return n, f"hand {k}: dealer {dealer} is not the dealer of its seed"
        n += 1
    if n != hands_played:
        return n, f"stores {n} hands but played {hands_played}"
    return n, None


def verify(store: Store, tid: str | None = None) -> Verification:
    """Recompute every stored deal of tournament ``tid`` (default: the latest round robin)
    from its secret.

    Checks that the secret matches its commitment, that each match's public seed is the one
    the schedule gives its three bots and round, and that every stored hand's cards (the three
    hands, the dummy and the kitty in order), dealer and up-card are those the deal seed gives,
    and that its running totals are what its stored matches add up to. Refuses (an
    :class:`ArenaError`) a tournament that has not finished: its secret is not revealed yet.
    """
    t = store.tournament(tid)
    tid = t.id
    stored = store.tournament_secret(tid)
    assert stored is not None  # the tournament exists
    if shown_secret(t.status, stored.secret.hex()) is None:
        raise ArenaError(
            f"tournament {tid} has not finished ({t.status}): its deal secret stays hidden "
            "until it does, so its deals cannot be verified yet"
        )
    if commitment(stored.secret) != stored.commitment:
        raise ArenaError(
            f"the secret of tournament {tid} does not match its commitment {stored.commitment}"
        )
    rules = Rules.from_dict(json.loads(t.rules))
    entrants = {v.id: Entrant(v.name, v.sha256, v.id) for v in store.tournament_entrants(tid)}
    report = Verification(tid, stored.commitment)
    secret = stored.secret
    for mid, rows in itertools.groupby(store.stored_deals(tid), key=lambda r: r.id):
        group = list(rows)
        first = group[0]
        try:
            members = [entrants[b] for b in first.bots]
        except KeyError:
            report.matches += 1
            report.differing.append((mid, "seats a bot that is not in the tournament"))
            continue
        hands = [
            (number, dealer, upcard, json.loads(deal))
            for number, dealer, upcard, deal in (r.hand for r in group if r.hand is not None)
        ]
        expected = match_seed(t.seed, members, first.round)
        n, why = check_match(first.seed, expected, secret, rules, first.hands_played, hands)
        report.matches += 1
        report.deals += n
        if why is not None:
            report.differing.append((mid, why))
    report.totals = store.totals_problems(tid)
    return report


def export_secret(store: Store, tid: str) -> tuple[SecretFile, bool]:
    """The secret file of tournament ``tid``, and whether its secret is already public.

    An organiser's action (``arena tournaments --export``), never a default: an unrevealed
    secret gives away every deal of the unfinished tournaments of its seed.
    """
    t = store.tournament(tid)
    stored = store.tournament_secret(t.id)
    assert stored is not None  # the tournament exists
    return SecretFile(stored.seed, stored.secret), stored.revealed_at is not None
