"""Isolation by construction: a bot may make only the system calls of the allowlist, holds only
what was made for its match, and nothing it does outlives the match or reaches a match running
beside it.

Real sandboxed matches with hostile bots from tests/attacks/: copies of a bot in two workers at
once try to meet on a futex of a shared file mapping (the unsandboxed positive control meets);
a bot sets every piece of state it can in one match and reads it at the start of the next and
in another worker (every match must start from the same state); a bot lists its descriptors
from the inside while the test reads its mappings and ``fdinfo`` from the outside; and the real
``arena run --workers 2`` with both attacks (docs/sandbox.md, "Nothing outlives a match").
"""

from __future__ import annotations

import ast
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_support import arena, ok, write_bot

from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.botfile import bundled
from arena.sandbox.client import _descendants
from arena.sandbox.confine import ALLOW, ZYGOTE_ALLOW, allowlist
from arena.store import Store

ATTACKS = Path(__file__).parent / "attacks"
LIMITS = Limits(decision_seconds=2.0, match_cpu_seconds=10.0, load_seconds=3.0)


def attack(name: str, **fill: str) -> BotSource:
    text = (ATTACKS / f"{name}.py").read_text()
    for key, value in fill.items():
        text = text.replace(f"@@{key}@@", value)
    return BotSource(name, text, f"{name}.py")


def victim() -> BotSource:
    return BotSource.from_path(str(bundled("random_bot")))


def _play(src: BotSource, seeds: list[int], queue: mp.Queue[list[str]]) -> None:
    """A worker process: its own pool plays ``src`` in seat 0 of each seed's match."""
    with BotPool(LIMITS) as pool:
        outs = [pool.play_match([src, victim(), victim()], s) for s in seeds]
    queue.put([o.logs[0] + "".join(f"FAULT {f}\n" for f in o.faults) for o in outs])


def in_two_workers(src: BotSource, seeds: list[int]) -> list[str]:
    """Every match's log of ``src``, played by two worker processes at the same time."""
    ctx = mp.get_context("fork")
    queue: mp.Queue[list[str]] = ctx.Queue()
    procs = [ctx.Process(target=_play, args=(src, seeds, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    logs = [log for _ in procs for log in queue.get(timeout=120)]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    return logs


# --- the allowlist --------------------------------------------------------------------------


def test_the_allowlist_is_one_table_with_a_reason_per_entry() -> None:
    names = [a.name for a in ALLOW]
    assert len(names) == len(set(names))
    assert all(a.reason for a in ALLOW)
    for refused in ("socket", "clone", "clone3", "fork", "execve", "kill", "ptrace", "prctl"):
        assert refused not in names
    modes = {name: only for name, only, _ in allowlist()}
    assert "FUTEX_PRIVATE_FLAG" in modes["futex"] and "MAP_PRIVATE" in modes["mmap"]
    assert "F_SETFL" not in modes["fcntl"].split("(")[0]


def test_the_sandbox_page_lists_the_allowlist_as_the_code_has_it() -> None:
    page = (Path(__file__).parent.parent / "docs" / "sandbox.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \| (.*?) \|$", page, re.M)
    assert rows == allowlist(ALLOW) + allowlist(ZYGOTE_ALLOW)


def test_arena_doctor_prints_the_allowlist(tmp_path: Path) -> None:
    out = ok(arena("doctor", "--syscalls", cwd=tmp_path))
    for a in ALLOW + ZYGOTE_ALLOW:
        assert re.search(rf"^\s*{a.name}\s", out, re.M), a.name
    assert "EPERM" in out and "its zygote may make besides" in out
    rows = json.loads(ok(arena("doctor", "--syscalls", "--json", cwd=tmp_path)))
    assert [r["syscall"] for r in rows if r["process"] == "zygote"] == [
        a.name for a in ZYGOTE_ALLOW
    ]


# --- a futex on a shared file mapping --------------------------------------------------------


def test_two_unsandboxed_copies_do_meet_on_a_futex(tmp_path: Path) -> None:
    """The positive control: the attack's own code, in two plain processes at once."""
    path = tmp_path / "meet.py"
    path.write_text(attack("futex_channel", SECONDS="1.5").source)
    code = f"import runpy; print(runpy.run_path({str(path)!r})['meet'](1.5))"
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=30)[0] for p in procs]
    assert all(o.startswith("ESCAPED met another copy") for o in outs), outs


def test_copies_in_two_workers_cannot_meet_on_a_futex() -> None:
    logs = in_two_workers(attack("futex_channel", SECONDS="1.0"), [1, 2])
    assert len(logs) == 4
    for log in logs:
        assert "RAN" in log and "FAULT" not in log, log
        assert "ESCAPED" not in log and "ALONE" not in log, log
        assert "BLOCKED mmap shared EPERM" in log and "BLOCKED shared futex EPERM" in log, log


# --- state that could outlive a match --------------------------------------------------------


def seen_and_set(logs: list[str]) -> tuple[set[str], list[str]]:
    seen = {line for log in logs for line in log.splitlines() if line.startswith("SEEN ")}
    sets = [line for log in logs for line in log.splitlines() if line.startswith("SET ")]
    return seen, sets


def test_a_match_starts_from_the_same_state_whatever_ran_before_or_beside_it() -> None:
    """Consecutive matches of one zygote, in two workers at once: every match sees the same
    state at load, though each match tried to set all of it from its cards."""
    logs = in_two_workers(attack("state_channels"), [3, 4, 5])
    assert len(logs) == 6 and not any("FAULT" in log for log in logs), logs
    seen, sets = seen_and_set(logs)
    assert len(sets) == 6 and len({s.split()[1] for s in sets}) > 1  # different secrets
    assert len(seen) == 1, seen
    state = dict(ast.literal_eval(next(iter(seen))[5:]))
    assert state["fl0"] & ~0o100000 == os.O_RDONLY  # a fresh standard input (O_LARGEFILE aside)
    for fd in range(5):  # owner and signal of a description cannot even be read
        assert state[f"own{fd}"] == state[f"sig{fd}"] == state[f"ownex{fd}"] == "E1"
    # Every match's bot is pid 1 of a pid namespace of its own (its pid counts nothing).
    assert (state["pid"], state["ppid"]) == (1, 0), state
    # A pinned worker's CPU is not the bot's to know: its affinity cannot be read.
    assert state["affinity"] == "E1", state


# --- what a match process holds ---------------------------------------------------------------


def _match_children() -> dict[int, tuple[list[str], dict[str, str]]]:
    """Live match processes under this one: their mappings and the fdinfo of each fd."""
    found = {}
    for pid in _descendants(os.getpid()):
        try:
            if b"host.py" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue  # not a bot host (the arena's own probes: ldd, python -c)
            fds = sorted(os.listdir(f"/proc/{pid}/fd"), key=int)
            if fds != ["0", "1", "2", "3", "4"] or "pipe:" not in os.readlink(f"/proc/{pid}/fd/3"):
                continue
            with open(f"/proc/{pid}/maps") as f:
                maps = f.read().splitlines()
            info = {fd: Path(f"/proc/{pid}/fdinfo/{fd}").read_text() for fd in fds}
            info["status"] = Path(f"/proc/{pid}/status").read_text()
        except (OSError, ValueError):
            continue
        found[pid] = (maps, info)
    return found


def test_a_match_process_holds_only_what_was_made_for_its_match() -> None:
    seen: dict[int, tuple[list[str], dict[str, str]]] = {}
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.update(_match_children())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with BotPool(LIMITS) as pool:
            outs = [
                pool.play_match([attack("inventory", WAIT="1.0"), victim(), victim()], s)
                for s in (6, 7)
            ]
    finally:
        stop.set()
        watcher.join()
    inventories = []
    for out in outs:
        assert out.fault_of(0) is None, out.faults
        line = next(x for x in out.logs[0].splitlines() if x.startswith("FDS "))
        inventories.append(ast.literal_eval(line[4:]))
    for fds in inventories:
        assert [(fd, kind, mode) for fd, kind, mode, _ in fds] == [
            (0, "chr", os.O_RDONLY),
            (1, "reg", os.O_RDWR),
            (2, "reg", os.O_RDWR),
            (3, "fifo", os.O_RDONLY),
            (4, "fifo", os.O_WRONLY),
        ]
        assert fds[1][3] == fds[2][3]  # one log
    # Log and pipes are new objects in every match.
    assert not {i for _, _, _, i in inventories[0][1:]} & {i for _, _, _, i in inventories[1][1:]}
    assert len(seen) >= 2, "no match process was seen"
    for maps, info in seen.values():
        shared = [m for m in maps if m.split()[1].endswith("s")]
        assert shared == [], shared  # no mapping shared with the zygote or anything else
        assert re.search(r"^pos:\s+0$", info["0"], re.M)
        assert re.search(r"^flags:\s+0?100000$", info["0"], re.M), info["0"]  # O_RDONLY only
        # No capability (the zygote's, to make pid namespaces, is dropped), and pid 1 in a
        # pid namespace of its own: the last NSpid field is the pid the bot sees.
        caps = dict(re.findall(r"^(Cap\w+):\s+(\w+)$", info["status"], re.M))
        assert {k: int(v, 16) for k, v in caps.items() if k != "CapBnd"} == dict.fromkeys(
            ("CapInh", "CapPrm", "CapEff", "CapAmb"), 0
        ), caps
        nspid = re.search(r"^NSpid:(.*)$", info["status"], re.M)
        assert nspid is not None and nspid.group(1).split()[-1] == "1", info["status"]


# --- the real command line ---------------------------------------------------------------------


@pytest.mark.slow
def test_both_attacks_fail_through_arena_run_with_two_workers(tmp_path: Path) -> None:
    futex = write_bot(tmp_path, "futex_channel.py", attack("futex_channel", SECONDS="0.3").source)
    state = write_bot(tmp_path, "state_channels.py", attack("state_channels").source)
    args = [futex, state, "random", "--rounds", "2", "--workers", "2", "--no-site"]
    ok(arena("run", *args, cwd=tmp_path))
    with Store(tmp_path / "arena.db", create=False) as store:
        names = {v.id: v.name for v in store.version_refs()}
        rows = [
            (names[m.bots[seat]], text)
            for m in store.match_rows()
            for seat, text in store.match_logs(m.id).items()
        ]
    futex_logs = [t for n, t in rows if n == "futex_channel"]
    state_logs = [t for n, t in rows if n == "state_channels"]
    assert len(futex_logs) == len(state_logs) == 12
    for log in futex_logs:
        assert "ESCAPED" not in log and "BLOCKED mmap shared EPERM" in log, log
    seen, sets = seen_and_set(state_logs)
    assert len(sets) == 12 and len(seen) == 1, seen


# --- the zygote's own filter ---------------------------------------------------------------------


def test_the_zygote_runs_under_its_allowlist_and_a_bot_under_both() -> None:
    """Each zygote (the python3 running host.py, not bwrap) has one seccomp filter from before
    it compiled the bot's file; the calls only it may make are refused to the bot (the match
    process keeps the zygote's filter and adds its own)."""
    with BotPool(LIMITS) as pool:
        out = pool.play_match([attack("zygote_calls"), victim(), victim()], 8)
        statuses = {}
        for pid in pool.host_pids():
            if b"host.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                statuses[pid] = Path(f"/proc/{pid}/status").read_text()
    assert out.fault_of(0) is None, out.faults
    blocked = [x for x in out.logs[0].splitlines() if x.startswith("BLOCKED ")]
    assert len(blocked) == 16 and "ESCAPED" not in out.logs[0], out.logs[0]
    # python3 running host.py (not bwrap, whose command line names it too): the three
    # zygotes with one filter, and any match process still alive with two.
    filters = sorted(
        int(m.group(1))
        for s in statuses.values()
        if re.search(r"^Name:\s+python3", s, re.M) and re.search(r"^Seccomp:\s+2$", s, re.M)
        for m in [re.search(r"^Seccomp_filters:\s+(\d+)$", s, re.M)]
        if m
    )
    pythons = [s for s in statuses.values() if re.search(r"^Name:\s+python3", s, re.M)]
    assert len(filters) == len(pythons) and filters.count(1) == 3, (filters, pythons)
    assert set(filters) <= {1, 2}, filters


PID_BOT = """
import os
import random


class Bot:
    def act(self, obs):
        if obs["hand_number"] == 0 and not getattr(self, "told", False):
            self.told = True
            print("PID", os.getpid(), os.getppid())
        return random.choice(obs["legal"])
"""


@pytest.mark.parametrize("disable", ["", "pidns"])
def test_the_pid_namespace_layer_decides_what_a_bot_sees_as_its_pid(monkeypatch, disable):
    """The ``pidns`` layer `arena doctor` shows is the one the zygote acts on: on, every
    match's bot is pid 1 with parent 0; turned off, its pid is an ordinary one that counts
    what ran before it."""
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", disable)
    fast = Limits(decision_seconds=2.0, match_cpu_seconds=10.0, load_seconds=3.0)
    probe = BotSource("pidbot", PID_BOT)
    other = BotSource.from_path(str(bundled("random_bot")))
    with BotPool(fast) as pool:
        assert ("pidns" in pool.isolation.active) == (disable == "")
        seen = [pool.play_match([probe, other, other], seed).logs[0] for seed in (1, 2)]
    pids = [re.search(r"PID (\d+) (\d+)", log) for log in seen]
    assert all(pids), seen
    if disable:
        assert all(m is not None and m.group(1) != "1" for m in pids)
    else:
        assert all(m is not None and m.group(1, 2) == ("1", "0") for m in pids)
