"""Protocol v1 and the seam: the registry of runtimes, bots as artifacts, ``arena check``.

Real sandboxes throughout (bot processes speaking JSON lines); the hostile bots that abuse the
protocol in matches are in tests/attacks/ and played by tests/test_sandbox_attacks.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from protocol_support import RawRuntime

from arena.errors import ArenaError
from arena.rules import PHASES
from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.artifacts import load_artifact
from arena.sandbox.botfile import bundled
from arena.sandbox.check import check_bot, scripted_observations
from arena.sandbox.proxy import act_line, hello_line
from arena.sandbox.runtime import PROTOCOL_VERSION, Artifact, Launcher, Runtime
from arena.sandbox.runtimes import RUNTIMES, as_artifact, available, runtime_for

ATTACKS = Path(__file__).parent / "attacks"
LIMITS = Limits(decision_seconds=1.0, match_cpu_seconds=4.0, load_seconds=2.0, memory_mb=512)


def _bot(name: str) -> BotSource:
    return BotSource.from_path(str(ATTACKS / f"{name}.py"))


def test_the_arena_writes_json_lines_as_the_spec_says() -> None:
    hello = json.loads(hello_line(2, bytes(range(64)), LIMITS))
    assert hello == {
        "type": "hello",
        "protocol": 1,
        "seat": 2,
        "seed": bytes(range(64)).hex(),
        "limits": {
            "decision_seconds": 1.0,
            "match_cpu_seconds": 4.0,
            "clock_bank_seconds": 6.0,
            "clock_increment_seconds": 0.25,
            "memory_mb": 512,
        },
    }
    obs = scripted_observations()[0]
    line = act_line(7, obs)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"type": "act", "id": 7, "obs": obs}


def test_scripted_observations_cover_every_phase_and_a_forced_decision() -> None:
    obs = scripted_observations()
    assert [o["phase"] for o in obs[:-1]] == list(PHASES)
    assert all(len(o["legal"]) > 1 for o in obs[:-1])
    assert len(obs[-1]["legal"]) == 1


def test_the_registry_picks_a_runtime_by_extension_and_names_what_it_cannot_run() -> None:
    python = runtime_for("my_bot.py")
    assert python.language == "python" and RUNTIMES["python"] is python
    assert isinstance(python, Runtime) and python in available()
    with pytest.raises(ArenaError, match=r"bot\.xyz: no runtime for \.xyz files .*\.py"):
        runtime_for("bot.xyz")


def test_a_bot_directory_with_a_manifest_round_trips_as_an_artifact(tmp_path: Path) -> None:
    d = tmp_path / "mybot"
    (d / "lib").mkdir(parents=True)
    (d / "bot.toml").write_text('language = "python"\nentry = "main.py"\n')
    (d / "main.py").write_text("class Bot:\n    def act(self, obs):\n        return 1\n")
    (d / "lib" / "util.py").write_bytes(b"X = 1\n")
    (d / ".git").mkdir()
    (d / ".git" / "HEAD").write_text("ref")
    art = load_artifact(d)
    assert art.language == "python" and art.entry == "main.py"
    assert [p for p, _ in art.files] == ["bot.toml", "lib/util.py", "main.py"]
    assert load_artifact(d).sha256 == art.sha256
    (d / "bot.toml").write_text('language = "cobol"\nentry = "main.py"\n')
    with pytest.raises(ArenaError, match="no runtime for the language 'cobol'"):
        load_artifact(d)
    (d / "bot.toml").unlink()
    with pytest.raises(ArenaError, match="needs a manifest"):
        load_artifact(d)
    (d / "arena.json").write_text('{"language": "python", "entry": "missing.py"}')
    with pytest.raises(ArenaError, match="entry 'missing.py' is not a file"):
        load_artifact(d)


@pytest.mark.slow
def test_an_artifact_plays_the_same_match_as_its_source() -> None:
    srcs = [BotSource.from_path(str(bundled(n))) for n in ("random", "heuristic", "random")]
    with BotPool(LIMITS) as pool:
        as_source = pool.play_match(srcs, 5)
        as_artifacts = pool.play_match([as_artifact(s) for s in srcs], 5)
        launchers = list(pool._zygotes.values())
    assert as_source.faults == as_artifacts.faults == []
    assert as_source.result.scores == as_artifacts.result.scores
    assert all(isinstance(x, Launcher) for x in launchers)


@pytest.mark.slow
def test_a_language_without_a_runtime_is_a_load_fault_not_a_crash() -> None:
    other = Artifact("cobol", (("bot.cob", b"IDENTIFICATION DIVISION."),), "bot.cob")
    random_bot = BotSource.from_path(str(bundled("random")))
    with BotPool(LIMITS) as pool:
        out = pool.play_match([other, random_bot, random_bot], 3)
    fault = out.fault_of(0)
    assert fault is not None and fault.kind == "load" and "'cobol'" in fault.message
    assert [f.seat for f in out.faults] == [0]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_the_bundled_bots_pass_the_check(name: str) -> None:
    assert check_bot(BotSource.from_path(str(bundled(name))), LIMITS) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("attack", "expected"),
    [
        ("wrong_id", "the answer's id is 12345, not 0"),
        ("two_lines", "more than one line"),
        ("huge_line", "a line of over 1 MiB"),
        ("wrong_protocol", "ready: speaks protocol 2; the arena speaks 1"),
        ("lying_name", "the name is over 64 characters or has control characters"),
        ("ctor_raises", "ready: the bot could not load"),
        ("infinite_loop", "no answer line within"),
        ("print_flood", None),
    ],
)
def test_the_check_reports_each_protocol_problem_in_one_line(
    attack: str, expected: str | None
) -> None:
    problems = check_bot(_bot(attack), LIMITS)
    assert all("\n" not in p and "\x1b" not in p and len(p) <= 300 for p in problems)
    if expected is None:  # what it prints goes to its log, never to the protocol
        assert problems == []
    else:
        assert any(expected in p for p in problems), problems


@pytest.mark.slow
def test_arena_check_exits_0_when_clean_and_1_with_one_line_per_problem(tmp_path: Path) -> None:
    arena = [sys.executable, "-m", "arena.cli"]
    ok = subprocess.run([*arena, "check", str(bundled("random"))], capture_output=True, text=True)
    assert ok.returncode == 0 and "ok" in ok.stdout, ok.stderr
    bad = subprocess.run(
        [*arena, "check", str(ATTACKS / "wrong_id.py")], capture_output=True, text=True
    )
    assert bad.returncode == 1 and "id is 12345" in bad.stdout
    unknown = tmp_path / "bot.xyz"
    unknown.write_text("x")
    none = subprocess.run([*arena, "check", str(unknown)], capture_output=True, text=True)
    assert none.returncode == 1 and none.stderr.count("\n") == 1 and ".xyz" in none.stderr


def test_the_protocol_version_is_one() -> None:
    assert PROTOCOL_VERSION == 1


RAW = Path(__file__).parent / "protocol" / "raw_bot.py"


@pytest.fixture
def raw_runtime(monkeypatch: pytest.MonkeyPatch) -> Runtime:
    """A runtime of another "language" in the registry, as the native ones join it."""
    runtime = RawRuntime()
    monkeypatch.setitem(RUNTIMES, runtime.language, runtime)
    assert isinstance(runtime, Runtime)
    return runtime


def _raw(text: bytes) -> Artifact:
    return Artifact("raw-python", (("bot.rawpy", text),), "bot.rawpy")


@pytest.mark.slow
def test_a_bot_written_from_the_spec_plays_through_another_runtime(raw_runtime: Runtime) -> None:
    raw = _raw(RAW.read_bytes())
    assert runtime_for("x.rawpy") is raw_runtime
    assert check_bot(raw, LIMITS) == []
    random_bot = BotSource.from_path(str(bundled("random")))
    with BotPool(LIMITS) as pool:
        out = pool.play_match([raw, random_bot, raw], 4)
        again = pool.play_match([raw, random_bot, raw], 4)
    assert out.faults == [] and out.stats[0]["decisions"] > 0
    assert "hello from seat 0" in out.logs[0] and "hello from seat 2" in out.logs[2]
    # The hello's seed makes the same match play the same way.
    assert out.result.scores == again.result.scores


@pytest.mark.slow
def test_the_seat_checks_every_runtime_the_same_way(raw_runtime: Runtime) -> None:
    source = RAW.read_text()
    wrong_id = source.replace('{"id": msg["id"]', '{"id": msg["id"] + 1')
    printer = source.replace('rng.seed(bytes.fromhex(msg["seed"]))', 'print("debug")')
    random_bot = BotSource.from_path(str(bundled("random")))
    with BotPool(LIMITS) as pool:
        for text, kind in ((wrong_id, "protocol"), (printer, "load")):
            out = pool.play_match([_raw(text.encode()), random_bot, random_bot], 2)
            fault = out.fault_of(0)
            assert fault is not None and fault.kind == kind, (kind, fault)
    assert any("request 0" in p for p in check_bot(_raw(wrong_id.encode()), LIMITS))
