"""``arena doctor``: which isolation layers work here, and a live check of the real sandbox."""

from __future__ import annotations

import os
import stat
import time
from typing import Any

from arena.sandbox.confine import ALLOW, ZYGOTE_ALLOW, allowlist
from arena.sandbox.layers import probe
from arena.sandbox.pool import BotPool
from arena.sandbox.runtimes import RUNTIMES
from arena.sandbox.values import BotSource, Limits, SandboxUnavailable

__all__ = ["diagnose", "render"]

_CHECK_BOT = """\
import ctypes
import os
import random

libc = ctypes.CDLL(None, use_errno=True)


def shm_probe():
    shm = libc.shmget(0, 4096, 0o1600)
    if shm >= 0:  # never leave a segment behind (it would outlive this process)
        libc.shmctl(shm, 0, None)
    return shm


class Bot:
    def act(self, obs):
        if obs["hand_number"] == 0 and not getattr(self, "probed", False):
            self.probed = True
            for path in ("/etc/passwd", "/etc/hostname", "/proc/meminfo"):
                try:
                    open(path).close()
                    print("visible", path)
                except OSError:
                    pass
            for path in ("/usr/local", "/usr/share"):
                try:
                    os.listdir(path)
                    print("visible", path)
                except OSError:
                    pass
            if os.getpid() != 1:
                print("the bot's pid counts its zygote's matches (no pid namespace)")
            try:
                os.fork()
                print("fork allowed")
            except OSError:
                pass
            one = ctypes.c_ulong(1)
            calls = {
                "SysV shared memory": shm_probe,
                "inotify": lambda: libc.inotify_init1(0),
                "sysinfo": lambda: libc.sysinfo(ctypes.create_string_buffer(128)),
                "sched_setaffinity": lambda: libc.sched_setaffinity(0, 8, ctypes.byref(one)),
            }
            for name, call in calls.items():
                if call() >= 0:
                    print(name, "allowed")
        return random.choice(obs["legal"])
"""


def database(path: str) -> dict[str, Any]:
    """Whether the results database exists and who else may read it.

    Bots never see it (the sandbox hides every file but their own), but a results file that
    other users of the machine can read is worth knowing about: 0600 is the safe mode.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return {"path": path, "exists": False, "mode": None, "private": None}
    mode = stat.S_IMODE(st.st_mode)
    return {
        "path": path,
        "exists": True,
        "mode": f"{mode:04o}",
        "private": not mode & (stat.S_IRWXG | stat.S_IRWXO),
    }


def diagnose(live: bool = True, db_path: str | None = None) -> dict[str, Any]:
    """Probe the layers and, with ``live``, play one real sandboxed match and look inside it.

    With ``db_path``, also report the results database's file mode.
    """
    layers = probe()
    report: dict[str, Any] = {
        "layers": [la.to_dict() for la in layers],
        "runtimes": runtimes(),
        "live": None,
    }
    if db_path is not None:
        report["database"] = database(db_path)
    if not live:
        return report
    bot = BotSource("doctor", _CHECK_BOT)
    try:
        with BotPool(Limits(decision_seconds=2.0)) as pool:
            t = time.perf_counter()
            cold = pool.play_match([bot, bot, bot], 1)
            cold_ms = (time.perf_counter() - t) * 1e3
            t = time.perf_counter()
            warm = pool.play_match([bot, bot, bot], 2)
            warm_ms = (time.perf_counter() - t) * 1e3
            # Inside bubblewrap every host sees uid 1000; report the real (outside) one.
            hosts = [
                {**z.info, "uid": z.lease.uid if z.lease else os.geteuid()}
                for z in pool._zygotes.values()
            ]
    except SandboxUnavailable as e:
        report["live"] = {"ok": False, "error": str(e)}
        return report
    leaks = sorted({line for out in (cold, warm) for line in out.logs[0].splitlines()})
    faults = [str(f) for out in (cold, warm) for f in out.faults]
    report["live"] = {
        "ok": not faults and not leaks,
        "faults": faults,
        "leaks": leaks,
        "first_match_ms": round(cold_ms, 1),
        "next_match_ms": round(warm_ms, 1),
        "hosts": [
            {"uid": h.get("uid"), "landlock": h.get("landlock"), "seccomp": h.get("seccomp")}
            for h in hosts
        ],
    }
    return report


def runtimes() -> list[dict[str, Any]]:
    """Each bot language the arena knows (:data:`arena.sandbox.runtimes.RUNTIMES`): present (its
    toolchain is here) or what is missing."""
    out = []
    for r in RUNTIMES.values():
        missing = r.missing()
        out.append({"language": r.language, "present": missing is None, "missing": missing})
    return out


def render(report: dict[str, Any]) -> str:
    """The report as text: one line per layer, then the runtimes and the live check."""
    lines = ["Sandbox layers on this machine:"]
    for la in report["layers"]:
        mark = "on " if la["active"] else "off"
        lines.append(f"  [{mark}] {la['name']:<10} {la['detail']}")
    if report.get("runtimes"):
        lines.append("Bot languages:")
        for rt in report["runtimes"]:
            mark = "on " if rt["present"] else "off"
            lines.append(f"  [{mark}] {rt['language']:<10} {rt['missing'] or 'toolchain present'}")
    db = report.get("database")
    if db is not None:
        if not db["exists"]:
            lines.append(f"Database {db['path']}: not created yet")
        else:
            note = "private" if db["private"] else "readable by other users; chmod 600 is safer"
            lines.append(f"Database {db['path']}: mode {db['mode']} ({note})")
    live = report["live"]
    if live is None:
        return "\n".join(lines)
    if "error" in live:
        lines.append(f"Live check: FAILED: {live['error']}")
        return "\n".join(lines)
    hosts = ", ".join(
        f"uid {h['uid']} landlock ABI {h['landlock']} seccomp {h['seccomp']}" for h in live["hosts"]
    )
    lines.append(f"Live check: bot hosts run as: {hosts}")
    lines.append(
        f"  one match of three bots: {live['first_match_ms']} ms with cold hosts, "
        f"{live['next_match_ms']} ms with warm ones (fresh bot processes each match)"
    )
    for leak in live["leaks"]:
        lines.append(f"  WARNING inside the sandbox: {leak}")
    for fault in live["faults"]:
        lines.append(f"  FAULT: {fault}")
    lines.append("Live check: " + ("OK" if live["ok"] else "PROBLEMS (see above)"))
    return "\n".join(lines)


def syscalls() -> list[dict[str, str]]:
    """The seccomp allowlists: each system call a bot (``"process": "match"``) may make, the
    modes allowed and why (:data:`arena.sandbox.confine.ALLOW`), then what its zygote may make
    beyond those (``"zygote"``, :data:`arena.sandbox.confine.ZYGOTE_ALLOW`); every other call
    fails with EPERM."""
    return [
        {"syscall": n, "modes": m, "reason": r, "process": process}
        for process, table in (("match", ALLOW), ("zygote", ZYGOTE_ALLOW))
        for n, m, r in allowlist(table)
    ]


def render_syscalls(rows: list[dict[str, str]]) -> str:
    """:func:`syscalls` as text: one line per call, then its modes when restricted."""
    match = [r for r in rows if r.get("process", "match") == "match"]
    zygote = [r for r in rows if r.get("process") == "zygote"]
    lines = [
        f"System calls a bot may make ({len(match)}); any other fails with EPERM, and a 32-bit "
        "or foreign-architecture call kills the process:"
    ]
    for row in match:
        lines += _syscall_lines(row)
    if zygote:
        lines.append(
            f"And those its zygote may make besides ({len(zygote)}), from before it reads the "
            "bot's file:"
        )
        for row in zygote:
            lines += _syscall_lines(row)
    return "\n".join(lines)


def _syscall_lines(row: dict[str, str]) -> list[str]:
    lines = [f"  {row['syscall']:<22} {row['reason']}"]
    if row["modes"] != "any":
        lines.append(f"  {'':<22}   only: {row['modes']}")
    return lines
