"""A ladder's deal secrets, one per epoch of ``epoch_sets`` sets, and the deals of its sets.

Epoch ``e`` holds the steps ``e * epoch_sets`` to ``(e + 1) * epoch_sets - 1``. Its secret is
drawn (and its commitment published) when the epoch opens, before its first set is
scheduled; it is revealed, and the epoch closed, once a later epoch has opened and every set
of it is stored. A set is never scheduled, nor played again after a stop, on a revealed
secret (:meth:`arena.store.Store.schedule_ladder_set` refuses it, and so does
:meth:`Epochs.secret`). A set's public seed is the round robin's
(:func:`arena.matches.scheduler.match_seed` of its three bots and its step) and its deal seed the
HMAC of it under its epoch's secret (:func:`arena.matches.scheduler.deal_seed`), so
:func:`verify_epoch` recomputes every stored deal of a closed epoch as ``arena verify`` does
a tournament's.
"""

from __future__ import annotations

import itertools
import json
from typing import Final

from arena.engine import Rules
from arena.errors import ArenaError
from arena.matches.scheduler import (
    SEATINGS,
    Entrant,
    MatchSpec,
    by_seats,
    duplicate_set,
    match_seed,
)
from arena.matches.secrecy import Verification, check_match, commitment
from arena.store import LADDER, LadderEpoch, LadderSet, Store, StoredTournament

DEFAULT_EPOCH_SETS: Final = 200
"""Sets per deal-secret epoch: each secret is revealed after about this many sets."""


def members_of(entrants: tuple[Entrant, Entrant, Entrant]) -> tuple[Entrant, Entrant, Entrant]:
    """A set's three bots sorted as the round robin sorts them (by key): seating ``k`` seats
    ``members[SEATINGS[k][s]]`` at seat ``s``."""
    a, b, c = sorted(entrants, key=lambda e: e.key)
    return a, b, c


def set_matches(
    lid: str,
    step: int,
    entrants: tuple[Entrant, Entrant, Entrant],
    seed: int,
    secret: bytes,
) -> list[MatchSpec]:
    """The six matches of the set at ``step``: one public seed, its deal keyed by the
    epoch's ``secret``, every seating."""
    return duplicate_set(members_of(entrants), step, seed, secret, by_seats(lid))


class Epochs:
    """The epochs of one ladder, as the schedule uses them: open the one a step needs,
    close those that are done."""

    def __init__(self, store: Store, lid: str, seed: int, epoch_sets: int) -> None:
        self.store, self.lid, self.seed, self.epoch_sets = store, lid, seed, epoch_sets
        self.known = {e.epoch: e for e in store.ladder_epochs(lid)}

    def of(self, step: int) -> int:
        """The epoch of ``step``."""
        return step // self.epoch_sets

    def open_for(self, step: int) -> int:
        """The epoch of ``step``, opened (its commitment published) if it was not; earlier
        epochs that are done are closed."""
        epoch = self.of(step)
        if epoch not in self.known:
            for e in range(max(self.known) + 1, epoch + 1):
                self.known[e] = self.store.open_epoch(self.lid, e, e * self.epoch_sets, self.seed)
        self.close_ready()
        return epoch

    def close_ready(self) -> list[int]:
        """Reveal the secret of every epoch that a later one follows and whose sets are all
        stored; the epochs closed now."""
        last = max(self.known)
        closed = [
            e.epoch
            for e in self.known.values()
            if e.closed_at is None and e.epoch < last and self.store.close_epoch(self.lid, e.epoch)
        ]
        if closed:
            self.known = {e.epoch: e for e in self.store.ladder_epochs(self.lid)}
        return closed

    def secret(self, epoch: int) -> bytes:
        """The deal secret of an open epoch (an ArenaError for a revealed one)."""
        e = self.known[epoch]
        if e.closed_at is not None:
            raise ArenaError(
                f"ladder {self.lid}: epoch {epoch}'s deal secret is revealed; no set is played "
                "on it"
            )
        return e.secret.secret


def ladder_epoch(store: Store, lid: str | None, epoch: int) -> tuple[StoredTournament, LadderEpoch]:
    """The ladder ``lid`` (an id or prefix; None: the latest ladder) and its epoch ``epoch``;
    ArenaError when it is not a ladder or has no such epoch."""
    t = store.tournament(lid, prefer=LADDER)
    if not t.is_ladder:
        raise ArenaError(f"tournament {t.id} is not a ladder: `epoch` is for ladders").naming(
            "epoch"
        )
    epochs = {e.epoch: e for e in store.ladder_epochs(t.id)}
    if epoch not in epochs:
        raise ArenaError(f"ladder {t.id} has no epoch {epoch} (it has epochs 0 to {max(epochs)})")
    return t, epochs[epoch]


def verify_epoch(store: Store, lid: str | None, epoch: int) -> Verification:
    """Recompute every stored deal of a closed epoch of ladder ``lid`` from its revealed
    secret (``arena verify LADDER --epoch N``).

    Checks the secret against the commitment published when the epoch opened, that each set
    of the epoch has its six matches, seats the bots it was scheduled with, has the public
    seed of its bots and step, and that every hand's cards, dealer and up-card are those of
    the deal seed, and that the ladder's running totals are what its stored matches add up
    to. An open epoch is refused (ArenaError): its secret is not revealed yet.
    """
    t, e = ladder_epoch(store, lid, epoch)
    lid = t.id
    if e.closed_at is None:
        raise ArenaError(
            f"epoch {epoch} of ladder {lid} is open: its deal secret stays hidden until a "
            "later epoch has opened and every set of it is stored"
        )
    if commitment(e.secret.secret) != e.secret.commitment:
        raise ArenaError(
            f"the secret of epoch {epoch} of ladder {lid} does not match its commitment "
            f"{e.secret.commitment}"
        )
    rules = Rules.from_dict(json.loads(t.rules))
    entrants = {v.id: Entrant(v.name, v.sha256, v.id) for v in store.tournament_entrants(lid)}
    sets: dict[int, LadderSet] = {s.step: s for s in store.ladder_sets(lid) if s.epoch == epoch}
    report = Verification(f"{lid} epoch {epoch}", e.secret.commitment)
    seen = dict.fromkeys(sets, 0)
    for mid, rows in itertools.groupby(store.stored_deals(lid), key=lambda r: r.id):
        group = list(rows)
        first = group[0]
        if first.round not in sets:
            continue
        report.matches += 1
        seen[first.round] += 1
        bots = list(first.bots)
        if sorted(bots) != sorted(sets[first.round].bots) or not all(b in entrants for b in bots):
            report.differing.append((mid, "seats other bots than its set was scheduled with"))
            continue
        expected = match_seed(t.seed, [entrants[b] for b in bots], first.round)
        hands = [
            (number, dealer, upcard, json.loads(deal))
            for number, dealer, upcard, deal in (r.hand for r in group if r.hand is not None)
        ]
        n, why = check_match(
            first.seed, expected, e.secret.secret, rules, first.hands_played, hands
        )
        report.deals += n
        if why is not None:
            report.differing.append((mid, why))
    for step, count in sorted(seen.items()):
        if count != len(SEATINGS):
            report.differing.append((f"set {step}", f"has {count} of its 6 matches stored"))
    report.totals = store.totals_problems(lid)  # the ladder's, all epochs so far
    return report
