"""A ladder's page (``arena ladder``): its order with intervals, the sets each bot played,
what is being played now, the latest sets, the epochs with their commitments and revealed
secrets, and the versions that left the field (retired or replaced).

Read-only, from the ladder's tables (``ladder_bots``, ``ladder_sets``, ``ladder_epochs``) and
its ``ratings`` rows (docs/schema.md); bounded whatever the ladder's age: the latest
:data:`RECENT_SETS` sets, the sets in flight, and one row per bot and per epoch.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Final

from arena.ladder.ratings import PROVISIONAL_SETS
from arena.site.clones import clone_flags
from arena.site.data import BotRef, MatchRow, Standing, Tournament, recent_matches
from arena.site.render import Writer
from arena.store import Store

RECENT_SETS = 30
"""How many of the latest finished sets the ladder's page lists."""

IN_FLIGHT = 50
"""At most this many sets in flight are listed."""

EPOCHS = 50
"""How many of the latest epochs the ladder's page lists (every epoch stays in the database,
for ``arena verify``)."""


REASONS: Final = {
    "new": "its first set: a bot that has not played yet plays at once",
    "overdue": "a bot that had waited nearly as long as the ladder lets any bot wait",
    "provisional": "a bot with few sets yet, against one bot rated above it and one below",
    "random": "three bots drawn at random, which ties every part of the table together",
    "explore": "a bot drawn at random, with the partners that teach most about it",
    "information": "the bot with the most to learn, with the partners that teach most "
    "about the order of the table",
    "given": "chosen by whoever scheduled it (not the ladder's rule)",
}
"""Why a set was picked (the ``reason`` of ``ladder_sets``), as the ladder's page explains
each in its legend (docs/ladder.md has the rule)."""


@dataclass
class LadderBot:
    """A version in the ladder's field (or one that left it)."""

    bot: BotRef
    standing: Standing | None
    sets: int
    last_step: int | None
    joined_step: int
    joined_at: str
    left_step: int | None
    left_at: str | None
    left_reason: str | None


@dataclass
class ShownSet:
    """One set as the ladder's page shows it: its step, three bots, epoch, why it was picked,
    its matches."""

    step: int
    bots: list[BotRef]
    epoch: int
    set_key: str
    reason: str
    scheduled_at: str
    finished_at: str | None
    matches: list[MatchRow] = field(default_factory=list)


def _sets(
    store: Store, t: Tournament, refs: dict[int, BotRef], *, running: bool, limit: int
) -> list[ShownSet]:
    out = []
    for r in store.ladder_set_rows(t.id, running=running, limit=limit):
        bots = [refs[v] for v in r.bots if v in refs]
        if len(bots) == 3:
            out.append(ShownSet(r.step, bots, r.epoch, r.set_key, r.reason, r.scheduled_at,
                                 r.finished_at))  # fmt: skip
    return out


def _field(
    store: Store, t: Tournament, refs: dict[int, BotRef], standings: list[Standing]
) -> list[LadderBot]:
    by_version = {s.bot.version_id: s for s in standings}
    counts = store.ladder_set_counts(t.id)
    out = []
    for m in store.ladder_members(t.id):
        v = m.version_id
        if v not in refs:
            continue
        sets, last = counts.get(v, (0, None))
        reason = m.left_reason or ("retired" if m.retired_at else None)
        out.append(LadderBot(refs[v], by_version.get(v), sets, last, m.joined_step,
                             m.joined_at, m.left_step, m.left_at, reason))  # fmt: skip
    order = {s.bot.version_id: i for i, s in enumerate(standings)}
    out.sort(key=lambda b: (order.get(b.bot.version_id, len(order)), b.bot.name.lower()))
    return out


def page(
    store: Store,
    writer: Writer,
    t: Tournament,
    refs: dict[int, BotRef],
    standings: list[Standing],
    as_of: str | None,
) -> str:
    """The ladder's page (``as_of``: the time of its latest results, for its footer)."""
    everyone = _field(store, t, refs, standings)
    recent = _sets(store, t, refs, running=False, limit=RECENT_SETS)
    # A set is its key and its step (stored as the round): the same triple meets again under
    # the same key at other steps.
    keys = {(s.set_key, s.step) for s in recent}
    by_set: dict[tuple[str, int], list[MatchRow]] = defaultdict(list)
    for m in recent_matches(store, refs, tid=t.id, limit=6 * RECENT_SETS + 6):
        if (m.set_key, m.round) in keys:
            by_set[m.set_key, m.round].append(m)
    for s in recent:
        s.matches = sorted(by_set[s.set_key, s.step], key=lambda m: m.seating)
    # Each with its commitment, and its secret once the epoch has closed.
    epochs = store.ladder_epoch_rows(t.id, EPOCHS)
    return writer.html(
        t.href,
        "ladder.html",
        generated_at=as_of,
        tournament=t,
        # The order is the standings' (ranked bots that left it keep their rank, marked);
        # the field is who plays now.
        order=[b for b in everyone if b.left_reason is None or b.standing is not None],
        field=[b for b in everyone if b.left_reason is None],
        left=[b for b in everyone if b.left_reason is not None],
        # A stopped ladder plays nothing: the sets a stop cut short are played first when
        # it runs again, so they are "cut short", not "playing now".
        running=_sets(store, t, refs, running=True, limit=IN_FLIGHT),
        reasons=REASONS,
        recent=recent,
        epochs=epochs,
        epoch_count=store.ladder_epoch_count(t.id),
        sets_played=sum(b.sets for b in everyone) // 3,
        provisional_sets=PROVISIONAL_SETS,
        # Versions whose code is another owner's, or whose decisions a collusion report
        # flagged: a tag in the order and the evidence under it.
        clones=clone_flags(store, refs),
        worker_checks=store.worker_checks(t.id),
    )
