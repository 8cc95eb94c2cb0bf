"""A cold bot host's start, made cheaper without a weaker layer (arena/sandbox/client.py,
host.py, confine.py, world.py): the seccomp programs a host loads are the allowlist's own,
exported once per machine; a host imports the trusted modules its bot names and nothing a bot
could not import itself; its JSON is the ``json`` package's; its teardown leaves no process,
zombie or uid behind. Real sandboxes, as root where the machine allows the layers."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.client import Stage, preload_names
from arena.sandbox.layers import processes_of_uid
from arena.sandbox.world import HOST_PYTHON

pytestmark = pytest.mark.slow  # real sandboxed bot hosts

FAST = Limits(decision_seconds=2.0, match_cpu_seconds=10.0, load_seconds=3.0)
PROBE = """import sys
NAMES = ("ar" + "ena.worlds", "ty" + "ping", "js" + "on", "r" + "e", "data" + "classes")
SEEN = sorted(m for m in NAMES if m in sys.modules)
print("preloaded", SEEN)
{tail}
class Bot:
    def act(self, obs):
        return obs["legal"][-1]
"""


def _bot(name: str, tail: str = "") -> BotSource:
    return BotSource(name, PROBE.format(tail=tail), f"{name}.py")


def _log_line(log: str, prefix: str) -> str:
    return next(line for line in log.splitlines() if line.startswith(prefix))


def test_hosts_load_the_allowlists_own_programs_exported_once(tmp_path: Path) -> None:
    stage = Stage()
    try:
        staged = {p.name: p.read_bytes() for p in (stage.lib / "seccomp").glob("*.bpf")}
        assert set(staged) == {"match.bpf", "zygote.bpf"}
        # The same programs, exported again from the staged confine.py by the host's binding.
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]); import confine\n"
            "open(sys.argv[2] + '/m', 'wb').write(confine.export_bpf(confine.ALLOW))\n"
            "open(sys.argv[2] + '/z', 'wb').write(confine.export_bpf(confine.ALLOW,"
            " confine.ZYGOTE_ALLOW))\n"
        )
        subprocess.run(
            [HOST_PYTHON, "-s", "-S", "-c", code, str(stage.lib), str(tmp_path)], check=True
        )
        assert staged["match.bpf"] == (tmp_path / "m").read_bytes()
        assert staged["zygote.bpf"] == (tmp_path / "z").read_bytes()
        assert staged["match.bpf"] != staged["zygote.bpf"]
    finally:
        stage.remove()
    # A host loads them: the bot's socket is refused, its zygote says which filter it has.
    tail = (
        "import socket\ntry:\n    socket.socket()\n    print('socket ok')\n"
        "except OSError as e:\n    print('socket refused', e.errno)\n"
    )
    with BotPool(FAST) as pool:
        out = pool.play_match([_bot("a", tail), _bot("b"), _bot("c")], 1)
        assert not out.faults, [str(f) for f in out.faults]
        assert "socket refused 1" in out.logs[0]
        infos = [z.info for z in pool._zygotes.values()]
    if pool.isolation.seccomp:
        assert all(info["seccomp"] == "bpf" for info in infos)


def test_a_host_imports_the_trusted_modules_its_bot_names_and_no_others() -> None:
    plain = _bot("plain", "import arena.cards\nprint('late', arena.cards.__name__)")
    named = _bot("named", "import json, re\nfrom arena.worlds import unseen")
    hidden = _bot("hidden", "m = __import__('ar' + 'ena.rules')\nprint('late', m.__name__)")
    assert preload_names(named) == ["arena", "json", "re"]
    assert preload_names(hidden) == []
    with BotPool(FAST, spare_hosts=0) as pool:
        out = pool.play_match([named, hidden, _bot("x")], 1)
        assert not out.faults, [str(f) for f in out.faults]
        assert _log_line(out.logs[0], "preloaded") == (
            "preloaded ['arena.worlds', 'dataclasses', 'json', 're', 'typing']"
        )
        # Named nowhere in its files: no such module until the bot imports one itself.
        assert _log_line(out.logs[1], "preloaded") == "preloaded []"
        assert "late arena" in out.logs[1]
        out = pool.play_match([plain, _bot("y"), _bot("z")], 2)
        assert not out.faults, [str(f) for f in out.faults]
        assert "late arena.cards" in out.logs[0]


def test_the_hosts_json_is_the_json_packages() -> None:
    code = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import hostwire as host
compact = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
cycle = []
cycle.append(cycle)
values = [{"id": 1, "action": "9S"}, {"a": [1, 2.5, None, True, "\u00e9\u2028"], "b": -1e300},
          "s", 7, [], {"k": {"n": [[]]}}]
for v in values:
    assert host.json_dumps(v) == json.dumps(v), v
    assert host.json_dumps(v, True) == compact(v), v
    assert host.json_loads(json.dumps(v) + "\n") == v
    assert host.json_loads(json.dumps(v).encode()) == v
for bad in (float("nan"), float("inf"), {"x": object()}, {(1, 2): 3}, cycle, {1j: 1}):
    errors = []
    for encode in (lambda v: host.json_dumps(v, True), compact):
        try:
            encode(bad)
            errors.append(None)
        except (TypeError, ValueError) as e:
            errors.append((type(e), str(e)))
    assert errors[0] == errors[1] and errors[0] is not None, errors
for text in ("{", '{"a": 1} x', "", "[1,]"):
    try:
        host.json_loads(text)
        raise AssertionError(text)
    except ValueError:
        pass
print("same")
"""
    stage = Stage()
    try:
        out = subprocess.run(
            [HOST_PYTHON, "-s", "-S", "-c", code, str(stage.lib)],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        stage.remove()
    assert out.stdout.strip() == "same", out.stderr


def test_a_closed_host_leaves_no_process_zombie_or_uid() -> None:
    with BotPool(FAST, max_zygotes=3, spare_hosts=3) as pool:
        for k in range(3):
            bots = [_bot(f"v{k}{i}") for i in range(3)]
            out = pool.play_match(bots, k)
            assert not out.faults, [str(f) for f in out.faults]
        trees = [z.pids() for z in pool._zygotes.values()] + [s.pids() for s in pool._spares]
        uids = [z.lease.uid for z in pool._zygotes.values() if z.lease is not None]
        assert all(trees)
    pids = {pid for tree in trees for pid in tree}
    assert not [pid for uid in uids for pid in processes_of_uid(uid)]
    children = set()
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
            children |= {int(x) for x in f.read().split()}
    assert not pids & children  # every one reaped: no zombie of a host is left to us
    assert not [p for p in pids if os.path.exists(f"/proc/{p}") and _uid_of(p) in uids]


def _uid_of(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None
