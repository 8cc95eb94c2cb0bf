"""Geometry of the site's SVG charts and its colour scale."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from hypothesis import given
from hypothesis import strategies as st

from arena.site.charts import PALETTE, PLACE_COLOURS, line_chart, place_chart, rate_colour

finite = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)


@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 5000), finite), min_size=1, max_size=20),
        min_size=1,
        max_size=6,
    )
)
def test_line_chart_stays_inside_its_box(series: list[list[tuple[int, float]]]) -> None:
    data = [(f"bot{i}", [(float(x), y, y, y) for x, y in pts]) for i, pts in enumerate(series)]
    c = line_chart(data, x_label="matches", y_label="rating")
    assert len(c.lines) == len(series)
    for line in c.lines:
        for point in line.points.split():
            x, y = map(float, point.split(","))
            assert c.left - 0.1 <= x <= c.right + 0.1
            assert c.top - 0.1 <= y <= c.bottom + 0.1
    ticks = [float(t.label) for t in c.y_ticks]
    assert ticks == sorted(ticks) and len(ticks) >= 2
    assert min(ticks) <= min(y for pts in series for _, y in pts) + 1e-6
    assert max(ticks) >= max(y for pts in series for _, y in pts) - 1e-6


def test_line_chart_colours_and_bands() -> None:
    c = line_chart(
        [("a", [(1, 1500, 1400, 1600), (2, 1510, 1450, 1570)]), ("b", [(1, 1490, 1490, 1490)])],
        x_label="x",
        y_label="y",
    )
    assert [line.colour for line in c.lines] == list(PALETTE[:2])
    assert len(c.lines[0].band.split()) == 4 and c.lines[1].band == ""
    assert line_chart([], x_label="x", y_label="y").empty


def test_place_chart_bars_fill_the_same_width() -> None:
    c = place_chart([("a", "bots/1.html", [3, 2, 1]), ("b", "bots/2.html", [0, 0, 6])])
    widths = [sum(s.width for s in bar.segments) for bar in c.bars]
    assert widths[0] == pytest.approx(widths[1], abs=0.2)
    assert [s.percent for s in c.bars[0].segments] == ["50%", "33%", "17%"]
    assert [s.colour for s in c.bars[1].segments] == list(PLACE_COLOURS)
    assert c.bars[1].segments[2].x == c.label_width  # all of it is third place
    assert c.bars[1].y > c.bars[0].y


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        (0.5, "hsl(145 20% 96%)"),
        (1.0, "hsl(145 75% 66%)"),
        (0.0, "hsl(4 75% 66%)"),
        (None, "transparent"),
        (7.0, "hsl(145 75% 66%)"),
    ],
    ids=["even", "always-above", "never-above", "no-data", "clamped"],
)
def test_rate_colour(rate: float | None, expected: str) -> None:
    assert rate_colour(rate) == expected


@pytest.mark.parametrize(
    ("bound", "low", "high", "shown"),
    [("upper", None, 1180.0, "≤\xa01,180"), ("lower", 1830.0, None, "≥\xa01,830"),
     ("upper", None, None, "—"), ("lower", None, None, "—")],
)  # fmt: skip
def test_a_bound_without_its_value_is_no_rating(
    bound: str, low: float | None, high: float | None, shown: str
) -> None:
    # A one-round tournament can leave a bound without its value: "—", explained under the
    # leaderboard, never "<= —".
    from arena.site.data import BotRef, Standing
    from arena.site.render import site_env

    ref = BotRef(1, 1, "ace", 1, None, 1, "ace")
    row = Standing(1, ref, None, low, high, 6, 2, 2.0, 0, bound=bound)
    macro = site_env().from_string(
        '{% from "_partials/macros.html" import rating_cell %}{{ rating_cell(s) }}'
    )
    text = BeautifulSoup(macro.render(s=row, root=""), "html.parser").get_text(strip=True)
    assert text == shown
