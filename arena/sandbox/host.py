"""The bot host: the program that runs inside the sandbox (trusted code until it runs the bot).

It is started by :mod:`arena.sandbox.client` as ``/usr/bin/python3 -s -S -B host.py CTRL_FD``
(inside bubblewrap when available), imports nothing of the arena but the pure rules modules
(``arena.cards``, ``arena.rules``, ``arena.game``, ``arena.worlds``) and
:mod:`arena.sandbox.confine` (Landlock and seccomp; staged copies of all) and must run on the
system Python 3.9+ with only the standard library (plus Debian's ``python3-seccomp`` when
present). It is staged next to those copies so a bot uid that cannot read the arena's install
directory can still run it.

Two roles, one file:

* the **zygote**: receives its configuration on the control socket, applies the layers that can
  be shared (rlimits, no_new_privs), prepares the seccomp programs and imports trusted modules;
  then (at once, or later for a spare host the pool keeps ready) receives its bot: writes its
  files into a tmpfs of its own on ``/bot``, applies Landlock (files/TCP/scopes) and its own
  seccomp filter and *compiles* (never runs) the bot's file; then, for every match, receives
  three file descriptors (requests, replies, log) and forks;
* the **match child**: leaves the control socket, moves the protocol to private fds and whatever
  it prints to the capped log, applies the per-process layers (own session, rlimits, a nested
  Landlock domain that cannot signal its zygote, seccomp), waits for the arena's ``hello`` (its
  ``seed`` is the 64 bytes that seed ``random``, a one-way digest: the match seed never enters
  the sandbox), runs the bot's module code, creates ``Bot()``, says it is ready and answers one
  JSON line per ``act`` line (forced ones without calling the bot) until the arena closes the
  pipe or kills it. Between its turns the arena keeps it stopped (SIGSTOP) or asleep on its
  request pipe.

This is the reference implementation of protocol v1 (docs/protocol.md): JSON lines both ways,
on descriptors 3 (requests) and 4 (answers) here, so that whatever the bot prints, to its
standard output included, goes to its log and never reaches the protocol.
"""

from __future__ import annotations

import _socket
import ctypes
import errno
import gc
import io
import os
import resource
import signal
import sys
import types

# Not ``typing.TYPE_CHECKING``: importing ``typing`` costs a host a few milliseconds of CPU at
# every start, and mypy treats a constant of this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arena.rules import Observation
    from arena.sandbox import hostwire
    from arena.sandbox.confine import (
        ALLOW,
        SYS_LANDLOCK_RESTRICT_SELF,
        ZYGOTE_ALLOW,
        apply_landlock,
        bot_world,
        build_seccomp,
        load_seccomp,
        program,
        scope_ruleset,
    )
else:  # staged beside this file (sys.path[0]), like arena.cards
    import hostwire
    from confine import (
        ALLOW,
        SYS_LANDLOCK_RESTRICT_SELF,
        ZYGOTE_ALLOW,
        apply_landlock,
        bot_world,
        build_seccomp,
        load_seccomp,
        program,
        scope_ruleset,
    )

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int
_api = ctypes.pythonapi


def _prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> None:
    rc = _libc.prctl(option, ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), arg4, arg5)
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


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


_BOT_FILE = ""
"""The bot file's path as compiled (its frames are the only ones a traceback shows)."""


def _describe(e: BaseException, tb: bool = True) -> str:
    """The exception as a bot author needs it: ``KeyError: 'dummy' (bot.py, line 5)``, then
    the bot's own frames in Python's format (innermost last). Frames of the host and the
    standard library are left out: they are not the author's code and would show the
    sandbox's internals. (The standings site drops the quoted source lines.)"""
    try:
        import traceback  # only when something failed: not part of every host's start

        last = "".join(traceback.format_exception_only(type(e), e)).strip()
    except BaseException:
        last = type(e).__name__
    if not tb:
        return last[:4000]
    frames: list[str] = []
    where = ""
    try:
        import traceback

        for fr in traceback.extract_tb(e.__traceback__):
            if fr.filename == _BOT_FILE:
                name = os.path.basename(fr.filename)
                where = f"{name}, line {fr.lineno}"
                frames.append(f'  File "{name}", line {fr.lineno}, in {fr.name}')
                if fr.line:
                    frames.append(f"    {fr.line.strip()[:200]}")
    except BaseException:
        pass
    if not frames:
        return last[:4000]
    head = f"{last} ({where})\nTraceback (the bot's own frames, most recent call last):\n"
    return (head + "\n".join(frames[-16:]))[:4000]


WHERE_SIGNAL = signal.SIGUSR1
"""The arena's question "where are you?" to a bot it is about to kill for running out of time."""


def _say_where(_signum: int, frame: Any) -> None:
    """Answer :data:`WHERE_SIGNAL`: the innermost frame of the bot's own file, as one line on
    the protocol pipe (``{"where": "bot.py:12 in act"}``), then carry on until the arena's
    kill. Its own line first starts with a newline, so a half-written line of the bot's cannot
    swallow it. Only the bot's claim: it may replace this handler (the arena then waits its
    short bound and kills it as before)."""
    try:
        while frame is not None and frame.f_code.co_filename != _BOT_FILE:
            frame = frame.f_back
        if frame is None:
            return
        name = os.path.basename(_BOT_FILE)
        line = hostwire.json_dumps({"where": f"{name}:{frame.f_lineno} in {frame.f_code.co_name}"})
        os.write(4, ("\n" + line + "\n").encode())
    except BaseException:
        pass


PROTOCOL = 1
"""The protocol version this host speaks (``arena.sandbox.runtime.PROTOCOL_VERSION``)."""


def _safe_repr(x: object) -> str:
    try:
        return repr(x)[:200]
    except BaseException:
        return f"<{type(x).__name__}>"


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
    ctrl: _socket.socket,
    fds: list[int],
    prepared: tuple[str, Any] | None,
    scope_fd: int | None,
) -> None:
    """The match child: isolate, wait for the arena's go, load the bot, answer; never returns."""
    global _BOT_FILE
    _BOT_FILE = cfg["bot_path"]
    try:
        _isolate(cfg, ctrl, fds, prepared, scope_fd)
    except BaseException as e:
        failed = {"error": "load", "message": "sandbox set-up failed: " + _describe(e, tb=False)}
        os.write(fds[1], (hostwire.json_dumps(failed) + "\n").encode())
        os._exit(70)
    # The bot prints into the capped log; the protocol lives on fds 3 and 4 only.
    log_out, log_err = _Log(1), _Log(2)
    vars(sys).update(
        stdout=log_out, __stdout__=log_out, stderr=log_err, __stderr__=log_err, stdin=None
    )
    readline = os.fdopen(3, "rb", buffering=1 << 16).readline
    # The arena's hello (the go-ahead), sent when it is this seat's turn to load: its seed is
    # the 64 bytes that seed ``random`` (a one-way digest of the match seed and the seat; the
    # match seed itself never reaches this process or its zygote).
    hello = hostwire.message(readline)
    if not isinstance(hello, dict) or hello.get("type") != "hello":
        os._exit(0)
    import random

    random.seed(bytes.fromhex(hello["seed"]))
    del hello
    signal.signal(WHERE_SIGNAL, _say_where)
    _serve(_load(cfg, code), readline)


def _isolate(
    cfg: dict[str, Any],
    ctrl: _socket.socket,
    fds: list[int],
    prepared: tuple[str, Any] | None,
    scope_fd: int | None,
) -> None:
    """The child's own layers: session, descriptors 0-4 only, limits, Landlock scope, seccomp."""
    req, resp, log = fds
    _drop_capabilities()
    # Every descriptor the bot gets was made for this match: its own pipes and log from the
    # arena, and a standard input opened here (a description shared with the zygote would
    # carry status flags, owner and signal from one match to the next).
    stdin = os.open("/dev/null", os.O_RDONLY)
    os.setsid()
    _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL when the zygote goes
    # Kernel attaches our pid (translated into the arena's pid namespace) to this message.
    ctrl.sendmsg([b'{"child":1}'])
    ctrl.close()
    if scope_fd is not None and _libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, scope_fd, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    for fd, target in ((stdin, 0), (log, 1), (log, 2), (req, 3), (resp, 4)):
        os.dup2(fd, target)
    os.closerange(5, 1 << 16)
    # RLIMIT_CPU counts this process's own time from zero: set per child, not in the zygote.
    cpu = int(cfg["limits"]["match_cpu_seconds"]) + 2  # a backstop; the arena accounts
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    _set_limit(resource.RLIMIT_NOFILE, 16)
    if cfg.get("nproc"):
        _set_limit(resource.RLIMIT_NPROC, 1)
    if prepared is not None:
        load_seccomp(prepared)


def _drop_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets (and so the ambient one): the
    capability the zygote holds to make pid namespaces, or the full set a new user namespace
    gives, never reaches the bot. Without ``exec`` (refused) nothing can bring one back."""
    if SYS_CAPSET is None:
        return
    head = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.syscall(SYS_CAPSET, head, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _load(cfg: dict[str, Any], code: types.CodeType) -> Any:
    """Run the bot's module code and create ``Bot()``; say ready (or why not) to the arena."""
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
        ready: dict[str, Any] = {"protocol": PROTOCOL, "name": _name(bot)}
    except MemoryError as e:
        message = "out of memory while loading: " + _describe(e, tb=False)
        ready = {"error": "load", "message": message}
    except BaseException as e:  # SystemExit and KeyboardInterrupt too: it is the bot's code
        ready = {"error": "load", "message": _describe(e)}
    try:
        hostwire.write_all(4, (hostwire.json_dumps(ready) + "\n").encode())
    except BaseException:
        os._exit(71)
    if "error" in ready:
        os._exit(0)
    return bot


def _name(bot: Any) -> str:
    """The bot's ``name`` attribute when it is a string, else ``bot`` (informational only)."""
    try:
        name = getattr(bot, "name", None)
        return name[:100] if isinstance(name, str) else "bot"
    except BaseException:
        return "bot"


def _serve(bot: Any, readline: Any) -> None:
    """Answer one JSON line per ``act`` line until the arena closes the pipe; never returns."""
    loads = hostwire.json_loads
    while True:
        line = readline(hostwire.MAX_LINE + 1)
        if not line.endswith(b"\n"):
            os._exit(0)  # stdin closed: the match is over
        msg = loads(line)
        if msg.get("type") != "act":
            continue  # v1 has hello and act only; anything newer is ignored
        n, obs = msg["id"], msg["obs"]
        legal = obs["legal"]
        if len(legal) == 1:
            # Forced: answered without the bot, but still a round trip, so the time between a
            # bot's turns never tells whether another seat had a choice.
            out = hostwire.json_dumps({"id": n, "action": legal[0]}, True)
        else:
            out = _answer(bot, n, obs)
        try:
            hostwire.write_all(4, (out + "\n").encode())
        except BaseException:
            os._exit(72)


def _answer(bot: Any, n: int, obs: Observation) -> str:
    """The reply line to request ``n``: the bot's action, or what went wrong."""
    try:
        action = bot.act(obs)
    except MemoryError as e:
        return hostwire.json_compact({"id": n, "error": "memory", "message": _describe(e)})
    except BaseException as e:  # SystemExit/KeyboardInterrupt too: a crash of the bot
        return hostwire.json_compact({"id": n, "error": "crash", "message": _describe(e)})
    try:
        out = hostwire.json_compact({"id": n, "action": action})
    except BaseException as e:  # objects, NaN, generators, cycles: not an action
        what = f"not an action: {_safe_repr(action)} ({_describe(e, tb=False)})"
        return hostwire.json_compact({"id": n, "error": "illegal", "message": what})
    if len(out) > hostwire.MAX_LINE:
        message = "the answer is over 1 MiB of JSON"
        return hostwire.json_compact({"id": n, "error": "illegal", "message": message})
    return out


# --- the zygote -----------------------------------------------------------------------------

_PIDNS_FLAGS = [CLONE_NEWPID, CLONE_NEWPID | CLONE_NEWUSER]
"""How a match child gets a pid namespace of its own: with the capability the sandbox gives
the zygote, else with a user namespace of its own (no bubblewrap, unprivileged namespaces
allowed). The first that works is kept; with neither, a plain fork (``arena doctor``)."""


def _fork_match(pidns: list[int]) -> int:
    """Fork a match child; in a new pid namespace when one can be made, so every match's bot
    is pid 1 whatever ran before it (its pid would otherwise count the zygote's matches).

    ``pidns`` holds the clone flags still to try; those that fail are dropped from it, so the
    zygote settles on one construction for all its children.
    """
    while pidns:
        _api.PyOS_BeforeFork()
        pid = int(_libc.syscall(SYS_CLONE, ctypes.c_ulong(pidns[0] | signal.SIGCHLD), 0, 0, 0, 0))
        err = ctypes.get_errno()
        if pid == 0:
            _api.PyOS_AfterFork_Child()
            return 0
        _api.PyOS_AfterFork_Parent()
        if pid > 0:
            return pid
        if err not in (errno.EPERM, errno.EINVAL, errno.ENOSPC, errno.EUSERS):
            raise OSError(err, f"clone: {os.strerror(err)}")
        del pidns[0]
    return os.fork()


def _reply(ctrl: _socket.socket, obj: dict[str, Any]) -> None:
    ctrl.sendmsg([hostwire.json_dumps(obj).encode()])


def _fail(ctrl: _socket.socket, message: str) -> None:
    """Report a failed start, then stay until the arena closes the socket: the arena ends the
    whole process tree itself, so nothing of it is left unreaped."""
    _reply(ctrl, {"ok": False, "message": message})
    try:
        while ctrl.recv(4096):
            pass
    except OSError:
        pass


def _compile_within_limits(cfg: dict[str, Any]) -> types.CodeType:
    """Read the bot file once and compile that text, under the bot's memory limit and
    load-time CPU budget.

    A file over ``source_bytes`` is refused (the arena refuses it before staging; this is the
    second line). The address-space limit set here stays for the zygote and its children; the
    CPU limit is only the soft one (SIGXCPU ends the zygote, which the arena reports) and is
    lifted again, since every child sets its own.
    """
    limits = cfg["limits"]
    _set_limit(resource.RLIMIT_AS, int(limits["memory_mb"]) << 20)
    cap = int(limits["source_bytes"])
    with open(cfg["bot_path"], "rb") as f:
        source = f.read(cap + 1)
    if len(source) > cap:
        raise ValueError(f"the bot file is over the limit of {cap} bytes")
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    used = resource.getrusage(resource.RUSAGE_SELF)
    budget = int(used.ru_utime + used.ru_stime + float(limits["load_seconds"])) + 1
    if hard == resource.RLIM_INFINITY or budget < hard:
        resource.setrlimit(resource.RLIMIT_CPU, (budget, hard))
    # Compile the UTF-8 text the arena read, checked and showed, never the raw bytes: for a str
    # the interpreter ignores a coding cookie (``# coding: unicode_escape`` would otherwise
    # make the same bytes run other code).
    text = source.decode("utf-8")
    code = compile(text, cfg["bot_path"], "exec", dont_inherit=True)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    return code


def _seccomp(cfg: dict[str, Any], name: str, tables: Any) -> tuple[str, Any] | None:
    """The seccomp program the arena staged (made once per machine from these tables by
    this interpreter's libseccomp), else built here."""
    try:
        with open(os.path.join(cfg["lib"], "seccomp", name + ".bpf"), "rb") as f:
            return program(f.read(1 << 16))
    except (OSError, ValueError):
        return build_seccomp(*tables)


def _preload(names: list[str]) -> None:
    """Import the trusted modules the arena names (those of a fixed list that the bot's files
    mention: ``arena`` is the arena's rules modules), once here and shared by every child; a
    bot imports any other module itself, each match."""
    for name in names:
        if name == "arena":
            import arena.worlds  # noqa: F401  (with arena.cards, arena.rules, arena.game)
        else:
            __import__(name)


def _take_bot(
    ctrl: _socket.socket, cfg: dict[str, Any], info: dict[str, Any], own: tuple[str, Any] | None
) -> tuple[types.CodeType, int | None] | None:
    """Wait for the bot (a spare waits here), put its files into a tmpfs of this sandbox's own
    (under bubblewrap they come with the message), close the layers and compile the file;
    None when the arena closed the host or the bot cannot load (said on ``ctrl``)."""
    try:
        msg, fds = hostwire.recv_fds(ctrl, 1 << 20, 1)
    except OSError:
        return None
    if not msg:
        return None  # the arena closed a spare it did not need
    try:
        cfg.update(hostwire.json_loads(msg))
        _preload(cfg.get("preload", ()))  # before the bot's directory is on the path
        if fds:
            with os.fdopen(fds[0], "rb") as f:
                bot_world(cfg["files"], f.read())
        sys.path.append(os.path.dirname(cfg["bot_path"]))  # a bot's other files, after the rest
        abi = int(cfg.get("landlock") or 0)
        if abi:
            apply_landlock(abi, cfg["read_paths"])
            info["landlock"] = abi
        scope_fd = scope_ruleset(abi)
        if own is not None:  # before the bot's file is read: it is hostile input
            load_seccomp(own)
        return _compile_within_limits(cfg), scope_fd
    except SyntaxError as e:
        _fail(ctrl, f"{type(e).__name__}: {e.msg} (line {e.lineno})")
    except MemoryError:
        _fail(ctrl, "out of memory compiling the bot file (memory_mb limit)")
    except BaseException as e:
        _fail(ctrl, _describe(e, tb=False))
    return None


def zygote(ctrl_fd: int) -> None:
    """Set up once, then fork one match child per request; exits when the arena goes.

    Two messages set it up: the host's configuration (its layers and limits), then its bot.
    Everything before the second is the same for every bot, so the arena may start a host
    before it knows which bot it will be (a spare): until its bot arrives it is a blank host
    that has read nothing of any bot.
    """
    ctrl = _socket.socket(fileno=ctrl_fd)
    parent = os.getppid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)  # the parent died before PDEATHSIG was armed
    cfg = hostwire.json_loads(ctrl.recv(1 << 20))
    sys.path.insert(0, cfg["lib"])
    info: dict[str, Any] = {"ok": True, "landlock": 0, "seccomp": None, "uid": os.getuid()}
    try:
        _set_limit(resource.RLIMIT_CORE, 0)
        _set_limit(resource.RLIMIT_NOFILE, 64)
        if cfg.get("nproc"):
            _set_limit(resource.RLIMIT_NPROC, 16)
        prepared = _seccomp(cfg, "match", (ALLOW,)) if cfg.get("seccomp") else None
        own = _seccomp(cfg, "zygote", (ALLOW, ZYGOTE_ALLOW)) if prepared else None
        info["seccomp"] = prepared[0] if prepared else None
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
        import random  # noqa: F401  (every match child seeds it)

        _preload(cfg.get("preload", ()))  # a spare: what the pool expects its bot to use
    except BaseException as e:
        _fail(ctrl, "sandbox set-up failed: " + _describe(e, tb=False))
        return
    # The blank host is ready; from here on it is one bot's.
    taken = _take_bot(ctrl, cfg, info, own)
    if taken is None:
        return
    code, scope_fd = taken
    # Warm what every child would otherwise initialise on its own first decision, then freeze
    # the heap so the children's garbage collector never writes to (and copies) these pages.
    hostwire.json_dumps(hostwire.json_loads('{"a":[1]}'), True)
    gc.collect()
    gc.freeze()
    try:  # give freed heap back: less memory for each fork to copy page tables of
        _libc.malloc_trim(0)
    except AttributeError:
        pass
    try:
        # Inherited by every child: the address space and log-size limits, and a full log
        # giving EFBIG rather than death. The zygote's allowlist (ALLOW and ZYGOTE_ALLOW) is
        # inherited too; each child narrows it to ALLOW just before the bot's code runs.
        limits = cfg["limits"]
        _set_limit(resource.RLIMIT_FSIZE, max(int(limits["log_bytes"]), 1))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except BaseException as e:
        _fail(ctrl, "sandbox set-up failed: " + _describe(e, False))
        return
    _reply(ctrl, info)
    _fork_children(ctrl, cfg, code, prepared, scope_fd)


def _fork_children(
    ctrl: _socket.socket,
    cfg: dict[str, Any],
    code: types.CodeType,
    prepared: tuple[str, Any] | None,
    scope_fd: int | None,
) -> None:
    """The zygote's loop: one child forked per request, until the arena goes."""
    pidns = list(_PIDNS_FLAGS) if SYS_CLONE is not None and cfg.get("pidns") else []
    while True:
        try:
            msg, fds = hostwire.recv_fds(ctrl, 4096, 3)
        except OSError:
            return
        if not msg:
            return
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass  # children of earlier matches, already killed by the arena
        except ChildProcessError:
            pass
        try:
            pid = _fork_match(pidns)
        except OSError as e:
            for fd in fds:
                os.close(fd)
            _reply(ctrl, {"error": f"fork failed: {e}"})
            continue
        if pid == 0:
            run_child(cfg, code, ctrl, fds, prepared, scope_fd)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    zygote(int(sys.argv[1]))
