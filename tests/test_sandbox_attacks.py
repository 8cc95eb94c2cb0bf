"""Hostile bots (tests/attacks/) in real sandboxed matches next to honest victims.

Each attack plays seat 0 of a real match against two copies of ``bots/random_bot.py`` under the
real sandbox. Every test asserts that the attack failed (no ``ESCAPED`` line in the attacker's
log, no connection or datagram reached the arena's listeners, no file appeared or changed),
that the fault, if any, is the attacker's with the expected kind, that the victims and the arena
were unaffected (the whole match equals the same match played in-process with a first-legal
bot in seat 0, which is what every attacker or its fallback plays), and that no process of the
pool is left afterwards.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import sqlite3
import tempfile
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.engine import play_match
from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.botfile import bundled, load_bot_class
from arena.sandbox.client import _descendants
from arena.sandbox.layers import UID_BASE, UID_COUNT, processes_of_uid
from arena.sandbox.values import bot_random_seed
from arena.untrusted import MAX_MESSAGE

ATTACKS = Path(__file__).parent / "attacks"
# Short limits keep the suite quick; still generous for the victims on a loaded 2-vCPU machine.
LIMITS = Limits(decision_seconds=1.0, match_cpu_seconds=2.0, load_seconds=2.0, memory_mb=512)
SEED = 11

# (attack file, fault kinds allowed for the attacker (None: it must play on without a fault),
#  whether its code must have run far enough to print "RAN")
CASES: list[tuple[str, set[str] | None, bool]] = [
    ("read_files", None, True),
    ("write_files", None, True),
    ("tcp_connect", None, True),
    ("udp_send", None, True),
    ("unix_socket", None, True),
    ("ctypes_syscalls", None, True),
    ("int80_32bit", {"crash"}, True),
    ("fork_bomb", None, True),
    ("setsid_escape", None, True),
    ("subprocess_exec", None, True),
    ("kill_arena", None, True),
    ("kill_victim", None, True),
    ("kill_everything", None, True),
    ("ptrace_attach", None, True),
    ("memory_bomb", {"memory"}, True),
    ("raise_limits", None, True),
    ("infinite_loop", {"timeout"}, True),
    ("sleeping", {"timeout"}, True),
    ("busy_thread", None, True),
    ("timer_signal", None, True),
    ("import_loop", {"load"}, False),
    ("import_bomb", {"load"}, False),
    ("print_flood", None, True),
    ("forge_protocol", {"protocol"}, True),
    ("return_object", {"illegal"}, True),
    ("return_nan", {"illegal"}, True),
    ("return_generator", {"illegal"}, True),
    ("return_huge", {"illegal"}, True),
    ("return_cycle", {"illegal"}, True),
    ("system_exit", {"crash"}, True),
    ("keyboard_interrupt", {"crash"}, True),
    ("os_exit", {"crash"}, True),
    ("deep_recursion", {"timeout", "memory", "crash"}, True),
    ("recursion_error", {"crash"}, True),
    ("ctor_raises", {"load"}, True),
    ("no_bot_class", {"load"}, False),
    ("close_pipes", {"protocol"}, True),
    ("partial_line", {"timeout"}, True),
    ("where_liar", {"timeout"}, True),
    ("shm_hoard", None, True),
    ("host_counters", None, True),
    ("set_affinity", None, True),
    ("forge_load_line", {"load"}, False),
    ("wrong_id", {"protocol"}, True),
    ("two_lines", {"protocol"}, True),
    ("huge_line", {"protocol"}, True),
    ("wrong_protocol", {"load"}, False),
    ("lying_name", None, True),
    ("coding_cookie", None, True),
    ("futex_channel", None, True),
    ("state_channels", None, True),
    ("zygote_calls", None, True),
    ("bot_dir", None, True),
]


@dataclass
class Targets:
    """What the attackers aim at: a results DB, listeners of every kind, a marker directory."""

    db: Path
    db_bytes: bytes
    mark_dir: Path
    tcp_port: int
    udp_port: int
    unix_path: str
    unix_abstract: str
    received: list[str] = field(default_factory=list)

    def substitutions(self) -> dict[str, str]:
        return {
            "@@DB@@": str(self.db),
            "@@ARENA_PID@@": str(os.getpid()),
            "@@TCP_PORT@@": str(self.tcp_port),
            "@@UDP_PORT@@": str(self.udp_port),
            "@@UNIX_PATH@@": self.unix_path,
            "@@UNIX_ABSTRACT@@": self.unix_abstract,
            "@@MARK_DIR@@": str(self.mark_dir),
            "@@SECONDS@@": "0.2",
        }


def _serve(sock: socket.socket, received: list[str], kind: str) -> None:
    sock.settimeout(0.2)
    while True:
        try:
            if kind == "udp":
                data, _ = sock.recvfrom(100)
                received.append(f"udp {data!r}")
            else:
                conn, _ = sock.accept()
                received.append(f"{kind} connection")
                conn.close()
        except TimeoutError:
            continue
        except OSError:
            return


@pytest.fixture(scope="module")
def targets() -> Iterator[Targets]:
    # Not under pytest's private temp dir: the targets must be within a bot uid's reach but
    # for the sandbox, as an arena leaves its files (readable by others unless it says no).
    base = Path(tempfile.mkdtemp(prefix="arena-targets-"))
    base.chmod(0o755)
    db = base / "arena.db"
    with sqlite3.connect(db) as con:
        con.execute("create table secret (x text)")
        con.execute("insert into secret values ('the results')")
    db.chmod(0o666)  # even a world-writable DB must stay out of reach
    mark = base / "marks"
    mark.mkdir(mode=0o777)
    mark.chmod(0o777)
    received: list[str] = []
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix_path = str(base / "arena.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(unix_path)
    os.chmod(unix_path, 0o777)
    unix.listen()
    abstract_name = f"arena-test-{os.getpid()}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + abstract_name)
    abstract.listen()
    socks = [(tcp, "tcp"), (udp, "udp"), (unix, "unix"), (abstract, "abstract")]
    threads = [
        threading.Thread(target=_serve, args=(s, received, k), daemon=True) for s, k in socks
    ]
    for t in threads:
        t.start()
    yield Targets(
        db,
        db.read_bytes(),
        mark,
        tcp.getsockname()[1],
        udp.getsockname()[1],
        unix_path,
        abstract_name,
        received,
    )
    for s, _ in socks:
        s.close()
    shutil.rmtree(base, ignore_errors=True)


def _attacker(name: str, targets: Targets) -> BotSource:
    source = (ATTACKS / f"{name}.py").read_text()
    for key, value in targets.substitutions().items():
        source = source.replace(key, value)
    return BotSource(name, source, f"{name}.py")


class _FirstLegal:
    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


class _Forced:
    """In-process twin of the sandbox's seat: forced decisions are played without the bot."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0] if len(obs["legal"]) == 1 else self.bot.act(obs)


def reference_match(seed: int) -> Any:
    """The match every attack must leave intact: first-legal in seat 0, random bots in 1, 2."""
    cls = load_bot_class(bundled("random_bot"))
    bots: list[Any] = [_FirstLegal()]
    for seat in (1, 2):
        random.seed(bot_random_seed(seed, seat))  # what the host does before Bot()
        bots.append(_Forced(cls()))
    return play_match(bots, seed)


def sandbox_descendants() -> set[int]:
    """Descendants of this process that are bot hosts (bwrap, host.py, bot uids), zombies too.

    Other tests may keep unrelated workers around, so only these count.
    """
    found = set()
    for pid in _descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        if comm == "bwrap" or b"host.py" in cmd or UID_BASE <= uid < UID_BASE + UID_COUNT:
            found.add(pid)
    return found


def assert_nothing_left(uids: list[int], pids: list[int], before: set[int]) -> None:
    """No process of the pool's uids, no new bot host under this process, no host pid alive."""
    for uid in uids:
        assert processes_of_uid(uid) == [], f"processes of bot uid {uid} survived"
    assert sandbox_descendants() - before == set()
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or _zombie_or_gone(pid)


def _zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


@pytest.mark.parametrize(("name", "kinds", "runs"), CASES, ids=[c[0] for c in CASES])
def test_attack_fails(
    name: str, kinds: set[str] | None, runs: bool, targets: Targets, tmp_path: Path
) -> None:
    victim = BotSource.from_path(str(bundled("random_bot")))
    before = sandbox_descendants()
    pool = BotPool(LIMITS)
    try:
        if name == "kill_everything":
            # kill(-1, SIGKILL) as root takes the machine down unless contained: run it only
            # behind the layers verified to stop it (seccomp denies kill, Landlock scopes it).
            assert pool.isolation.seccomp and pool.isolation.landlock >= 6 and pool.isolation.bwrap
        outcome = pool.play_match([_attacker(name, targets), victim, victim], SEED)
        uids, pids = pool.uids(), pool.host_pids()
    finally:
        pool.close()
    log = outcome.logs[0]
    assert "ESCAPED" not in log, log
    if runs:
        assert "RAN" in log
    fault = outcome.fault_of(0)
    if kinds is None:
        assert fault is None, fault
    else:
        assert fault is not None and fault.kind in kinds, fault
    # Only the attacker may fault; the victims played every decision they were asked.
    assert [f.seat for f in outcome.faults] == ([0] if fault else [])
    assert outcome.stats[1]["asked"] > 0 and outcome.stats[2]["asked"] > 0
    ref = reference_match(SEED)
    assert outcome.result.scores == ref.scores
    assert [h.log for h in outcome.result.hands] == [h.log for h in ref.hands]
    if fault is not None:
        assert outcome.placements[0] == 3
    # Nothing reached the arena's machine.
    assert targets.received == []
    assert targets.db.read_bytes() == targets.db_bytes
    assert list(targets.mark_dir.iterdir()) == []
    assert not any(Path(p).exists() for p in ("/tmp/arena-pwned", "/tmp/arena-pwned-raw"))
    assert not Path("/tmp/arena-pwned-dir").exists() and not Path("/dev/shm/arena-pwned").exists()
    assert len(log.encode()) <= LIMITS.log_bytes
    assert_nothing_left(uids, pids, before)


def test_cpu_budget_over_many_decisions(targets: Targets) -> None:
    """Each decision within its wall clock, the match's CPU budget exceeded: a cpu fault."""
    victim = BotSource.from_path(str(bundled("random_bot")))
    # A clock far above the CPU budget: the CPU runs out first, whatever the machine's load.
    limits = Limits(
        decision_seconds=3.0, match_cpu_seconds=1.0, load_seconds=2.0, clock_bank_seconds=60.0
    )
    with BotPool(limits) as pool:
        outcome = pool.play_match([_attacker("cpu_burn", targets), victim, victim], SEED)
    fault = outcome.fault_of(0)
    assert fault is not None and fault.kind == "cpu" and fault.decision is not None
    assert fault.decision >= 2  # 0.25 s each: the budget runs out after several decisions
    assert outcome.stats[0]["cpu_seconds"] >= 1.0
    assert [f.seat for f in outcome.faults] == [0]
    assert outcome.result.scores == reference_match(SEED).scores


def test_no_state_survives_between_matches(targets: Targets) -> None:
    """state_leak.py sets globals in arena.cards, builtins, its class: the next match is clean."""
    leak = _attacker("state_leak", targets)
    victim = BotSource.from_path(str(bundled("random_bot")))
    with BotPool(LIMITS) as pool:
        logs = [pool.play_match([leak, victim, victim], seed).logs[0] for seed in (5, 6, 5)]
    for log in logs:
        assert "SEEN [None, None, None]" in log
    # random is reseeded from (match seed, seat): the same seed gives the same first draw.
    firsts = [log.split("FIRST")[1].split()[0] for log in logs]
    assert firsts[0] == firsts[2] != firsts[1]


def test_a_forged_load_line_is_stored_short_and_clean(targets: Targets) -> None:
    """A 1 MiB {"error": "load", ...} line full of terminal escapes: the fault keeps MAX_MESSAGE
    characters of it, none of them a control character."""
    victim = BotSource.from_path(str(bundled("random_bot")))
    with BotPool(LIMITS) as pool:
        out = pool.play_match([_attacker("forge_load_line", targets), victim, victim], SEED)
    fault = out.fault_of(0)
    assert fault is not None and fault.kind == "load"
    assert fault.message.startswith("]0;pwned") and fault.message.endswith("[... cut]")
    assert len(fault.message) <= MAX_MESSAGE
    assert not any(unicodedata.category(c) == "Cc" and c != "\n" for c in fault.message)


def test_a_traceback_shows_the_bots_own_lines_and_nothing_of_the_host() -> None:
    bot = BotSource(
        "tb",
        "class Bot:\n"
        "    def helper(self, obs):\n"
        "        return {}['dummy']\n"
        "\n"
        "    def act(self, obs):\n"
        "        return self.helper(obs)\n",
        "my_bot.py",
    )
    victim = BotSource.from_path(str(bundled("random_bot")))
    with BotPool(LIMITS) as pool:
        out = pool.play_match([bot, victim, victim], SEED)
    fault = out.fault_of(0)
    assert fault is not None and fault.kind == "crash"
    first, *rest = fault.message.splitlines()
    assert first == "KeyError: 'dummy' (my_bot.py, line 3)"
    assert rest[1:] == [
        '  File "my_bot.py", line 6, in act',
        "    return self.helper(obs)",
        '  File "my_bot.py", line 3, in helper',
        "    return {}['dummy']",
    ]
    for internal in ("host.py", "/arena", "/bot/", "/tmp", "run_child", "_answer"):
        assert internal not in fault.message
