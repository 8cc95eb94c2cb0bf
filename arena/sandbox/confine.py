"""The kernel's own confinement for a bot host: Landlock rules and seccomp filters.

Staged beside host.py (standard library only, plus Debian's ``python3-seccomp`` or PyPI's
``pyseccomp`` when present); the host imports it as ``confine``. What each filter denies and
why is the list :data:`DENY` and the constants after it (docs/protocol.md, "What a bot can
see", explains the channels they close).
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
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


# --- seccomp --------------------------------------------------------------------------------

DENY = (
    # network and IPC endpoints
    "socket socketpair connect bind listen accept accept4 "
    # new processes, threads and programs
    "fork vfork clone execve execveat "
    # other processes
    "kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo pidfd_open pidfd_getfd "
    "pidfd_send_signal ptrace process_vm_readv process_vm_writev process_madvise kcmp "
    "migrate_pages move_pages setsid setpgid "
    # the file system
    "creat unlink unlinkat rename renameat renameat2 mkdir mkdirat rmdir link linkat symlink "
    "symlinkat chmod fchmod fchmodat chown fchown fchownat lchown truncate ftruncate mknod "
    "mknodat utime utimes utimensat futimesat setxattr lsetxattr fsetxattr removexattr "
    "lremovexattr fremovexattr fallocate memfd_create memfd_secret name_to_handle_at "
    "open_by_handle_at fanotify_init "
    # the kernel, namespaces, identities
    "mount umount2 pivot_root chroot unshare setns bpf perf_event_open userfaultfd keyctl "
    "add_key request_key io_uring_setup io_uring_enter io_uring_register setuid setgid "
    "setreuid setregid setresuid setresgid setgroups setfsuid setfsgid capset reboot swapon "
    "swapoff init_module finit_module delete_module kexec_load kexec_file_load acct "
    "settimeofday clock_settime clock_adjtime adjtimex syslog quotactl sethostname "
    "setdomainname vhangup iopl ioperm modify_ldt "
    # CPU theft between decisions, raising limits, taking CPU or I/O from other processes
    "setitimer alarm timer_create timerfd_create setrlimit sched_setaffinity "
    "sched_setscheduler sched_setparam sched_setattr setpriority ioprio_set "
    # channels to other bots: SysV and POSIX IPC (memory outside RLIMIT_AS that outlives the
    # process, too), file watches and locks, page-cache state, host-wide figures
    "ipc shmget shmat shmdt shmctl msgget msgsnd msgrcv msgctl semget semop semtimedop semctl "
    "mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr "
    "inotify_init inotify_init1 inotify_add_watch fanotify_mark flock "
    "mincore fadvise64 readahead sysinfo statfs fstatfs ustat"
).split()

CACHESTAT = 451
"""cachestat(2) (Linux 6.5): page-cache state of a file; by number, for older libseccomp."""

FCNTL_DENIED = (5, 6, 7, 36, 37, 38, 1024, 1026)
"""fcntl commands denied: F_GETLK F_SETLK F_SETLKW F_OFD_GETLK F_OFD_SETLK F_OFD_SETLKW (record
locks work on read-only files: another bot could see them), F_SETLEASE, F_NOTIFY (dnotify)."""

MADVISE_DENIED = (20, 21)
"""madvise advice denied: MADV_COLD and MADV_PAGEOUT (they evict shared page-cache pages)."""

CLOCKS = ("clock_gettime", "clock_getres", "clock_nanosleep")
"""Denied for negative clock ids, which name another process's CPU clock."""


CHILD_ONLY = ("fork", "vfork", "clone", "setsid", "setpgid", "setrlimit")
"""Denied to match children only: the zygote itself must fork, and a child lowers its limits."""


def build_seccomp() -> tuple[tuple[str, Any], tuple[str, Any]] | None:
    """Two filters: one the zygote installs on itself (so each child inherits it) and a small
    one each child adds (fork, sessions, limits); stacked they deny all of :data:`DENY`.

    Each is ``("bpf", prebuilt program)`` or ``("lib", filter)``; ``None`` without bindings.
    """
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

    def new() -> Any:
        f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        # A 32-bit int 0x80 syscall would bypass every rule: kill the process instead.
        f.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
        return f

    def add(f: Any, action: Any, name: str | int, *args: Any) -> None:
        try:
            f.add_rule(action, name, *args)
        except (ValueError, RuntimeError, OSError):
            pass  # not a syscall on this architecture

    eperm, enosys = seccomp.ERRNO(errno.EPERM), seccomp.ERRNO(errno.ENOSYS)
    zyg, child = new(), new()
    for name in DENY:
        add(child if name in CHILD_ONLY else zyg, eperm, name)
    # Their arguments are structs that BPF cannot inspect: ENOSYS makes libc fall back.
    add(zyg, enosys, "openat2")
    add(child, enosys, "clone3")
    for flag in (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND):
        add(zyg, eperm, "openat", seccomp.Arg(2, seccomp.MASKED_EQ, flag, flag))
        add(zyg, eperm, "open", seccomp.Arg(1, seccomp.MASKED_EQ, flag, flag))
    add(child, eperm, "prlimit64", seccomp.Arg(2, seccomp.NE, 0))
    add(zyg, eperm, "ioctl", seccomp.Arg(1, seccomp.EQ, 0x5412))  # TIOCSTI
    add(zyg, eperm, CACHESTAT)
    for cmd in FCNTL_DENIED:
        add(zyg, eperm, "fcntl", seccomp.Arg(1, seccomp.EQ, cmd))
    for advice in MADVISE_DENIED:
        add(zyg, eperm, "madvise", seccomp.Arg(2, seccomp.EQ, advice))
    for name in CLOCKS:  # the clock id is an int: its sign bit is bit 31 of the argument
        add(zyg, eperm, name, seccomp.Arg(0, seccomp.MASKED_EQ, 1 << 31, 1 << 31))
    return _prebuild(zyg), _prebuild(child)


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
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    return ("bpf", (buf, ctypes.byref(prog), prog))


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
