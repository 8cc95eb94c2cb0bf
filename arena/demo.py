"""``arena demo``: one in-process match of trusted bots, printed hand by hand."""

from __future__ import annotations

import random
from pathlib import Path

from arena.botfile import bundled, load_bot_class
from arena.engine import play_match
from arena.sandbox.values import bot_random_seed
from arena.transcript import format_match


def run_demo(seed: int, bot_files: list[str]) -> str:
    """Play one match with ``seed`` between three bot files (default: the random bot)."""
    files = [Path(f) for f in bot_files] or [bundled("random_bot")] * 3
    if len(files) != 3:
        from arena.errors import ArenaError

        raise ArenaError(f"a match needs three bots, got {len(files)} files")
    bots = []
    for seat, f in enumerate(files):
        # As the sandbox does: random is seeded with a one-way digest of (match seed, seat).
        random.seed(bot_random_seed(seed, seat))
        bots.append(load_bot_class(f)())
    names = [f"{f.stem}@{i}" for i, f in enumerate(files)]
    return format_match(play_match(bots, seed=seed), names)
