"""The seam between the arena and a bot's process: a ``Runtime`` gives a ``Launcher``, which
starts one match's process behind a ``Channel``.

Whatever is behind the channel (the Python host forked from its zygote, a compiled C program,
a JVM), the seat's checks are the same: the arena writes protocol-v1 request lines to
``channel.req``, reads answer lines from ``channel.resp``, stops and resumes the process between
turns, reads its CPU time, and kills it at the end (docs/protocol.md). Every limit, cap and check
sits in :class:`arena.sandbox.proxy.SeatProxy`, once, not in a runtime.

A runtime is one language: it knows its file extensions, whether its toolchain is on this
machine, how to build an artifact (in the sandbox, once per version, cached by hash) and how to
start it in a per-match world.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena.errors import ArenaError

PROTOCOL_VERSION = 1
"""The version of the JSON-lines bot protocol the arena speaks (docs/protocol.md)."""


class BuildError(ArenaError):
    """An artifact did not build: one line, ``file:line: message`` where the compiler says where."""


@dataclass(frozen=True)
class Artifact:
    """A bot version as stored: its language, its files and the one it starts from.

    ``files`` holds ``(relative path, content)`` pairs sorted by path; ``entry`` is one of those
    paths (``bot.py``, ``bot.c``, ``Bot.java``, ...). The hash covers all of it, so the same
    files in another language, or with another entry point, are another version.
    """

    language: str
    files: tuple[tuple[str, bytes], ...]
    entry: str

    @property
    def sha256(self) -> str:
        """Hex SHA-256 over the language, the entry point and every file (length-prefixed)."""
        h = hashlib.sha256()
        for part in (self.language.encode(), self.entry.encode()):
            h.update(len(part).to_bytes(8, "little") + part)
        for path, data in self.files:
            p = path.encode()
            h.update(len(p).to_bytes(8, "little") + p + len(data).to_bytes(8, "little") + data)
        return h.hexdigest()

    @property
    def size(self) -> int:
        """Bytes of all files together (what ``Limits.source_bytes`` caps)."""
        return sum(len(data) for _, data in self.files)


@runtime_checkable
class Channel(Protocol):
    """One match's bot process as the seat sees it (:class:`arena.sandbox.client.Child` is one).

    ``req`` is the descriptor the arena writes request lines to (the bot's stdin), ``resp`` the
    one it reads answer lines from (the bot's stdout); both non-blocking on the arena's side.
    What the bot writes to stderr goes to a capped log, read with :meth:`read_log`.
    """

    pid: int
    req: int
    resp: int
    alive: bool
    cpu_at_end: float

    def cpu_seconds(self) -> float:
        """CPU time of the bot so far, all its threads included."""

    def stop(self) -> None:
        """Freeze the bot between its turns."""

    def resume(self) -> None:
        """Let the bot run for its turn."""

    def running(self) -> bool:
        """Whether the process has not exited yet."""

    def kill(self) -> None:
        """Kill the bot (idempotent); ``cpu_at_end`` keeps its last CPU reading."""

    def read_log(self, cap: int) -> str:
        """What the bot wrote to its log (stderr), at most ``cap`` bytes."""

    def close(self) -> None:
        """Kill if needed and release every descriptor."""


@runtime_checkable
class Launcher(Protocol):
    """Starts processes of one built artifact, one per match, each in a world of its own.

    ``load_error`` is set (one line, bot-controlled text already cleaned) when the artifact
    cannot start at all: a build error or a missing toolchain. The seat then forfeits with a
    ``load`` fault and :meth:`start` is not called.
    """

    load_error: str | None

    def start(self) -> Channel:
        """Start one match's process; the protocol's hello is the seat's to send. Raises OSError."""

    def close(self) -> None:
        """Stop everything this launcher keeps (warm processes, build directories)."""


@runtime_checkable
class Runtime(Protocol):
    """One language: its toolchain on this machine, its builds and its launcher."""

    language: str
    """The key stored with a bot version: ``python``, ``c``, ``cpp``, ``rust``, ``javascript``,
    ``java``, ``go``."""
    extensions: tuple[str, ...]
    """File extensions that pick this runtime (``.py``; ``.c``; ``.cpp``, ``.cc``; ...)."""

    def missing(self) -> str | None:
        """None when this runtime can build and run bots here; else one line naming what is
        missing and the Debian package that brings it (``arena doctor`` prints it)."""

    def launcher(self, artifact: Artifact, limits: object, isolation: object) -> Launcher:
        """A launcher for ``artifact`` (built first if needed, in the sandbox, cached by its
        hash). Never raises for the bot's sake: a build error is the launcher's ``load_error``."""
