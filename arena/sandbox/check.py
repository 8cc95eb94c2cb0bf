"""``arena check BOT``: a protocol conformance test of one bot, in the real sandbox.

The bot is started as a match would start it (its runtime's launcher, the per-match world),
sent its ``hello``, then one ``act`` line for a scripted observation of every phase (``bid1``,
``pickup``, ``discard``, ``bid2``, ``alone``, ``keep``, ``play``, ``joker_trump``), a forced
one (one legal action) and one carrying keys the bot does not know (v1 bots must ignore them),
then its stdin is closed. Every problem is one line; none means the bot speaks protocol v1.

Unlike a match, a problem does not end the check: after a wrong answer the next request is
sent anyway, so one run lists them all. Only a bot that stops answering (dead, silent past its
time) ends it early.
"""

from __future__ import annotations

import json
import os
import random
import select
import time
from collections.abc import Sequence
from typing import Any, Final, cast

from arena.engine import Rules, is_legal, play_match
from arena.rules import PHASES, Observation
from arena.sandbox.client import Stage
from arena.sandbox.layers import choose_isolation
from arena.sandbox.proxy import MAX_LINE, WALL_FACTOR, act_line, hello_line
from arena.sandbox.runtime import PROTOCOL_VERSION, Artifact, Channel, Launcher
from arena.sandbox.runtimes import RUNTIMES, PythonRuntime, as_artifact
from arena.sandbox.values import BotSource, Limits, bot_random_seed
from arena.untrusted import clean_line

__all__ = ["check_bot", "scripted_observations"]

_NAME_CHARS: Final = 64
_EXIT_WAIT: Final = 2.0


def scripted_observations(seed: int = 1) -> list[Observation]:
    """One observation of every phase where the seat has a choice, then a forced one (one
    legal action): taken from seeded matches of the real engine (25-card deck, so the Joker
    turns up), the same every time."""
    found: dict[str, Observation] = {}
    forced: list[Observation] = []

    class Recorder:
        def __init__(self, rng: random.Random) -> None:
            self.rng = rng

        def act(self, obs: Observation) -> Any:
            legal = obs["legal"]
            if len(legal) > 1:
                found.setdefault(obs["phase"], obs)
            elif not forced:
                forced.append(obs)
            return self.rng.choice(legal)

    rules = Rules(deck=25)
    for k in range(200):
        if len(found) == len(PHASES) and forced:
            break
        rng = random.Random(seed * 1000 + k)
        play_match([Recorder(rng), Recorder(rng), Recorder(rng)], seed * 1000 + k, rules)
    return [found[p] for p in PHASES if p in found] + forced[:1]


class _Driver:
    """The arena's side of the check: writes lines, reads lines, collects problems."""

    def __init__(self, channel: Channel, limits: Limits) -> None:
        self.ch = channel
        self.limits = limits
        self.buf = b""
        self.problems: list[str] = []
        self.dead = False

    def problem(self, text: str) -> None:
        self.problems.append(clean_line(text, 300))

    def send(self, data: bytes, what: str) -> bool:
        deadline = time.monotonic() + WALL_FACTOR * self.limits.decision_seconds
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.ch.req, view) :]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [self.ch.req], [], left)[1]:
                    self.problem(f"{what}: the bot does not read its stdin")
                    return False
            except OSError:
                self.problem(f"{what}: the bot closed its stdin (or exited)")
                self.dead = True
                return False
        return True

    def line(self, seconds: float, what: str) -> bytes | None:
        """One line within ``seconds`` of wall clock; None (a problem recorded) otherwise."""
        deadline = time.monotonic() + seconds
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                out, self.buf = self.buf[:nl], self.buf[nl + 1 :]
                return out
            if len(self.buf) > MAX_LINE:
                self.problem(f"{what}: a line of over 1 MiB on stdout")
                self.dead = True
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                self.problem(f"{what}: no answer line within {seconds:g} s")
                self.dead = True
                return None
            if not select.select([self.ch.resp], [], [], left)[0]:
                continue
            try:
                chunk = os.read(self.ch.resp, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.problem(f"{what}: the bot exited (or closed its stdout) without answering")
                self.dead = True
                return None
            self.buf += chunk

    def extra_output(self, what: str) -> None:
        """A problem when the bot wrote more than one line for the last message."""
        time.sleep(0.05)  # a second line written right after the first
        try:
            self.buf += os.read(self.ch.resp, MAX_LINE)
        except OSError:
            pass
        if self.buf:
            self.problem(f"{what}: more than one line ({_quote(self.buf)} after the answer)")
            self.buf = b""


def _quote(line: bytes) -> str:
    return repr(line[:60])[1:] if len(line) <= 60 else repr(line[:60])[1:] + "..."


def _check_ready(d: _Driver) -> None:
    line = d.line(d.limits.load_seconds * WALL_FACTOR, "ready")
    if line is None:
        return
    try:
        msg = json.loads(line)
    except ValueError:
        d.problem(f"ready: not a JSON line: {_quote(line)}")
        d.dead = True
        return
    if not isinstance(msg, dict):
        d.problem(f"ready: not a JSON object: {_quote(line)}")
        d.dead = True
        return
    if msg.get("error") == "load":
        d.problem(f"ready: the bot could not load: {msg.get('message')}")
        d.dead = True
        return
    version = msg.get("protocol")
    if version != PROTOCOL_VERSION or type(version) is not int:
        d.problem(f"ready: speaks protocol {json.dumps(version)}; the arena speaks 1")
    name = msg.get("name")
    if not isinstance(name, str) or not name:
        d.problem('ready: no "name" string')
    elif len(name) > _NAME_CHARS or clean_line(name, _NAME_CHARS) != name:
        d.problem(f"ready: the name is over {_NAME_CHARS} characters or has control characters")
    d.extra_output("ready")


def _check_answer(d: _Driver, k: int, obs: Observation) -> None:
    what = f"request {k} ({obs['phase']})"
    line = d.line(WALL_FACTOR * d.limits.decision_seconds, what)
    if line is None:
        return
    try:
        msg = json.loads(line)
    except ValueError:
        d.problem(f"{what}: not a JSON line: {_quote(line)} (stdout is for protocol lines only)")
        return
    if not isinstance(msg, dict):
        d.problem(f"{what}: not a JSON object: {_quote(line)}")
        return
    if msg.get("id") != k or type(msg.get("id")) is not int:
        d.problem(f"{what}: the answer's id is {json.dumps(msg.get('id'))[:20]}, not {k}")
    elif "action" in msg:
        if not is_legal(obs, msg["action"]):
            shown = json.dumps(msg["action"])[:60]
            d.problem(f"{what}: {shown} is not in obs.legal")
    elif msg.get("error") in ("crash", "memory", "illegal"):
        d.problem(f"{what}: the bot reported {msg['error']}: {msg.get('message', '')}")
    else:
        d.problem(f"{what}: neither an action nor an error: {_quote(line)}")
    d.extra_output(what)


def _launch(artifact: Artifact, limits: Limits, stage: Stage) -> Launcher:
    runtime = RUNTIMES.get(artifact.language)
    if runtime is None:
        raise OSError(f"the arena has no runtime for {artifact.language!r} bots")
    problem = runtime.missing()
    if problem is not None:
        raise OSError(f"cannot run {artifact.language} bots here: {problem}")
    isolation = choose_isolation(False)
    if isinstance(runtime, PythonRuntime):
        return runtime.launcher(artifact, limits, isolation, stage=stage)
    return runtime.launcher(artifact, limits, isolation)


def check_bot(
    bot: BotSource | Artifact,
    limits: Limits | None = None,
    observations: Sequence[Observation] | None = None,
) -> list[str]:
    """Every protocol problem of ``bot`` as one line each; empty when it speaks protocol v1.

    Runs the bot in the real sandbox (raises :class:`~arena.sandbox.values.SandboxUnavailable`
    when there is none). ``observations`` defaults to :func:`scripted_observations`.
    """
    limits = limits or Limits()
    obs_list = list(observations) if observations is not None else scripted_observations()
    artifact = as_artifact(bot)
    stage = Stage()
    launcher: Launcher | None = None
    channel: Channel | None = None
    try:
        try:
            launcher = _launch(artifact, limits, stage)
            if launcher.load_error is not None:
                return [clean_line(f"load: {launcher.load_error}", 300)]
            channel = launcher.start()
        except OSError as e:
            return [clean_line(f"start: {e}", 300)]
        channel.resume()
        return _converse(_Driver(channel, limits), obs_list)
    finally:
        if channel is not None:
            channel.close()
        if launcher is not None:
            launcher.close()
        stage.remove()


def _converse(d: _Driver, obs_list: list[Observation]) -> list[str]:
    """Hello, every observation, one with unknown keys, then the end (stdin closed)."""
    if d.send(hello_line(0, bot_random_seed("arena-check", 0), d.limits), "hello"):
        _check_ready(d)
    k = 0
    for obs in obs_list:
        if d.dead:
            break
        if d.send(act_line(k, obs), f"request {k} ({obs['phase']})"):
            _check_answer(d, k, obs)
        k += 1
    if not d.dead and obs_list:
        # Keys added in later versions: a v1 bot ignores what it does not know.
        last = obs_list[-2 if len(obs_list) > 1 else 0]
        obs = cast(Observation, {**last, "future_key": {"x": [1]}})  # an extra key: still one
        line = json.dumps({"type": "act", "id": k, "obs": obs, "future": 1}).encode() + b"\n"
        if d.send(line, f"request {k} (unknown keys)"):
            _check_answer(d, k, obs)
    if not d.dead:
        _end(d)
    return d.problems


def _end(d: _Driver) -> None:
    """Close the bot's stdin; it should exit (within :data:`_EXIT_WAIT` seconds)."""
    try:
        os.close(d.ch.req)
    except OSError:
        return
    d.ch.req = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)  # close() closes it again
    deadline = time.monotonic() + _EXIT_WAIT
    while d.ch.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    if d.ch.running():
        d.problem(f"end: the bot did not exit within {_EXIT_WAIT:g} s of its stdin closing")
