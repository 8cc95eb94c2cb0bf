"""Tables for the terminal, built for 80 columns: one look for every table the ``arena``
commands print (:func:`grid`), columns that keep their text whole or cut it with an ellipsis
instead of wrapping rows onto several lines (:func:`fit`, :func:`name_column`), and the short
forms the listings use (:func:`short_time`)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from arena.untrusted import clean_line


def grid(title: str | None = None, caption: str | None = None) -> Table:
    """A table of the terminal, built for 80 columns: a rule under the header and no other
    lines, so that every column's width goes to its text (every table of the ``arena``
    commands is made here)."""
    return Table(
        title=title,
        caption=caption,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )


def fit(table: Table, *flexible: int, cap: int = 24) -> Table:
    """Give every column but the ``flexible`` ones (by index) the width of its longest cell
    (at most ``cap``: a long bot name), so that in a narrow terminal the flexible ones give way
    first (cut with an ellipsis or wrapped)."""
    from rich.console import Console
    from rich.measure import Measurement

    console = Console(width=1000)
    for i, col in enumerate(table.columns):
        if col.no_wrap and col.overflow == "ellipsis":
            # rich narrows only the columns that may wrap: this one may, but each of its
            # cells stays one line, cut with an ellipsis.
            col.no_wrap = False
            col._cells = [_one_line(c) for c in col._cells]
        if i in flexible:
            continue
        widths = [Measurement.get(console, console.options, col.header).maximum]
        widths += [Measurement.get(console, console.options, c).maximum for c in col.cells]
        col.min_width = min(max(widths), cap)
    return table


def _one_line(cell: RenderableType) -> RenderableType:
    text = Text(cell) if isinstance(cell, str) else cell
    if isinstance(text, Text):
        text.no_wrap, text.overflow = True, "ellipsis"
    return text


def short_time(stamp: object) -> str:
    """``2026-12-02T02:09:11Z`` as ``2026-12-02 02:09`` (the listing tables' form)."""
    text = "" if stamp is None else str(stamp)
    return text[:16].replace("T", " ") if len(text) >= 16 else text


def name_column(t: Table, header: str = "bot", **options: Any) -> None:
    """A column of bot names: one line each, cut with an ellipsis when the terminal is too
    narrow for the whole name (``--json`` always has it whole)."""
    t.add_column(header, no_wrap=True, overflow="ellipsis", min_width=6, **options)


def plain(value: object, limit: int = 200) -> Text:
    """Bot-controlled (or any stored) text as a one-line, control-free, literal rich Text."""
    return Text(clean_line("" if value is None else str(value), limit))
