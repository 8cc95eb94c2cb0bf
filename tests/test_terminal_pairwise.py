"""The placed-above matrix of ``arena standings`` in a terminal: every pair of a small field,
the first ten bots by rank of a large one (every pair stays in ``--json`` and on the site)."""

from __future__ import annotations

import io

from rich.console import Console

from arena.stats.standings import BotStanding, Pair
from arena.views.terminal import PAIRWISE_SHOWN, pairwise_table


def field(n: int) -> list[BotStanding]:
    bots = [BotStanding(i, f"bot{i:02d}", rank=i + 1) for i in range(n)]
    for a in bots:
        for b in bots:
            if a.bot != b.bot:  # the better ranked bot places above the other 70 % of the time
                above = 14.0 if a.bot < b.bot else 6.0
                a.above[b.bot] = Pair(20, above, 10, above / 20 - 0.1, above / 20 + 0.1)
    return bots


def drawn(table: list[BotStanding]) -> str:
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(pairwise_table(table))
    return out.getvalue()


def matrix_rows(text: str) -> list[list[str]]:
    return [
        ln.split()[2:] for ln in text.splitlines() if ln.split()[:1] and ln.split()[0].isdigit()
    ]


def test_a_small_field_shows_every_pair() -> None:
    text = drawn(field(4))
    rows = matrix_rows(text)
    assert len(rows) == 4 and "first" not in text
    assert rows[0][0] == "-" and rows[0][1].startswith("70") and rows[1][0].startswith("30")


def test_a_large_field_shows_the_first_ten_by_rank_and_says_so() -> None:
    text = drawn(field(30))
    rows = matrix_rows(text)
    assert len(rows) == PAIRWISE_SHOWN == 10
    assert all(len(r) == PAIRWISE_SHOWN for r in rows), text
    assert "bot09" in text and "bot10" not in text
    assert f"top {PAIRWISE_SHOWN} of 30; all pairs, intervals: --json" in text
    assert max(len(ln) for ln in text.splitlines()) <= 80
