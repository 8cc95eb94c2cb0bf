"""The sandbox's behaviour with honest bots, its values, its layer set-ups and its clean-up.

Hostile bots are in tests/test_sandbox_attacks.py. Everything here runs the real sandbox: real
bot processes forked from real zygotes under whatever layers this machine has (all of them in
CI, which runs as root with bubblewrap and python3-seccomp installed).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from arena.cli.common import option_of
from arena.engine import PHASES, Rules, deal_for, play_match
from arena.errors import ArenaError
from arena.sandbox import (
    FAULT_KINDS,
    BotPool,
    BotSource,
    Fault,
    Limits,
    SandboxUnavailable,
    probe,
    validate_bot,
)
from arena.sandbox.botfile import bundled, load_bot_class
from arena.sandbox.layers import processes_of_uid
from arena.sandbox.values import bot_random_seed, forfeit_placements

ATTACKS = Path(__file__).parent / "attacks"
LAYERS = ("python", "uid", "bwrap", "pidns", "nnp", "landlock", "seccomp", "rlimits", "subreaper")
LAYERS += ("files", "world", "cgroup", "turns")
FAST = Limits(decision_seconds=2.0, match_cpu_seconds=10.0, load_seconds=3.0)
REPO = Path(__file__).resolve().parent.parent


def source(name: str) -> BotSource:
    return BotSource.from_path(str(bundled(name)))


class Forced:
    """In-process twin of a sandboxed seat: forced decisions are played without the bot."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0] if len(obs["legal"]) == 1 else self.bot.act(obs)


def in_process(names: list[str], seed: int, rules: Rules) -> Any:
    """The same match in this process, with ``random`` seeded per seat as the host does."""
    bots = []
    for seat, name in enumerate(names):
        random.seed(bot_random_seed(seed, seat))
        bots.append(Forced(load_bot_class(bundled(name))()))
    return play_match(bots, seed, rules)


# --- values ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"decision_seconds": 0}, "decision_seconds"),
        ({"match_cpu_seconds": -1}, "match_cpu_seconds"),
        ({"memory_mb": 8}, "memory_mb"),
        ({"log_bytes": -5}, "log_bytes"),
        ({"load_seconds": "3"}, "load_seconds"),
    ],
    ids=["decision", "cpu", "memory", "log", "load-type"],
)
def test_bad_limits_are_one_clear_error(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ArenaError, match=fragment):
        Limits(**kwargs)


def test_values_round_trip() -> None:
    limits = Limits(decision_seconds=0.25, memory_mb=300)
    assert Limits.from_dict(limits.to_dict()) == limits
    for kind in FAULT_KINDS:
        f = Fault(2, kind, "boom", 7)
        assert Fault.from_dict(json.loads(json.dumps(f.to_dict()))) == f
    assert str(Fault(1, "load", "x")) == "seat 1: load at loading: x"
    with pytest.raises(ValueError):
        Fault.from_dict({"seat": 0, "kind": "nonsense", "message": "", "decision": None})
    src = BotSource("a", "x = 1\n")
    assert src.sha256 == BotSource("b", "x = 1\n", "other.py").sha256 != BotSource("a", "").sha256


@pytest.mark.parametrize(
    ("scores", "faulty", "places"),
    [
        ([10, 5, 3], set(), [1, 2, 3]),
        ([10, 5, 3], {0}, [3, 1, 2]),
        ([10, 5, 5], {0}, [3, 1, 1]),
        ([2, 11, 7], {1, 2}, [1, 2, 3]),
        ([4, 4, 4], {0, 1, 2}, [1, 1, 1]),
        ([12, 3, 9], {2}, [1, 2, 3]),
    ],
    ids=["none", "winner-faults", "tie-behind", "two-fault", "all-fault", "last-faults"],
)
def test_forfeit_places_faulty_seats_last(
    scores: list[int], faulty: set[int], places: list[int]
) -> None:
    assert forfeit_placements(scores, faulty) == places


# --- layers ---------------------------------------------------------------------------------


def test_probe_reports_every_layer_truthfully() -> None:
    layers = {la.name: la for la in probe()}
    assert set(layers) == {
        "python",
        "uid",
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
    }
    assert layers["uid"].active == (os.geteuid() == 0)
    assert layers["python"].active == os.access("/usr/bin/python3", os.X_OK)
    if shutil.which("bwrap") is None:
        assert not layers["bwrap"].active
    assert all(la.detail for la in layers.values())


def test_ci_machine_has_every_layer() -> None:
    """CI (.ci/run) installs bubblewrap and python3-seccomp and runs as root: all layers on."""
    if os.geteuid() != 0:
        # A developer laptop: the per-bot uid layer must say why it is off.
        assert "not root" in next(la.detail for la in probe() if la.name == "uid")
        return
    off = [la.name for la in probe() if not la.active]
    assert off == [], f"layers off on a root CI machine: {off}"


def test_refuses_without_isolation_and_unsafe_still_limits_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", "bwrap,uid,landlock,seccomp")
    with pytest.raises(SandboxUnavailable) as err:
        BotPool(FAST)
    # The library names its own setting; the command line shows its option there.
    assert "\n" not in str(err.value) and "pass `unsafe_no_sandbox` only" in str(err.value)
    assert err.value.spelled(option_of).endswith("pass --unsafe-no-sandbox only for trusted bots")
    loop = BotSource("loop", (ATTACKS / "infinite_loop.py").read_text())
    with BotPool(Limits(decision_seconds=0.3), unsafe_no_sandbox=True) as pool:
        assert pool.isolation.unsafe and not pool.isolation.bwrap and not pool.isolation.seccomp
        out = pool.play_match([loop, source("random_bot"), source("random_bot")], 4)
    assert [(f.seat, f.kind) for f in out.faults] == [(0, "timeout")]


@pytest.mark.parametrize(
    "disabled", ["bwrap", "landlock", "bwrap,uid"], ids=["no-bwrap", "no-landlock", "no-bwrap-uid"]
)
def test_degraded_layer_sets_still_contain_attacks(
    disabled: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fallbacks of section 1 of the research: each set still blocks reads, kills and forks."""
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", disabled)
    subs = {"@@DB@@": str(REPO / "pyproject.toml"), "@@MARK_DIR@@": "/tmp"}
    with BotPool(Limits(decision_seconds=1.0)) as pool:
        for name in disabled.split(","):
            assert name not in pool.isolation.active
        for attack in ("read_files", "kill_victim", "fork_bomb", "write_files"):
            text = (ATTACKS / f"{attack}.py").read_text()
            for key, value in subs.items():
                text = text.replace(key, value)
            victim = source("random_bot")
            out = pool.play_match([BotSource(attack, text), victim, victim], 8)
            assert "RAN" in out.logs[0] and "ESCAPED" not in out.logs[0], (attack, out.logs[0])
            assert out.faults == []
    assert not Path("/tmp/pwned").exists()


def test_non_root_arena_degrades_gracefully() -> None:
    """A real unprivileged arena (setpriv to uid 62000): no per-bot uid, the rest still on."""
    if os.geteuid() != 0:
        assert not next(la for la in probe() if la.name == "uid").active
        return
    # A copy that uid 62000 can read wherever the checkout lives (it may be under /root);
    # not under pytest's temporary directory, which is private to root.
    tmp_path = Path(tempfile.mkdtemp(prefix="arena-nonroot-"))
    try:
        _run_non_root(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _run_non_root(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    shutil.copytree(REPO / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(bundled("random_bot"), tmp_path / "random_bot.py")
    shutil.copy(ATTACKS / "read_files.py", tmp_path / "read_files.py")
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    script = f"""
import json, os, sys
sys.path.insert(0, {str(tmp_path)!r})
from arena.sandbox import BotPool, BotSource, Limits
bot = BotSource.from_path({str(tmp_path / "random_bot.py")!r})
spy = BotSource("spy", open({str(tmp_path / "read_files.py")!r}).read().replace("@@DB@@", "/x"))
with BotPool(Limits(decision_seconds=1.0)) as pool:
    out = pool.play_match([spy, bot, bot], 3)
    print(json.dumps({{"uid": os.getuid(), "active": pool.isolation.active, "log": out.logs[0],
                      "faults": [f.to_dict() for f in out.faults]}}))
"""
    cmd = ["setpriv", "--reuid=62000", "--regid=62000", "--clear-groups"]
    done = subprocess.run(
        [*cmd, "/usr/bin/python3", "-s", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/tmp",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["uid"] == 62000
    assert "uid" not in report["active"] and "seccomp" in report["active"]
    assert "RAN" in report["log"] and "ESCAPED" not in report["log"]
    assert report["faults"] == []


# --- honest bots ----------------------------------------------------------------------------

VARIANTS = [
    Rules(),
    Rules(deck=32),
    Rules(deck=25),
    Rules(dealer_pickup="mandatory"),
    Rules(round2_allow_turned_down=True, stick_the_dealer=True),
    Rules(both_alone_lead="maker", lone_maker_march=4),
    Rules(lone_defender_scoring="lone_only", tie_policy="shared_win", target=5),
]


def test_honest_bots_same_sandboxed_and_in_process() -> None:
    """Every variant, every phase: the sandbox plays exactly the in-process match."""
    names = ["random_bot", "heuristic", "random_bot"]
    srcs = [source(n) for n in names]
    phases: set[str] = set()
    with BotPool(FAST) as pool:
        for i, rules in enumerate(VARIANTS):
            seeds = [i, 100 + i]
            if rules.deck == 25:  # a match whose first up-card is the Joker: joker_trump
                seeds.append(next(s for s in range(1000) if deal_for(s, 0, rules).upcard == "JK"))
            for seed in seeds:
                out = pool.play_match(srcs, seed, rules)
                ref = in_process(names, seed, rules)
                assert out.faults == []
                assert out.result.scores == ref.scores and out.result.winners == ref.winners
                assert [h.to_dict() for h in out.result.hands] == [h.to_dict() for h in ref.hands]
                assert out.placements == ref.placements
                phases |= {p for h in out.result.hands for _, p, _ in h.log}
                # Forced decisions are played by the arena, so fewer reach the bots.
                assert all(s["asked"] <= s["decisions"] for s in out.stats)
                assert sum(s["asked"] for s in out.stats) < sum(s["decisions"] for s in out.stats)
    assert phases == set(PHASES)


def test_same_results_from_another_pool() -> None:
    """Which worker plays a match does not matter: fresh processes, per-match seeding."""
    srcs = [source("random_bot"), source("heuristic"), source("random_bot")]
    with BotPool(FAST) as a:
        a.play_match(srcs, 99)  # a pool with history...
        first = a.play_match(srcs, 5)
    with BotPool(FAST) as b:
        second = b.play_match(srcs, 5)  # ...and a fresh one
    assert first.result.scores == second.result.scores
    assert [h.log for h in first.result.hands] == [h.log for h in second.result.hands]


def test_forced_decisions_never_reach_the_bot() -> None:
    picky = BotSource(
        "picky",
        "class Bot:\n"
        "    def act(self, obs):\n"
        "        assert len(obs['legal']) > 1, 'asked a forced decision'\n"
        "        return obs['legal'][-1]\n",
    )
    with BotPool(FAST) as pool:
        out = pool.play_match([picky, picky, source("random_bot")], 21)
    assert out.faults == []
    assert out.stats[0]["asked"] < out.stats[0]["decisions"]


def test_stats_and_logs_per_seat() -> None:
    chatty = BotSource(
        "chatty",
        "import sys\n"
        "class Bot:\n"
        "    def act(self, obs):\n"
        "        print('thinking about', obs['phase'])\n"
        "        print('err', file=sys.stderr)\n"
        "        return obs['legal'][-1]\n",
    )
    limits = Limits(decision_seconds=2.0, log_bytes=300)
    with BotPool(limits) as pool:
        out = pool.play_match([chatty, source("random_bot"), source("random_bot")], 2)
    assert out.logs[0].startswith("thinking about ") and "\nerr\n" in out.logs[0]
    assert len(out.logs[0].encode()) == 300  # capped, the rest dropped
    assert out.logs[1] == out.logs[2] == ""
    for s in out.stats:
        assert set(s) == {
            "decisions", "asked", "think_seconds", "max_think_seconds", "cpu_seconds",
            "max_cpu_seconds", "clock_seconds",
        }  # fmt: skip
        assert 0 < s["asked"] <= s["decisions"] and s["max_think_seconds"] <= s["think_seconds"]
        assert s["cpu_seconds"] > 0 and 0 < s["max_cpu_seconds"] <= s["cpu_seconds"]
        # The clock charges every turn, loading and forced decisions too: more than asked ones.
        assert s["clock_seconds"] > s["think_seconds"]


# --- loading --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("class Bot:\n    def act(self, obs)\n        return 1\n", "SyntaxError"),
        ("x = 1\n", "no class Bot"),
        ("class Bot:\n    pass\n", "act"),
        ("import numpy\n", "ModuleNotFoundError"),
        ("from arena import engine\n", "ImportError"),
        ("class Bot:\n    def __init__(self):\n        1 / 0\n", "ZeroDivisionError"),
    ],
    ids=["syntax", "no-class", "no-act", "third-party", "arena-internals", "ctor"],
)
def test_validate_reports_load_faults(text: str, fragment: str) -> None:
    fault = validate_bot(BotSource("broken", text), FAST)
    assert fault is not None and fault.kind == "load" and fault.decision is None
    assert fragment in fault.message


def test_loading_runs_the_match_clock_too() -> None:
    """A constructor that sleeps under the loading backstop (5 x load_seconds of wall) is cut
    at the clock's bank: a load fault with the clock's figures; the others play on."""
    sleepy = BotSource(
        "sleepy",
        "import time\nclass Bot:\n    def __init__(self):\n        print('RAN', flush=True)\n"
        "        time.sleep(12)\n        print('WOKE', flush=True)\n"
        "    def act(self, obs):\n        return obs['legal'][0]\n",
    )
    limits = Limits(decision_seconds=2.0, load_seconds=3.0, clock_bank_seconds=1.0)
    with BotPool(limits) as pool:
        out = pool.play_match([sleepy, source("random_bot"), source("random_bot")], 4)
    fault = out.fault_of(0)
    assert fault is not None and fault.kind == "load" and fault.decision is None
    assert fault.message.startswith("ran out of its match clock loading: ")
    # Asked where it was before it was killed: in its constructor's sleep (line 5).
    assert fault.message.endswith(
        "over loading; the clock gave 1 s + 0 x 0.5 s = 1.00 s; the bot was at bot.py:5 in __init__"
    )
    assert "RAN" in out.logs[0] and "WOKE" not in out.logs[0]
    assert [f.seat for f in out.faults] == [0] and out.stats[0]["clock_seconds"] >= 1.0


def test_validate_accepts_good_bots_and_source_text() -> None:
    assert validate_bot(source("heuristic"), FAST) is None
    assert validate_bot(bundled("random_bot").read_text(), FAST) is None
    fault = validate_bot("class Bot:\n    def act(self, obs):\n        return 'nope'\n", FAST)
    assert fault is not None and fault.kind == "illegal" and fault.decision == 0


def test_an_oversized_file_is_refused_before_it_is_staged() -> None:
    huge = BotSource("huge", "# padding\n" * 800_000 + (ATTACKS / "cpu_burn.py").read_text())
    limits = Limits(decision_seconds=2.0, source_bytes=1 << 20)
    with BotPool(limits) as pool:
        out = pool.play_match([huge, source("random_bot"), source("random_bot")], 1)
        staged = [p.read_text()[:9] for p in (pool._stage.root / "bots").glob("*/*.py")]
        on_disk = 0 if pool.isolation.bwrap else 2  # under bubblewrap bots go by memfd
    fault = out.fault_of(0)
    assert fault is not None and fault.kind == "load" and fault.decision is None
    size = len(huge.source.encode())
    assert size > 8_000_000
    assert fault.message == f"the bot file has {size} bytes, over the limit of 1048576 bytes"
    assert "# padding" not in staged and len(staged) == on_disk  # the two random bots only
    assert out.stats[0]["asked"] == 0 and out.fault_of(1) is None
    small = Limits(decision_seconds=2.0, source_bytes=100)
    assert validate_bot(source("random_bot"), small) is not None


def test_the_file_is_compiled_inside_the_memory_limit() -> None:
    """A 900 kB file whose compilation needs over 300 MB: a load fault under a 128 MiB limit,
    the arena and the other seats untouched."""
    text = "x = [" + "(1, 2)," * 140_000 + "]\n" + bundled("random_bot").read_text()
    greedy = BotSource("greedy", text)
    with BotPool(Limits(decision_seconds=2.0, memory_mb=128)) as pool:
        out = pool.play_match([greedy, source("random_bot"), source("random_bot")], 1)
    assert [(f.seat, f.kind) for f in out.faults] == [(0, "load")]
    assert out.faults[0].message == "out of memory compiling the bot file (memory_mb limit)"


def test_broken_file_faults_every_match_and_others_play_on() -> None:
    broken = BotSource("broken", "def (:\n")
    with BotPool(FAST) as pool:
        outs = [
            pool.play_match([source("random_bot"), broken, source("random_bot")], s) for s in (1, 2)
        ]
    for out in outs:
        assert [(f.seat, f.kind) for f in out.faults] == [(1, "load")]
        assert "SyntaxError" in out.faults[0].message and "line 1" in out.faults[0].message
        assert out.placements[1] == 3 and out.stats[1]["asked"] == 0
        assert max(out.result.scores) >= 10


# --- processes ------------------------------------------------------------------------------


def test_close_leaves_no_process_and_pool_is_done() -> None:
    pool = BotPool(FAST)
    pool.play_match([source("random_bot")] * 3, 1)
    pids, uids = pool.host_pids(), pool.uids()
    assert pids and len(set(uids)) == len(uids) == (3 if os.geteuid() == 0 else 0)
    pool.close()
    pool.close()  # idempotent
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists()
    for uid in uids:
        assert processes_of_uid(uid) == []
    with pytest.raises(RuntimeError):
        pool.play_match([source("random_bot")] * 3, 1)


@pytest.mark.parametrize("which", ["all", "python"], ids=["whole-tree", "zygote-only"])
def test_a_killed_host_is_replaced_without_a_fault(which: str) -> None:
    """A host killed from outside is not the bot's fault: the next match gets a new one."""
    with BotPool(FAST) as pool:
        srcs = [source("random_bot"), source("heuristic"), source("heuristic")]
        pool.play_match(srcs, 1)
        for pid in pool.host_pids():
            try:  # killing the outer bwrap takes the rest down: some may be gone already
                with open(f"/proc/{pid}/comm") as f:
                    name = f.read().strip()
                if which == "all" or name.startswith("python"):
                    os.kill(pid, signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError):
                pass
        out = pool.play_match(srcs, 2)
        assert out.faults == []
        assert (
            out.result.scores
            == in_process(["random_bot", "heuristic", "heuristic"], 2, Rules()).scores
        )


def test_arena_death_takes_every_bot_process_with_it() -> None:
    """SIGKILL the arena process: --die-with-parent / PDEATHSIG end all its bot processes."""
    script = f"""
import json, sys, time
sys.path.insert(0, {str(REPO)!r})
from arena.sandbox import BotPool, BotSource, Limits
bot = BotSource.from_path({str(bundled("random_bot"))!r})
pool = BotPool(Limits())
pool.play_match([bot, bot, bot], 1)
print(json.dumps({{"pids": pool.host_pids(), "uids": pool.uids()}}), flush=True)
time.sleep(60)
"""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    state = json.loads(proc.stdout.readline())
    assert state["pids"]
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    alive = state["pids"]
    while alive and time.monotonic() < deadline:
        for pid in alive:
            try:  # orphans come to this process when it is a subreaper: reap them
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        alive = [p for p in state["pids"] if Path(f"/proc/{p}").exists()]
        time.sleep(0.02)
    assert alive == []
    for uid in state["uids"]:
        assert processes_of_uid(uid) == []


# --- arena doctor ---------------------------------------------------------------------------


def test_doctor_shows_layers_and_a_live_match() -> None:
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    for name in LAYERS:
        assert f"] {name}" in result.output
    assert "Live check: OK" in result.output and "WARNING" not in result.output
    report = json.loads(CliRunner().invoke(main, ["doctor", "--json", "--no-live"]).output)
    assert report["live"] is None and [la["name"] for la in report["layers"]] == list(LAYERS)


def test_doctor_fails_when_nothing_isolates(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", "bwrap,uid,landlock,seccomp")
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 1
    assert "[off] bwrap" in result.output and "Live check: FAILED: cannot sandbox" in result.output


def test_cpu_pins_the_worker_and_its_bots() -> None:
    saved = os.sched_getaffinity(0)
    try:
        with BotPool(FAST, cpu=1) as pool:
            out = pool.play_match([source("random_bot")] * 3, 3)
            mine = os.sched_getaffinity(0)
            hosts = {frozenset(os.sched_getaffinity(pid)) for pid in pool.host_pids()}
        assert out.faults == [] and len(mine) == 1
        assert hosts == {frozenset(mine)}
    finally:
        os.sched_setaffinity(0, saved)


def _subreaper_in_forked_worker(queue: Any) -> None:
    import ctypes

    with BotPool(FAST) as pool:
        pool.play_match([source("random_bot")] * 3, 1)
    flag = ctypes.c_int(0)
    ctypes.CDLL(None).prctl(37, ctypes.byref(flag), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
    queue.put(flag.value)


def test_a_forked_worker_becomes_a_subreaper_too() -> None:
    """The flag is not inherited by fork: a worker forked after a pool existed sets its own."""
    import multiprocessing

    with BotPool(FAST):
        pass  # this process is a subreaper now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_subreaper_in_forked_worker, args=(queue,))
    proc.start()
    assert queue.get(timeout=60) == 1
    proc.join(timeout=30)
    assert proc.exitcode == 0


def test_staging_left_by_a_killed_arena_is_removed() -> None:
    """A stage whose lock no live process holds is removed; names carry no pid or bot hash."""
    stale = Path(tempfile.mkdtemp(prefix="arena-sandbox-"))
    (stale / "bots").mkdir()
    (stale / ".lock").touch()
    script = (
        "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
        "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)"
    )
    mine = Path(tempfile.mkdtemp(prefix="arena-sandbox-"))
    # Locked before it is named `.lock`, as the arena's own stages are: a pool starting on
    # another test worker meanwhile must not find it free and remove it.
    (mine / ".lock-new").touch()
    owner = subprocess.Popen(
        [sys.executable, "-c", script, str(mine / ".lock-new")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert owner.stdout is not None and owner.stdout.readline() == "locked\n"
        (mine / ".lock-new").rename(mine / ".lock")
        with BotPool(FAST) as pool:
            assert not stale.exists() and mine.exists()  # a live owner keeps its own
            pool.play_match([source("random_bot")] * 3, 1)
            names = [pool._stage.root.name] + [
                p.name for p in (pool._stage.root / "bots").iterdir()
            ]
            hashes = [source("random_bot").sha256[:8], str(os.getpid())]
            assert not any(h in n for h in hashes for n in names), names
        assert not pool._stage.root.exists()
    finally:
        owner.kill()
        owner.wait()
        shutil.rmtree(mine, ignore_errors=True)
        shutil.rmtree(stale, ignore_errors=True)


def test_a_stage_being_made_is_never_taken_for_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another arena that clears stale stages while this one is making its own (a worker
    restarted beside a running one) finds no lock file to take: here it runs in a separate
    process at the worst moment, right before the new stage's lock is taken."""
    from arena.sandbox import client

    clear = (
        "import sys; sys.path[:0] = sys.argv[1:]; from arena.sandbox import client; "
        "client._remove_stale_stages()"
    )
    real_flock = client.fcntl.flock
    cleared: list[int] = []

    def flock_after_a_clear(fd: int, op: int) -> None:
        subprocess.run([sys.executable, "-c", clear, *sys.path], check=True)
        cleared.append(fd)
        real_flock(fd, op)

    monkeypatch.setattr(client.fcntl, "flock", flock_after_a_clear)
    stage = client.Stage()
    try:
        assert cleared and (stage.root / ".lock").exists() and (stage.root / "lib").is_dir()
    finally:
        stage.remove()


def test_escaped_daemons_die_with_their_match_when_nothing_stops_forks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Landlock only (no seccomp, no pid namespace, no NPROC): a bot can fork and setsid, but
    what it leaves behind is killed when its match ends."""
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", "bwrap,uid,seccomp")
    daemon = BotSource("daemon", (ATTACKS / "setsid_escape.py").read_text())
    victim = source("random_bot")
    with BotPool(FAST) as pool:
        assert pool.isolation.active == [
            "python",
            "pidns",  # as root, the zygote may make pid namespaces without bubblewrap
            "nnp",
            "landlock",
            "rlimits",
            "subreaper",
            "files",
            "cgroup",
            "turns",
        ]
        out = pool.play_match([daemon, victim, victim], 1)
        assert "ESCAPED daemon" in out.logs[0]  # this degraded set cannot stop it...
        left = []
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if str(pool._stage.lib).encode() in f.read():
                        left.append(int(pid))
            except (OSError, ValueError):
                continue
        hosts = sorted(z.proc.pid for z in pool._zygotes.values())
        assert sorted(left) == hosts  # ...but nothing outlives the match but the zygotes
    assert out.faults == []
