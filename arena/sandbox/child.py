"""One match's bot process as the arena holds it: pid, pidfd, protocol descriptors, and how it
ended (:func:`describe_death`). Forked by a zygote (:mod:`arena.sandbox.client`)."""

from __future__ import annotations

import os
import platform
import select
import signal
from typing import Final

from arena.sandbox.values import FaultKind

__all__ = ["Child", "describe_death"]

_SIGNALS: Final = {s.value: s.name for s in signal.Signals}


def _exit_status(pid: int) -> int | None:
    """The wait status of a dead (zombie) process, read from /proc/PID/stat; None if unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    if not fields or fields[0] not in (b"Z", b"X"):
        return None
    try:
        return int(fields[-1])
    except ValueError:
        return None


def describe_death(status: int | None) -> tuple[FaultKind, str]:
    """The fault kind and message for a bot process that ended on its own."""
    if status is None:
        return "crash", "the bot process ended"
    sig = status & 0x7F
    if sig == 0 and status >> 8 in (71, 72):  # the host could not write to its pipe
        return "protocol", "the bot closed its protocol pipe"
    if sig == 0:
        return "crash", f"the bot process exited with status {status >> 8} (os._exit or a crash)"
    name = _SIGNALS.get(sig, f"signal {sig}")
    if sig == signal.SIGXCPU:
        return "cpu", "the bot process exceeded its CPU budget (SIGXCPU)"
    if sig == signal.SIGSYS:
        return "crash", "the bot process made a forbidden system call (SIGSYS from seccomp)"
    if sig == signal.SIGSEGV:
        return "crash", "the bot process crashed (SIGSEGV: C stack overflow or a C-level fault)"
    return "crash", f"the bot process died of {name}"


_READ_SYSCALL: Final = {"x86_64": 0, "aarch64": 63}.get(platform.machine())
"""The number of read(2) here (None: unknown, so a bot is never taken as parked)."""


class Child:
    """One match's bot process: pid (in the arena's namespace), pidfd and protocol fds.

    ``group`` says whether the bot could have forked (no layer stops it): then stopping and
    resuming also signal its process group, not only the process. ``park`` says that nothing
    but the arena can wake the bot from a read of its request pipe (seccomp denies signals,
    timers, threads and processes): then a bot found asleep there is left so, not stopped.
    """

    def __init__(
        self,
        pid: int,
        pidfd: int,
        req: int,
        resp: int,
        log: int,
        group: bool = False,
        freeze: bool = True,
        park: bool = False,
    ) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.req = req
        self.resp = resp
        self.log = log
        self.group = group
        self.freeze = freeze
        self.alive = True
        self.stopped = False
        try:
            self._stat: int | None = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._stat = None
        self.cpu_at_end = 0.0
        self._syscall: int | None = None
        if park and _READ_SYSCALL is not None:
            try:
                self._syscall = os.open(f"/proc/{pid}/syscall", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass
        self._parked = b"%d 0x3 " % (_READ_SYSCALL or 0)

    def cpu_seconds(self) -> float:
        """CPU time used so far (``/proc/PID/schedstat``, nanoseconds, read without reopening)."""
        if self._stat is None:
            return self.cpu_at_end
        try:
            data = os.pread(self._stat, 64, 0)
            return int(data.split(None, 1)[0]) / 1e9
        except (OSError, ValueError, IndexError):
            return self.cpu_at_end

    def _signal(self, sig: signal.Signals) -> None:
        try:
            signal.pidfd_send_signal(self.pidfd, sig)
        except OSError:
            pass
        if self.group:
            try:
                os.killpg(self.pid, sig)
            except OSError:
                pass

    def parked(self) -> bool:
        """Whether the bot sleeps in read(2) on its request pipe (fd 3), per the kernel."""
        if self._syscall is None:
            return False
        for _ in range(3):
            try:
                state = os.pread(self._syscall, 64, 0)
            except OSError:
                return False
            if not state.startswith(b"running"):
                return state.startswith(self._parked)
            os.sched_yield()  # on its way back to its read: give it a moment (on this CPU)
        return False

    def stop(self) -> None:
        """Freeze the bot between its turns (SIGSTOP: it cannot be caught or ignored).

        A bot already asleep reading its request pipe is left asleep when nothing but the
        arena's next request can wake it: that is as good as stopped, and much cheaper (a
        stopped process wakes up on the CPU it last ran on; a reader is woken next to its
        writer).
        """
        if self.alive and self.freeze and not self.stopped and not self.parked():
            self._signal(signal.SIGSTOP)
            self.stopped = True

    def resume(self) -> None:
        """Let the bot run again for its turn (SIGCONT)."""
        if self.alive and self.stopped:
            self._signal(signal.SIGCONT)
            self.stopped = False

    def running(self) -> bool:
        """Whether the process has not exited yet (its pidfd is not readable)."""
        return not select.select([self.pidfd], [], [], 0)[0]

    def kill(self) -> None:
        """SIGKILL the child and its process group (it is a session leader)."""
        if not self.alive:
            return
        self.cpu_at_end = self.cpu_seconds()
        self.alive = False
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def read_log(self, cap: int) -> str:
        """What the bot printed, at most ``cap`` bytes."""
        try:
            data = os.pread(self.log, cap, 0)
        except OSError:
            return ""
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        """Kill if needed and release every descriptor."""
        self.kill()
        for fd in (self.req, self.resp, self.log, self.pidfd, self._stat, self._syscall):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._stat = self._syscall = None
