"""The bot host: the program that runs inside the sandbox (trusted code until it runs the bot).

It is started by :mod:`arena.sandbox.client` as ``/usr/bin/python3 -I -S -B host.py CTRL_FD``
(inside bubblewrap when available), imports nothing of the arena but ``arena.cards`` (from a
staged copy) and must run on the system Python 3.9+ with only the standard library (plus
Debian's ``python3-seccomp`` when present). It is staged next to a copy of ``arena/cards.py`` so a
bot uid that cannot read the arena's install directory can still run it.

Two roles, one file:

* the **zygote**: receives its configuration on the control socket, applies the layers that can
  be shared (rlimits, no_new_privs, Landlock on files/TCP/scopes), prepares the seccomp
  program, imports trusted modules and *compiles* (never runs) the bot's file; then, for every
  match, receives three file descriptors (requests, replies, log) and forks;
* the **match child**: leaves the control socket, moves the protocol to private fds and whatever
  it prints to the capped log, applies the per-process layers (own session, rlimits, a nested
  Landlock domain that cannot signal its zygote, seccomp), reseeds ``random`` from the match
  seed and the seat, runs the bot's module code, creates ``Bot()`` and answers one JSON line per
  request until the arena closes the pipe or kills it.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import io
import json
import marshal
import os
import resource
import signal
import socket
import sys
import traceback
import types
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture (new syscalls)
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
MAX_LINE = 1 << 20

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int


def _prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> None:
    rc = _libc.prctl(option, ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), arg4, arg5)
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


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


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0 when unsupported or disabled)."""
    rc = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(rc), 0)


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
    # CPU theft between decisions and raising limits
    "setitimer alarm timer_create timerfd_create setrlimit"
).split()


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

    def add(f: Any, action: Any, name: str, *args: Any) -> None:
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


# --- the match child ------------------------------------------------------------------------


class _Log(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of the bot: straight to the capped log, errors dropped."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        try:
            os.write(self._fd, str(s).encode("utf-8", "replace"))
        except OSError:
            pass  # EFBIG once the log is full: the rest is dropped, the bot goes on
        return len(s)

    def flush(self) -> None:
        pass


def _describe(e: BaseException, tb: bool = True) -> str:
    try:
        text = f"{type(e).__name__}: {e}"
    except BaseException:
        text = type(e).__name__
    if tb:
        try:
            lines = traceback.format_exception(type(e), e, e.__traceback__, limit=-6)
            text = text + "\n" + "".join(lines[-8:])[-1500:]
        except BaseException:
            pass
    return text[:4000]


def _safe_repr(x: object) -> str:
    try:
        return repr(x)[:200]
    except BaseException:
        return f"<{type(x).__name__}>"


def _write_all(fd: int, data: bytes) -> None:
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _set_limit(res: int, value: int) -> None:
    try:
        resource.setrlimit(res, (value, value))
    except (ValueError, OSError):
        soft, hard = resource.getrlimit(res)
        if hard == resource.RLIM_INFINITY or value < hard:
            resource.setrlimit(res, (value, hard))


def run_child(
    cfg: dict[str, Any],
    code: types.CodeType,
    ctrl: socket.socket,
    fds: list[int],
    seed: object,
    seat: int,
    prepared: tuple[str, Any] | None,
    devnull: int,
    scope_fd: int | None,
) -> None:
    """The match child: isolate, load the bot, answer requests; never returns."""
    req, resp, log = fds
    try:
        os.setsid()
        _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL when the zygote goes
        # Kernel attaches our pid (translated into the arena's pid namespace) to this message.
        ctrl.sendmsg([b'{"child":1}'])
        ctrl.close()
        if scope_fd is not None and _libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, scope_fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.dup2(req, 3)
        os.dup2(resp, 4)
        os.closerange(5, 1 << 16)
        req, resp = 3, 4
        # RLIMIT_CPU counts this process's own time from zero: set per child, not in the zygote.
        cpu = int(cfg["limits"]["match_cpu_seconds"]) + 2  # a backstop; the arena accounts
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        _set_limit(resource.RLIMIT_NOFILE, 16)
        if cfg.get("nproc"):
            _set_limit(resource.RLIMIT_NPROC, 1)
        if prepared is not None:
            load_seccomp(prepared)
    except BaseException as e:
        failed = {"load": "sandbox set-up failed: " + _describe(e)}
        os.write(resp, (json.dumps(failed) + "\n").encode())
        os._exit(70)
    # The bot prints into the capped log; the protocol lives on fds 3 and 4 only.
    log_out, log_err = _Log(1), _Log(2)
    vars(sys).update(
        stdout=log_out, __stdout__=log_out, stderr=log_err, __stderr__=log_err, stdin=None
    )
    import random

    random.seed(f"arena/bot/{seed}/{seat}")
    rfile = os.fdopen(req, "rb", buffering=1 << 16)
    try:
        module = types.ModuleType("bot")
        module.__file__ = cfg["bot_path"]
        sys.modules["bot"] = module
        exec(code, module.__dict__)
        cls = module.__dict__.get("Bot")
        if not isinstance(cls, type):
            raise TypeError("the file defines no class Bot")
        bot = cls()
        if not callable(getattr(bot, "act", None)):
            raise TypeError("Bot has no act(obs) method")
        hello: dict[str, Any] = {"ready": 1}
    except MemoryError as e:
        hello = {"load": "out of memory while loading: " + _describe(e, tb=False)}
    except BaseException as e:  # SystemExit and KeyboardInterrupt too: it is the bot's code
        hello = {"load": _describe(e)}
    try:
        _write_all(resp, (json.dumps(hello) + "\n").encode())
    except BaseException:
        os._exit(71)
    if "load" in hello:
        os._exit(0)
    dumps = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
    read, unmarshal = rfile.read, marshal.loads
    while True:
        # A request: 4-byte little-endian length, then marshal of (request number, obs).
        head = read(4)
        if len(head) < 4:
            os._exit(0)
        size = int.from_bytes(head, "little")
        payload = read(size)
        if len(payload) < size:
            os._exit(0)
        n, obs = unmarshal(payload)
        try:
            action = bot.act(obs)
        except MemoryError as e:
            out = dumps({"i": n, "e": "memory", "m": _describe(e)})
        except BaseException as e:  # SystemExit/KeyboardInterrupt too: a crash of the bot
            out = dumps({"i": n, "e": "crash", "m": _describe(e)})
        else:
            try:
                out = dumps({"i": n, "a": action})
            except BaseException as e:  # objects, NaN, generators, cycles: not an action
                what = f"not an action: {_safe_repr(action)} ({_describe(e, tb=False)})"
                out = dumps({"i": n, "e": "illegal", "m": what})
            if len(out) > MAX_LINE:
                out = dumps({"i": n, "e": "illegal", "m": "the answer is over 1 MiB of JSON"})
        try:
            _write_all(resp, (out + "\n").encode())
        except BaseException:
            os._exit(72)


# --- the zygote -----------------------------------------------------------------------------


def _reply(ctrl: socket.socket, obj: dict[str, Any]) -> None:
    ctrl.sendmsg([json.dumps(obj).encode()])


def _fail(ctrl: socket.socket, message: str) -> None:
    """Report a failed start, then stay until the arena closes the socket: the arena ends the
    whole process tree itself, so nothing of it is left unreaped."""
    _reply(ctrl, {"ok": False, "message": message})
    try:
        while ctrl.recv(4096):
            pass
    except OSError:
        pass


def zygote(ctrl_fd: int) -> None:
    """Set up once, then fork one match child per request; exits when the arena goes."""
    ctrl = socket.socket(fileno=ctrl_fd)
    parent = os.getppid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)  # the parent died before PDEATHSIG was armed
    cfg = json.loads(ctrl.recv(1 << 20))
    devnull = os.open("/dev/null", os.O_RDWR)
    sys.path.insert(0, cfg["lib"])
    info: dict[str, Any] = {"ok": True, "landlock": 0, "seccomp": None, "uid": os.getuid()}
    try:
        _set_limit(resource.RLIMIT_CORE, 0)
        _set_limit(resource.RLIMIT_NOFILE, 64)
        if cfg.get("nproc"):
            _set_limit(resource.RLIMIT_NPROC, 16)
        filters = build_seccomp() if cfg.get("seccomp") else None
        prepared = filters[1] if filters else None
        info["seccomp"] = prepared[0] if prepared else None
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
        # Trusted modules bots commonly use, imported once here and shared by every child.
        import bisect  # noqa: F401
        import collections  # noqa: F401
        import copy  # noqa: F401
        import functools  # noqa: F401
        import heapq  # noqa: F401
        import itertools  # noqa: F401
        import math  # noqa: F401
        import random  # noqa: F401

        import arena.worlds  # noqa: F401  (with arena.cards, arena.rules, arena.game)

        abi = int(cfg.get("landlock") or 0)
        if abi:
            apply_landlock(abi, cfg["read_paths"])
            info["landlock"] = abi
        scope_fd = scope_ruleset(abi)
        with open(cfg["bot_path"], "rb") as f:
            source = f.read()
        code = compile(source, cfg["bot_path"], "exec", dont_inherit=True)
    except SyntaxError as e:
        message = f"{type(e).__name__}: {e.msg} (line {e.lineno})"
        _fail(ctrl, message)
        return
    except BaseException as e:
        _fail(ctrl, _describe(e, tb=False))
        return
    # Warm what every child would otherwise initialise on its own first decision, then freeze
    # the heap so the children's garbage collector never writes to (and copies) these pages.
    json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode(
        marshal.loads(marshal.dumps({}))
    )
    gc.collect()
    gc.freeze()
    try:  # give freed heap back: less memory for each fork to copy page tables of
        _libc.malloc_trim(0)
    except AttributeError:
        pass
    try:
        # Inherited by every child: the address space and log-size limits, a full log giving
        # EFBIG rather than death, and the bulk of the seccomp filter (the zygote needs none
        # of what it denies from here on; children add the small rest).
        limits = cfg["limits"]
        _set_limit(resource.RLIMIT_AS, int(limits["memory_mb"]) << 20)
        _set_limit(resource.RLIMIT_FSIZE, max(int(limits["log_bytes"]), 1))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if filters is not None:
            load_seccomp(filters[0])
    except BaseException as e:
        _fail(ctrl, "sandbox set-up failed: " + _describe(e, False))
        return
    _reply(ctrl, info)
    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(ctrl, 4096, 3)
        except OSError:
            return
        if not msg:
            return
        order = json.loads(msg)
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass  # children of earlier matches, already killed by the arena
        except ChildProcessError:
            pass
        try:
            pid = os.fork()
        except OSError as e:
            for fd in fds:
                os.close(fd)
            _reply(ctrl, {"error": f"fork failed: {e}"})
            continue
        if pid == 0:
            run_child(
                cfg, code, ctrl, fds, order["seed"], order["seat"], prepared, devnull, scope_fd
            )
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    zygote(int(sys.argv[1]))
