"""What a run tells its caller while it plays: small frozen values passed to ``on_event``.

The library never prints. A tournament, a comparison and a ladder report each happening as
one of these events to the ``on_event`` callable their :class:`arena.Arena` was given; the
command line draws them (a progress bar, one line per bot that joins or leaves a ladder), a
script may log them, count them or ignore them. Every field is a plain value (strings, ints,
tuples), so an event can be kept, compared and turned into JSON (:func:`dataclasses.asdict`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Planned:
    """A run was planned, before any match is played."""

    tid: str
    """The tournament's (comparison's, ladder's) id."""
    kind: str
    """``round-robin``, ``compare`` or ``ladder``."""
    bots: tuple[str, ...]
    """The bots it starts with."""
    workers: int
    """Worker processes (or the executor's workers) that will play."""
    total: int | None
    """Matches it plays at most (None: no bound, a ladder)."""
    exact: bool
    """It plays all of ``total`` (False: it may stop sooner by its own rule)."""
    stored: int
    """Matches already stored (a resumed run plays only the others)."""
    commitment: str
    """SHA-256 of its deal secret, published before any match is played."""


@dataclass(frozen=True)
class MatchesStored:
    """Matches were stored (one batch of a worker, or a whole set of a ladder)."""

    tid: str
    added: int
    """Matches stored by this batch (0: the run's first report, before any batch)."""
    done: int
    """Matches of the run stored so far, this batch included."""
    total: int | None
    """The bound of the run (None: none)."""
    status: str
    """Where the run stands, in one line (``round 3 of 20``, the comparison's test)."""


@dataclass(frozen=True)
class SetDone:
    """A ladder stored whole duplicate sets (six matches each)."""

    tid: str
    steps: tuple[int, ...]
    """The ladder's steps of the sets stored."""


@dataclass(frozen=True)
class FaultRecorded:
    """A bot faulted in a stored match (it forfeited it; the tournament goes on)."""

    tid: str
    match_id: str
    bot: str
    kind: str
    """``load``, ``timeout``, ``cpu``, ``memory``, ``crash``, ``illegal`` or ``protocol``."""
    message: str


@dataclass(frozen=True)
class Joined:
    """A bot version joined a running ladder's field at ``step``."""

    tid: str
    step: int
    name: str
    version: int


@dataclass(frozen=True)
class Left:
    """A bot version left a running ladder's field at ``step``."""

    tid: str
    step: int
    name: str
    version: int
    reason: str
    """``retired``, or ``replaced`` by a newer version."""


@dataclass(frozen=True)
class Stopped:
    """The run ended: every match played, its own rule stopped it, or it was interrupted."""

    tid: str
    completed: bool
    """False: interrupted (Ctrl-C, SIGTERM); the same call again resumes."""
    played: int
    """Matches played by this run."""
    reason: str | None
    """Why a run that stops by its own rule stopped (None: a fixed schedule played out)."""


Event = Planned | MatchesStored | SetDone | FaultRecorded | Joined | Left | Stopped
"""Every event a run reports."""

OnEvent = Callable[[Event], object]
"""``on_event(event)``: what receives them."""


def ignore(event: Event) -> None:
    """The default receiver: a run nobody watches."""
