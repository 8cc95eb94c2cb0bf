"""The kernel's own confinement for a bot host: Landlock rules and seccomp filters.

Staged beside host.py (standard library only, plus Debian's ``python3-seccomp`` or PyPI's
``pyseccomp`` when present); the host imports it as ``confine``. The seccomp filter is an
allowlist: :data:`ALLOW` is every system call a bot may make, in which modes and why;
everything else is refused (docs/sandbox.md; ``arena doctor --syscalls`` prints it).
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

# Not ``typing``: a bot host imports this module at every start, and ``typing`` costs it a few
# milliseconds of CPU (mypy treats a constant of this name as ``typing.TYPE_CHECKING``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture (new syscalls)
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int


# --- Landlock -------------------------------------------------------------------------------

_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_READ_DIR = 1 | 4 | 8  # EXECUTE | READ_FILE | READ_DIR
_READ_FILE = 1 | 4


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _restrict(abi: int, fs: int, net: int, scoped: int, rules: list[tuple[str, int]]) -> None:
    """Create a ruleset handling ``fs``/``net``/``scoped``, add path rules, restrict self."""
    attr = _RulesetAttr(fs, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    fd = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path, access in rules:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a path that does not exist here needs no rule
            try:
                isdir = os.path.isdir(path)
                rule = _PathBeneath(access if isdir else access & _READ_FILE, pfd)
                if _libc.syscall(SYS_LANDLOCK_ADD_RULE, fd, 1, ctypes.byref(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
            finally:
                os.close(pfd)
        if _libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)


def apply_landlock(abi: int, read_paths: list[str]) -> None:
    """Files: read and execute only under ``read_paths``; no TCP (ABI>=4); scoped (ABI>=6)."""
    fs = _FS_BY_ABI[max(k for k in _FS_BY_ABI if k <= abi)]
    net = 3 if abi >= 4 else 0  # BIND_TCP | CONNECT_TCP
    scoped = 3 if abi >= 6 else 0  # ABSTRACT_UNIX_SOCKET | SIGNAL
    _restrict(abi, fs, net, scoped, [(p, _READ_DIR) for p in read_paths])


def scope_ruleset(abi: int) -> int | None:
    """A ruleset with only scopes, made once by the zygote; each child restricts itself with it
    (a nested domain: the child can no longer signal its zygote, siblings or the arena)."""
    if abi < 6:
        return None
    attr = _RulesetAttr(0, 0, 3)
    fd = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(24), 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    return int(fd)


# --- seccomp: the allowlist -----------------------------------------------------------------

# An argument condition: (argument index, "eq" | "le", value, 0) or (index, "masked_eq", mask,
# value): libseccomp's own order.
_MAP_TYPE, _MAP_PRIVATE = 0x0F, 0x02
_FUTEX_PRIVATE_FLAG = 128
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CLOCK_MAX = 11  # CLOCK_TAI; a negative id (another process's CPU clock) is above it unsigned


class Allowed:
    """One system call a match process may make: why, and in which modes only.

    ``when`` lists alternatives, each a tuple of argument conditions that must all hold;
    ``((),)`` allows every mode. ``only`` says the same in words (``arena doctor --syscalls``).
    """

    __slots__ = ("name", "reason", "only", "when")

    def __init__(
        self,
        name: str,
        reason: str,
        only: str = "",
        when: tuple[tuple[tuple[int, str, int, int], ...], ...] = ((),),
    ) -> None:
        self.name, self.reason, self.only, self.when = name, reason, only, when

    def __repr__(self) -> str:
        return f"Allowed({self.name!r}, {self.reason!r}, {self.only!r}, {self.when!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Allowed):
            return NotImplemented
        return (self.name, self.reason, self.only, self.when) == (
            other.name,
            other.reason,
            other.only,
            other.when,
        )

    def __hash__(self) -> int:
        return hash((self.name, self.reason, self.only, self.when))


def _each(arg: int, values: tuple[int, ...]) -> tuple[tuple[tuple[int, str, int, int]], ...]:
    return tuple(((arg, "eq", v, 0),) for v in values)


ALLOW: tuple[Allowed, ...] = (
    # the protocol, the log and reading files
    Allowed("read", "its request pipe, the files it imports or opens"),
    Allowed("write", "its replies (fd 4) and its log (fds 1, 2); it can open nothing writable"),
    Allowed("readv", "buffered reads of the same"),
    Allowed("writev", "buffered writes of the same"),
    Allowed("pread64", "reads at an offset of a file it opened"),
    Allowed(
        "openat",
        "imports and the files it may read",
        "read-only (no O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND)",
        (((2, "masked_eq", _WRITE_FLAGS, 0),),),
    ),
    Allowed("close", "its own descriptors"),
    Allowed("lseek", "offsets of descriptions made in this match (all of them are)"),
    Allowed("newfstatat", "os.stat and the import system"),
    Allowed("fstat", "os.fstat, open()"),
    Allowed("getdents64", "os.listdir and the import system"),
    Allowed("readlinkat", "os.path.realpath"),
    Allowed("faccessat", "os.access"),
    Allowed("faccessat2", "os.access"),
    Allowed("getcwd", "os.getcwd, the import system"),
    Allowed("select", "select.select on its own descriptors (or as a sleep)"),
    Allowed("pselect6", "select.select on its own descriptors (or as a sleep)"),
    Allowed("poll", "select.poll on its own descriptors"),
    Allowed("ppoll", "select.poll on its own descriptors"),
    Allowed("dup", "os.dup (its own descriptor table)"),
    Allowed("dup3", "os.dup2 (its own descriptor table)"),
    Allowed(
        "fcntl",
        "descriptor flags (close-on-exec), duplicating, reading the status flags",
        "F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_DUPFD_CLOEXEC (no status flags, owners, "
        "signals, locks, leases, notifications or pipe sizes)",
        _each(1, (0, 1, 2, 3, 1030)),
    ),
    Allowed(
        "ioctl",
        "the interpreter asks whether a descriptor is a terminal, and sets close-on-exec",
        "TCGETS, TIOCGWINSZ, FIONCLEX, FIOCLEX",
        _each(1, (0x5401, 0x5413, 0x5450, 0x5451)),
    ),
    # memory
    Allowed("brk", "the C heap"),
    Allowed(
        "mmap",
        "memory, and extension modules mapped copy-on-write",
        "MAP_PRIVATE only (no mapping shared with another process)",
        (((3, "masked_eq", _MAP_TYPE, _MAP_PRIVATE),),),
    ),
    Allowed("munmap", "freeing memory"),
    Allowed("mremap", "growing big blocks (realloc)"),
    Allowed("mprotect", "the loader and ctypes"),
    Allowed(
        "madvise",
        "the allocator gives memory back",
        "MADV_NORMAL, MADV_DONTNEED, MADV_FREE, MADV_HUGEPAGE, MADV_NOHUGEPAGE (nothing that "
        "touches the shared page cache)",
        _each(2, (0, 4, 8, 14, 15)),
    ),
    Allowed(
        "futex",
        "locks of the interpreter and the C library",
        "FUTEX_PRIVATE_FLAG only (a shared futex is keyed by file and offset, machine-wide)",
        (((1, "masked_eq", _FUTEX_PRIVATE_FLAG, _FUTEX_PRIVATE_FLAG),),),
    ),
    # time
    Allowed(
        "clock_gettime",
        "time.process_time and other clocks the vDSO does not serve",
        "the system clocks 0..11 (not another process's CPU clock)",
        (((0, "le", _CLOCK_MAX, 0),),),
    ),
    Allowed("clock_getres", "time.get_clock_info", "clocks 0..11", (((0, "le", _CLOCK_MAX, 0),),)),
    Allowed("clock_nanosleep", "time.sleep", "clocks 0..11", (((0, "le", _CLOCK_MAX, 0),),)),
    Allowed("nanosleep", "sleeps of the C library"),
    Allowed("gettimeofday", "the clock where the vDSO is missing"),
    Allowed("getrusage", "resource.getrusage"),
    Allowed("times", "os.times"),
    Allowed("sched_yield", "spin locks of the C library"),
    Allowed("restart_syscall", "a sleep resumed after the arena's SIGSTOP and SIGCONT"),
    # facts about itself (all fixed inside the sandbox)
    Allowed("getpid", "os.getpid"),
    Allowed("gettid", "the C library"),
    Allowed("getppid", "os.getppid"),
    Allowed("getuid", "os.getuid, the import system"),
    Allowed("geteuid", "os.geteuid"),
    Allowed("getgid", "os.getgid"),
    Allowed("getegid", "os.getegid"),
    Allowed("getgroups", "os.getgroups"),
    Allowed("uname", "platform, os.uname"),
    Allowed("getrandom", "os.urandom, random.SystemRandom, secrets, hash seeds"),
    Allowed(
        "prlimit64",
        "resource.getrlimit",
        "reading its own limits only (no new limit)",
        (((0, "eq", 0, 0), (2, "eq", 0, 0)),),
    ),
    # signals to itself, and the end
    Allowed("rt_sigaction", "the signal module"),
    Allowed("rt_sigprocmask", "the signal module, the C library"),
    Allowed("rt_sigreturn", "returning from a signal handler"),
    Allowed("sigaltstack", "faulthandler"),
    Allowed("exit", "the end of the process"),
    Allowed("exit_group", "the end of the process"),
)
"""Every system call a match process (the bot) may make, with its modes; everything else fails
with ``EPERM``, and a 32-bit or foreign-architecture call kills the process. Found by tracing
the bundled bots and a bot that imports the whole standard library (bench/syscalls.py); the
zygote's own set-up (fork, the control socket, Landlock, rlimits) happens before the filter
is installed, in the match process just before the bot's code runs."""


# Flags a zygote's clone may carry: fork (the C library's, or a bare SIGCHLD) into a new pid
# namespace, and a user namespace where the sandbox gives no capability. No thread, shared
# memory, shared descriptor table or any other namespace.
_CLONE_MAY = 0xFF | 0x00200000 | 0x01000000 | 0x10000000 | 0x20000000
_CLONE_NOT = ((1 << 64) - 1) ^ _CLONE_MAY

ZYGOTE_ALLOW: tuple[Allowed, ...] = (
    Allowed("recvmsg", "each match's order and its three descriptors from the arena"),
    Allowed("recvfrom", "waiting for the arena to close the socket after a failed start"),
    Allowed("sendmsg", "its answers to the arena; a new child announces itself"),
    Allowed("wait4", "reaping the children of earlier matches"),
    Allowed(
        "clone",
        "forking a match child, into a pid namespace of its own",
        "the flags of a fork: SIGCHLD, CLONE_CHILD_SETTID, CLONE_CHILD_CLEARTID, CLONE_NEWPID, "
        "CLONE_NEWUSER (no thread, shared memory or descriptor table)",
        (((0, "masked_eq", _CLONE_NOT, 0),),),
    ),
    Allowed("set_robust_list", "the C library's fork, in the child"),
    Allowed("setsid", "the child's own session"),
    Allowed(
        "prctl",
        "the child's death signal, and installing its filter",
        "PR_SET_PDEATHSIG, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS",
        _each(0, (1, 22, 38)),
    ),
    Allowed("seccomp", "installing the child's filter (libseccomp)"),
    Allowed("landlock_restrict_self", "the child's nested Landlock domain"),
    Allowed("capset", "the child drops every capability"),
    Allowed("dup2", "the child moves the protocol to descriptors 3 and 4"),
    Allowed("close_range", "the child closes everything above 4"),
    Allowed(
        "prlimit64",
        "the load-time CPU budget, the log cap, each child's own limits",
        "its own limits (pid 0)",
        (((0, "eq", 0, 0),),),
    ),
)
"""What a zygote may call beyond :data:`ALLOW` (each match child inherits the zygote's filter
and adds its own, so the zygote's must allow everything a bot may make). The zygote installs it
after its set-up (namespaces, Landlock, imports), before it reads and compiles the bot's file:
it runs no bot code, but that file is hostile input. Found with ``strace -f`` of zygotes."""


def allowlist(table: tuple[Allowed, ...] = ALLOW) -> list[tuple[str, str, str]]:
    """``(system call, modes allowed, why)`` for each entry of ``table`` (:data:`ALLOW`, or
    :data:`ZYGOTE_ALLOW`)."""
    return [(a.name, a.only or "any", a.reason) for a in table]


def build_seccomp(*tables: tuple[Allowed, ...]) -> tuple[str, Any] | None:
    """The filter allowing the entries of ``tables`` (:data:`ALLOW` when none are given; the
    default is to refuse with ``EPERM``).

    ``("bpf", prebuilt program)`` or ``("lib", filter)``; ``None`` without bindings.
    """
    f = _filter(tables)
    return None if f is None else _prebuild(f)


def export_bpf(*tables: tuple[Allowed, ...]) -> bytes | None:
    """The program of :func:`build_seccomp` as bytes (``struct sock_filter`` entries), made
    once per machine by the arena and staged for its hosts (:func:`program`); None without
    bindings or where libseccomp cannot export it."""
    f = _filter(tables)
    if f is None:
        return None
    kind, value = _prebuild(f)
    return bytes(value[0].raw[: value[2].len * 8]) if kind == "bpf" else None


def program(bpf: bytes) -> tuple[str, Any]:
    """A program exported by :func:`export_bpf`, ready for :func:`load_seccomp`."""
    if not bpf or len(bpf) % 8 or len(bpf) // 8 > 4096:
        raise ValueError("not a seccomp program")
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    return ("bpf", (buf, ctypes.byref(prog), prog))


def _filter(tables: tuple[tuple[Allowed, ...], ...]) -> Any:
    """libseccomp's filter of ``tables`` (None without bindings)."""
    import importlib

    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        seccomp: Any = None
        for name in ("seccomp", "pyseccomp"):  # Debian python3-seccomp, or PyPI pyseccomp
            try:
                seccomp = importlib.import_module(name)
                break
            except ImportError:
                continue
        if seccomp is None:
            return None
    finally:
        sys.path.remove("/usr/lib/python3/dist-packages")

    f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
    # A 32-bit int 0x80 syscall would be judged by the wrong numbers: kill the process instead.
    f.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    try:
        f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree rather than a long chain
    except (AttributeError, ValueError, RuntimeError, OSError):
        pass
    ops = {"eq": seccomp.EQ, "le": seccomp.LE, "masked_eq": seccomp.MASKED_EQ}
    for entry in (e for table in tables or (ALLOW,) for e in table):
        for conds in entry.when:
            args = [seccomp.Arg(arg, ops[op], a, b) for arg, op, a, b in conds]
            try:
                f.add_rule(seccomp.ALLOW, entry.name, *args)
            except (ValueError, RuntimeError, OSError):
                pass  # not a syscall on this architecture
    return f


def _prebuild(f: Any) -> tuple[str, Any]:
    """The filter as a ready ``sock_fprog`` (one prctl call per child), else the object."""
    try:
        mfd = os.memfd_create("seccomp-bpf")
        with os.fdopen(mfd, "w+b") as out:
            f.export_bpf(out)
            out.seek(0)
            bpf = out.read()
    except (OSError, AttributeError, TypeError):
        return ("lib", f)
    return program(bpf)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_seccomp(prepared: tuple[str, Any]) -> None:
    """Install the filter prepared by :func:`build_seccomp` on this process."""
    kind, value = prepared
    if kind == "lib":
        value.load()
        return
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, value[1], 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")


# --- the bot's files: a tmpfs of its own host's --------------------------------------------

CLONE_NEWNS = 0x00020000
_libc.mount.argtypes = [
    ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p,
]  # fmt: skip


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
BOT_DIR = "/bot"


def _mount(source: bytes | None, target: str, fstype: bytes | None, flags: int, data: str) -> None:
    rc = _libc.mount(source, target.encode(), fstype, ctypes.c_ulong(flags), data.encode())
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def bot_world(files: list[list[Any]], data: bytes) -> None:
    """Put the bot's files (``[path, size]`` rows, their bytes one after the other in ``data``)
    into a new tmpfs on :data:`BOT_DIR`, sized to hold them and no more, then make it read-only.

    The tmpfs is this sandbox's own (its mount namespace), charged to this host's memory
    cgroup, and goes with the host: like the rest of its world, no lookup in it leaves a trace
    in the machine's name cache. Done by the zygote with the capability bubblewrap gives it in
    the sandbox's own namespaces, before Landlock (which forbids mounts) and before any of the
    bot's text is read as code.
    """
    # A mount namespace of its own first: bubblewrap's belongs to the user namespace above
    # ours (the one --disable-userns nests us in), where we hold no capability.
    if _libc.unshare(CLONE_NEWNS) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare(CLONE_NEWNS): {os.strerror(err)}")
    dirs = {
        "/".join(str(rel).split("/")[:k])
        for rel, _ in files
        for k in range(1, str(rel).count("/") + 1)
    }
    inodes = len(files) + len(dirs) + 16
    pages = sum(-(-int(n) // 4096) for _, n in files) + inodes
    options = f"mode=0755,size={pages * 4096},nr_inodes={inodes}"
    _mount(b"tmpfs", BOT_DIR, b"tmpfs", MS_NOSUID | MS_NODEV, options)
    at = 0
    for rel, n in files:
        parts = str(rel).split("/")
        if any(p in ("", ".", "..") for p in parts) or at + int(n) > len(data):
            raise ValueError(f"not a bot file: {rel!r}")
        path = os.path.join(BOT_DIR, *parts)
        for d in range(1, len(parts)):
            sub = os.path.join(BOT_DIR, *parts[:d])
            if not os.path.isdir(sub):
                os.mkdir(sub, 0o755)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o555)
        try:
            _write_all(fd, data[at : at + int(n)])
        finally:
            os.close(fd)
        at += int(n)
    _mount(None, BOT_DIR, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, options)
