"""The duplicate round-robin schedule: match specs, stable match ids and seeds.

Every set of three bots plays ``rounds`` deal seeds, each in all six seatings. Following
Axelrod's ``match_generator``, every match's seed is fixed here, in the parent, before anything
runs: it depends only on (tournament seed, the set's three bots, round), never on the order the
matches run in, the number of workers, or which other bots take part. So a serial run equals a
parallel run, a resumed run equals an uninterrupted one, and adding a bot to the field leaves
the deals of the existing sets unchanged. The six seatings of a set and round share the seed,
so each seat gets the same cards whoever sits there (docs/rules.md): luck cancels out.

These public seeds are not what the engine deals from: each match's *deal seed* is the HMAC of
its public seed under the tournament's secret (:mod:`arena.matches.secrecy`), so public facts (the
tournament seed, the bots' names and hashes, the round) tell a bot nothing about the cards.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Final

from arena.matches.record import MatchSlot, SlotDict

DEFAULT_ROUNDS: Final = 20
"""Deal seeds per set of three bots when ``--rounds`` is not given: the README's main job (the
three bundled bots, 120 matches) then takes about a minute on this 2-core machine."""

SEATINGS: Final[tuple[tuple[int, int, int], ...]] = tuple(
    itertools.permutations(range(3))  # type: ignore[arg-type]
)
"""The six seatings: seating ``k`` seats member ``SEATINGS[k][s]`` of the sorted set at ``s``."""


@dataclass(frozen=True, order=True)
class Entrant:
    """One bot version in a tournament: its name and source hash form its identity."""

    name: str
    sha256: str
    version_id: int

    @property
    def key(self) -> str:
        """The identity used in seeds and ids: ``name:sha256``."""
        return f"{self.name}:{self.sha256}"


class SpecDict(SlotDict):
    """:meth:`MatchSpec.to_dict`: a match's slot and its bots' names by seat."""

    seats: list[str]


@dataclass(frozen=True)
class MatchSpec(MatchSlot):
    """One match to play: its slot in the schedule (:class:`arena.matches.record.MatchSlot`: id,
    round, seating, public seed, set), which bots sit where and the seed of its deals.

    ``seed`` is the public match seed (stored, shown); ``deal_seed`` is what the engine deals
    from: the HMAC of ``seed`` under the tournament's secret, or ``seed`` itself when
    scheduled without a secret (research and tests; every stored tournament has a secret).
    The deal seed stays out of :meth:`to_dict` (logs).
    """

    seats: tuple[Entrant, Entrant, Entrant]
    deal_seed: int | str = field(repr=False)

    def to_dict(self) -> SpecDict:
        """JSON-ready form (for logs and debugging)."""
        return {**self.slot_json(), "seats": [e.name for e in self.seats]}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tournament_id(config: Mapping[str, object]) -> str:
    """The tournament's identity: 16 hex digits of the hash of its canonical JSON config."""
    return _digest(json.dumps(config, sort_keys=True, separators=(",", ":")))[:16]


def match_seed(tournament_seed: int, members: Sequence[Entrant], round_: int) -> int:
    """The seed of every seating of ``members`` in ``round_``: from those three inputs only.

    The members are sorted first so the seed does not depend on seating order. 60 bits keep it
    a positive SQLite INTEGER.
    """
    keys = "/".join(sorted(e.key for e in members))
    return int(_digest(f"arena/match-seed/{tournament_seed}/{keys}/{round_}")[:15], 16)


def deal_seed(secret: bytes, public_seed: int | str) -> str:
    """The seed the engine deals a match from: HMAC-SHA256 of the public seed under the
    tournament's secret (:mod:`arena.matches.secrecy`), 64 hex digits.

    One-way and keyed: knowing public seeds and the deals they gave tells nothing about the
    deal seed of another match without the secret.
    """
    return hmac.new(secret, f"arena/deal/{public_seed}".encode(), hashlib.sha256).hexdigest()


def match_id(tid: str, seats: Sequence[Entrant], round_: int) -> str:
    """A stable 12-hex-digit id for the match of ``seats`` (in seat order) in ``round_``."""
    keys = "/".join(e.key for e in seats)
    return _digest(f"arena/match/{tid}/{round_}/{keys}")[:12]


def set_key(members: Sequence[Entrant]) -> str:
    """The duplicate set as stored: the three bot version ids, sorted, comma-separated."""
    return ",".join(str(v) for v in sorted(e.version_id for e in members))


MatchIdRule = Callable[[tuple[Entrant, Entrant, Entrant], int, int], str]
"""``rule(seats, round, seating)``: a match's id, from its seats in seat order, its round (or
set, or step) and its seating."""


def duplicate_set(
    members: tuple[Entrant, Entrant, Entrant],
    round_: int,
    tournament_seed: int,
    secret: bytes | None,
    ids: MatchIdRule,
) -> list[MatchSpec]:
    """The six matches of one duplicate set: ``members`` in the order ``SEATINGS`` indexes,
    one public seed (:func:`match_seed` of the members and ``round_``), its deal keyed by
    ``secret`` (None: the public seed, for research and tests), every seating; each match's
    id by the caller's rule (a round robin's, a comparison's and a ladder's differ only in
    it). The one constructor of a set's matches."""
    seed = match_seed(tournament_seed, members, round_)
    dealt = seed if secret is None else deal_seed(secret, seed)
    key = set_key(members)
    specs = []
    for k, perm in enumerate(SEATINGS):
        seats = (members[perm[0]], members[perm[1]], members[perm[2]])
        specs.append(MatchSpec(ids(seats, round_, k), round_, k, seed, key, seats, dealt))
    return specs


def by_seats(tid: str) -> MatchIdRule:
    """The id rule of a round robin and a ladder: :func:`match_id` of the seats and round."""
    return lambda seats, round_, seating: match_id(tid, seats, round_)


def match_count(n_bots: int, rounds: int) -> int:
    """How many matches a tournament of ``n_bots`` and ``rounds`` has: C(n, 3) x rounds x 6."""
    return comb(n_bots, 3) * rounds * len(SEATINGS)


def schedule(
    tid: str,
    entrants: Sequence[Entrant],
    rounds: int,
    tournament_seed: int,
    secret: bytes | None = None,
) -> Iterator[MatchSpec]:
    """Every match of the tournament, round by round (so a partial run covers every set).

    ``entrants`` must have distinct names; their order does not matter. ``secret`` is the
    tournament's deal secret (None: deal from the public seeds, for research and tests; every
    stored tournament has a secret).
    """
    field = sorted(entrants, key=lambda e: e.key)
    if len({e.name for e in field}) != len(field):
        raise ValueError("entrants must have distinct names")
    ids = by_seats(tid)
    for round_ in range(rounds):
        for a, b, c in itertools.combinations(field, 3):
            yield from duplicate_set((a, b, c), round_, tournament_seed, secret, ids)
