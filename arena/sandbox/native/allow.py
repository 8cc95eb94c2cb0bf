"""The system calls a native bot may make, per runtime, and the filter that enforces them.

A compiled bot (C, C++, Rust, Go) or a runtime's process (the JVM, Node) is not the Python host:
it makes its own threads, maps its own memory and has no zygote. Each runtime's list below was
traced from real bots of that runtime (the starter kit playing whole matches, and a bot that
allocates, spawns threads and sleeps) under ``strace -f`` in the same world without a filter
(``bench/native_syscalls.py`` prints the trace), then cut to what the runtime needs; everything
else fails with ``EPERM``. Threads are allowed only as ``clone`` with ``CLONE_THREAD`` (counted
in the bot's CPU time and memory, bounded by its cgroup's pids); ``clone3`` answers ``ENOSYS``
(its flags sit in memory a filter cannot read, and every C library then falls back to
``clone``). ``execve`` and ``execveat`` go to the launcher's listener, which lets the world's
first exec through and then closes, so every later one fails (docs/languages.md).
"""

from __future__ import annotations

import functools
import json
import subprocess
from typing import Final

from arena.sandbox.confine import ALLOW, Allowed

__all__ = ["BASE", "THREADS", "EVENTS", "JVM", "allowlist_for", "filter_bytes"]

_CLONE_THREAD: Final = 0x00010000
_MAP_TYPE, _MAP_PRIVATE = 0x0F, 0x02


def _named(*names: str) -> set[str]:
    return set(names)


# The Python host's allowlist is the base: every entry keeps its modes (read-only opens, private
# maps and futexes, only system clocks, reading its own limits).
_FROM_PYTHON: Final = _named(
    "read", "write", "readv", "writev", "pread64", "openat", "close", "lseek", "newfstatat",
    "fstat", "getdents64", "readlinkat", "faccessat", "faccessat2", "getcwd", "select",
    "pselect6", "poll", "ppoll", "dup", "dup3", "fcntl", "ioctl", "brk", "mmap", "munmap",
    "mremap", "mprotect", "madvise", "futex", "clock_gettime", "clock_getres",
    "clock_nanosleep", "nanosleep", "gettimeofday", "getrusage", "times", "sched_yield",
    "restart_syscall", "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
    "getgroups", "uname", "getrandom", "prlimit64", "rt_sigaction", "rt_sigprocmask",
    "rt_sigreturn", "sigaltstack", "exit", "exit_group",
)  # fmt: skip

BASE: Final = tuple(a for a in ALLOW if a.name in _FROM_PYTHON) + (
    Allowed("arch_prctl", "the C library sets its thread pointer at start"),
    Allowed("set_tid_address", "the C library's start"),
    Allowed("set_robust_list", "the C library's start and each thread"),
    Allowed("rseq", "the C library registers restartable sequences"),
    Allowed("open", "the start of static binaries (read-only in practice: nothing is writable)"),
    Allowed("stat", "static binaries' start"),
    Allowed("lstat", "static binaries' start"),
    Allowed("access", "the loader"),
    Allowed("readlink", "/proc/self/exe, absent in the world"),
    Allowed("statx", "fstat of newer C libraries"),
    Allowed("fstatfs", "runtimes ask what file system a file is on"),
    Allowed("sched_getaffinity", "how many CPUs: runtimes size their pools by it"),
    Allowed("getrlimit", "its own limits"),
    Allowed("pipe2", "a runtime's own wake-up pipe (no other process to share it with)"),
    Allowed(
        "ioctl",
        "how many bytes wait on its own stdin (Java's readers ask)",
        "FIONREAD",
        (((1, "eq", 0x541B, 0),),),
    ),
)
"""What every native bot may call: the Python host's list, and the C library's start."""

THREADS: Final = (
    Allowed(
        "clone",
        "threads of the runtime or the bot",
        "CLONE_THREAD set (a thread of the same process: never a new process)",
        (((0, "masked_eq", _CLONE_THREAD, _CLONE_THREAD),),),
    ),
    Allowed(
        "futex",
        "joining a thread: the C library waits on the thread's id, which the kernel clears",
        "FUTEX_WAIT and FUTEX_WAIT_BITSET without FUTEX_PRIVATE_FLAG: waiting only, so no "
        "other process can wake it (a shared wake is refused: it could reach a file's page)",
        (((1, "masked_eq", 0x7F, 0),), ((1, "masked_eq", 0x7F, 9),)),
    ),
    Allowed(
        "madvise",
        "runtimes keep their heaps out of a fork that never comes",
        "MADV_DONTFORK, MADV_DOFORK, MADV_DONTDUMP, MADV_DODUMP",
        ((((2, "eq", 10, 0),), ((2, "eq", 11, 0),), ((2, "eq", 16, 0),), ((2, "eq", 17, 0),))),
    ),
    Allowed("membarrier", "runtimes' memory barriers across their own threads"),
    Allowed("tgkill", "signals between its own threads (Go's preemption, the JVM's safepoints)"),
    Allowed("tkill", "signals between its own threads"),
    Allowed("sched_getparam", "thread priorities (read)"),
    Allowed("sched_getscheduler", "thread priorities (read)"),
    Allowed("getpriority", "thread priorities (read)"),
    Allowed(
        "prctl",
        "threads name themselves",
        "PR_SET_NAME, PR_GET_NAME",
        (((0, "eq", 15, 0),), ((0, "eq", 16, 0),)),
    ),
)
"""Threads inside the bot's own process: C++ std::thread, Rust std::thread, Go, the JVM, Node.

A pid namespace holds only the launcher (pid 1, which ignores signals it has no handler for)
and the bot, so ``tgkill`` reaches nothing else."""

EVENTS: Final = (
    Allowed("epoll_create1", "Node's and Go's event loop"),
    Allowed("epoll_ctl", "the event loop"),
    Allowed("epoll_wait", "the event loop"),
    Allowed("epoll_pwait", "the event loop"),
    Allowed("epoll_pwait2", "the event loop"),
    Allowed("eventfd2", "Node's loop wakes itself"),
    Allowed(
        "ioctl",
        "the event loop makes its own stdin and stdout non-blocking",
        "FIONBIO (the descriptions are the bot's alone: the arena keeps the other ends)",
        (((1, "eq", 0x5421, 0),),),
    ),
    Allowed(
        "fcntl",
        "the event loop sets its descriptors' status flags",
        "F_SETFL on its own descriptions",
        (((1, "eq", 4, 0),),),
    ),
)
"""An event loop on its own descriptors (stdin, stdout, its wake-up pipe)."""

JVM: Final = (
    Allowed(
        "mmap",
        "the JVM maps its class library (lib/modules) shared and read-only",
        "MAP_SHARED without PROT_WRITE (of a file opened read-only it can never become "
        "writable; its pages are the page cache any read sees)",
        (((2, "masked_eq", 0x2, 0), (3, "masked_eq", _MAP_TYPE, 0x01)),),
    ),
)
"""The JVM's extras."""

NOTIFY: Final = ("execve", "execveat")
"""Sent to the launcher's listener: the first exec (the launcher's own) goes through, then none."""
ENOSYS: Final = ("clone3",)
"""Answered ENOSYS so the C library falls back to ``clone``, whose flags the filter can read."""


def allowlist_for(tables: tuple[tuple[Allowed, ...], ...]) -> list[tuple[str, str, str]]:
    """``(system call, modes allowed, why)`` for a runtime's tables (``arena doctor``)."""
    rows = [(a.name, a.only or "any", a.reason) for t in tables for a in t]
    rows += [(n, "the world's first exec only", "the launcher starts the bot") for n in NOTIFY]
    rows += [(n, "refused with ENOSYS", "threads go through clone") for n in ENOSYS]
    return rows


_BUILD = r"""
import errno, json, os, sys
sys.path.append("/usr/lib/python3/dist-packages")
try:
    import seccomp
except ImportError:
    import pyseccomp as seccomp
spec = json.loads(sys.stdin.read())
f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
f.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
try:
    f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
except Exception:
    pass
ops = {"eq": seccomp.EQ, "le": seccomp.LE, "masked_eq": seccomp.MASKED_EQ}
for name, alternatives in spec["allow"]:
    for conds in alternatives:
        try:
            f.add_rule(seccomp.ALLOW, name, *[seccomp.Arg(a, ops[o], x, y) for a, o, x, y in conds])
        except Exception:
            pass
for name in spec["notify"]:
    f.add_rule(seccomp.NOTIFY, name)
for name in spec["enosys"]:
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
fd = os.memfd_create("bpf")
with os.fdopen(fd, "w+b") as out:
    f.export_bpf(out)
    out.seek(0)
    sys.stdout.buffer.write(out.read())
"""


@functools.cache
def filter_bytes(tables: tuple[tuple[Allowed, ...], ...]) -> bytes:
    """The BPF program (``struct sock_filter`` array) for a runtime's tables, built by the
    machine's libseccomp (through its Python binding, in the system interpreter). Raises
    OSError when no binding is installed."""
    spec = {
        "allow": [[a.name, [list(map(list, c)) for c in a.when]] for t in tables for a in t],
        "notify": list(NOTIFY),
        "enosys": list(ENOSYS),
    }
    try:
        p = subprocess.run(
            ["/usr/bin/python3", "-s", "-S", "-c", _BUILD],
            input=json.dumps(spec).encode(),
            capture_output=True,
            timeout=60,
            check=True,
            cwd="/",
        )
    except (OSError, subprocess.SubprocessError) as e:
        detail = getattr(e, "stderr", b"") or b""
        raise OSError(f"no seccomp filter: {e} {detail[-300:]!r}") from None
    if not p.stdout or len(p.stdout) % 8:
        raise OSError("libseccomp exported no filter")
    return p.stdout
