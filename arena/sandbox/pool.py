"""BotPool: one per worker process; keeps a zygote per bot and plays matches with fresh children."""

from __future__ import annotations

import logging
import os
import signal
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence

from arena.engine import DEFAULT_RULES, Rules, play_match
from arena.sandbox.client import Child, Stage, Zygote, _descendants
from arena.sandbox.layers import Isolation, become_subreaper, choose_isolation
from arena.sandbox.proxy import SeatProxy
from arena.sandbox.values import (
    BotSource,
    Fault,
    Limits,
    MatchOutcome,
    bot_random_seed,
    forfeit_placements,
)
from arena.untrusted import clean

__all__ = ["BotPool", "validate_bot"]

log = logging.getLogger("arena.sandbox")


def _children(pid: int) -> list[int]:
    """The direct children of ``pid`` (adopted orphans included)."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _shutdown(zygotes: OrderedDict[tuple[str, int], Zygote], stage: Stage) -> None:
    while zygotes:
        zygotes.popitem(last=False)[1].close()
    stage.remove()


class BotPool:
    """Plays matches between sandboxed bots; one pool per worker process.

    Each distinct bot (and each extra copy of it in one match) gets a zygote the first time it
    plays; every match forks fresh children from the zygotes, so nothing survives from one
    match to the next. Raises :class:`~arena.sandbox.values.SandboxUnavailable` when no isolation
    layer works here, unless ``unsafe_no_sandbox`` (trusted bots only: processes, limits and
    faults, no isolation). ``cpu`` (e.g. the worker's index) pins this process and its bots to
    one CPU (the ``cpu``-th it may use, modulo their number): with one worker per CPU this is
    the fastest set-up (docs/benchmarks.md has the figures). Not thread-safe: one per process.
    """

    def __init__(
        self,
        limits: Limits | None = None,
        unsafe_no_sandbox: bool = False,
        *,
        max_zygotes: int = 32,
        cpu: int | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.isolation: Isolation = choose_isolation(unsafe_no_sandbox)
        if cpu is not None:
            # This process and the bot hosts it starts (they inherit it) share one CPU: every
            # decision's round trip then stays on that CPU, about 3x cheaper than crossing.
            ncpu = sorted(os.sched_getaffinity(0))
            os.sched_setaffinity(0, {ncpu[cpu % len(ncpu)]})
        self.max_zygotes = max_zygotes
        become_subreaper()
        self._stage = Stage()
        self._zygotes: OrderedDict[tuple[str, int], Zygote] = OrderedDict()
        self._closer = weakref.finalize(self, _shutdown, self._zygotes, self._stage)
        log.info("sandbox layers: %s", ", ".join(self.isolation.active) or "none (unsafe)")

    def _zygote(self, source: BotSource, copy: int, replace: Zygote | None = None) -> Zygote:
        key = (source.sha256, copy)
        z = self._zygotes.get(key)
        if z is not None and (z is replace or (not z.usable and z.load_error is None)):
            z.close()  # died (killed from outside?): start a new one
            del self._zygotes[key]
            z = None
        if z is None:
            z = Zygote(source, copy, self._stage, self.isolation, self.limits)
            self._zygotes[key] = z
            while len(self._zygotes) > self.max_zygotes:
                self._zygotes.popitem(last=False)[1].close()
        self._zygotes.move_to_end(key)
        return z

    def play_match(
        self, sources: Sequence[BotSource], seed: int | str, rules: Rules = DEFAULT_RULES
    ) -> MatchOutcome:
        """Play one match of the three bots (by seat); faults become values, never exceptions."""
        if len(sources) != 3:
            raise ValueError(f"a match needs exactly three bots, got {len(sources)}")
        if not self._closer.alive:
            raise RuntimeError("the BotPool is closed")
        proxies = [SeatProxy(seat, None, self.limits) for seat in range(3)]
        seen: dict[str, int] = {}
        started = []
        for seat, src in enumerate(sources):
            too_big = self.limits.source_problem(src)
            if too_big is not None:  # refused before hashing or staging it
                proxies[seat].fault = Fault(seat, "load", too_big, None)
                continue
            copy = seen.get(src.sha256, 0)
            seen[src.sha256] = copy + 1
            z = self._zygote(src, copy)
            if z.load_error is not None:
                proxies[seat].fault = Fault(seat, "load", z.load_error, None)
            else:  # all three zygotes fork at once
                started.append((seat, z, z.start_fork()))
        for seat, z, request in started:
            try:
                proxies[seat].child = z.finish_fork(request)
            except OSError:
                # The host died (killed from outside, say): not the bot's fault; one new host.
                z = self._zygote(sources[seat], z.copy, replace=z)
                try:
                    proxies[seat].child = z.fork()
                except OSError as e:
                    proxies[seat].fault = Fault(seat, "load", str(e), None)
        try:
            for seat, p in enumerate(proxies):
                # One at a time, like every later turn: a bot loads while the others are stopped
                # or not yet started, so none can slow another's loading.
                p.load(bot_random_seed(seed, seat))
            result = play_match(proxies, seed, rules)
            stats = [p.stats() for p in proxies]
        finally:
            children = [p.child for p in proxies if p.child is not None]
            if not (self.isolation.seccomp or self.isolation.nproc or self.isolation.bwrap):
                self._kill_strays(children)  # bots could fork: take their trees down too
            for child in children:
                child.kill()
        logs = []
        for p in proxies:
            text = p.child.read_log(self.limits.log_bytes) if p.child is not None else ""
            logs.append(clean(text, max(self.limits.log_bytes, 1)))  # bot-controlled text
            if p.child is not None:
                p.child.close()
        faults = [p.fault for p in proxies if p.fault is not None]
        placements = forfeit_placements(result.scores, {f.seat for f in faults})
        return MatchOutcome(result, faults, placements, stats, logs)

    def _kill_strays(self, bots: list[Child], patience: float = 1.0) -> None:
        """Kill the match children and everything they forked (only possible when no layer
        stops forks), escapees that detached with setsid included.

        Those come to us, the subreaper, as soon as their parent has exited: so kill the
        trees, then our own children that run the host program, until the match children
        have exited and no such process is left (at most ``patience`` seconds).
        """
        hosts = {z.proc.pid for z in self._zygotes.values()}
        mark = str(self._stage.lib).encode()
        deadline = time.monotonic() + patience
        killed: set[int] = set()
        while True:
            strays = []
            for pid in _children(os.getpid()):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if pid not in hosts and mark in f.read():
                            strays.append(pid)
                except OSError:
                    continue
            tree = [d for pid in [*(c.pid for c in bots), *strays] for d in _descendants(pid)]
            for pid in [*tree, *strays]:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except OSError:
                    pass
            for child in bots:
                child.kill()
            for pid in strays:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
            settled = not tree and not strays and not any(c.running() for c in bots)
            if settled or time.monotonic() > deadline:
                break
            time.sleep(0.002)  # killed parents hand their orphans over to us in a moment
        extra = len(killed - {c.pid for c in bots})
        if extra:
            log.warning("killed %d processes forked by bots", extra)

    def host_pids(self) -> list[int]:
        """Pids of every live process of this pool's bot hosts (for checks and the doctor)."""
        pids: list[int] = []
        for z in self._zygotes.values():
            pids += z.pids()
        return pids

    def uids(self) -> list[int]:
        """The uids this pool's bot hosts run as (empty without the per-bot uid layer)."""
        return [z.lease.uid for z in self._zygotes.values() if z.lease is not None]

    def close(self) -> None:
        """Stop every bot host; no process of this pool is left afterwards."""
        self._closer()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# The validation partners take the last legal action: they order up, so hands get played and
# the match ends in a few hands even when the bot under test faults and passes ever after.
_ALWAYS_ORDER = BotSource(
    "always-order", "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"
)


def validate_bot(
    source: BotSource | str,
    limits: Limits | None = None,
    *,
    unsafe_no_sandbox: bool = False,
    pool: BotPool | None = None,
) -> Fault | None:
    """Load ``source`` in the sandbox and play one match with it; its fault or ``None``.

    Catches syntax errors, a missing ``Bot`` class, a raising constructor, import-time loops and
    memory bombs (``load`` faults) and a bot that fails on its first decisions. A ``str`` is
    taken as the source text of ``bot.py``. With ``pool`` the match is played there (its limits
    and isolation; it stays open, and the bot's host stays warm for more matches), else in a
    pool of its own.
    """
    if isinstance(source, str):
        source = BotSource("bot", source)
    seats = [source, _ALWAYS_ORDER, _ALWAYS_ORDER]
    if pool is not None:
        return pool.play_match(seats, "validate", DEFAULT_RULES).fault_of(0)
    with BotPool(limits, unsafe_no_sandbox) as own:
        out = own.play_match(seats, "validate", DEFAULT_RULES)
    return out.fault_of(0)
