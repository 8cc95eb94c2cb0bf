"""The site's comparison page prints the interval as the terminal does: the ends of
``Status.ends``, with the digits the verdict needs, and its level; never rounded apart from
the terminal's line."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_support import store_comparison
from site_support import soup, texts

from arena.site import render_site


@pytest.mark.slow  # renders a whole site
def test_the_comparison_page_prints_the_terminals_interval(tmp_path: Path) -> None:
    compared = store_comparison(tmp_path / "arena.db")
    render_site(tmp_path / "arena.db", tmp_path / "site")
    status = compared.result
    low, high = status.ends
    assert f"[{low}, {high}]" in status.line()  # the terminal's digits
    pages = [
        p
        for p in (tmp_path / "site").rglob("*.html")
        if compared.tid in p.name or compared.tid in str(p)
    ]
    shown = [t for p in pages for t in texts(soup(p).select("span.interval"))]
    assert shown == [f"{low}\u2013{high}"], (pages, shown)
    page = next(p for p in pages if soup(p).select("span.interval"))
    assert "90 % interval" in " ".join(texts(soup(page).select("dd")))
