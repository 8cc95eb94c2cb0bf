"""The seat proxy: the engine's player for one seat, talking to that seat's bot process.

It speaks protocol v1 (docs/protocol.md) over a :class:`~arena.sandbox.runtime.Channel`,
whatever runs behind it: a ``hello`` line, a ``ready`` line back, then one ``act`` line out
(:func:`act_line`) and one JSON line back within the deadline, the answer checked against
``obs["legal"]``; any failure becomes a :class:`~arena.sandbox.values.Fault` and the seat is
played by the fallback (first legal action) from then on.

Every decision is a turn of the bot process, forced ones (one legal action, answered by the
host without calling the bot) included: the time between a bot's turns then depends only on
what the other bots do, never on whether they had a choice. Outside its turns a bot process is
stopped (SIGSTOP) or asleep reading its request pipe (:meth:`~arena.sandbox.client.Child.stop`),
so it cannot use the CPU while the others think, and its CPU is read from its own process: the
limits count only its own time. Each seat also has its match clock (:mod:`arena.sandbox.clock`):
the wall time of its own turns, loading included, against a bank plus an increment a decision;
a turn ends at the first of its CPU limit, its wall backstop and the clock.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import time
from collections.abc import Callable
from typing import Any, Final

from arena.engine import is_legal
from arena.rules import Observation
from arena.sandbox.child import _exit_status, describe_death
from arena.sandbox.clock import where
from arena.sandbox.runtime import PROTOCOL_VERSION, Channel
from arena.sandbox.values import Fault, FaultKind, Limits, SeatStatsDict
from arena.untrusted import clean, clean_line

__all__ = ["SeatProxy", "MAX_LINE", "WALL_FACTOR", "WHERE_WAIT", "act_line", "hello_line"]

MAX_LINE: Final = 1 << 20
"""The longest line a bot may write on its protocol pipe (and the largest answer)."""

WALL_FACTOR: Final = 5.0
"""A turn may last this many times its CPU limit on the wall clock (a bot that sleeps or
blocks uses no CPU; a busy machine must leave a bot at least a fifth of a CPU)."""

WHERE_WAIT: Final = 0.1
"""How long the arena waits, at most, for a bot that ran out of time to say where it is
(:func:`ask_where`) before it kills it."""

WHERE_SIGNAL: Final = signal.SIGUSR1
"""The question; the bot host's handler answers it (``host.WHERE_SIGNAL``)."""

_WHERE_BYTES: Final = 4096
_WHERE: Final = re.compile(r"[\w.+-]{1,100}:[0-9]{1,9} in [\w<>.-]{1,100}")
"""The only shape of answer shown: ``bot.py:12 in act``."""

try:  # orjson (a declared dependency) parses and writes JSON 3-5x faster than json
    import orjson

    _loads: Callable[[bytes], Any] = orjson.loads
    _dumps: Callable[[Any], bytes] = orjson.dumps
except ImportError:  # pragma: no cover - only without the dependency
    _loads = json.loads

    def _dumps(obj: Any) -> bytes:
        return json.dumps(obj, separators=(",", ":")).encode()


def act_line(k: int, obs: Observation) -> bytes:
    """Arena to bot: the ``act`` line of the seat's request ``k`` (docs/protocol.md)."""
    return _dumps({"type": "act", "id": k, "obs": obs}) + b"\n"


def hello_line(seat: int, random_seed: bytes, limits: Limits) -> bytes:
    """Arena to bot: the ``hello`` line, the go-ahead of the seat's loading turn."""
    hello = {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "seat": seat,
        "seed": random_seed.hex(),
        "limits": {
            "decision_seconds": limits.decision_seconds,
            "match_cpu_seconds": limits.match_cpu_seconds,
            "clock_bank_seconds": limits.clock_bank_seconds,
            "clock_increment_seconds": limits.clock_increment_seconds,
            "memory_mb": limits.memory_mb,
        },
    }
    return _dumps(hello) + b"\n"


class SeatProxy:
    """The engine's player for one seat: forwards decisions to the bot process, never raises."""

    def __init__(self, seat: int, child: Channel | None, limits: Limits) -> None:
        self.seat = seat
        self.child = child
        self.name: str | None = None  # what the bot's ready line says (informational)
        self.limits = limits
        self.fault: Fault | None = None
        self.decisions = 0
        self.asked = 0
        self.think = 0.0
        self.max_think = 0.0
        self.cpu = 0.0
        self.max_cpu = 0.0
        self.clock = limits.clock()
        self._buf = b""

    def set_fault(self, kind: FaultKind, message: str, decision: int | None) -> None:
        """Record the seat's (first) fault and kill its process.

        The message may quote the bot (its exception, its stray output): it is capped and
        stripped of control characters here, the one boundary every such byte crosses.
        """
        if self.fault is None:
            self.fault = Fault(self.seat, kind, clean(message), decision)
        if self.child is not None:
            self.child.kill()

    def _read_line(
        self,
        limit: float,
        decision: int | None,
        began: float,
        left: float,
        obs: Observation | None,
    ) -> bytes | None:
        """One line from the bot within this turn's time; None after recording a fault.

        The turn (begun at ``began``, monotonic) may use ``limit`` seconds of the bot's own CPU
        (read from its process, so neither other bots nor a busy machine take any of it) and,
        as a backstop for a bot that waits without computing, :data:`WALL_FACTOR` times that on
        the wall clock, or what was ``left`` on its match clock at its start if that is less
        (``obs``, the decision's observation or None while loading, says where in the match
        for the fault).
        """
        assert self.child is not None
        fd = self.child.resp
        buf = self._buf
        budget = self.limits.match_cpu_seconds
        start = self.cpu
        backstop = WALL_FACTOR * limit
        by_clock = left < backstop
        deadline = began + (max(0.0, left) if by_clock else backstop)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            nl = buf.find(b"\n")
            if nl >= 0:
                self._buf = buf[nl + 1 :]
                return buf[:nl]
            if len(buf) > MAX_LINE:
                self.set_fault("protocol", "a line of over 1 MiB on the protocol pipe", decision)
                return None
            now = time.monotonic()
            # CPU time grows no faster than the wall clock: wake up no later than the turn's
            # CPU time or the match's budget could run out, to charge it as such.
            cpu_left = min(start + limit, budget) - self.cpu
            wake = min(deadline, now + max(0.0, cpu_left))
            if poller.poll(math.ceil(max(0.0, wake - now) * 1000)):
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self._died(decision)
                    return None
                buf += chunk
                continue
            self.cpu = self.child.cpu_seconds()
            if self.cpu >= budget:
                if decision is None:  # an import-time loop is a load fault, whatever it costs
                    self._out_of_time("load", f"used its CPU budget of {budget:g} s loading", None)
                else:
                    self._out_of_time("cpu", f"used its CPU budget of {budget:g} s", decision)
                return None
            kind: FaultKind = "load" if decision is None else "timeout"
            what = "loading" if decision is None else "on one decision"
            if self.cpu - start >= limit:
                self._out_of_time(kind, f"used over {limit:g} s of CPU {what}", decision)
                return None
            now = time.monotonic()
            if now >= deadline and by_clock:
                self._out_of_time(kind, self.clock.ran_out(where(obs), now - began), decision)
                return None
            if now >= deadline:
                wall = WALL_FACTOR * limit
                message = f"no answer within {wall:g} s (wall clock) {what}"
                self._out_of_time(kind, message, decision)
                return None

    def _out_of_time(self, kind: FaultKind, message: str, decision: int | None) -> None:
        """Record a fault for a bot that ran out of time, naming where it was when it says so
        within :data:`WHERE_WAIT` (``; the bot was at bot.py:12 in act``), then kill it."""
        if self.fault is None and self.child is not None and self.child.alive:
            at = ask_where(self.child)
            if at is not None:
                message = f"{message}; the bot was at {at}"
        self.set_fault(kind, message, decision)

    def _died(self, decision: int | None) -> None:
        assert self.child is not None
        ended = getattr(self.child, "ended", lambda: None)()  # a channel that knows (a person)
        if ended is not None:
            self.set_fault(ended[0], ended[1], decision)
            return
        status = None
        for _ in range(50):  # the pipe can close a moment before the process is a zombie
            status = _exit_status(self.child.pid)
            if status is not None:
                break
            time.sleep(0.001)
        if status is None and _exit_status(self.child.pid) is None and self.child.running():
            # Alive, yet its end of a protocol pipe is closed: it broke the protocol.
            self.set_fault("protocol", "the bot closed its protocol pipe", decision)
            return
        kind, message = describe_death(status)
        if decision is None and kind == "crash":
            kind = "load"
        self.set_fault(kind, message, decision)

    def load(self, random_seed: bytes) -> None:
        """The bot's loading turn: send its ``hello`` (the go-ahead; its ``seed`` seeds the
        Python host's ``random``), wait until it says it is ready, then stop it until its
        first decision. The turn is the first on the bot's match clock."""
        if self.child is None or self.fault is not None:
            return
        began = time.monotonic()
        try:  # a few hundred bytes into an empty pipe: never blocks
            _write_all(self.child.req, hello_line(self.seat, random_seed, self.limits), began + 1.0)
        except OSError:
            pass  # it died setting up: its last line (or its death) tells why, just below
        self.wait_ready(began)
        took = time.monotonic() - began
        self._end_turn()
        if not self.clock.charge(took) and self.fault is None:
            self.set_fault("load", self.clock.ran_out("loading"), None)

    def wait_ready(self, began: float) -> None:
        """Wait for the bot's ready line (the turn began at ``began``, monotonic); a load
        fault otherwise."""
        if self.child is None or self.fault is not None:
            return
        line = self._read_line(self.limits.load_seconds, None, began, self.clock.remaining, None)
        if line is None:
            return
        problem = self.ready_problem(line)
        if problem is not None:
            self.set_fault("load", problem, None)

    def ready_problem(self, line: bytes) -> str | None:
        """What is wrong with the bot's ready line (None: ready; its name is kept)."""
        try:
            msg = _loads(line)
        except ValueError:
            return f"not a JSON ready line: {line[:80]!r}"
        if not isinstance(msg, dict):
            return f"not a ready line: {line[:80]!r}"
        if msg.get("error") == "load":
            return str(msg.get("message") or "the bot could not load")
        version = msg.get("protocol")
        if version != PROTOCOL_VERSION or type(version) is not int:
            if version is None:
                return f"a ready line without a protocol version: {line[:80]!r}"
            shown = json.dumps(version)[:20]
            return f"speaks protocol {shown}; the arena speaks {PROTOCOL_VERSION}"
        name = msg.get("name")
        self.name = clean_line(name, 64) if isinstance(name, str) else None
        return None

    def _end_turn(self) -> None:
        """Stop the bot and read the CPU it has used (its own process: no one else's counts)."""
        if self.child is None or not self.child.alive:
            return
        self.child.stop()
        self.cpu = self.child.cpu_seconds()

    def act(self, obs: Observation) -> Any:
        """Answer one decision: a turn of the bot within the deadline (forced ones too)."""
        k = self.decisions
        self.decisions += 1
        legal = obs["legal"]
        if self.fault is not None or self.child is None:
            return legal[0]
        if len(legal) > 1:
            self.asked += 1
        start = time.monotonic()
        cpu_before = self.cpu
        limit = self.limits.decision_seconds
        left = self.clock.start_decision()
        backstop = WALL_FACTOR * limit
        if self._buf or self._pending():
            self.set_fault("protocol", "a line on the protocol pipe before the request", k)
            return legal[0]
        try:
            self._send(act_line(k, obs), start + (left if left < backstop else backstop))
        except TimeoutError:
            self.clock.charge(time.monotonic() - start)
            if left < backstop:  # the clock's deadline came first
                self._out_of_time("timeout", self.clock.ran_out(where(obs)), k)
            else:
                self._out_of_time("timeout", f"did not read its request within {limit:g} s", k)
            return legal[0]
        except OSError:
            self._died(k)
            return legal[0]
        line = self._read_line(limit, k, start, left, obs)
        took = time.monotonic() - start
        self._end_turn()
        in_time = self.clock.charge(took)
        if len(legal) > 1:  # the statistics are of the decisions the bot was asked
            self.think += took
            self.max_think = max(self.max_think, took)
            self.max_cpu = max(self.max_cpu, self.cpu - cpu_before)
        if line is None:
            return legal[0]
        if not in_time:  # answered, but after its clock ran out
            self.set_fault("timeout", self.clock.ran_out(where(obs)), k)
            return legal[0]
        if self.cpu >= self.limits.match_cpu_seconds:
            self.set_fault("cpu", f"used its CPU budget of {self.limits.match_cpu_seconds:g} s", k)
            return legal[0]
        if self._buf:
            self.set_fault("protocol", "more output after the answer on the protocol pipe", k)
            return legal[0]
        action = self._check(line, obs, k)
        if action is None:
            return legal[0]
        return action

    def _pending(self) -> bool:
        """Whether the bot wrote anything since its last answer (read into the buffer)."""
        assert self.child is not None
        try:
            self._buf = os.read(self.child.resp, 1 << 16)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return False  # it died: the request's turn says how
        return bool(self._buf)

    def _send(self, data: bytes, deadline: float) -> None:
        """Write a request and let the bot run: what fits in the pipe first, so the bot wakes
        to a waiting request (one wake-up, not two), then SIGCONT, then the rest."""
        assert self.child is not None
        try:
            n = os.write(self.child.req, data)
        except BlockingIOError:
            n = 0
        self.child.resume()
        if n < len(data):
            _write_all(self.child.req, data[n:], deadline)

    def _check(self, line: bytes, obs: Observation, k: int) -> Any:
        try:
            msg = _loads(line)
        except ValueError:
            self.set_fault("protocol", f"not a JSON line: {line[:80]!r}", k)
            return None
        if not isinstance(msg, dict) or msg.get("id") != k or type(msg.get("id")) is not int:
            self.set_fault(
                "protocol", f"a reply that does not answer request {k}: {line[:80]!r}", k
            )
            return None
        if "action" not in msg:
            kind = msg.get("error")
            if kind not in ("crash", "memory", "illegal"):
                self.set_fault("protocol", f"a malformed reply: {line[:80]!r}", k)
            else:
                self.set_fault(kind, str(msg.get("message", "")), k)
            return None
        action = msg["action"]
        legal = obs["legal"]
        if not is_legal(obs, action):
            text = json.dumps(action)[:200]
            self.set_fault(
                "illegal",
                f"answered {text} in phase {obs['phase']!r}; legal: {legal_summary(legal)}",
                k,
            )
            return None
        return action

    def stats(self) -> SeatStatsDict:
        """Per-seat statistics for :class:`~arena.sandbox.values.MatchOutcome`."""
        cpu = 0.0
        if self.child is not None:
            cpu = self.child.cpu_seconds() if self.child.alive else self.child.cpu_at_end
        return {
            "decisions": self.decisions,
            "asked": self.asked,
            "think_seconds": round(self.think, 6),
            "max_think_seconds": round(self.max_think, 6),
            "cpu_seconds": round(cpu, 6),
            "max_cpu_seconds": round(self.max_cpu, 6),
            "clock_seconds": round(self.clock.used, 6),
        }


LEGAL_CHARS: Final = 120
"""About how much of the legal actions an illegal fault's message lists."""


def legal_summary(legal: list[Any]) -> str:
    """The legal actions as an illegal fault names them: as many as fit about
    :data:`LEGAL_CHARS` characters, then how many more (a keep's legal actions are every
    5-card hand of six: hundreds of characters in full)."""
    shown: list[str] = []
    size = 0
    for action in legal:
        text = json.dumps(action)
        if shown and size + len(text) > LEGAL_CHARS:
            break
        shown.append(text)
        size += len(text) + 2
    more = len(legal) - len(shown)
    return "[" + ", ".join(shown) + (f", ... and {more} more" if more else "") + "]"


def ask_where(child: Channel, wait: float = WHERE_WAIT) -> str | None:
    """Where the bot says it is (``bot.py:12 in act``), asked with :data:`WHERE_SIGNAL`;
    None when no well-formed answer comes within ``wait`` seconds.

    The answer is the bot's own claim (its code can replace the host's handler, or write
    anything on its pipe): read for ``wait`` seconds and :data:`_WHERE_BYTES` at most,
    shown only if it has the shape of a location, capped and stripped like every byte from a
    bot, and used for nothing but display.
    """
    pidfd = getattr(child, "pidfd", None)  # a Child's; another channel is not asked
    if pidfd is None:
        return None
    try:
        signal.pidfd_send_signal(pidfd, WHERE_SIGNAL)
    except OSError:
        return None
    deadline = time.monotonic() + wait
    poller = select.poll()
    poller.register(child.resp, select.POLLIN)
    got = b""
    while len(got) < _WHERE_BYTES:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(math.ceil(left * 1000)):
            return None
        try:
            chunk = os.read(child.resp, _WHERE_BYTES - len(got))
        except BlockingIOError:
            continue
        except OSError:
            return None
        if not chunk:
            return None  # it died (or closed its pipe): nothing more will come
        got += chunk
        for line in got.split(b"\n")[:-1]:
            at = _where_of(line)
            if at is not None:
                return at
    return None


def _where_of(line: bytes) -> str | None:
    """The location in one ``{"where": "bot.py:12 in act"}`` line; None for anything else."""
    try:
        msg = _loads(line)
    except ValueError:
        return None
    at = msg.get("where") if isinstance(msg, dict) else None
    if not isinstance(at, str) or not _WHERE.fullmatch(at):
        return None
    return clean_line(at, 220)


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write everything to a pipe; raise OSError when the bot stops reading until ``deadline``."""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                raise TimeoutError("the bot does not read its requests") from None
            continue
        view = view[n:]
