"""BotPool: one per worker process; keeps a launcher per bot and plays matches with fresh children.

A bot is an :class:`~arena.sandbox.runtime.Artifact` (a :class:`BotSource` is a one-file
Python artifact); its runtime comes from the registry (:mod:`arena.sandbox.runtimes`) by its
language, so every language is played the same way: a launcher per bot version (and copy),
one fresh process per match, a :class:`SeatProxy` per seat speaking protocol v1.
"""

from __future__ import annotations

import logging
import os
import signal
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from arena.engine import DEFAULT_RULES, Rules, play_match
from arena.errors import ArenaError
from arena.sandbox.client import Stage, Zygote
from arena.sandbox.human import HumanChannel, HumanSeat
from arena.sandbox.layers import Isolation, become_subreaper, choose_isolation
from arena.sandbox.procs import descendants as _descendants
from arena.sandbox.proxy import SeatProxy
from arena.sandbox.runtime import Artifact, Channel, Launcher
from arena.sandbox.runtimes import RUNTIMES, PythonRuntime, as_artifact
from arena.sandbox.values import (
    BotSource,
    Fault,
    Limits,
    MatchOutcome,
    bot_random_seed,
    forfeit_placements,
)
from arena.untrusted import clean

__all__ = ["VALIDATION_PARTNERS", "BotPool", "validate_bot"]

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


def _shutdown(
    launchers: OrderedDict[tuple[str, int], Launcher],
    spares: list[Zygote],
    closing: list[Launcher],
    stage: Stage,
) -> None:
    # Every host is killed first, then each waited for: their teardowns overlap.
    for launcher in [*launchers.values(), *spares]:
        stop = getattr(launcher, "stop", None)
        if stop is not None:
            stop()
    while closing:
        closing.pop().close()
    while launchers:
        launchers.popitem(last=False)[1].close()
    while spares:
        spares.pop().close()
    stage.remove()


class _Unlaunchable:
    """The launcher of a bot that cannot start at all (no runtime for its language here)."""

    def __init__(self, load_error: str) -> None:
        self.load_error: str | None = load_error

    def start(self) -> Channel:
        raise OSError(self.load_error)

    def close(self) -> None:
        pass


class BotPool:
    """Plays matches between sandboxed bots; one pool per worker process.

    Each distinct bot (and each extra copy of it in one match) gets a zygote the first time it
    plays; every match forks fresh children from the zygotes, so nothing survives from one
    match to the next. Raises :class:`~arena.sandbox.values.SandboxUnavailable` when no isolation
    layer works here, unless ``unsafe_no_sandbox`` (trusted bots only: processes, limits and
    faults, no isolation). ``cpu`` (e.g. the worker's index) pins this process and its bots to
    one CPU (the ``cpu``-th it may use, modulo their number): with one worker per CPU this is
    the fastest set-up (docs/benchmarks.md has the figures). Not thread-safe: one per process.

    Once it has had to start a Python bot's host for a match after its first (a pool that
    plays on, like a tournament worker's), it keeps ``spare_hosts`` blank hosts ready: the
    sandbox, the interpreter and the host's layers set up, no bot. A bot new to the pool then
    takes one and costs its compile, not a host's start; each spare is given one bot, once,
    and a new one starts after the match in its place (docs/sandbox.md, *Spare hosts*).
    """

    def __init__(
        self,
        limits: Limits | None = None,
        unsafe_no_sandbox: bool = False,
        *,
        max_zygotes: int = 32,
        cpu: int | None = None,
        spare_hosts: int = 3,
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
        # Launchers by (artifact hash, copy); a Python one also shows its zygote's attributes
        # (``info``, ``lease``, ``cgroup``) to the doctor and the tests.
        self._zygotes: OrderedDict[tuple[str, int], Any] = OrderedDict()
        self.spare_hosts = spare_hosts
        self._spares: list[Zygote] = []  # blank hosts, oldest first
        self._preload: list[str] = []  # what spares import: the last Python bot's modules
        self._matches = 0  # matches started
        self._keep_spares = False  # set once a later match needed a new Python host
        self._closing: list[Launcher] = []  # evicted, killed, closed after the match
        self._closer = weakref.finalize(
            self, _shutdown, self._zygotes, self._spares, self._closing, self._stage
        )
        log.info("sandbox layers: %s", ", ".join(self.isolation.active) or "none (unsafe)")

    def _zygote(
        self, bot: BotSource | Artifact, copy: int, replace: Launcher | None = None
    ) -> Launcher:
        """The launcher of ``bot`` (its ``copy``-th in a match), made the first time."""
        artifact = as_artifact(bot)
        key = (artifact.sha256, copy)
        z = self._zygotes.get(key)
        dead = z is not None and not getattr(z, "usable", True) and z.load_error is None
        if z is not None and (z is replace or dead):
            z.close()  # died (killed from outside?): start a new one
            del self._zygotes[key]
            z = None
        if z is None:
            z = self._launcher(artifact, copy)
            self._zygotes[key] = z
            while len(self._zygotes) > self.max_zygotes:
                old = self._zygotes.popitem(last=False)[1]
                stop = getattr(old, "stop", None)
                if stop is None:
                    old.close()
                else:  # killed now, its teardown waited for after the match
                    stop()
                    self._closing.append(old)
        self._zygotes.move_to_end(key)
        return z

    def _launcher(self, artifact: Artifact, copy: int) -> Launcher:
        """A new launcher from the artifact's runtime (the registry, by language)."""
        runtime = RUNTIMES.get(artifact.language)
        if runtime is None:
            return _Unlaunchable(f"the arena has no runtime for {artifact.language!r} bots")
        problem = runtime.missing()
        if problem is not None:
            return _Unlaunchable(f"cannot run {artifact.language} bots here: {problem}")
        if isinstance(runtime, PythonRuntime):  # the pool's staging directory, one per copy
            self._keep_spares = self._keep_spares or self._matches > 1
            launcher = runtime.launcher(
                artifact,
                self.limits,
                self.isolation,
                stage=self._stage,
                copy=copy,
                host=self._take_spare(),
            )
            # The next spares import what this bot did (at idle priority, off a set's path).
            self._preload = list(getattr(launcher, "preload", self._preload))
            return launcher
        try:
            return runtime.launcher(artifact, self.limits, self.isolation)
        except (ArenaError, OSError) as e:  # a runtime should not raise; the bot forfeits
            return _Unlaunchable(clean(str(e)))

    def _take_spare(self) -> Zygote | None:
        """The oldest spare host still running (it may still be setting itself up), or None."""
        while self._spares:
            spare = self._spares.pop(0)
            if spare.proc.poll() is None:
                return spare
            spare.close()  # died while waiting (killed from outside?): not a bot's fault
        return None

    def _refill(self) -> None:
        """Close the hosts evicted for this match (killed before it, so gone by now), then
        start spare hosts up to ``spare_hosts`` (not waited for: they set themselves up
        while the next match plays)."""
        while self._closing:
            self._closing.pop().close()
        while self._keep_spares and len(self._spares) < self.spare_hosts:
            spare = Zygote(None, 0, self._stage, self.isolation, self.limits, self._preload)
            self._spares.append(spare)

    def start_spares(self, count: int) -> None:
        """Start spare hosts now, up to ``count`` waiting, at normal priority and not waited
        for: for a caller that knows its next matches seat that many Python bots new to the
        pool (``arena submit``: the new bot, its two partners, the smoke matches' bundled
        bots), so that their hosts start side by side instead of one after the other. They are
        taken like any spare; ``spare_hosts`` (the refill after a match) is unchanged."""
        if not self._closer.alive:
            raise RuntimeError("the BotPool is closed")
        while len(self._spares) < count:
            self._spares.append(
                Zygote(None, 0, self._stage, self.isolation, self.limits, idle=False)
            )

    def play_match(
        self,
        sources: Sequence[BotSource | Artifact | HumanSeat],
        seed: int | str,
        rules: Rules = DEFAULT_RULES,
    ) -> MatchOutcome:
        """Play one match of the three bots (by seat; Python sources or artifacts of any
        language); faults become values, never exceptions. A :class:`HumanSeat` is a seat
        played by a person (:mod:`arena.sandbox.human`): the same checks, its own limits."""
        if len(sources) != 3:
            raise ValueError(f"a match needs exactly three bots, got {len(sources)}")
        if not self._closer.alive:
            raise RuntimeError("the BotPool is closed")
        self._matches += 1
        proxies = [SeatProxy(seat, None, self.limits) for seat in range(3)]
        seen: dict[str, int] = {}
        started = []
        for seat, src in enumerate(sources):
            if isinstance(src, HumanSeat):
                proxies[seat] = SeatProxy(seat, src.channel, src.limits)
                continue
            too_big = self._too_big(src)
            if too_big is not None:  # refused before hashing or staging it
                proxies[seat].fault = Fault(seat, "load", too_big, None)
                continue
            sha = as_artifact(src).sha256
            copy = seen.get(sha, 0)
            seen[sha] = copy + 1
            z = self._zygote(src, copy)
            if z.load_error is not None:
                proxies[seat].fault = Fault(seat, "load", z.load_error, None)
            elif hasattr(z, "start_fork"):  # the Python zygotes all fork at once
                started.append((seat, z, copy, z.start_fork()))
            else:
                started.append((seat, z, copy, None))
        for seat, z, copy, request in started:
            try:
                finish = getattr(z, "finish_fork", None)
                proxies[seat].child = finish(request) if finish is not None else z.start()
            except OSError:
                # The host died (killed from outside, say): not the bot's fault; one new host.
                bot = sources[seat]
                assert not isinstance(bot, HumanSeat)
                z = self._zygote(bot, copy, replace=z)
                try:
                    proxies[seat].child = z.start()
                except OSError as e:
                    proxies[seat].fault = Fault(seat, "load", clean(str(e)), None)
        try:
            for seat, p in enumerate(proxies):
                # One at a time, like every later turn: a bot loads while the others are stopped
                # or not yet started, so none can slow another's loading.
                p.load(bot_random_seed(seed, seat))
            result = play_match(proxies, seed, rules)
            stats = [p.stats() for p in proxies]
        finally:
            children = [p.child for p in proxies if p.child is not None]
            bots = [c for c in children if not isinstance(c, HumanChannel)]
            if not (self.isolation.seccomp or self.isolation.nproc or self.isolation.bwrap):
                self._kill_strays(bots)  # bots could fork: take their trees down too
            for child in children:
                child.kill()
            self._refill()
        logs = []
        for p in proxies:
            text = p.child.read_log(self.limits.log_bytes) if p.child is not None else ""
            logs.append(clean(text, max(self.limits.log_bytes, 1)))  # bot-controlled text
            if p.child is not None:
                p.child.close()
        faults = [p.fault for p in proxies if p.fault is not None]
        placements = forfeit_placements(result.scores, {f.seat for f in faults})
        return MatchOutcome(result, faults, placements, stats, logs)

    def _too_big(self, bot: BotSource | Artifact) -> str | None:
        """Why ``bot`` is over ``Limits.source_bytes`` (before hashing or staging), or None."""
        if isinstance(bot, BotSource):
            return self.limits.source_problem(bot)
        if bot.size <= self.limits.source_bytes:
            return None
        return f"the bot has {bot.size} bytes, over the limit of {self.limits.source_bytes} bytes"

    def _kill_strays(self, bots: list[Channel], patience: float = 1.0) -> None:
        """Kill the match children and everything they forked (only possible when no layer
        stops forks), escapees that detached with setsid included.

        Those come to us, the subreaper, as soon as their parent has exited: so kill the
        trees, then our own children that run the host program, until the match children
        have exited and no such process is left (at most ``patience`` seconds).
        """
        hosts = {pid for z in [*self._zygotes.values(), *self._spares] for pid in _pids(z)[:1]}
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
        for z in [*self._zygotes.values(), *self._spares]:
            pids += _pids(z)
        return pids

    def uids(self) -> list[int]:
        """The uids this pool's bot hosts run as (empty without the per-bot uid layer)."""
        uids = [getattr(z, "uid", lambda: None)() for z in self._zygotes.values()]
        return [u for u in uids if u is not None]

    def close(self) -> None:
        """Stop every bot host; no process of this pool is left afterwards."""
        self._closer()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pids(launcher: Launcher) -> list[int]:
    """The live processes a launcher keeps between matches (its host first), if it says."""
    pids = getattr(launcher, "pids", None)
    return list(pids()) if pids is not None else []


VALIDATION_PARTNERS = 2
"""Bots :func:`validate_bot` seats beside the bot under test: two copies of one Python bot,
each in a host of its own (:meth:`BotPool.start_spares` counts them)."""

# The validation partners take the last legal action: they order up, so hands get played and
# the match ends in a few hands even when the bot under test faults and passes ever after.
_ALWAYS_ORDER = BotSource(
    "always-order", "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"
)


def validate_bot(
    source: BotSource | Artifact | str,
    limits: Limits | None = None,
    *,
    unsafe_no_sandbox: bool = False,
    pool: BotPool | None = None,
) -> Fault | None:
    """Load ``source`` in the sandbox and play one match with it; its fault or ``None``.

    Catches syntax errors, a missing ``Bot`` class, a raising constructor, import-time loops and
    memory bombs (``load`` faults) and a bot that fails on its first decisions. A ``str`` is
    taken as the source text of ``bot.py``; an artifact may be of any language. With ``pool``
    the match is played there (its limits and isolation; it stays open, and the bot's host
    stays warm for more matches), else in a pool of its own.
    """
    if isinstance(source, str):
        source = BotSource("bot", source)
    seats = [source, _ALWAYS_ORDER, _ALWAYS_ORDER]
    if pool is not None:
        return pool.play_match(seats, "validate", DEFAULT_RULES).fault_of(0)
    with BotPool(limits, unsafe_no_sandbox) as own:
        out = own.play_match(seats, "validate", DEFAULT_RULES)
    return out.fault_of(0)
