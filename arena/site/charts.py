"""Geometry for the site's inline SVG charts and colour scales.

Only numbers are computed here; the labels (bot names are untrusted) are rendered by the
Jinja2 partials in ``templates/_partials/`` with autoescape, so no text is ever put into
markup by Python string building.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

PALETTE: Final = (
    "#2563eb",
    "#dc2626",
    "#16a34a",
    "#9333ea",
    "#ea580c",
    "#0891b2",
    "#ca8a04",
    "#db2777",
    "#4b5563",
    "#65a30d",
)
"""Line colours, chosen to stay distinguishable on white and for common colour blindness."""

PLACE_COLOURS: Final = ("#d4a017", "#9ca3af", "#b4693c")
"""1st, 2nd and 3rd place: gold, silver, bronze (also used by the CSS)."""


def colour_for(index: int) -> str:
    """The palette colour of the ``index``-th series (cycles past the palette)."""
    return PALETTE[index % len(PALETTE)]


@dataclass(frozen=True)
class Tick:
    """An axis tick: its position in SVG units and its (numeric, trusted) label."""

    pos: float
    label: str


@dataclass(frozen=True)
class Line:
    """One series of a line chart: a polyline plus the untrusted name for the legend."""

    name: str
    colour: str
    points: str
    last_x: float
    last_y: float
    band: str = ""


@dataclass(frozen=True)
class LineChart:
    """A laid-out line chart: everything the ``line_chart`` partial needs."""

    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    lines: list[Line]
    x_label: str
    y_label: str

    @property
    def empty(self) -> bool:
        """True when there is nothing to draw."""
        return not self.lines


def _nice_step(span: float, target: int) -> float:
    # A 1-2-5 step so that axis labels are round numbers.
    raw = span / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _fmt(v: float, step: float = 1.0) -> str:
    # As many decimals as the step needs, so a label never rounds past its own tick (a step of
    # 0.05 labels 0.75 as "0.75", not "0.8").
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    if abs(v - round(v)) < 1e-9:
        decimals = 0
    return f"{v:.{decimals}f}"


def line_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float, float, float]]]],
    *,
    x_label: str,
    y_label: str,
    width: int = 560,
    height: int = 280,
) -> LineChart:
    """Lay out a line chart.

    ``series`` holds ``(name, points)`` where each point is ``(x, y, lo, hi)``; ``lo``/``hi``
    draw a translucent interval band (pass ``y`` for both to draw none).
    """
    left, top, right, bottom = 48, 12, width - 16, height - 36
    pts = [p for _, ps in series for p in ps]
    if not pts:
        return LineChart(width, height, left, top, right, bottom, [], [], [], x_label, y_label)
    xs = [p[0] for p in pts]
    ys = [v for p in pts for v in (p[1], p[2], p[3])]
    x0, x1 = min(xs), max(xs)
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    y0, y1 = min(ys), max(ys)
    if y1 - y0 < 1e-9:
        y0, y1 = y0 - 1, y1 + 1
    step = _nice_step(y1 - y0, 5)
    y0, y1 = math.floor(y0 / step) * step, math.ceil(y1 / step) * step

    def sx(x: float) -> float:
        return round(left + (x - x0) / (x1 - x0) * (right - left), 1)

    def sy(y: float) -> float:
        return round(bottom - (y - y0) / (y1 - y0) * (bottom - top), 1)

    y_ticks = []
    v = y0
    while v <= y1 + step / 2:
        y_ticks.append(Tick(sy(v), _fmt(v, step)))
        v += step
    xstep = max(1.0, _nice_step(x1 - x0, 6))
    x_ticks = []
    v = math.ceil(x0 / xstep) * xstep
    while v <= x1 + 1e-9:
        x_ticks.append(Tick(sx(v), _fmt(v, xstep)))
        v += xstep
    lines = []
    for i, (name, ps) in enumerate(series):
        if not ps:
            continue
        poly = " ".join(f"{sx(x)},{sy(y)}" for x, y, _, _ in ps)
        band = ""
        if any(lo != hi for _, _, lo, hi in ps):
            upper = [f"{sx(x)},{sy(hi)}" for x, _, _, hi in ps]
            lower = [f"{sx(x)},{sy(lo)}" for x, _, lo, _ in reversed(ps)]
            band = " ".join(upper + lower)
        last = ps[-1]
        lines.append(Line(name, colour_for(i), poly, sx(last[0]), sy(last[1]), band))
    return LineChart(
        width, height, left, top, right, bottom, x_ticks, y_ticks, lines, x_label, y_label
    )


@dataclass(frozen=True)
class Segment:
    """One place's share in a stacked bar."""

    place: int
    count: int
    x: float
    width: float
    colour: str
    percent: str


@dataclass(frozen=True)
class Bar:
    """One bot's row of the place-distribution chart."""

    name: str
    href: str
    y: float
    total: int
    segments: list[Segment] = field(default_factory=list)


@dataclass(frozen=True)
class PlaceChart:
    """A laid-out stacked-bar chart of places (1st/2nd/3rd) per bot."""

    width: int
    height: int
    label_width: int
    bar_height: int
    bars: list[Bar]


def place_chart(
    rows: Sequence[tuple[str, str, Sequence[int]]], *, width: int = 560, bar_height: int = 24
) -> PlaceChart:
    """Lay out stacked bars from ``(name, href, [n_first, n_second, n_third])`` rows."""
    label_width = 130
    gap = 8
    inner = width - label_width - 64
    bars = []
    for i, (name, href, counts) in enumerate(rows):
        total = sum(counts)
        x = float(label_width)
        segs = []
        for place, n in enumerate(counts, start=1):
            w = inner * n / total if total else 0.0
            pct = f"{100 * n / total:.0f}%" if total else "0%"
            segs.append(Segment(place, n, round(x, 1), round(w, 1), PLACE_COLOURS[place - 1], pct))
            x += w
        bars.append(Bar(name, href, i * (bar_height + gap), total, segs))
    height = max(1, len(rows)) * (bar_height + gap) + 24
    return PlaceChart(width, height, label_width, bar_height, bars)


def rate_colour(rate: float | None) -> str:
    """Background for a placed-above rate: red (0) through neutral (0.5) to green (1)."""
    if rate is None:
        return "transparent"
    rate = min(1.0, max(0.0, rate))
    # Diverging: one hue per side of 0.5, stronger the further from even, so an even record
    # is a pale neutral and never a muddy mix of red and green.
    strength = abs(rate - 0.5) * 2
    hue = 145 if rate >= 0.5 else 4
    sat = 20 + 55 * strength
    light = 96 - 30 * strength
    return f"hsl({hue} {sat:.0f}% {light:.0f}%)"
