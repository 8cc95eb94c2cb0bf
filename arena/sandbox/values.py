"""The values that cross the seam between the sandbox and the tournament (all JSON-ready)."""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import asdict, dataclass, field
from typing import Final, Literal, TypedDict, cast, get_args

from arena.engine import MatchResult
from arena.errors import ArenaError
from arena.sandbox.clock import MatchClock

__all__ = [
    "FaultKind",
    "FAULT_KINDS",
    "Limits",
    "BotSource",
    "Fault",
    "MatchOutcome",
    "SandboxUnavailable",
    "bot_random_seed",
]

UID_BASE: Final = 61000
"""The first of the uids bot hosts run as (as root, one per running host; layers.py)."""
UID_COUNT: Final = 1000
"""How many; the last one is kept for the probes of ``arena doctor``."""
PROBE_UID: Final = UID_BASE + UID_COUNT - 1

FaultKind = Literal["load", "timeout", "cpu", "memory", "crash", "illegal", "protocol"]
FAULT_KINDS: Final = get_args(FaultKind)
"""Every kind of fault, in the order docs/protocol.md lists them."""


class SandboxUnavailable(ArenaError):
    """No isolation layer works on this machine and ``unsafe_no_sandbox`` was not given."""


class LimitsDict(TypedDict):
    """:meth:`Limits.to_dict`: the limits as stored with a tournament."""

    decision_seconds: float
    match_cpu_seconds: float
    memory_mb: int
    log_bytes: int
    load_seconds: float
    source_bytes: int
    clock_bank_seconds: float | None
    clock_increment_seconds: float | None


class FaultDict(TypedDict):
    """:meth:`Fault.to_dict`."""

    seat: int
    kind: FaultKind
    message: str
    decision: int | None


class SeatStatsDict(TypedDict):
    """One seat's decision counts and times in a match, as measured by its seat proxy
    (:class:`arena.matches.record.SeatStats` is its value)."""

    decisions: int
    asked: int
    think_seconds: float
    max_think_seconds: float
    cpu_seconds: float
    max_cpu_seconds: float
    clock_seconds: float


@dataclass(frozen=True)
class Limits:
    """What one bot may use in one match (all measured from the arena side).

    ``decision_seconds`` is the CPU time of the bot's own process per decision (with a
    wall-clock backstop of 5x for a bot that waits), ``match_cpu_seconds`` the CPU budget of
    the whole match (loading included), ``load_seconds`` the same as ``decision_seconds`` for
    importing the file and creating ``Bot()``, ``memory_mb`` the address-space limit of the bot
    process,
    ``log_bytes`` the cap on what the bot prints (the rest is dropped), ``source_bytes`` the
    largest bot file the sandbox compiles (a larger one is a ``load`` fault, refused before
    anything is staged), and ``clock_bank_seconds`` / ``clock_increment_seconds`` the bot's
    match clock (:mod:`arena.sandbox.clock`): wall-clock seconds for the whole match, waiting
    included, plus that many more at each decision. Not given, they follow the CPU limits:
    the bank is 1.5 times ``match_cpu_seconds`` and the increment a quarter of
    ``decision_seconds`` (30 s and 0.25 s by default), so a bot that computes within its CPU
    limits on a machine that gives it two thirds of a CPU never runs out; only waiting does.
    """

    decision_seconds: float = 1.0
    match_cpu_seconds: float = 20.0
    memory_mb: int = 1024
    log_bytes: int = 64 * 1024
    load_seconds: float = 5.0
    source_bytes: int = 1 << 20
    clock_bank_seconds: float | None = None
    clock_increment_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("decision_seconds", "match_cpu_seconds", "load_seconds"):
            value = getattr(self, name)
            if not _seconds(value) or not 0 < value <= 3600:
                raise ArenaError(f"Limits.{name} must be a number of seconds in (0, 3600]")
        # Derived once, here: to_dict() then records the numbers the matches were played with.
        bank, increment = self.clock_bank_seconds, self.clock_increment_seconds
        bank = 1.5 * self.match_cpu_seconds if bank is None else bank
        increment = self.decision_seconds / 4 if increment is None else increment
        if not _seconds(bank) or not 0 < bank <= 5400:
            raise ArenaError("Limits.clock_bank_seconds must be a number of seconds in (0, 5400]")
        if not _seconds(increment) or not 0 <= increment <= 3600:
            raise ArenaError(
                "Limits.clock_increment_seconds must be a number of seconds in [0, 3600]"
            )
        object.__setattr__(self, "clock_bank_seconds", bank)
        object.__setattr__(self, "clock_increment_seconds", increment)
        if not isinstance(self.memory_mb, int) or not 64 <= self.memory_mb <= 1 << 20:
            raise ArenaError("Limits.memory_mb must be an int of at least 64 (MiB)")
        if not isinstance(self.log_bytes, int) or not 0 <= self.log_bytes <= 1 << 30:
            raise ArenaError("Limits.log_bytes must be an int in [0, 1 GiB]")
        if not isinstance(self.source_bytes, int) or not 1 <= self.source_bytes <= 1 << 30:
            raise ArenaError("Limits.source_bytes must be an int in [1, 1 GiB]")

    def source_problem(self, source: BotSource) -> str | None:
        """Why ``source`` is too large to load under these limits, or None.

        Cheap (no hashing, at most one encode) so an 8 MB file is refused before it is staged.
        """
        text = source.source
        if len(text) <= self.source_bytes // 4:  # UTF-8 needs at most 4 bytes a character
            return None
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= self.source_bytes:
            return None
        return f"the bot file has {size} bytes, over the limit of {self.source_bytes} bytes"

    def clock(self) -> MatchClock:
        """A fresh match clock for one bot under these limits."""
        bank, increment = self.clock_bank_seconds, self.clock_increment_seconds
        assert bank is not None and increment is not None  # set by __post_init__
        return MatchClock(float(bank), float(increment))

    def to_dict(self) -> LimitsDict:
        """The fields as a plain dict."""
        return cast(LimitsDict, asdict(self))

    @classmethod
    def from_dict(cls, data: LimitsDict) -> Limits:
        """Inverse of :meth:`to_dict`."""
        return cls(**data)


def _seconds(value: object) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class BotSource:
    """One bot file: a display ``name``, its Python ``source`` and the ``filename`` it had;
    ``files``, a bot of several files' others, ``(path from the entry's directory, bytes)``."""

    name: str
    source: str
    filename: str = "bot.py"
    files: tuple[tuple[str, bytes], ...] = ()

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the source (UTF-8). A stored version's hash, and the pool's key, is
        its artifact's (``arena.sandbox.runtimes.as_artifact(source).sha256``), which covers
        the language and the file name too."""
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    @classmethod
    def from_path(cls, path: str, name: str | None = None) -> BotSource:
        """Read a bot file; ``name`` defaults to the file stem. Raises ArenaError."""
        import os

        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise ArenaError(f"cannot read bot file {path}: {e}") from None
        stem = os.path.splitext(os.path.basename(path))[0]
        return cls(name or stem, source, os.path.basename(path))


def bot_random_seed(seed: int | str, seat: int) -> bytes:
    """The 64 bytes that seed the ``random`` module of the bot at ``seat`` in match ``seed``.

    HMAC-SHA-512 keyed with the match seed. Python's seeding can be run backwards from
    ``random.getstate()``, so a bot can learn these bytes; being one-way, they tell it nothing
    of the match seed, the deals or another seat's stream. The sandbox sends only these bytes
    to the bot process, and in-process play (``arena demo``) seeds ``random`` with them too,
    so a bot draws the same numbers in the same match and seat wherever it runs.
    """
    key = str(seed).encode("utf-8")
    return hmac.new(key, f"arena/bot-random/{seat}".encode(), hashlib.sha512).digest()


@dataclass(frozen=True)
class Fault:
    """A bot's failure in one match: its ``seat``, ``kind``, ``message`` and ``decision``.

    ``decision`` is the 0-based index among the seat's decisions in the match (forced ones
    included), or ``None`` when the bot failed before its first decision (loading).
    """

    seat: int
    kind: FaultKind
    message: str
    decision: int | None = None

    def to_dict(self) -> FaultDict:
        """JSON form: ``{"seat", "kind", "message", "decision"}``."""
        return cast(FaultDict, asdict(self))

    @classmethod
    def from_dict(cls, data: FaultDict) -> Fault:
        """Inverse of :meth:`to_dict`."""
        if data["kind"] not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {data['kind']!r}")
        return cls(int(data["seat"]), data["kind"], str(data["message"]), data.get("decision"))

    def __str__(self) -> str:
        where = "loading" if self.decision is None else f"decision {self.decision}"
        return f"seat {self.seat}: {self.kind} at {where}: {self.message}"


@dataclass
class MatchOutcome:
    """A match played by sandboxed bots (see docs/architecture.md, the seam).

    ``result`` is the match as played (faulty seats by the fallback), ``faults`` at most one
    per seat, ``placements`` the places after forfeits (a faulty seat is last, the others by
    score among themselves), ``stats`` per seat and ``logs`` the captured output per seat.
    """

    result: MatchResult
    faults: list[Fault]
    placements: list[int]
    stats: list[SeatStatsDict] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)

    def fault_of(self, seat: int) -> Fault | None:
        """The fault of ``seat``, or ``None``."""
        return next((f for f in self.faults if f.seat == seat), None)


def forfeit_placements(scores: list[int], faulty: set[int]) -> list[int]:
    """Places after forfeits: clean seats ranked by score among themselves, faulty seats after.

    Faulty seats share the last places (ranked among themselves by score too), so a seat that
    faulted is always behind every seat that did not.
    """
    clean = [s for s in range(len(scores)) if s not in faulty]
    places = [0] * len(scores)
    for group, offset in ((clean, 0), (sorted(faulty), len(clean))):
        for s in group:
            places[s] = offset + 1 + sum(1 for o in group if scores[o] > scores[s])
    return places
