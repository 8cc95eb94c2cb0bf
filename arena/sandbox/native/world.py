"""A native bot's match: its world, its process and the channel the seat talks through.

Each match starts a new bubblewrap world: its own tmpfs root, no directory of the machine (the
launcher, the bot's build outputs and a runtime's files are bound or copied in file by file, so
no lookup leaves a name in a host directory's cache), no network, new pid, ipc, uts, user and
net namespaces, read-only. The world's processes (bubblewrap, the launcher as pid 1, the bot and
its threads) are in a memory and pids cgroup of their own (arena/sandbox/cgroup.py): the bot's
memory, kernel memory included, is bounded there, not by ``RLIMIT_AS`` (the JVM, Go and Node
reserve large address ranges they never touch).
"""

from __future__ import annotations

import functools
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Final

from arena.sandbox.cgroup import PIDS, HostCgroup, make_cgroup
from arena.sandbox.client import Child
from arena.sandbox.layers import UidLease, become_subreaper, lease_uid, processes_of_uid
from arena.sandbox.procs import parent_pid, reap
from arena.sandbox.world import bwrap_prefix

__all__ = ["Plan", "NativeChannel", "start_world"]

_TICK: Final = os.sysconf("SC_CLK_TCK")
_SETUP_CODES: Final = {
    120: "a limit could not be set",
    121: "no_new_privs could not be set",
    122: "the seccomp filter was refused",
    123: "the launcher lost its child",
    124: "the launcher was called wrongly",
    125: "the seccomp filter could not be read",
    126: "the launcher could not fork",
    127: "the bot's program could not be executed",
}


@dataclass(frozen=True)
class Plan:
    """What one match's world holds and runs.

    ``binds`` are ``(outside file, inside path)`` bound read-only; ``copies`` files copied into
    the world's tmpfs; ``argv`` the bot's command inside; ``proc`` mounts a ``/proc`` of the
    world's own pid namespace (the JVM reads its own maps there); ``filter`` the seccomp
    program; ``memory_mb`` the cgroup's bound; ``cpu_seconds`` the CPU backstop
    (``RLIMIT_CPU``); ``log_bytes`` the log's size.
    """

    binds: tuple[tuple[str, str], ...]
    copies: tuple[tuple[str, str], ...]
    argv: tuple[str, ...]
    launcher: str
    filter: bytes
    memory_mb: int
    cpu_seconds: int
    log_bytes: int
    proc: bool = False
    uid: bool = False
    env: tuple[tuple[str, str], ...] = ()
    start_seconds: float = 10.0
    wrap: tuple[str, ...] = ()
    """A command the world runs under (``strace -f -o FILE`` for bench/native_syscalls.py)."""


@functools.cache
def _proc_masks() -> tuple[str, ...]:
    """What hides the machine in a world's own ``/proc``: its processes' directories (only the
    world's own) and ``self``/``thread-self`` stay; every other entry is a figure of the whole
    machine (``stat``, ``loadavg``, ``meminfo``, ``uptime``, ``pressure/``, ``sys/``, ...) that
    other bots move, so each file is covered by an empty one and each directory by an empty
    read-only tmpfs (the symbolic links, ``mounts`` and ``net``, lead into ``self``)."""
    masks: list[str] = []
    for name in sorted(os.listdir("/proc")):
        path = f"/proc/{name}"
        if name.isdigit() or name in ("self", "thread-self") or os.path.islink(path):
            continue
        if os.path.isdir(path):
            masks += ["--tmpfs", path, "--remount-ro", path]
        else:
            masks += ["--ro-bind", "/dev/null", path]
    return tuple(masks)


def _bwrap(plan: Plan, fds: list[tuple[int, str]]) -> list[str]:
    argv = [*bwrap_prefix("arena"), "--as-pid-1", "--setenv", "PATH", "/usr/bin"]
    for key, value in plan.env:
        argv += ["--setenv", key, value]
    for outside, inside in plan.binds:
        argv += ["--ro-bind", outside, inside]
    for name in ("lib", "lib64", "bin"):
        if os.path.islink(f"/{name}"):
            argv += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
    argv += ["--dev", "/dev"]
    if plan.proc:
        argv += ["--proc", "/proc", *_proc_masks()]
    for fd, inside in fds:
        argv += ["--perms", "0555", "--file", str(fd), inside]
    return [*argv, "--remount-ro", "/", "--remount-ro", "/dev", "--chdir", "/bot", "--"]


class NativeChannel(Child):
    """One match's native bot: stdin is ``req``, stdout ``resp``, stderr the capped log.

    ``pid`` and ``pidfd`` are the bot's own (not the launcher's); its CPU time is read from
    ``/proc/PID/stat`` (user and system time of every thread, the ended ones included).
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        pid: int,
        fds: tuple[int, int, int],
        cgroup: HostCgroup | None,
        lease: UidLease | None,
    ) -> None:
        pidfd = os.pidfd_open(pid)
        super().__init__(pid, pidfd, *fds, group=False, freeze=True, park=False)
        self.proc = proc
        self.launcher = parent_pid(pid)
        self.cgroup = cgroup
        self.lease = lease
        try:
            self._procstat: int | None = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._procstat = None

    def cpu_seconds(self) -> float:
        """CPU time of the bot's process, all its threads together (``/proc/PID/stat``)."""
        if self._procstat is None:
            return self.cpu_at_end
        try:
            data = os.pread(self._procstat, 1024, 0)
            fields = data[data.rindex(b")") + 2 :].split()
            return (int(fields[11]) + int(fields[12])) / _TICK
        except (OSError, ValueError, IndexError):
            return self.cpu_at_end

    def kill(self) -> None:
        """Kill the bot and its world (the launcher is pid 1: the namespace goes with it)."""
        super().kill()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass

    def exit_status(self) -> int | None:
        """The bot's wait status as its launcher reported it (None while it runs)."""
        code = self.proc.poll()
        if code is None:
            return None
        return (code - 128) if code > 128 else code << 8

    def close(self) -> None:
        """Kill, wait for the world to end, remove its cgroup and give its uid back."""
        self.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        super().close()
        # The launcher and the bot come to us (the subreaper) once bubblewrap is gone.
        mine = {p for p in (self.launcher, self.pid) if p}
        reap(set(mine), mine | {self.proc.pid})
        if self._procstat is not None:
            os.close(self._procstat)
            self._procstat = None
        if self.cgroup is not None and self.cgroup.remove():
            self.cgroup = None
        if self.lease is not None:
            for pid in processes_of_uid(self.lease.uid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            deadline = time.monotonic() + 2
            while processes_of_uid(self.lease.uid) and time.monotonic() < deadline:
                time.sleep(0.005)
            if not processes_of_uid(self.lease.uid):
                self.lease.release()
            self.lease = None


def _bot_pid(root: int) -> int | None:
    """The bot's pid: the process in ``root``'s tree that is pid 2 of the world's namespace."""
    todo = [root]
    seen = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status") as f:
                ns = next((ln.split()[1:] for ln in f if ln.startswith("NSpid:")), [])
        except OSError:
            continue
        if len(ns) > 1 and ns[-1] == "2":
            return p
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            continue
    return None


def start_world(plan: Plan) -> NativeChannel:
    """Start one match's world and its bot; raises OSError when it cannot start."""
    become_subreaper()  # the world's orphans come back here to be reaped
    req_r, req_w = os.pipe2(os.O_CLOEXEC)
    resp_r, resp_w = os.pipe2(os.O_CLOEXEC)
    status_r, status_w = os.pipe()
    log = os.memfd_create("bot-log", os.MFD_CLOEXEC)
    bpf = os.memfd_create("bot-filter", 0)
    os.write(bpf, plan.filter)
    os.lseek(bpf, 0, os.SEEK_SET)
    opened: list[tuple[int, str]] = []
    cgroup = make_cgroup(plan.memory_mb)
    if cgroup is None:  # the only bound on its memory: no world without it
        for fd in (req_r, req_w, resp_r, resp_w, status_r, status_w, log, bpf):
            os.close(fd)
        raise OSError("no memory cgroup could be made for the bot's world (arena doctor)")
    lease = lease_uid() if plan.uid else None
    ours = [req_w, resp_r, log]
    try:
        for outside, inside in ((plan.launcher, "/launch"), *plan.copies):
            opened.append((os.open(outside, os.O_RDONLY), inside))
        argv = [*plan.wrap, *_bwrap(plan, opened)]
        argv += ["/launch", str(bpf), str(status_w), str(plan.cpu_seconds)]
        # A bot uid of its own: its processes and threads bounded by the uid too (the pids
        # cgroup's bound, PIDS), beside the cgroup.
        argv += [str(max(plan.log_bytes, 1)), "64", str(PIDS if lease else 0), *plan.argv]
        ids: dict[str, Any] = {}
        if lease is not None:
            ids = {"user": lease.uid, "group": lease.uid, "extra_groups": []}
        proc = subprocess.Popen(
            argv,
            stdin=req_r,
            stdout=resp_w,
            stderr=log,
            pass_fds=[bpf, status_w, *(fd for fd, _ in opened)],
            preexec_fn=cgroup.enter,
            start_new_session=True,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
            **ids,
        )
    except BaseException:
        for fd in ours:
            os.close(fd)
        cgroup.remove()
        if lease is not None:
            lease.release()
        raise
    finally:
        for fd in (req_r, resp_w, status_w, bpf, *(fd for fd, _ in opened)):
            os.close(fd)
    try:
        ready = select.select([status_r], [], [], plan.start_seconds)[0]
        said = os.read(status_r, 16) if ready else b""
    finally:
        os.close(status_r)
    pid = _bot_pid(proc.pid) if said == b"exec\n" else None
    if pid is None:
        said_log = os.pread(log, 400, 0).decode("utf-8", "replace").strip().splitlines()
        _stop(proc, cgroup, lease, ours)
        code = proc.returncode
        why = _SETUP_CODES.get(code, f"exit status {code}")
        if said_log and code not in _SETUP_CODES:
            why += ": " + said_log[-1][:200]
        raise OSError(f"the bot's world did not start ({why})")
    os.set_blocking(req_w, False)
    os.set_blocking(resp_r, False)
    return NativeChannel(proc, pid, (req_w, resp_r, log), cgroup, lease)


def _stop(
    proc: subprocess.Popen[bytes],
    cgroup: HostCgroup | None,
    lease: UidLease | None,
    fds: list[int],
) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()
    for fd in fds:
        os.close(fd)
    if cgroup is not None:
        cgroup.remove()
    if lease is not None:
        lease.release()
