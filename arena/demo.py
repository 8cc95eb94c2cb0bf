"""``arena demo``: one in-process match of trusted bots, printed hand by hand."""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from arena.botfile import bundled, bundled_names, declared, load_bot_class
from arena.engine import play_match
from arena.errors import ArenaError
from arena.rules import IllegalAction
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


LOG_BYTES: Final = 65536
"""What a demo keeps of each bot's output, as the sandbox does (``Limits.log_bytes``)."""


class Printed(io.StringIO):
    """A bot's captured output (stdout and stderr), kept up to :data:`LOG_BYTES`."""

    def write(self, text: str) -> int:
        """Keep ``text`` while there is room; say it was all written, as a terminal would."""
        room = LOG_BYTES - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)


class Captured:
    """A bot whose prints (in ``__init__`` and ``act``) go to its own :class:`Printed`, and
    whose exception is one :class:`ArenaError` line naming the bot and its file's line."""

    def __init__(self, make: Any, label: str, path: Path) -> None:
        self.out = Printed()
        self.label, self.path = label, path
        with self._captured():
            self.bot = make()

    def act(self, obs: dict[str, Any]) -> Any:
        """The bot's action, its output captured."""
        with self._captured():
            return self.bot.act(obs)

    @contextlib.contextmanager
    def _captured(self) -> Iterator[None]:
        import traceback

        from arena.faults import summary

        with contextlib.redirect_stdout(self.out), contextlib.redirect_stderr(self.out):
            try:
                yield
            except Exception as e:  # the bot's own error, with where it happened
                trace = "".join(traceback.format_exception(e))
                first = f"{type(e).__name__}: {e}"
                raise ArenaError(
                    f"{self.label} raised {summary(first + chr(10) + trace, self.path.name)}"
                ) from None


def run_demo(seed: int, bot_files: list[str]) -> str:
    """Play one match with ``seed`` between up to three bots (files or bundled names); the
    empty seats get bundled bots. Returns the match hand by hand, then what each bot printed
    (as ``arena logs`` shows a stored match's)."""
    from rich.console import Console

    from arena.views import log_lines

    files = seat_bots(bot_files)
    bots = []
    names = [f"{bot_label(f)} (seat {i})" for i, f in enumerate(files)]
    for seat, f in enumerate(files):
        # As the sandbox does: random is seeded with a one-way digest of (match seed, seat).
        random.seed(bot_random_seed(seed, seat))
        bots.append(Captured(load_bot_class(f), names[seat], f))
    try:
        played = play_match(bots, seed=seed)
    except IllegalAction as e:  # "seat 0 answered 'XX' in phase 'play'; legal: [...]"
        said = str(e).removeprefix(f"seat {e.seat} ")
        raise ArenaError(f"{names[e.seat]} {clean_line(said, 300)}") from None
    match = format_match(played, names)
    console = Console(width=1000, file=io.StringIO(), markup=False, color_system=None)
    for line in log_lines(names, [b.out.getvalue() for b in bots]):
        console.print(line, soft_wrap=True)
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    return f"{match}\n\n{printed.rstrip()}"


def bot_label(path: Path) -> str:
    """What a bot file is called on screen: its ``Bot.name`` (the name it is stored and
    listed under: ``random`` for ``random_bot.py``), else the file's stem."""
    try:
        declared_name = declared(path.read_text(encoding="utf-8"), "name")
    except (OSError, UnicodeDecodeError):
        declared_name = None
    return clean_line(declared_name or path.stem, 40)
