"""The host files' list kept on disk (arena/sandbox/world.py) and one pool for a submit's checks
(``validate_bot(pool=...)``): what ``arena submit`` no longer does twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.engine import DEFAULT_RULES
from arena.sandbox import BotPool, BotSource, Limits, validate_bot, world

FAST = Limits(decision_seconds=2.0, match_cpu_seconds=10.0, load_seconds=3.0)


def _fresh_list() -> world.HostFiles:
    cache = world._cache_dir()
    files = world._list_host_files(cache)
    if not files.private:
        pytest.skip(f"no private world on this machine: {files.detail}")
    return files


def test_a_saved_list_is_used_while_its_files_are_unchanged(tmp_path: Path) -> None:
    files = _fresh_list()
    saved = tmp_path / "host-files-x.json"
    world._save_list(saved, files)
    assert world._saved_list(saved) == files
    # What host_files() gives is the list made afresh, whether it was saved or not.
    assert world.host_files() == files


def test_a_changed_file_a_broken_or_a_missing_save_makes_the_list_again(tmp_path: Path) -> None:
    files = _fresh_list()
    saved = tmp_path / "host-files-x.json"
    world._save_list(saved, files)
    data = json.loads(saved.read_text())
    # The interpreter's binary as if upgraded: another modification time.
    stamp = data["stamp"]
    row = next(r for r in stamp if r[0] == world.HOST_PYTHON)
    row[3] += 1
    saved.write_text(json.dumps(data))
    assert world._saved_list(saved) is None
    # A library gone from the list's directory.
    data["stamp"] = world._stamp(files)
    lib = next(outside for outside, _ in files.binds if ".so" in outside)
    data["binds"] = [[f"{lib}.gone", inside] for _, inside in files.binds]
    saved.write_text(json.dumps(data))
    assert world._saved_list(saved) is None
    saved.write_text("{not json")
    assert world._saved_list(saved) is None
    assert world._saved_list(tmp_path / "none.json") is None
    assert world._saved_list(None) is None


def test_the_key_names_the_code_and_the_loader_path(monkeypatch: pytest.MonkeyPatch) -> None:
    before = world._list_key()
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/elsewhere")
    assert world._list_key() != before


def test_a_probe_is_kept_while_its_files_are_unchanged(tmp_path: Path) -> None:
    marker = tmp_path / "binding.so"
    marker.write_text("v1")
    calls: list[int] = []

    def probe(ok: bool = True) -> tuple[bool, str]:
        calls.append(1)
        return ok, f"probed {len(calls)}"

    kept = tmp_path / "cache"
    kept.mkdir()
    assert world.kept_probe("x", [str(marker)], probe, kept) == (True, "probed 1")
    assert world.kept_probe("x", [str(marker)], probe, kept) == (True, "probed 1")
    assert len(calls) == 1
    marker.write_text("v2, another size")  # an upgraded file: probed again
    assert world.kept_probe("x", [str(marker)], probe, kept) == (True, "probed 2")
    marker.unlink()  # gone: probed again
    assert world.kept_probe("x", [str(marker)], probe, kept) == (True, "probed 3")
    # A failure is never kept.
    assert world.kept_probe("y", [], lambda: probe(False), kept) == (False, "probed 4")
    assert world.kept_probe("y", [], lambda: probe(False), kept) == (False, "probed 5")
    next(kept.glob("probe-x-*.json")).write_text("[]")  # unreadable: probed again
    assert world.kept_probe("x", [str(marker)], probe, kept) == (True, "probed 6")


def test_validate_bot_plays_in_a_given_pool_and_leaves_it_open() -> None:
    good = BotSource(
        "good", "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"
    )
    bad = BotSource("bad", "class Bot:\n    def act(self, obs):\n        return 'nope'\n")
    with BotPool(FAST) as pool:
        assert validate_bot(good, pool=pool) is None
        fault = validate_bot(bad, pool=pool)
        assert fault is not None and fault.kind == "illegal"
        # Still open: the good bot plays on in it.
        outcome = pool.play_match([good, good, good], 5, DEFAULT_RULES)
        assert outcome.fault_of(0) is None
