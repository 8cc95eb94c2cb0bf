"""``arena demo``: one in-process match of trusted bots, printed hand by hand."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Final

from arena.botfile import bundled, bundled_names, declared, load_bot_class
from arena.engine import play_match
from arena.errors import ArenaError
from arena.sandbox.values import bot_random_seed
from arena.transcript import format_match
from arena.untrusted import clean_line

FILL: Final = ("heuristic", "random", "montecarlo")
"""The bundled bots that take the seats no bot was given for, in this order, skipping those
already seated (with no bot at all: all three of them)."""


def _path(spec: str) -> Path:
    path = Path(spec)
    if path.is_file():
        return path
    if spec in bundled_names():
        return bundled(spec)
    raise ArenaError(f"no bot file {spec!r} and no bundled bot of that name")


def seat_bots(specs: list[str]) -> list[Path]:
    """The three bot files of a demo: the ones given (files or bundled names), then bundled
    bots in the empty seats."""
    if len(specs) > 3:
        raise ArenaError(f"a match has three seats, got {len(specs)} bots")
    files = [_path(s) for s in specs]
    seated = {f.resolve() for f in files}
    spare = [bundled(n) for n in FILL if bundled(n).resolve() not in seated]
    return files + spare[: 3 - len(files)]


def run_demo(seed: int, bot_files: list[str]) -> str:
    """Play one match with ``seed`` between up to three bots (files or bundled names); the
    empty seats get bundled bots."""
    files = seat_bots(bot_files)
    bots = []
    for seat, f in enumerate(files):
        # As the sandbox does: random is seeded with a one-way digest of (match seed, seat).
        random.seed(bot_random_seed(seed, seat))
        bots.append(load_bot_class(f)())
    names = [f"{bot_label(f)} (seat {i})" for i, f in enumerate(files)]
    return format_match(play_match(bots, seed=seed), names)


def bot_label(path: Path) -> str:
    """What a bot file is called on screen: its ``Bot.name`` (the name it is stored and
    listed under: ``random`` for ``random_bot.py``), else the file's stem."""
    try:
        declared_name = declared(path.read_text(encoding="utf-8"), "name")
    except (OSError, UnicodeDecodeError):
        declared_name = None
    return clean_line(declared_name or path.stem, 40)
