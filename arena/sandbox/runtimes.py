"""The registry of runtimes (one per language) and the Python runtime.

:data:`RUNTIMES` maps a language (``python``, ``c``, ...) to its
:class:`~arena.sandbox.runtime.Runtime`; :func:`runtime_for` picks one by a file's extension,
:func:`available` lists those whose toolchain is on this machine. The pool
(:class:`arena.sandbox.pool.BotPool`) goes through this registry for every bot, so a runtime
plugs in by being listed here.

The Python runtime's launcher is the zygote of :mod:`arena.sandbox.client`: one host process
per bot version that compiled the bot's file, forking a pristine match process per
:meth:`PythonLauncher.start` (``start_fork``/``finish_fork`` let the three seats of a match
fork at once).
"""

from __future__ import annotations

import os
from pathlib import PurePosixPath
from typing import Any

from arena.errors import ArenaError
from arena.sandbox.client import Child, Stage, Zygote
from arena.sandbox.layers import HOST_PYTHON, Isolation
from arena.sandbox.native import NATIVE_RUNTIMES
from arena.sandbox.pyfiles import python_source
from arena.sandbox.runtime import Artifact, Runtime
from arena.sandbox.values import BotSource, Limits

__all__ = [
    "RUNTIMES",
    "PythonRuntime",
    "PythonLauncher",
    "runtime_for",
    "runtime_of",
    "available",
    "as_artifact",
    "python_source",
]


def as_artifact(bot: BotSource | Artifact) -> Artifact:
    """A :class:`BotSource` (one Python file) as the artifact it is; an artifact unchanged."""
    if isinstance(bot, Artifact):
        return bot
    return Artifact("python", ((bot.filename, bot.source.encode("utf-8")),), bot.filename)


class PythonLauncher:
    """A Python bot version's zygote, as a :class:`~arena.sandbox.runtime.Launcher`."""

    def __init__(
        self, zygote: Zygote | None, load_error: str | None = None, stage: Stage | None = None
    ) -> None:
        self.zygote = zygote
        self._stage = stage  # its own staging directory, when the caller gave none
        if load_error is None and zygote is None:
            load_error = "no bot host"
        self.load_error: str | None = load_error if zygote is None else zygote.load_error
        """Why the bot cannot start (a compile error, a host that failed), or None."""

    def __getattr__(self, name: str) -> Any:
        # The zygote's own attributes (``info``, ``lease``, ``cgroup``, ``proc``, ``fork``),
        # for the doctor, tests and benchmarks that look at a Python host.
        if name == "zygote" or self.__dict__.get("zygote") is None:
            raise AttributeError(name)
        return getattr(self.zygote, name)

    @property
    def usable(self) -> bool:
        """Loaded and its host still running."""
        return self.zygote is not None and self.zygote.usable

    def start(self) -> Child:
        """A fresh match process forked from the zygote (raises OSError)."""
        assert self.zygote is not None
        return self.zygote.fork()

    def start_fork(self) -> tuple[int, int, int] | OSError:
        """Ask for a match process; :meth:`finish_fork` collects it (seats fork at once)."""
        assert self.zygote is not None
        return self.zygote.start_fork()

    def finish_fork(self, started: tuple[int, int, int] | OSError) -> Child:
        """The match process asked for by :meth:`start_fork` (raises OSError)."""
        assert self.zygote is not None
        return self.zygote.finish_fork(started)

    def pids(self) -> list[int]:
        """Every live process of the host."""
        return self.zygote.pids() if self.zygote is not None else []

    def uid(self) -> int | None:
        """The uid the host runs as (None without the per-bot uid layer)."""
        lease = self.zygote.lease if self.zygote is not None else None
        return lease.uid if lease is not None else None

    def stop(self) -> None:
        """Kill the host at once; :meth:`close` then waits for nothing much."""
        if self.zygote is not None:
            self.zygote.stop()

    def close(self) -> None:
        """Stop the host and everything under it."""
        if self.zygote is not None:
            self.zygote.close()
        if self._stage is not None:
            self._stage.remove()


class PythonRuntime:
    """Python bots: one ``.py`` file with a class ``Bot`` (docs/writing-a-bot.md), run by the
    bot host (``host.py``, the reference implementation of protocol v1) on the system
    Python."""

    language = "python"
    extensions: tuple[str, ...] = (".py",)

    def missing(self) -> str | None:
        """None when the system Python the sandbox runs bots on is here."""
        if os.access(HOST_PYTHON, os.X_OK):
            return None
        return f"python: {HOST_PYTHON} is missing (Debian package python3)"

    def launcher(
        self,
        artifact: Artifact,
        limits: object,
        isolation: object,
        *,
        stage: Stage | None = None,
        copy: int = 0,
        host: Zygote | None = None,
    ) -> PythonLauncher:
        """A zygote that compiled the artifact's file, staged in ``stage`` (the pool's; one
        is made otherwise, and removed with the launcher); ``copy`` numbers the copies of one
        bot in a match (each its own zygote). ``host`` is a spare (a blank host of the same
        stage, isolation and limits) to give the bot to instead of starting one; it is
        closed when the bot cannot be a Python one."""
        assert isinstance(limits, Limits) and isinstance(isolation, Isolation)
        source = python_source(artifact)
        if isinstance(source, str):
            if host is not None:
                host.close()
            return PythonLauncher(None, source)
        if host is not None:
            host.load(source, copy)
            return PythonLauncher(host)
        own = Stage() if stage is None else None
        z = Zygote(source, copy, stage or own, isolation, limits)  # type: ignore[arg-type]
        return PythonLauncher(z, stage=own)


PYTHON = PythonRuntime()


def _registry(*runtimes: Runtime) -> dict[str, Runtime]:
    return {r.language: r for r in runtimes}


RUNTIMES: dict[str, Runtime] = _registry(PYTHON, *NATIVE_RUNTIMES)
"""Every runtime the arena knows, by language."""


def _extensions() -> str:
    return ", ".join(f"{ext} ({r.language})" for r in RUNTIMES.values() for ext in r.extensions)


def runtime_of(language: str) -> Runtime:
    """The runtime of ``language``; ArenaError (one line) when there is none or its toolchain
    is missing here."""
    runtime = RUNTIMES.get(language)
    if runtime is None:
        known = ", ".join(RUNTIMES)
        raise ArenaError(f"no runtime for the language {language!r} (the arena runs: {known})")
    problem = runtime.missing()
    if problem is not None:
        raise ArenaError(f"cannot run {language} bots on this machine: {problem}")
    return runtime


def runtime_for(path: str | os.PathLike[str]) -> Runtime:
    """The runtime for a bot file, by its extension (``bot.c`` -> ``c``); ArenaError when no
    runtime takes that extension or its toolchain is missing."""
    suffix = PurePosixPath(os.fspath(path)).suffix.lower()
    for runtime in RUNTIMES.values():
        if suffix in runtime.extensions:
            return runtime_of(runtime.language)
    shown = suffix or "extension-less"
    raise ArenaError(
        f"{os.fspath(path)}: no runtime for {shown} files (the arena takes {_extensions()})"
    )


def available() -> list[Runtime]:
    """The runtimes whose toolchain is on this machine, in registry order."""
    return [r for r in RUNTIMES.values() if r.missing() is None]
