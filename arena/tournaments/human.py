"""A human game: a person plays one seat against two stored bots, which run sandboxed as in
every match (:class:`~arena.sandbox.pool.BotPool`); the person's seat is one more channel
(:mod:`arena.sandbox.human`). :meth:`arena.api.Arena.play_human` starts one and returns its
:class:`HumanGame`.

The match runs in a thread of its own; :class:`HumanGame` says what the person must decide now
(their observation and legal actions), takes their answer, shows the public table so far and,
at the end, the result. Then the match is stored as a tournament of kind ``human``
(:mod:`arena.store.kinds`): replayable like any match, never rated, in nobody's standings.

Its deals come from a deal secret drawn for the game, as in every tournament
(:mod:`arena.matches.secrecy`): the commitment is known from the start, the secret only once
the game has ended, and ``arena verify`` then checks its deals.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.engine import DEFAULT_RULES, QUESTIONS, Rules
from arena.errors import ArenaError
from arena.matches.record import MatchRecord, SeatStats
from arena.matches.scheduler import Entrant, deal_seed, match_seed
from arena.matches.secrecy import commitment, new_secret
from arena.rules import HandRecord, Observation
from arena.sandbox.human import HUMAN_SECONDS, HumanEnd, HumanSeat, open_seat
from arena.sandbox.pool import BotPool
from arena.sandbox.runtime import Artifact
from arena.sandbox.values import Fault, Limits, MatchOutcome
from arena.store import HUMAN, BotVersion, Store
from arena.untrusted import clean_line

__all__ = ["HUMAN_SECONDS", "QUESTIONS", "Decision", "GameResult", "HumanGame", "start_game"]


MAX_NAME: Final = 32
"""The longest name a person plays under (cleaned of control characters)."""


@dataclass(frozen=True)
class Decision:
    """What the person must decide now: their observation (docs/protocol.md), its legal
    actions and the question in words. A decision with one legal action is never asked: it is
    answered for the person."""

    turn: int
    """The decision's number among the seat's (what :meth:`HumanGame.answer` may name)."""
    obs: Observation
    question: str

    @property
    def legal(self) -> list[Any]:
        """The legal actions (a keep's: every 5-card hand, each a sorted list)."""
        return list(self.obs["legal"])


@dataclass(frozen=True)
class GameResult:
    """How a human game ended, and where it is stored."""

    tournament_id: str
    match_id: str
    scores: list[int]
    placements: list[int]
    faults: list[Fault]
    secret: str
    """The deal secret, revealed now (hex): ``arena verify TOURNAMENT_ID`` checks the deals."""
    hands: list[HandRecord] = field(repr=False, default_factory=list)
    """Every hand's full record (cards hidden during play included: the match is over)."""


def question(obs: Observation) -> str:
    """The question of an observation's phase."""
    phase = str(obs["phase"])
    if phase == "alone" and obs.get("maker") != obs.get("seat"):
        phase = "defend_alone"
    return QUESTIONS.get(phase, phase)


class HumanGame:
    """A match of a person against two bots, played in a background thread.

    Read :attr:`decision` (or :meth:`wait` for it), :meth:`answer` it; :meth:`table` is the
    public table so far; :attr:`finished` and :attr:`result` at the end; :meth:`leave` gives
    up (the seat forfeits, the bots finish the match). Thread-safe.
    """

    def __init__(
        self, tid: str, seat: int, names: list[str], end: HumanEnd, secret: bytes, seed: int
    ) -> None:
        self.id = tid
        """The game's id: the tournament it is stored as."""
        self.seat = seat
        self.names = names
        """Who sits where: the person's name and the bots' names, by seat."""
        self.seed = seed
        """The game's public seed (its deals come from the secret too)."""
        self.commitment = commitment(secret)
        """SHA-256 of the deal secret, known from the start."""
        self.result: GameResult | None = None
        self.error: str | None = None
        """Why the game could not be played or stored (one line), if so."""
        self.started = time.monotonic()
        self._end = end
        self._cond = threading.Condition()
        self._obs: Observation | None = None
        self._decision: Decision | None = None
        self._finished = False
        self.version = 0
        """Grows by one at every change (a decision to make, an answer, the end)."""
        self.threads: list[threading.Thread] = []

    @property
    def finished(self) -> bool:
        """The match has ended (and is stored, unless :attr:`error` says why not)."""
        with self._cond:
            return self._finished

    @property
    def decision(self) -> Decision | None:
        """What the person must decide now; None while the bots play or after the end."""
        with self._cond:
            return self._decision

    def wait(self, after: int = -1, timeout: float | None = None) -> int:
        """Wait until :attr:`version` is past ``after`` (or ``timeout`` seconds); the version."""
        with self._cond:
            self._cond.wait_for(lambda: self.version > after or self._finished, timeout)
            return self.version

    def answer(self, action: Any, turn: int | None = None) -> None:
        """Answer the decision with ``action``, one of its legal actions (a keep: five cards in
        any order); ``turn``: the :attr:`Decision.turn` meant, if the caller wants a repeated
        answer refused. Raises :class:`ArenaError` when it is not your turn or not legal."""
        with self._cond:
            try:
                self._end.answer(action, turn)
            except ValueError as e:
                raise ArenaError(str(e)) from None
            self._decision = None
            self._bump()

    def leave(self) -> None:
        """Give up: the seat forfeits (a ``timeout`` fault) and the bots finish the match."""
        self._end.leave()
        with self._cond:
            self._decision = None
            self._bump()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the game's threads (the match played and stored)."""
        for t in self.threads:
            t.join(timeout)

    def table(self) -> dict[str, Any]:
        """The public table as the person last saw it (JSON-ready): names, seats, scores,
        dealer, up-card, bids, trump, tricks, the trick in progress, earlier hands; the
        person's own hand and what they must decide; at the end, the result."""
        with self._cond:
            obs, decision, result = self._obs, self._decision, self.result
            out: dict[str, Any] = {
                "id": self.id,
                "seat": self.seat,
                "names": list(self.names),
                "version": self.version,
                "finished": self._finished,
                "commitment": self.commitment,
                "error": self.error,
            }
        if obs is not None:
            public = ("phase", "hand_number", "dealer", "scores", "hand", "upcard", "bids",
                      "pickup", "trump", "maker", "alone", "sitting_out", "tricks", "trick",
                      "history", "dummy")  # fmt: skip
            shown: Mapping[str, object] = obs
            out.update({k: shown[k] for k in public if k in shown})
        out["turn"] = None if decision is None else {
            "turn": decision.turn,
            "question": decision.question,
            "legal": decision.legal,
            "phase": decision.obs["phase"],
        }  # fmt: skip
        if result is not None:
            out["result"] = {
                "match_id": result.match_id,
                "scores": result.scores,
                "placements": result.placements,
                "faults": [f.to_dict() for f in result.faults],
                "secret": result.secret,
                "hands": [_hand_summary(h) for h in result.hands],
            }
        return out

    def _bump(self) -> None:
        self.version += 1
        self._cond.notify_all()

    def _read(self) -> None:
        """The person's side: each request becomes the decision to make."""
        while (request := self._end.request()) is not None:
            turn, obs = request
            with self._cond:
                self._obs = obs
                if len(obs["legal"]) == 1:  # nothing to decide: played for the person, as
                    self._end.answer(obs["legal"][0], turn)  # `arena play` does
                else:
                    self._decision = Decision(turn, obs, question(obs))
                self._bump()

    def _finish(self, result: GameResult | None, error: str | None) -> None:
        with self._cond:
            self.result, self.error = result, error
            self._decision = None
            self._finished = True
            self._bump()


def _hand_summary(h: HandRecord) -> dict[str, object]:
    """What everybody may see of a finished hand."""
    keys = ("hand_number", "dealer", "trump", "maker", "alone", "tricks_won", "points",
            "scores_before", "passed_out", "tricks")  # fmt: skip
    return {k: h[k] for k in keys if k in h}  # type: ignore[literal-required]


@dataclass(frozen=True)
class _Plan:
    """Everything the match thread needs, fixed before it starts."""

    db: Path
    tid: str
    seats: list[BotVersion]
    entrants: list[Entrant]
    public_seed: int
    config: dict[str, Any]
    rules: Rules
    limits: Limits
    unsafe: bool


def start_game(
    store: Store,
    opponents: Sequence[BotVersion],
    *,
    seat: int = 0,
    seed: int | None = None,
    name: str = "human",
    seconds: float = HUMAN_SECONDS,
    limits: Limits | None = None,
    rules: Rules = DEFAULT_RULES,
    unsafe: bool = False,
) -> HumanGame:
    """Start a human game of ``name`` at ``seat`` against the two ``opponents`` (stored bot
    versions, by the seats left to right); its match thread stores it in ``store``'s file."""
    if store.in_memory:
        raise ArenaError("a human game is stored from its own thread: it needs a database file")
    if seat not in (0, 1, 2) or isinstance(seat, bool):
        raise ArenaError(f"seat is 0, 1 or 2, not {seat!r}").naming("seat")
    if len(opponents) != 2:
        raise ArenaError(f"a human game needs two opponents, not {len(opponents)}")
    label = clean_line(name, MAX_NAME).strip() or "human"
    person = store.human_version(label)
    bots = iter(opponents)
    versions = [person if s == seat else next(bots) for s in range(3)]
    seed = secrets.randbelow(2**53) if seed is None else seed
    entrants = [Entrant(v.name, v.sha256, v.id) for v in versions]
    public = match_seed(seed, entrants, 0)
    limits = limits or Limits()
    tid = secrets.token_hex(8)
    config = {
        "kind": HUMAN, "game": tid, "seed": seed, "rounds": 1, "seat": seat,
        "bots": [{"name": e.name, "sha256": e.sha256} for e in entrants],
        "rules": rules.to_dict(),
        "limits": limits.to_dict(), "human_seconds": seconds,
    }  # fmt: skip
    plan = _Plan(store.path, tid, versions, entrants, public, config, rules, limits, unsafe)
    human, end = open_seat(label, seconds)
    secret = new_secret()
    game = HumanGame(tid, seat, [v.name for v in versions], end, secret, seed)
    game.names[seat] = label
    reader = threading.Thread(target=game._read, name=f"human-{tid}-seat", daemon=True)
    match = threading.Thread(
        target=_play, args=(game, plan, human, end, secret), name=f"human-{tid}", daemon=True
    )
    game.threads = [reader, match]
    reader.start()
    match.start()
    return game


def _play(game: HumanGame, plan: _Plan, human: HumanSeat, end: HumanEnd, secret: bytes) -> None:
    """The match thread: play in the sandbox, store, tell the game."""
    began = time.monotonic()
    sources: list[Artifact | HumanSeat] = [
        human if s == game.seat else v.artifact for s, v in enumerate(plan.seats)
    ]
    result: GameResult | None = None
    error: str | None = None
    try:
        with BotPool(plan.limits, plan.unsafe) as pool:
            outcome = pool.play_match(sources, deal_seed(secret, plan.public_seed), plan.rules)
        result = _store(plan, outcome, secret, time.monotonic() - began)
    except (ArenaError, OSError) as e:
        error = clean_line(str(e), 300)
    finally:
        human.channel.close()  # the reader sees the end, whatever happened
        game.threads[0].join(5)
        end.close()
        game._finish(result, error)


def _store(plan: _Plan, outcome: MatchOutcome, secret: bytes, took: float) -> GameResult:
    """Store the finished game as a tournament of kind ``human`` with its one match."""
    r = outcome.result
    mid = f"{plan.tid}m"
    stats = [SeatStats(**s) for s in outcome.stats]
    v = [e.version_id for e in plan.entrants]
    record = MatchRecord(
        match_id=mid, round=0, seating=0, seed=plan.public_seed, set_key=HUMAN,
        bots=(v[0], v[1], v[2]), scores=(r.scores[0], r.scores[1], r.scores[2]),
        placements=(outcome.placements[0], outcome.placements[1], outcome.placements[2]),
        truncated=bool(r.truncated), hands=tuple(h.to_dict() for h in r.hands),
        faults=tuple(outcome.faults), stats=(stats[0], stats[1], stats[2]),
        logs=(outcome.logs[0], outcome.logs[1], outcome.logs[2]), duration_seconds=took,
    )  # fmt: skip
    store = Store(plan.db, create=False)
    try:
        store.write_human_game(plan.tid, plan.config, v, record, secret)
    finally:
        store.close()
    return GameResult(
        plan.tid, mid, list(r.scores), list(outcome.placements), list(outcome.faults),
        secret.hex(), list(record.hands),
    )  # fmt: skip
