"""What the commands that play draw while they play: the library's events
(:mod:`arena.events`) as a rich progress line, and one line per bot that joins or leaves a
ladder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

from arena.events import Event, Joined, Left, MatchesStored, Planned, Stopped
from arena.untrusted import clean_line

BAR: Final = 16
"""The progress bar's width in columns (the line fits 80 columns)."""


class _RateColumn(ProgressColumn):
    """Matches per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} matches/s", style="progress.data.speed")


def progress_bar(console: Console, total: int | None) -> Progress:
    """The run's progress line: a bar of matches stored towards ``total``, rate and ETA; or
    (None: a schedule with no bound) the count, the rate and the time."""

    # One line in any width (80 columns): the description is cut with an ellipsis to the room
    # the figures beside it leave, so they never wrap onto a line of their own.
    def fixed(width: int) -> Column:
        return Column(no_wrap=True, min_width=width)

    def title(markup: str, figures: int) -> TextColumn:
        room = max(8, console.width - figures)
        return TextColumn(
            markup, table_column=Column(no_wrap=True, overflow="ellipsis", max_width=room)
        )

    if total is None:
        columns: tuple[ProgressColumn, ...] = (
            title("{task.description}", 15 + 8 + 3),
            _RateColumn(table_column=fixed(15)),
            TimeElapsedColumn(table_column=fixed(8)),
        )
        return Progress(*columns, console=console, transient=False)
    return Progress(
        title("[bold]{task.description}", BAR + 2 * len(str(total)) + 1 + 15 + 8 + 3 + 8 + 7),
        BarColumn(bar_width=BAR),
        MofNCompleteColumn(),
        _RateColumn(table_column=fixed(15)),
        TimeElapsedColumn(table_column=fixed(8)),
        TextColumn("ETA"),
        TimeRemainingColumn(table_column=fixed(8)),
        console=console,
        transient=False,
    )


class Drawing:
    """An ``on_event`` that draws: ``on_planned(event)`` prints the run's header, then a
    progress line follows the matches stored until the run stops; a ladder's field changes
    are a line each."""

    def __init__(self, console: Console, on_planned: Callable[[Planned], object]) -> None:
        self.console = console
        self.on_planned = on_planned
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, Planned):
            self.on_planned(event)
        elif isinstance(event, MatchesStored):
            self._stored(event)
        elif isinstance(event, Joined | Left) and event.step > 0:
            # The bots of a new ladder's first set are its header's.
            self.console.print(Text(_field_line(event)), soft_wrap=True)
        elif isinstance(event, Stopped):
            self.close()

    def _stored(self, e: MatchesStored) -> None:
        if self.bar is None:
            self.bar = progress_bar(self.console, e.total)
            self.bar.start()
            self.task = self.bar.add_task(e.status, total=e.total, completed=e.done - e.added)
        assert self.task is not None
        self.bar.update(self.task, advance=e.added, description=e.status)

    def close(self) -> None:
        """Stop the progress line (idempotent)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> Drawing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _field_line(e: Joined | Left) -> str:
    """One line: ``set 40: frank (version 2) joins the ladder``."""
    who = f"{clean_line(e.name, 40)} (version {e.version})"
    if isinstance(e, Joined):
        return f"set {e.step}: {who} joins the ladder"
    if e.reason == "replaced":
        return f"set {e.step}: {who} leaves the ladder, replaced by its new version"
    return f"set {e.step}: {who} leaves the ladder ({e.reason})"
