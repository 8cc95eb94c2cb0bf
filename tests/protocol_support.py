"""A runtime for tests: runs a Python *program* (not a Bot class) that speaks protocol v1 on
its standard input and output, with no sandbox at all. It shows what the seam asks of a
runtime (arena/sandbox/runtime.py) and that the seat's checks work over any channel: the
other languages' runtimes plug in the same way, with their builds and their sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.sandbox.client import Child
from arena.sandbox.runtime import Artifact


class RawLauncher:
    def __init__(self, artifact: Artifact) -> None:
        self.load_error: str | None = None
        self.dir = Path(tempfile.mkdtemp(prefix="raw-bot-"))
        for path, data in artifact.files:
            (self.dir / path).parent.mkdir(parents=True, exist_ok=True)
            (self.dir / path).write_bytes(data)
        self.entry = self.dir / artifact.entry
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> Child:
        log = os.memfd_create("raw-bot-log", os.MFD_CLOEXEC)
        proc = subprocess.Popen(
            [sys.executable, "-S", str(self.entry)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
        self.procs.append(proc)
        assert proc.stdin is not None and proc.stdout is not None
        req, resp = os.dup(proc.stdin.fileno()), os.dup(proc.stdout.fileno())
        proc.stdin.close()
        proc.stdout.close()
        os.set_blocking(req, False)
        os.set_blocking(resp, False)
        return Child(proc.pid, os.pidfd_open(proc.pid), req, resp, log)

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()
        for f in sorted(self.dir.rglob("*"), reverse=True):
            f.unlink() if f.is_file() else f.rmdir()
        self.dir.rmdir()


class RawRuntime:
    language = "raw-python"
    extensions: tuple[str, ...] = (".rawpy",)

    def missing(self) -> str | None:
        return None

    def launcher(self, artifact: Artifact, limits: object, isolation: object) -> RawLauncher:
        return RawLauncher(artifact)
