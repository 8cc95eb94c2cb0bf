"""Spare bot hosts (arena/sandbox/pool.py, client.py, host.py): blank hosts a pool keeps ready
once it plays on; each is given one bot, once, and no bot ever sees another's files, uid or
cgroup. Real sandboxes, as root where the machine allows the layers."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.layers import processes_of_uid
from arena.sandbox.runtime import Artifact

pytestmark = pytest.mark.slow  # real sandboxed bot hosts

FAST = Limits(decision_seconds=2.0, match_cpu_seconds=10.0, load_seconds=3.0)
INSTANT = "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"


def _bot(k: int) -> BotSource:
    return BotSource(f"b{k}", INSTANT + f"# version {k}\n", f"bot{k}.py")


def _host_pid(z: object) -> int:
    """The pid of the Python bot host (the zygote) of a launcher or spare, once it runs in its
    sandbox (a spare may still be starting)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in z.pids():  # type: ignore[attr-defined]
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip().startswith("python") and os.path.isdir(
                        f"/proc/{pid}/root/bot"
                    ):
                        return pid
            except OSError:
                continue
        time.sleep(0.02)
    raise AssertionError("no host process")


def _warmed(pool: BotPool) -> None:
    """Two matches of new bots: from the second on the pool keeps spares."""
    pool.play_match([_bot(1), _bot(2), _bot(3)], 1)
    pool.play_match([_bot(4), _bot(5), _bot(6)], 2)


def test_new_bots_take_the_spares_each_its_own_host_uid_cgroup_and_files() -> None:
    with BotPool(FAST, spare_hosts=3) as pool:
        assert not pool._spares
        pool.play_match([_bot(1), _bot(2), _bot(3)], 1)
        assert not pool._spares  # a pool that played one match keeps none (validate_bot)
        pool.play_match([_bot(4), _bot(5), _bot(6)], 2)
        spares = list(pool._spares)
        assert len(spares) == 3 and all(s.source is None for s in spares)
        bots = [_bot(7), _bot(8), _bot(9)]
        out = pool.play_match(bots, 3)
        assert not out.faults, [str(f) for f in out.faults]
        taken = [z.zygote for z in list(pool._zygotes.values())[-3:]]
        assert set(map(id, taken)) == set(map(id, spares))  # the spares became these hosts
        assert [z.source.source for z in taken] == [b.source for b in bots]
        assert len(pool._spares) == 3 and not set(map(id, pool._spares)) & set(map(id, spares))
        if os.geteuid() == 0:
            uids = [z.lease.uid for z in taken if z.lease is not None]
            assert len(set(uids)) == len(uids) == (3 if pool.isolation.uid else 0)
            groups = [tuple(z.cgroup.dirs) for z in taken if z.cgroup is not None]
            assert len(set(groups)) == len(groups)
            # Spares wait at idle priority; a bot's host (so its match processes) runs normally.
            policy = {pid: os.sched_getscheduler(pid) for z in taken for pid in z.pids()}
            assert set(policy.values()) == {os.SCHED_OTHER}, policy
            waiting = {pid: os.sched_getscheduler(pid) for z in pool._spares for pid in z.pids()}
            assert set(waiting.values()) == {os.SCHED_IDLE}, waiting
        if pool.isolation.bwrap and os.geteuid() == 0:
            # Each host's /bot holds its bot's file only; a spare's is an empty directory.
            for z, bot in zip(taken, bots, strict=True):
                assert os.listdir(f"/proc/{_host_pid(z)}/root/bot") == [bot.filename]
            for spare in pool._spares:
                assert os.listdir(f"/proc/{_host_pid(spare)}/root/bot") == []


def test_a_bot_of_several_files_runs_from_a_spare() -> None:
    entry = (
        "import json, os\n"
        "import helpers\n"
        "from strategy import pick\n"
        "HERE = os.path.dirname(__file__)\n"
        "with open(os.path.join(HERE, 'data', 'weights.json')) as f:\n"
        "    W = json.load(f)\n"
        "class Bot:\n"
        "    def act(self, obs):\n"
        "        assert helpers.ANSWER == 42 and W == {'w': 1}\n"
        "        print('FILES', sorted(os.listdir(HERE)))\n"
        "        return pick(obs['legal'])\n"
    )
    files = (
        ("data/weights.json", b'{"w": 1}'),
        ("helpers.py", b"ANSWER = 42\n"),
        ("strategy/__init__.py", b"def pick(legal):\n    return legal[-1]\n"),
    )
    multi = Artifact("python", tuple(sorted([("main.py", entry.encode()), *files])), "main.py")
    with BotPool(FAST, spare_hosts=3) as pool:
        _warmed(pool)
        assert len(pool._spares) == 3
        out = pool.play_match([multi, _bot(7), _bot(8)], 3)
    assert not out.faults, [str(f) for f in out.faults]
    shown = [line for line in out.logs[0].splitlines() if line.startswith("FILES")]
    assert shown and shown[0].endswith("['data', 'helpers.py', 'main.py', 'strategy']")


def test_a_spare_killed_while_waiting_is_no_bots_fault() -> None:
    with BotPool(FAST, spare_hosts=3) as pool:
        _warmed(pool)
        victim = pool._spares[0]
        for pid in victim.pids():
            os.kill(pid, signal.SIGKILL)
        victim.proc.wait()
        out = pool.play_match([_bot(7), _bot(8), _bot(9)], 3)
        assert not out.faults, [str(f) for f in out.faults]
        assert victim not in pool._spares
    assert victim.proc.poll() is not None


def test_a_broken_bot_in_a_spare_is_its_own_load_fault() -> None:
    broken = BotSource("broken", "def (:\n")
    with BotPool(FAST, spare_hosts=3) as pool:
        _warmed(pool)
        out = pool.play_match([broken, _bot(7), _bot(8)], 3)
    assert [(f.seat, f.kind) for f in out.faults] == [(0, "load")]
    assert "SyntaxError" in out.faults[0].message


def test_spares_without_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", "bwrap")
    with BotPool(FAST, spare_hosts=2) as pool:
        assert not pool.isolation.bwrap
        _warmed(pool)
        assert len(pool._spares) == 2
        out = pool.play_match([_bot(7), _bot(8), _bot(9)], 3)
        assert not out.faults, [str(f) for f in out.faults]
        stage = Path(pool._stage.root)
        staged = sorted(p.name for p in (stage / "bots").glob("*/*.py"))
        assert {"bot7.py", "bot8.py", "bot9.py"} <= set(staged)
    assert not stage.exists()


def test_evicted_hosts_are_killed_for_the_match_and_closed_after_it() -> None:
    with BotPool(FAST, max_zygotes=3, spare_hosts=0) as pool:
        pool.play_match([_bot(1), _bot(2), _bot(3)], 1)
        first = [z.zygote for z in pool._zygotes.values()]
        uids = [z.lease.uid for z in first if z.lease is not None]
        out = pool.play_match([_bot(4), _bot(5), _bot(6)], 2)
        assert not out.faults, [str(f) for f in out.faults]
        assert not pool._closing and len(pool._zygotes) == 3
        assert all(z.proc.poll() is not None and not z.pids() for z in first)
        assert not [pid for uid in uids for pid in processes_of_uid(uid)]
        assert all(z.cgroup is None for z in first)  # removed


def test_started_spares_run_at_normal_priority_and_are_not_refilled() -> None:
    # What `arena submit` does: every host its matches need starts at once, none after.
    with BotPool(FAST, spare_hosts=0) as pool:
        pool.start_spares(4)
        spares = list(pool._spares)
        assert len(spares) == 4 and all(s.source is None for s in spares)
        if os.geteuid() == 0:  # as root a refill waits at idle priority; these do not
            policy = {pid: os.sched_getscheduler(pid) for s in spares for pid in s.pids()}
            assert set(policy.values()) == {os.SCHED_OTHER}, policy
        out = pool.play_match([_bot(1), _bot(2), _bot(3)], 1)
        assert not out.faults, [str(f) for f in out.faults]
        out = pool.play_match([_bot(1), _bot(4), _bot(2)], 2)
        assert not out.faults, [str(f) for f in out.faults]
        hosts = [z.zygote for z in pool._zygotes.values()]
        assert set(map(id, hosts)) == set(map(id, spares))  # each spare became a bot's host
        assert not pool._spares  # and none started after the matches (spare_hosts=0)
        pids = pool.host_pids()
    assert pids and not [p for p in pids if os.path.exists(f"/proc/{p}")]


def test_a_closed_pool_starts_no_spares() -> None:
    pool = BotPool(FAST, spare_hosts=0)
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.start_spares(1)


def test_the_submit_check_starts_each_host_it_needs_once_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.tournaments import entrants

    seen: list[tuple[int, int, int]] = []
    close = BotPool.close

    def counted(pool: BotPool) -> None:
        if pool._closer.alive:
            seen.append((len(pool._zygotes), len(pool._spares), pool.spare_hosts))
        close(pool)

    monkeypatch.setattr(BotPool, "close", counted)
    path = tmp_path / "mine.py"
    path.write_text(INSTANT)
    entrants.validate(entrants.read_bot_file(path), FAST, smoke=True, unsafe=False)
    # The bot, its two validation partners, the two bundled opponents: five hosts, all
    # started before the first match, none left over and none refilled.
    assert seen == [(3 + len(entrants.SMOKE_OPPONENTS), 0, 0)]
