"""A human seat: one more :class:`~arena.sandbox.runtime.Channel`, a pipe pair whose far end is
a person (a web page, a script) instead of a bot process.

The seat proxy (:class:`arena.sandbox.proxy.SeatProxy`) drives it exactly like a bot's: it
writes protocol-v1 request lines to ``req`` and reads answer lines from ``resp``, and every
check of the seat (the answer legal, one line, in time) stays the same. What differs is the
time: a person uses no CPU of ours, so the seat gets limits of its own
(:func:`human_limits`: a generous wall-clock limit per decision, e.g. 120 s) while the bots in
the match keep theirs. A person who does not answer in time, or leaves, forfeits like any seat
that times out.

The person's side is :class:`HumanEnd`: it reads the requests (:meth:`HumanEnd.request`) and
writes answers (:meth:`HumanEnd.answer`); the ``hello`` is answered by it at once.
"""

from __future__ import annotations

import json
import os
import select
import threading
from dataclasses import dataclass
from typing import Any, Final, cast

from arena.engine import is_legal
from arena.rules import Observation
from arena.sandbox.proxy import WALL_FACTOR
from arena.sandbox.runtime import PROTOCOL_VERSION
from arena.sandbox.values import FaultKind, Limits

__all__ = ["HUMAN_SECONDS", "HumanChannel", "HumanEnd", "HumanSeat", "human_limits", "open_seat"]

HUMAN_SECONDS: Final = 120.0
"""A person's wall-clock time per decision by default."""

LEFT: Final = "the player left the game"
"""The fault message of a person who left (closed the page, or the game was ended)."""


def human_limits(seconds: float = HUMAN_SECONDS) -> Limits:
    """The limits of a human seat: ``seconds`` of wall clock per decision (the seat proxy's
    backstop is :data:`~arena.sandbox.proxy.WALL_FACTOR` times the CPU limit, and a person's
    CPU time is always 0), and a match clock that never runs out before that limit does."""
    if not isinstance(seconds, int | float) or not 1 <= seconds <= 3600:
        raise ValueError("a human seat's time per decision is 1 to 3600 seconds")
    return Limits(
        decision_seconds=seconds / WALL_FACTOR,
        load_seconds=10.0,  # the hello is answered at once, by a thread of ours
        clock_bank_seconds=5400.0,
        clock_increment_seconds=float(seconds),
        log_bytes=0,
    )


class HumanChannel:
    """The arena's side of a human seat: the channel the seat proxy drives.

    No process: ``pid`` is 0, the CPU time is always 0, stopping and resuming do nothing.
    ``req`` and ``resp`` are non-blocking, as the proxy expects.
    """

    def __init__(self, req: int, resp: int) -> None:
        self.pid = 0
        self.req = req
        self.resp = resp
        self.alive = True
        self.cpu_at_end = 0.0
        self.left = threading.Event()
        for fd in (req, resp):
            os.set_blocking(fd, False)

    def cpu_seconds(self) -> float:
        """A person uses none of our CPU."""
        return 0.0

    def stop(self) -> None:
        """Nothing to freeze."""

    def resume(self) -> None:
        """Nothing to resume."""

    def running(self) -> bool:
        """Until the seat is killed or the person left."""
        return self.alive and not self.left.is_set()

    def ended(self) -> tuple[FaultKind, str] | None:
        """Why the far end closed (the proxy records it as the seat's fault): a person who
        left forfeits like a seat that timed out."""
        return ("timeout", LEFT) if self.left.is_set() else None

    def kill(self) -> None:
        """End the seat: the person's next read sees the end of the requests."""
        self.alive = False
        self.close()

    def read_log(self, cap: int) -> str:
        """A person has no log."""
        return ""

    def close(self) -> None:
        """Release both descriptors (idempotent)."""
        self.alive = False
        for name in ("req", "resp"):
            fd = getattr(self, name)
            if fd >= 0:
                setattr(self, name, -1)
                try:
                    os.close(fd)
                except OSError:
                    pass


@dataclass(frozen=True)
class HumanSeat:
    """What :meth:`arena.sandbox.pool.BotPool.play_match` takes in place of a bot for a seat
    played by a person: the channel and that seat's own limits."""

    channel: HumanChannel
    limits: Limits


class HumanEnd:
    """The person's side of a human seat: the next request, and the answer to it.

    Thread-safe for one reader (the game's) and any number of callers of :meth:`answer` and
    :meth:`leave`. Answers are checked here first (:meth:`answer` refuses an action that is
    not legal, so a mistaken click costs nothing); the seat proxy checks them again.
    """

    def __init__(self, requests: int, answers: int, channel: HumanChannel, name: str) -> None:
        self._requests = requests
        self._answers = answers
        self._channel = channel
        self._name = name
        self._buf = b""
        self._lock = threading.Lock()
        self.pending: tuple[int, Observation] | None = None
        """The request waiting for an answer: its id and the observation."""

    def request(self, timeout: float | None = None) -> tuple[int, Observation] | None:
        """Wait for the next ``act`` request (answering the ``hello`` on the way); its id and
        observation, or None when the match has ended for this seat (or ``timeout`` passed:
        then :attr:`pending` is still None)."""
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line, self._buf = self._buf[:nl], self._buf[nl + 1 :]
                msg = json.loads(line)
                if msg.get("type") == "hello":
                    ready = {"protocol": PROTOCOL_VERSION, "name": self._name}
                    with self._lock:
                        self._write(json.dumps(ready).encode() + b"\n")
                    continue
                with self._lock:
                    self.pending = (int(msg["id"]), msg["obs"])
                # The seat's own request line (the arena wrote it): an observation.
                return int(msg["id"]), cast(Observation, dict(msg["obs"]))
            try:
                readable, _, _ = select.select([self._requests], [], [], timeout)
                if not readable:
                    return None
                chunk = os.read(self._requests, 1 << 16)
            except (OSError, ValueError):  # closed: the game is over
                return None
            if not chunk:
                return None
            self._buf += chunk

    def answer(self, action: Any, turn: int | None = None) -> None:
        """Answer the pending request with ``action`` (one of its legal actions; a keep's five
        cards in any order); ``turn``, when given, is the id of the request meant (a second
        click meant for an earlier one is refused). Raises ValueError when nothing is pending,
        another request is, or the action is not legal."""
        with self._lock:
            if self.pending is None:
                raise ValueError("nothing to answer: it is not your turn")
            k, obs = self.pending
            if turn is not None and turn != k:
                raise ValueError("that decision was answered already")
            if not is_legal(obs, action):
                raise ValueError(f"{json.dumps(action)[:80]} is not a legal action now")
            self.pending = None
            self._write(json.dumps({"id": k, "action": action}).encode() + b"\n")

    def leave(self) -> None:
        """The person leaves: their seat forfeits at once (a ``timeout`` fault) if the match
        is still on."""
        self._channel.left.set()
        with self._lock:
            self.pending = None
            fd, self._answers = self._answers, -1
        if fd >= 0:
            os.close(fd)

    def _write(self, data: bytes) -> None:
        """Write one line (the caller holds the lock)."""
        if self._answers < 0:
            return
        try:
            os.write(self._answers, data)  # one short line into an empty pipe: never blocks
        except OSError:
            pass  # the seat is over: the game sees it on its next request

    def close(self) -> None:
        """Release the person's descriptors (after the match)."""
        with self._lock:
            fds, self._requests, self._answers = (self._requests, self._answers), -1, -1
        for fd in fds:
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass


def open_seat(name: str, seconds: float = HUMAN_SECONDS) -> tuple[HumanSeat, HumanEnd]:
    """A human seat and its far end: two pipes, requests one way and answers the other."""
    req_read, req_write = os.pipe2(os.O_CLOEXEC)
    ans_read, ans_write = os.pipe2(os.O_CLOEXEC)
    channel = HumanChannel(req_write, ans_read)
    return HumanSeat(channel, human_limits(seconds)), HumanEnd(req_read, ans_write, channel, name)
