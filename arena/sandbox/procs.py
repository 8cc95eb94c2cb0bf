"""The processes of a bot host as the arena sees them from outside: its tree (through
``/proc`` while they live), killed through pidfds, waited for and reaped (the arena is the
subreaper of its hosts' orphans)."""

from __future__ import annotations

import os
import select
import signal
import time

__all__ = ["descendants", "parent_pid", "reap", "kill_all", "signal_tree", "await_and_reap"]


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def signal_tree(root: int) -> dict[int, int]:
    """SIGKILL ``root`` and its descendants through pidfds opened while they live; the
    pidfds by pid, for :func:`await_and_reap`."""
    fds: dict[int, int] = {}
    for pid in [root, *descendants(root)]:
        try:
            fds[pid] = os.pidfd_open(pid)
        except OSError:
            continue
        try:
            signal.pidfd_send_signal(fds[pid], signal.SIGKILL)
        except OSError:
            pass
    return fds


def await_and_reap(fds: dict[int, int], patience: float = 1.0) -> None:
    """Wait until every process of ``fds`` (pidfds by pid) has ended, at most ``patience``
    seconds, then reap those that are our children by now (a killed process's children come
    to us, the subreaper, when it ends); close the pidfds."""
    poller = select.poll()
    for fd in fds.values():
        poller.register(fd, select.POLLIN)
    pending = set(fds.values())
    deadline = time.monotonic() + patience
    try:
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for fd, _event in poller.poll(left * 1000):
                pending.discard(fd)
                poller.unregister(fd)
        for fd in fds.values():
            if fd in pending:
                continue
            try:
                os.waitid(os.P_PIDFD, fd, os.WEXITED | os.WNOHANG)
            except ChildProcessError:
                pass  # reaped by its own parent (or by its pid namespace's init)
    finally:
        for fd in fds.values():
            os.close(fd)


def reap(pids: set[int], family: set[int], patience: float = 1.0) -> None:
    """Reap those of ``pids`` that became our children (as orphans: we are the subreaper).

    A killed process comes to us only once its parent (in ``family``, being killed too) is
    gone, so wait for that, at most ``patience`` seconds; a pid whose parent is outside the
    family is someone else's and left alone.
    """
    me = os.getpid()
    deadline = time.monotonic() + patience
    while pids and time.monotonic() < deadline:
        for pid in list(pids):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    pids.discard(pid)
                    continue
            except ChildProcessError:
                pass
            parent = parent_pid(pid)
            if parent is None or (parent != me and parent not in family):
                pids.discard(pid)
        if pids:
            time.sleep(0.002)


def parent_pid(pid: int) -> int | None:
    """The parent pid of ``pid`` (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def descendants(pid: int) -> list[int]:
    """Every descendant of ``pid`` (via /proc/PID/task/*/children)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(x) for x in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out
