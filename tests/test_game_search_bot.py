"""The search bot of docs/writing-a-bot.md, taken from the page itself: it plays legal
matches in-process and in a real sandboxed match (it imports arena.worlds, staged for bots)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from arena.engine import play_match
from arena.sandbox import BotPool, BotSource, Limits, bot_random_seed
from arena.sandbox.botfile import bundled, load_bot_class

DOC = Path(__file__).resolve().parent.parent / "docs" / "writing-a-bot.md"


def search_bot_source() -> str:
    """The ```python block of the page's search section."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Searching with the game state") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None, "the search section has no python block"
    return match.group(1)


@pytest.fixture(scope="module")
def bot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("docbot") / "sampler.py"
    path.write_text(search_bot_source(), encoding="utf-8")
    return path


def test_the_page_bot_is_short() -> None:
    code = [line for line in search_bot_source().splitlines() if line.strip()]
    assert len(code) <= 32
    assert "from arena.worlds import sample_state" in code


def test_in_process_it_beats_the_random_bot(bot_file: Path) -> None:
    Sampler, Random = load_bot_class(bot_file), load_bot_class(bundled("random_bot"))
    above = meetings = 0
    for seed in range(3):
        for sampler_seat in range(3):
            bots = []
            for seat in range(3):
                random.seed(bot_random_seed(seed, seat))  # as the sandbox seeds each bot
                bots.append(Sampler() if seat == sampler_seat else Random())
            m = play_match(bots, seed=seed)  # raises IllegalAction on any illegal answer
            for other in range(3):
                if other != sampler_seat:
                    meetings += 1
                    above += m.placements[sampler_seat] < m.placements[other]
    assert above / meetings >= 0.7, f"placed above random_bot in {above} of {meetings}"


def test_in_the_sandbox_it_plays_without_a_fault(bot_file: Path) -> None:
    sources = [
        BotSource("sampler", bot_file.read_text(encoding="utf-8"), "sampler.py"),
        BotSource("random_bot", bundled("random_bot").read_text(encoding="utf-8")),
        BotSource("heuristic", bundled("heuristic").read_text(encoding="utf-8")),
    ]
    pool = BotPool(Limits(decision_seconds=2.0))
    try:
        out = pool.play_match(sources, 5)
    finally:
        pool.close()
    assert out.faults == [], out.faults
    assert out.stats[0]["asked"] > 0 and len(out.result.hands) >= 1
