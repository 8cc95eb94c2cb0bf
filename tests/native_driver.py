"""A small protocol-v1 driver for the native runtimes' tests: a seat that plays a bot behind a
:class:`arena.sandbox.runtime.Channel` through :func:`arena.engine.play_match`.

It speaks docs/protocol.md as the arena's seat does (hello, one act per decision, ids from 0,
an answer line within a deadline, the action one of ``obs["legal"]``) and records every
departure as a fault instead of raising, so a test can assert there were none. It is not the
arena's seat (arena/sandbox/proxy.py is): it exists so the runtimes are tested end to end on
their own.
"""

from __future__ import annotations

import json
import os
import select
import time
from dataclasses import dataclass, field
from typing import Any

from arena.engine import play_match
from arena.sandbox.runtime import Artifact
from arena.sandbox.values import Limits

KIT_LIMITS = Limits()


@dataclass
class Seat:
    """One bot's seat: its channel, the faults it made, its CPU and wall time."""

    channel: Any
    seat: int
    seed: str = "00" * 64
    deadline: float = 10.0
    faults: list[str] = field(default_factory=list)
    decisions: int = 0
    name: str = ""
    _buf: bytes = b""

    def _line(self, timeout: float) -> bytes | None:
        end = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.channel.resp], [], [], left)[0]:
                return None
            try:
                chunk = os.read(self.channel.resp, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                return None
            self._buf += chunk
            if len(self._buf) > 1 << 20 and b"\n" not in self._buf:
                return None
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _send(self, msg: dict[str, Any]) -> bool:
        data = (json.dumps(msg) + "\n").encode()
        try:
            while data:
                select.select([], [self.channel.req], [], self.deadline)
                data = data[os.write(self.channel.req, data) :]
        except OSError as e:
            self.faults.append(f"write: {e}")
            return False
        return True

    def hello(self) -> None:
        """Send the go-ahead and read the bot's ready line."""
        limits = {"decision_seconds": 1.0, "match_cpu_seconds": 20.0, "memory_mb": 1024}
        msg = {"type": "hello", "protocol": 1, "seat": self.seat, "seed": self.seed}
        if self._send({**msg, "limits": limits}):
            line = self._line(self.deadline)
            try:
                ready = json.loads(line) if line is not None else None
            except ValueError:
                ready = None
            if not isinstance(ready, dict) or ready.get("protocol") != 1:
                self.faults.append(f"load: {line!r}")
            else:
                self.name = str(ready.get("name", ""))
        self.channel.stop()

    def act(self, obs: dict[str, Any]) -> Any:
        """One decision: a round trip with a deadline; a fault plays the first legal action."""
        legal = obs["legal"]
        if self.faults:
            return legal[0]
        self.channel.resume()
        try:
            if not self._send({"type": "act", "id": self.decisions, "obs": obs}):
                return legal[0]
            line = self._line(self.deadline)
        finally:
            self.channel.stop()
        try:
            answer = json.loads(line) if line is not None else None
        except ValueError:
            answer = None
        if not isinstance(answer, dict) or answer.get("id") != self.decisions:
            self.faults.append(f"protocol at {obs['phase']}: {line!r}"[:300])
            return legal[0]
        self.decisions += 1
        action = answer.get("action")
        if obs["phase"] == "keep":
            if not isinstance(action, list) or sorted(action) not in [sorted(k) for k in legal]:
                self.faults.append(f"illegal keep {action!r}")
                return legal[0]
        elif action not in legal:
            self.faults.append(f"illegal {obs['phase']} {action!r} not in {legal}")
            return legal[0]
        return action


KITS: dict[str, str] = {
    "c": "kits/c/bot.c",
    "cpp": "kits/cpp/bot.cpp",
    "rust": "kits/rust/bot.rs",
    "go": "kits/go/bot.go",
    "javascript": "kits/javascript/bot.js",
    "java": "kits/java/Bot.java",
}
"""Each starter kit's file, from the repository's root, by language."""


def kit(language: str, path: str) -> Artifact:
    """The artifact of one kit file."""
    with open(path, "rb") as f:
        data = f.read()
    name = os.path.basename(path)
    return Artifact(language, ((name, data),), name)


def play(bots: list[Any], seed: int) -> Any:
    """One match of three bots (seats or plain Python bots)."""
    for b in bots:
        if isinstance(b, Seat):
            b.hello()
    return play_match(bots, seed=seed)
