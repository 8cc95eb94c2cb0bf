"""The arena side of a sandboxed bot: its zygote process and the seat proxy the engine talks to.

A :class:`Zygote` is one bot host per (bot, worker, copy): a process that has loaded only trusted
code and compiled the bot's file. :meth:`Zygote.fork` gets a fresh match child from it over a
unix socket, handing it three private descriptors (requests, replies, log); the kernel tells us
the child's pid (``SCM_CREDENTIALS``, translated out of the sandbox's pid namespace) and a pidfd
makes every later signal race-free. The seat proxies that talk to the children are in
:mod:`arena.sandbox.proxy`.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from arena.sandbox.cgroup import make_cgroup
from arena.sandbox.child import Child, describe_death
from arena.sandbox.layers import Isolation, UidLease, lease_uid, processes_of_uid
from arena.sandbox.procs import await_and_reap, descendants, kill_all, signal_tree
from arena.sandbox.pyfiles import bot_payload, entry_name, write_bot_files
from arena.sandbox.values import BotSource, Limits
from arena.sandbox.world import (
    bwrap_argv,
    compiled_lib,
    host_files,
    open_copies,
    seccomp_programs,
)
from arena.untrusted import clean

__all__ = ["Stage", "Zygote", "Child", "describe_death"]

MAX_LINE: Final = 1 << 20
_HOST: Final = Path(__file__).with_name("host.py")
_CONFINE: Final = Path(__file__).with_name("confine.py")
_WIRE: Final = Path(__file__).with_name("hostwire.py")
_PURE: Final = [
    Path(__file__).resolve().parent.parent / f"{m}.py"
    for m in ("cards", "rules", "keeps", "game", "worlds", "solver")
]
_UCRED: Final = struct.Struct("iII")
PRELOAD: Final = (
    "arena", "bisect", "collections", "copy", "dataclasses", "functools", "heapq", "itertools",
    "json", "math", "re", "typing",
)  # fmt: skip
"""Trusted modules a host imports once for all its matches when its bot's files name them
(``arena``: the arena's rules modules, with ``typing`` and ``dataclasses``); ``random`` it
always imports. A bot imports every other module itself, in each match."""
_PRELOAD_RE: Final = re.compile(rb"\b(" + b"|".join(n.encode() for n in PRELOAD) + rb")\b")
log = logging.getLogger("arena.sandbox")


class Stage:
    """A private staging directory: the host program (``host.py`` and ``confine.py``),
    ``arena.cards`` and one dir per bot.

    Everything is world-readable (dirs 0755, files 0644) so a bot uid can read exactly what it
    is shown, and nothing else of the arena's install needs to be. Names are random: a bot that
    sees its own path (without bubblewrap) learns no pid, bot hash or copy number from it. The
    arena holds a lock on ``.lock`` while it lives, so a later arena knows a stage is stale.
    """

    def __init__(self) -> None:
        _remove_stale_stages()
        self.root = Path(tempfile.mkdtemp(prefix="arena-sandbox-"))
        # Locked before it is named ``.lock``: another arena starting now (a restarted worker
        # clearing stale stages) never finds this stage's lock file free to take.
        unnamed = self.root / ".lock-new"
        self._lock = os.open(unnamed, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        os.rename(unnamed, self.root / ".lock")
        self.root.chmod(0o755)
        self.lib = self.root / "lib"
        (self.lib / "arena").mkdir(parents=True)
        for d in (self.lib, self.lib / "arena"):
            d.chmod(0o755)
        staged = (
            (_HOST, self.lib / "host.py"),
            (_CONFINE, self.lib / "confine.py"),
            (_WIRE, self.lib / "hostwire.py"),
            *((p, self.lib / "arena" / p.name) for p in _PURE),
        )
        for src, dst in staged:
            shutil.copyfile(src, dst)
            dst.chmod(0o644)
        init = self.lib / "arena" / "__init__.py"
        init.write_text(
            '"""Bots may import arena.cards, arena.rules, arena.game, arena.worlds and "'
            'arena.solver."""\n'
        )
        init.chmod(0o644)
        # So no host compiles these modules or builds its seccomp programs again.
        built = [
            *compiled_lib(self.lib),
            *(("seccomp/" + n, b) for n, b in seccomp_programs(self.lib)),
        ]
        for rel, data in built:
            out = self.lib / rel
            out.parent.mkdir(mode=0o755, exist_ok=True)
            out.parent.chmod(0o755)
            out.write_bytes(data)
            out.chmod(0o644)
        (self.root / "bots").mkdir(mode=0o755)
        (self.root / "bots").chmod(0o755)
        self._lib_files: list[Path] | None = None

    def lib_files(self) -> list[Path]:
        """The arena's files a host runs and bots may import (host program, pure modules)."""
        if self._lib_files is None:  # they never change once staged
            self._lib_files = sorted(p for p in self.lib.rglob("*") if p.is_file())
        return self._lib_files

    def bot_file(self, source: BotSource, copy: int) -> Path:
        """Write the bot's file into a directory of its own (one per copy) and return its path."""
        name = entry_name(source)
        d = Path(tempfile.mkdtemp(dir=self.root / "bots"))
        d.chmod(0o755)
        path = d / name
        write_bot_files(path, source)  # and the bot's other files beside it
        return path

    def remove(self) -> None:
        """Delete the staging directory."""
        shutil.rmtree(self.root, ignore_errors=True)
        try:
            os.close(self._lock)
        except OSError:
            pass


def _remove_stale_stages() -> None:
    """Delete staging directories whose arena process is gone (killed before it cleaned up)."""
    for path in Path(tempfile.gettempdir()).glob("arena-sandbox-*"):
        try:
            if path.stat().st_uid != os.geteuid():
                continue
            fd = os.open(path / ".lock", os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its arena still holds the lock
        finally:
            os.close(fd)
        shutil.rmtree(path, ignore_errors=True)


class Zygote:
    """A bot host that compiled one bot file and forks a pristine child per match.

    Made with ``source=None`` it is a *spare*: the sandbox, the interpreter and the host's
    layers and imports set up, no bot yet; :meth:`load` gives it its bot, once. The pool keeps
    a few spares ready, so a bot new to the worker costs its compile, not a host's start.
    """

    def __init__(
        self,
        source: BotSource | None,
        copy: int,
        stage: Stage,
        isolation: Isolation,
        limits: Limits,
        preload: list[str] | None = None,
        *,
        idle: bool = True,
    ):
        self.isolation = isolation
        self.limits = limits
        self.stage = stage
        self.load_error: str | None = None
        self.lease: UidLease | None = lease_uid() if isolation.uid else None
        # A spare sets itself up on CPU no one else wants (SCHED_IDLE), so it never slows a
        # match; the arena (root: it alone may) puts it back to normal when a bot takes it.
        # ``idle`` False: a spare someone waits for (BotPool.start_spares) starts at normal.
        self.idle = idle and source is None and os.geteuid() == 0
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.ctrl = ours
        fd = theirs.fileno()
        lib = str(stage.lib)
        copies: list[tuple[int, str]] = []
        if isolation.bwrap:  # copies of the same files at fixed paths inside the sandbox
            ours_in = [(str(p), f"/arena/{p.relative_to(stage.lib)}") for p in stage.lib_files()]
            copies = open_copies(ours_in)
            lib = "/arena"
            argv = bwrap_argv(copies, isolation.python, f"{lib}/host.py", fd)
        else:
            argv = [isolation.python, "-s", "-S", "-B", f"{lib}/host.py", str(fd)]
        ids: dict[str, Any] = {}
        if self.lease is not None:
            ids = {"user": self.lease.uid, "group": self.lease.uid, "extra_groups": []}
        self.proc = self._start(argv, [fd, *(c for c, _ in copies)], ids)
        theirs.close()
        self.lib = lib
        cfg = {
            "lib": lib,
            "landlock": isolation.landlock,
            "seccomp": isolation.seccomp,
            "pidns": isolation.pidns,
            "nproc": isolation.nproc,
            "limits": limits.to_dict(),
            # What to import before its bot comes: the bot's own list, or for a spare the
            # pool's guess (what the last bot given a host used).
            "preload": preload_names(source) if source is not None else (preload or []),
        }
        self.info: dict[str, Any] = {}
        self._dying: dict[int, int] | None = None  # pidfds of its tree once it is killed
        self.chain: list[int] = []
        self.recent: list[int] = []
        self.source: BotSource | None = None
        self.preload: list[str] = []
        self.copy = copy
        try:
            self.ctrl.sendall(json.dumps(cfg).encode())
        except OSError:
            pass  # the host is gone: load() says why
        if source is not None:
            self.load(source, copy)

    def load(self, source: BotSource, copy: int = 0) -> None:
        """Give the host its bot and wait until it compiled the file (or failed: ``load_error``).

        Under bubblewrap the bot's files go with the message (one memfd) into a tmpfs the host
        mounts on ``/bot`` in its own sandbox; without it they are staged on disk.
        """
        assert self.source is None, "a host is given one bot, once"
        self.source, self.copy = source, copy
        self.preload = preload_names(source)
        memfd: list[int] = []
        if self.isolation.bwrap:
            try:
                files = bot_payload(source)
            except ValueError as e:
                self.load_error = clean(str(e))
                return
            memfd = [os.memfd_create("bot-files", os.MFD_CLOEXEC)]
            with open(memfd[0], "wb", closefd=False) as f:
                for _, data in files:
                    f.write(data)
            os.lseek(memfd[0], 0, os.SEEK_SET)
            bot_dir, entry = "/bot", files[0][0]
            read_paths = ["/usr"]  # inside bubblewrap /usr holds only the host files
        else:
            path = self.stage.bot_file(source, copy)
            bot_dir, entry, files = str(path.parent), path.name, []
            read_paths = list(host_files().read_paths)
        msg = {
            "bot_path": f"{bot_dir}/{entry}",
            "read_paths": [*read_paths, self.lib, bot_dir, "/dev/null", "/dev/urandom"],
            "files": [[rel, len(data)] for rel, data in files],
            "preload": self.preload,
        }
        try:
            self._normal_priority()
            socket.send_fds(self.ctrl, [json.dumps(msg).encode()], memfd)
            # The host's own start too, when it was a spare still setting itself up.
            reply = self._recv(self.limits.load_seconds + 5)
            self._normal_priority()  # what it forked meanwhile: before any match child
        except OSError:
            reply = None
        finally:
            for fd in memfd:
                os.close(fd)
        if reply is None:
            self.load_error = self._start_failure()
        else:
            # Remembered so their zombies can be reaped even if the host is killed from
            # outside (orphans come to this process, the subreaper).
            self.chain = descendants(self.proc.pid)
            answer = json.loads(reply[0])
            if answer.get("ok"):
                self.info = answer
            else:  # the compiler's message quotes the bot's file: bot-controlled text
                self.load_error = clean(answer.get("message", "the bot host failed"))

    def _normal_priority(self) -> None:
        """Back from SCHED_IDLE: every process of a spare that a bot took, parents first."""
        if not self.idle:
            return
        for _ in range(2):  # and what a parent forked while it was being set
            for pid in [self.proc.pid, *descendants(self.proc.pid)]:
                try:
                    os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
                except OSError:
                    pass

    def _start(
        self, argv: list[str], fds: list[int], ids: dict[str, Any]
    ) -> subprocess.Popen[bytes]:
        """Start the host with ``fds`` (closing all but the first, copied in by bubblewrap)."""
        # Made before the host starts, entered by the new process before it execs: everything
        # the host and its bots make, in user or kernel memory, is charged to it.
        self.cgroup = make_cgroup(self.limits.memory_mb) if self.isolation.cgroup else None
        kw: dict[str, Any] = dict(
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=fds,
            close_fds=True,
            start_new_session=True,
            cwd="/",
            env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
            **ids,
        )
        idle = self.idle
        try:
            if self.cgroup is not None:
                enter = self.cgroup.enter
                try:
                    return subprocess.Popen(argv, preexec_fn=lambda: _prepare(enter, idle), **kw)
                except subprocess.SubprocessError as e:  # the probe's process could enter one
                    log.warning("a bot host could not enter its cgroup (%s): started without", e)
                    self.cgroup.remove()
                    self.cgroup = None
            if idle:
                return subprocess.Popen(argv, preexec_fn=lambda: _prepare(None, idle), **kw)
            return subprocess.Popen(argv, **kw)
        finally:
            for c in fds[1:]:
                os.close(c)

    def _start_failure(self) -> str:
        """Why the host did not answer: over its CPU budget compiling, or its last words."""
        last = self._stderr()
        code = self.proc.returncode
        # bwrap exits with 128 + the signal that ended the host; a direct host dies of it.
        if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            limit = self.limits.load_seconds
            return f"compiling the bot file used over {limit:g} s of CPU (load_seconds)"
        return clean("the bot host did not start: " + last)

    def _stderr(self) -> str:
        self.kill()
        assert self.proc.stderr is not None
        try:
            self.proc.wait(timeout=2)
            text = self.proc.stderr.read(4000).decode("utf-8", "replace").strip()
        except (OSError, subprocess.TimeoutExpired):
            text = ""
        return text.splitlines()[-1] if text else f"exit status {self.proc.returncode}"

    def _recv(self, timeout: float) -> tuple[bytes, int | None] | None:
        """One message from the zygote or a new child, with the sender's pid; None on timeout."""
        if not select.select([self.ctrl], [], [], timeout)[0]:
            return None
        msg, anc, _flags, _addr = self.ctrl.recvmsg(65536, socket.CMSG_SPACE(_UCRED.size))
        if not msg:
            return None
        pid = None
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = _UCRED.unpack(data[: _UCRED.size])[0]
        return msg, pid

    @property
    def usable(self) -> bool:
        """Loaded and still running."""
        return self.load_error is None and self.proc.poll() is None

    def fork(self) -> Child:
        """A fresh match child (raises OSError when the zygote cannot provide one)."""
        return self.finish_fork(self.start_fork())

    def start_fork(self) -> tuple[int, int, int] | OSError:
        """Ask for a match child; :meth:`finish_fork` collects it (so zygotes fork in parallel).

        The order carries nothing but the child's descriptors: no seed, seat or match
        identifier ever enters the zygote, whose memory every later child inherits.
        """
        req_r, req_w = os.pipe2(os.O_CLOEXEC)
        resp_r, resp_w = os.pipe2(os.O_CLOEXEC)
        log = os.memfd_create("bot-log", os.MFD_CLOEXEC)
        try:
            socket.send_fds(self.ctrl, [b"fork"], [req_r, resp_w, log])
        except OSError as e:
            for fd in (req_w, resp_r, log):
                os.close(fd)
            return e
        finally:
            os.close(req_r)
            os.close(resp_w)
        return req_w, resp_r, log

    def finish_fork(self, started: tuple[int, int, int] | OSError) -> Child:
        """The child asked for by :meth:`start_fork`, or OSError."""
        if isinstance(started, OSError):
            raise OSError(f"the bot host could not start a match process: {started}")
        req_w, resp_r, log = started
        try:
            got = self._recv(self.limits.load_seconds + 5)
        except OSError:
            got = None
        if got is None or got[1] is None or not got[0].startswith(b'{"child"'):
            for fd in (req_w, resp_r, log):
                os.close(fd)
            detail = got[0].decode("utf-8", "replace") if got else "no answer"
            raise OSError(f"the bot host could not start a match process: {detail}")
        pid = got[1]
        self.recent = [*self.recent[-5:], pid]  # the zygote reaps them on its next fork
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            for fd in (req_w, resp_r, log):
                os.close(fd)
            raise
        os.set_blocking(resp_r, False)
        os.set_blocking(req_w, False)
        forks = not (self.isolation.seccomp or self.isolation.bwrap or self.isolation.nproc)
        return Child(
            pid,
            pidfd,
            req_w,
            resp_r,
            log,
            forks,
            self.isolation.freeze,
            park=self.isolation.seccomp,
        )

    def pids(self) -> list[int]:
        """The host's process and all its descendants, while they live."""
        if self.proc.poll() is not None:
            return []
        return [self.proc.pid, *descendants(self.proc.pid)]

    def stop(self) -> None:
        """SIGKILL the host's whole tree and return at once; :meth:`close` later waits for it
        (the kernel tears the sandbox down meanwhile)."""
        if self._dying is None:
            self._dying = signal_tree(self.proc.pid)

    def kill(self, sweep: bool = True) -> None:
        """Kill the host and everything under it (bwrap's namespace goes with its init), wait
        until all of it has ended and reap what came to us; with ``sweep``, kill whatever else
        runs as its uid too (:meth:`close` does that itself).

        The processes are held by pidfds from before the kill: signals cannot reach a reused
        pid, and the wait is a ``poll`` on them. Nothing here looks up ``/proc`` of a process
        that is ending: the first lookup of a process's ``/proc`` entry after it was released
        spins in the kernel (``d_invalidate``) while its sandbox is torn down, 30-60 ms of CPU
        a host when it was done in a loop here.
        """
        if self._dying is None:
            self._dying = signal_tree(self.proc.pid)
        dying, self._dying = self._dying, {}
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()
        await_and_reap(dying)
        if self.lease is not None and sweep:  # whatever else runs as its uid (none in bwrap)
            kill_all(processes_of_uid(self.lease.uid))
        # Remembered children of the host that were not in its tree (it was killed from
        # outside): those that came to us are reaped now.
        for pid in {*self.chain, *self.recent} - set(dying):
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        self.chain, self.recent = [], []
        if self.cgroup is not None and self.cgroup.remove():
            self.cgroup = None

    def close(self) -> None:
        """Stop the host, wait until no process of it is left, release its uid."""
        try:
            self.ctrl.close()
        except OSError:
            pass
        self.kill(sweep=False)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        if self.lease is not None:
            # Usually one scan: the host's processes have all ended and been reaped by now.
            deadline = time.monotonic() + 5
            left = processes_of_uid(self.lease.uid)
            while left and time.monotonic() < deadline:
                kill_all(left)
                time.sleep(0.005)
                left = processes_of_uid(self.lease.uid)
            if not left:
                self.lease.release()  # never reuse a uid while a process of it lives


def preload_names(source: BotSource) -> list[str]:
    """The modules of :data:`PRELOAD` that the bot's files name (a word anywhere: an import,
    say), in that order. Only a guide to what its host imports before the bot loads; a bot
    that imports a module otherwise gets it all the same."""
    try:
        files = bot_payload(source)
    except ValueError:
        return list(PRELOAD)
    found = {m.decode() for _, data in files for m in _PRELOAD_RE.findall(data)}
    return [name for name in PRELOAD if name in found]


def _prepare(enter: Any, idle: bool) -> None:
    """In a new host's process, before it execs: into its cgroup; a spare at idle priority."""
    if enter is not None:
        enter()
    if idle:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


_descendants = descendants  # the name the pool, the native worlds and tests use
