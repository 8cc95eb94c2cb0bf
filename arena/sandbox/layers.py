"""Isolation layers: what this machine offers (probed, never assumed) and how to launch a host.

:func:`probe` lists every layer with whether it is active here and why;
:func:`choose_isolation` turns that into the :class:`Isolation` a
:class:`~arena.sandbox.pool.BotPool` uses, or raises
:class:`~arena.sandbox.values.SandboxUnavailable`. ``ARENA_SANDBOX_DISABLE`` (comma-separated
layer names) switches layers off, to try the degraded set-ups of other machines.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.sandbox.cgroup import cgroup_layer
from arena.sandbox.values import PROBE_UID, UID_BASE, UID_COUNT, SandboxUnavailable
from arena.sandbox.world import (
    DIST_PACKAGES,
    HOST_PYTHON,
    HostFiles,
    bwrap_argv,
    host_files,
    kept_probe,
    warm_page_cache,
)

__all__ = [
    "Layer",
    "Isolation",
    "HostFiles",
    "host_files",
    "probe",
    "choose_isolation",
    "UidLease",
    "lease_uid",
    "become_subreaper",
]

ISOLATING: Final = ("bwrap", "uid", "landlock", "seccomp")
"""Layers that isolate; with none of them active the sandbox refuses to run untrusted bots."""

_SYS_LANDLOCK_CREATE_RULESET: Final = 444
_PR_SET_CHILD_SUBREAPER: Final = 36


@dataclass(frozen=True)
class Layer:
    """One isolation layer: ``active`` on this machine or not, and a one-line ``detail``."""

    name: str
    active: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "active": self.active, "detail": self.detail}


@dataclass(frozen=True)
class Isolation:
    """The isolation layers a pool uses: the booleans the launcher and the host act on."""

    python: str
    bwrap: bool = False
    uid: bool = False
    landlock: int = 0
    seccomp: bool = False
    pidns: bool = False
    nproc: bool = False
    freeze: bool = False
    cgroup: bool = False
    unsafe: bool = False
    layers: tuple[Layer, ...] = field(default=())

    @property
    def active(self) -> list[str]:
        """Names of the active layers, for logs and the doctor."""
        return [la.name for la in self.layers if la.active]


def _disabled() -> set[str]:
    return {x.strip() for x in os.environ.get("ARENA_SANDBOX_DISABLE", "").split(",") if x.strip()}


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        rc = libc.syscall(
            _SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1)
        )
    except (OSError, AttributeError):
        return 0
    return max(int(rc), 0)


def _run(argv: list[str], **kw: Any) -> tuple[bool, str]:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=10, cwd="/", **kw)
    except (OSError, subprocess.SubprocessError) as e:
        return False, str(e)
    out = (p.stderr or p.stdout).strip().splitlines()
    return p.returncode == 0, out[-1] if out else f"exit status {p.returncode}"


@functools.cache
def _probe_python() -> tuple[bool, str]:
    if not os.access(HOST_PYTHON, os.X_OK):
        return False, f"{HOST_PYTHON} not found"
    return kept_probe("python", [], _run_python)


def _run_python() -> tuple[bool, str]:
    if not os.access(HOST_PYTHON, os.X_OK):
        return False, f"{HOST_PYTHON} not found"
    ok, out = _run([HOST_PYTHON, "-s", "-S", "-c", "import sys; print(sys.version.split()[0])"])
    if not ok:
        return False, f"{HOST_PYTHON} does not run: {out}"
    return True, f"{HOST_PYTHON} {out}"


@functools.cache
def _probe_seccomp() -> tuple[bool, str]:
    return kept_probe("seccomp", [DIST_PACKAGES], _run_seccomp)


def _run_seccomp() -> tuple[bool, str]:
    code = (
        f"import sys; sys.path.append({DIST_PACKAGES!r})\n"
        "try:\n import seccomp\nexcept ImportError:\n import pyseccomp as seccomp\n"
        "print(getattr(seccomp, '__file__', 'seccomp'))"
    )
    ok, out = _run([HOST_PYTHON, "-s", "-S", "-c", code])
    return (True, f"libseccomp bindings {out}") if ok else (False, f"no seccomp binding ({out})")


_PIDNS_PROBE = """
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
for flags in (0x20000000, 0x20000000 | 0x10000000):  # CLONE_NEWPID, with CLONE_NEWUSER
    pid = libc.syscall(NR, ctypes.c_ulong(flags | signal.SIGCHLD), 0, 0, 0, 0)
    if pid == 0:
        os._exit(0 if os.getpid() == 1 else 3)
    if pid > 0:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            print("own user namespace" if flags & 0x10000000 else "the zygote's capability")
            sys.exit(0)
sys.exit(1)
"""


@functools.cache
def _probe_pidns(bwrap: bool, as_uid: int | None) -> tuple[bool, str]:
    """Whether each match child can be pid 1 of a pid namespace of its own, the way the
    zygote makes it (host.py, ``_fork_match``): inside bubblewrap with the capability the
    sandbox gives the zygote, else as the zygote's uid with ``CLONE_NEWPID`` and then a user
    namespace of its own."""
    done = "each match's bot is pid 1 of a pid namespace of its own"
    if bwrap:
        return True, f"{done} (the zygote's capability inside bubblewrap)"
    nr = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)
    if nr is None:
        return (
            False,
            f"no raw clone on {os.uname().machine}: a bot's pid counts its zygote's matches",
        )
    ids: dict[str, Any] = {}
    if as_uid is not None:
        ids = {"user": as_uid, "group": as_uid, "extra_groups": []}
    ok, out = _run([HOST_PYTHON, "-s", "-S", "-c", f"NR = {nr}\n{_PIDNS_PROBE}"], **ids)
    if ok:
        return True, f"{done} ({out})"
    return False, "no pid namespace can be made: a bot's pid counts its zygote's matches"


@functools.cache
def _probe_bwrap(as_uid: int | None) -> tuple[bool, str]:
    exe = shutil.which("bwrap")
    if exe is None:
        return False, "bwrap not installed (apt-get install bubblewrap)"
    # --as-pid-1: no separate init, so no orphan is left for a subreaper to reap.
    true = os.open(os.path.realpath(shutil.which("true") or "/usr/bin/true"), os.O_RDONLY)
    try:
        argv = bwrap_argv([(true, "/usr/bin/true")], "/usr/bin/true", "", 0)
        argv = [*argv[:-7], "--as-pid-1", "--", "/usr/bin/true"]
        ids: dict[str, Any] = {"pass_fds": (true,)}
        if as_uid is not None:
            ids.update(user=as_uid, group=as_uid, extra_groups=[])
        ok, out = _run(argv, **ids)
    finally:
        os.close(true)
    if not ok:
        return False, f"bwrap cannot create a sandbox here: {out}"
    return True, f"{exe}: user, pid, net, ipc, uts, mount namespaces; read-only view"


def _world_layer(bwrap: bool, files: HostFiles) -> tuple[bool, str]:
    """Whether every directory a bot can name is its own sandbox's tmpfs (world.py)."""
    if bwrap and files.private:
        return True, (
            "every directory a bot can name is its sandbox's own tmpfs: no lookup leaves a "
            "trace in the machine's name cache for its next match or another worker"
        )
    why = "needs bubblewrap" if not bwrap else files.detail
    return False, (
        f"bots look names up in host directories ({why}): a bot can leave negative dentries "
        "in the machine's name cache and time them in its next match"
    )


def _landlock_detail(abi: int) -> str:
    if abi == 0:
        return "not supported by this kernel (or disabled)"
    tcp = ", TCP" if abi >= 4 else ""
    return f"ABI {abi}: files{tcp}" + (", signal and abstract socket scoping" if abi >= 6 else "")


def probe() -> list[Layer]:
    """Probe every layer on this machine (cached per process; takes about 50 ms once).

    The names: ``python`` (the host interpreter), ``bwrap``, ``uid`` (a separate uid per
    running bot), ``pidns`` (each match's bot is pid 1 of its own pid namespace), ``nnp``
    (no_new_privs), ``landlock``, ``seccomp``, ``rlimits``, ``subreaper``,
    ``files`` (only the interpreter's files are visible, not all of ``/usr``), ``world`` (every
    directory a bot can name is its sandbox's own tmpfs), ``cgroup`` (each host in a memory and
    pids cgroup of its own) and ``turns`` (bots are stopped between their turns).
    """
    off = _disabled()
    root = os.geteuid() == 0
    layers: list[Layer] = []

    def add(name: str, ok: bool, detail: str) -> None:
        if name in off:
            ok, detail = False, f"disabled by ARENA_SANDBOX_DISABLE ({detail})"
        layers.append(Layer(name, ok, detail))

    py_ok, py_detail = _probe_python()
    add("python", py_ok, py_detail)
    uid_ok = root and "uid" not in off
    add(
        "uid",
        root,
        f"one uid per running bot from {UID_BASE}..{UID_BASE + UID_COUNT - 1}, NPROC limit"
        if root
        else "not root: bots run as the arena's own uid, no NPROC limit",
    )
    if sys.platform != "linux":
        others = (
            "bwrap",
            "pidns",
            "nnp",
            "landlock",
            "seccomp",
            "rlimits",
            "subreaper",
            "files",
            "world",
            "cgroup",
            "turns",
        )
        for name in others:
            add(name, False, "Linux only")
        return layers
    as_uid = PROBE_UID if uid_ok else None
    add("bwrap", *_probe_bwrap(as_uid))
    bwrap_on = layers[-1].active
    if py_ok:
        add("pidns", *_probe_pidns(bwrap_on, None if bwrap_on else as_uid))
    else:
        add("pidns", False, "needs the host interpreter")
    add("nnp", True, "PR_SET_NO_NEW_PRIVS: no setuid gains, required by Landlock and seccomp")
    abi = landlock_abi()
    add("landlock", abi > 0, _landlock_detail(abi))
    if py_ok:
        add("seccomp", *_probe_seccomp())
    else:
        add("seccomp", False, "needs the host interpreter")
    add(
        "rlimits",
        True,
        "address space, CPU, open files, file size, core" + (", processes" if uid_ok else ""),
    )
    add("subreaper", True, "the arena adopts and reaps bots' orphans")
    files = host_files()
    add("files", files.read_paths != ("/usr",), files.detail)
    add("world", *_world_layer(bwrap_on, files))
    layers.append(Layer("cgroup", *cgroup_layer("cgroup" in off)))
    add(
        "turns",
        True,
        "a bot runs only in its own turn (stopped or asleep on its request pipe between "
        "turns; forced decisions are round trips too)",
    )
    return layers


def choose_isolation(unsafe_no_sandbox: bool = False) -> Isolation:
    """Decide the layers for a pool; raise SandboxUnavailable when nothing can isolate bots."""
    layers = probe()
    on = {la.name: la.active for la in layers}
    python = HOST_PYTHON if on["python"] else sys.executable
    if unsafe_no_sandbox:
        return Isolation(
            python=python,
            unsafe=True,
            freeze=on["turns"],
            layers=tuple(
                Layer(
                    la.name,
                    la.active and la.name in ("python", "rlimits", "subreaper", "turns"),
                    la.detail,
                )
                for la in layers
            ),
        )
    if not on["python"]:
        raise SandboxUnavailable(
            f"cannot sandbox bots: {HOST_PYTHON} is missing; install Python 3 there or pass "
            "`unsafe_no_sandbox` for trusted bots"
        ).naming("unsafe_no_sandbox")
    if not any(on.get(name) for name in ISOLATING):
        raise SandboxUnavailable(
            "cannot sandbox bots here: no bubblewrap, Landlock, seccomp or per-bot uid works "
            "(see `arena doctor`); pass `unsafe_no_sandbox` only for trusted bots"
        ).naming("unsafe_no_sandbox")
    if on["bwrap"] or on["landlock"]:
        warm_page_cache()
    return Isolation(
        python=python,
        bwrap=on["bwrap"],
        uid=on["uid"],
        landlock=landlock_abi() if on["landlock"] else 0,
        seccomp=on["seccomp"],
        pidns=on["pidns"],
        nproc=on["uid"],
        freeze=on["turns"],
        cgroup=on["cgroup"],
        layers=tuple(layers),
    )


_subreaper_pid: int | None = None


def become_subreaper() -> bool:
    """Make this process the child subreaper: bots' orphans come back here to be killed.

    Done once per process (the flag is not inherited by fork, so a forked worker sets its own).
    """
    global _subreaper_pid
    if _subreaper_pid == os.getpid():
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
    if ok:
        _subreaper_pid = os.getpid()
    return ok


def processes_of_uid(uid: int) -> list[int]:
    """Pids of the live processes whose owner is ``uid`` (a scan of /proc)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    pids.append(int(name))
            except OSError:
                continue
    return pids


class UidLease:
    """A uid held by one bot host; the lock file keeps other arenas off it until released."""

    def __init__(self, uid: int, lock_fd: int) -> None:
        self.uid = uid
        self._fd: int | None = lock_fd

    def release(self) -> None:
        """Give the uid back (call only once no process of it is left)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _lock_dir() -> Path:
    for base in ("/run", tempfile.gettempdir()):
        path = Path(base) / "euchre-arena-uids"
        try:
            path.mkdir(mode=0o700, exist_ok=True)
            st = path.stat()
            if st.st_uid == os.geteuid() and not st.st_mode & 0o022:
                return path
        except OSError:
            continue
    raise SandboxUnavailable("cannot create a private directory for uid locks in /run or /tmp")


def lease_uid() -> UidLease:
    """Take a free uid from the range: not locked by any arena and with no process alive."""
    lock_dir = _lock_dir()
    start = (os.getpid() * 7) % UID_COUNT  # spread workers so they rarely contend
    for k in range(UID_COUNT - 1):  # the last uid of the range is the probe's
        uid = UID_BASE + (start + k) % (UID_COUNT - 1)
        fd = os.open(lock_dir / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        if processes_of_uid(uid):
            os.close(fd)  # leftovers of a crashed arena: never share a uid with them
            continue
        return UidLease(uid, fd)
    raise SandboxUnavailable(f"all {UID_COUNT} bot uids from {UID_BASE} are in use")
