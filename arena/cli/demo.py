"""``arena demo``: one in-process match of trusted bots, printed hand by hand."""

from __future__ import annotations

import atexit
import contextlib
import io
import random
import shutil
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from rich.console import Console

from arena.engine import play_match
from arena.errors import ArenaError
from arena.rules import IllegalAction, Observation
from arena.sandbox.botfile import bundled, bundled_names, declared, load_bot_class
from arena.sandbox.faults import summary
from arena.sandbox.values import bot_random_seed
from arena.store import Store
from arena.tournaments.owners import current_owner
from arena.untrusted import clean_line
from arena.views.terminal import log_lines
from arena.views.transcript import format_match

FILL: Final = ("heuristic", "random", "montecarlo")
"""The bundled bots that take the seats no bot was given for, in this order, skipping those
already seated (with no bot at all: all three of them)."""


def bot_file(spec: str, db_path: str | Path | None = None) -> Path:
    """The file of the bot ``spec`` names, by the rule of every command: a bot file, a bundled
    bot by name (``random``, ``random_bot``), or a bot submitted to the database at
    ``db_path`` by name (its latest version).

    ``arena play`` and ``arena demo`` run bots in this process, unsandboxed, so a submitted
    bot is taken only when its name is yours (your owner key, :mod:`arena.tournaments.owners`):
    another author's code is refused, in one line that says so. Its source goes to a private
    temporary file, removed when the process ends.
    """
    path = Path(spec)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise ArenaError(f"no bot file {spec}")
        return path
    if spec in bundled_names():
        return bundled(spec)
    submitted = _submitted(spec, db_path) if db_path is not None else None
    if submitted is None:
        try:
            bundled(spec)
        except ArenaError as e:
            where = f" and no submitted bot of that name in {db_path}" if db_path else ""
            raise ArenaError(f"{e}{where}") from None
    assert submitted is not None
    return submitted


def _submitted(name: str, db_path: str | Path) -> Path | None:
    """A submitted bot of yours as a temporary file (None: no such bot, or no database)."""
    if not Path(db_path).is_file():
        return None
    with Store(db_path, create=False) as store:
        version = store.latest_version(name)
        owner = store.bot_owners().get(name)
    if version is None:
        return None
    if owner is None or owner != current_owner(create=False):
        raise ArenaError(
            f"{name} is another author's bot: arena play and arena demo run bots unsandboxed "
            "in this process, so they take only files, bundled bots and your own submitted "
            "bots (arena run and arena compare play anyone's, sandboxed)"
        )
    folder = Path(tempfile.mkdtemp(prefix="arena-bot-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / f"{name}.py"
    path.write_text(version.source, encoding="utf-8")
    return path


def seat_bots(specs: list[str], db_path: str | Path | None = None) -> list[Path]:
    """The three bot files of a demo: the ones given (files, bundled names, your submitted
    bots' names: :func:`bot_file`), then bundled bots in the empty seats."""
    if len(specs) > 3:
        raise ArenaError(f"a match has three seats, got {len(specs)} bots")
    files = [bot_file(s, db_path) for s in specs]
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

    def act(self, obs: Observation) -> Any:
        """The bot's action, its output captured."""
        with self._captured():
            return self.bot.act(obs)

    @contextlib.contextmanager
    def _captured(self) -> Iterator[None]:
        with contextlib.redirect_stdout(self.out), contextlib.redirect_stderr(self.out):
            try:
                yield
            except Exception as e:  # the bot's own error, with where it happened
                trace = "".join(traceback.format_exception(e))
                first = f"{type(e).__name__}: {e}"
                raise ArenaError(
                    f"{self.label} raised {summary(first + chr(10) + trace, self.path.name)}"
                ) from None


def run_demo(seed: int, bot_files: list[str], db_path: str | Path | None = None) -> str:
    """Play one match with ``seed`` between up to three bots (files or bundled names); the
    empty seats get bundled bots. Returns the match hand by hand, then what each bot printed
    (as ``arena logs`` shows a stored match's)."""
    files = seat_bots(bot_files, db_path)
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
