"""A comparison's page and the round robin's luck-and-bias panel in a real Chromium, on a
phone (390 px) and a desktop (1280 px): shown, drawn, inside the screen, no console error."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import (
    console_errors,
    screenshot,
    visible_texts,
)
from compare_support import store_comparison
from selenium import webdriver
from selenium.webdriver.common.by import By
from site_support import store_tournament

from arena.site import render_site
from arena.tournaments.compare import Comparison


@pytest.fixture(scope="module")
def compared_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Comparison]:
    """A round robin of three bots and a decided comparison, rendered (opened from file://)."""
    root = tmp_path_factory.mktemp("compare-site")
    store_tournament(root / "arena.db", [("a", None), ("b", None), ("c", None)], rounds=2)
    compared = store_comparison(root / "arena.db")
    render_site(root / "arena.db", root / "site")
    return root / "site", compared


def fits(driver: webdriver.Chrome) -> bool:
    """Nothing pushes the page sideways."""
    width = driver.execute_script("return document.documentElement.scrollWidth")
    return bool(width <= driver.execute_script("return window.innerWidth"))


def test_the_comparison_page_draws_its_chart_and_verdict(
    browser: webdriver.Chrome,
    compared_site: tuple[Path, Comparison],
    viewport: int,
    tmp_path: Path,
) -> None:
    site, compared = compared_site
    console_errors(browser)  # forget earlier pages' messages
    browser.get((site / "tournaments" / f"{compared.tid}.html").as_uri())
    assert visible_texts(browser, ".decision") == [compared.verdict() + "."]
    chart = browser.find_element(By.ID, "llr-chart-title").find_element(By.XPATH, "./..")
    assert chart.is_displayed()
    assert 0 < chart.size["width"] <= viewport and chart.size["height"] > 50
    # The two evidence lines and the two bounds are drawn, each with some length on screen.
    lengths = browser.execute_script(
        "return [...arguments[0].querySelectorAll('polyline')].map(p => p.getTotalLength())",
        chart,
    )
    assert len(lengths) == 4 and all(n > 10 for n in lengths), lengths
    assert visible_texts(browser, "table.roles tbody td:first-child") == ["A", "B", "third seat"]
    assert fits(browser) and console_errors(browser) == []
    screenshot(browser, tmp_path / f"compare-{viewport}.png", viewport)


def test_the_leaderboard_shows_luck_and_bias_and_lists_the_comparison(
    browser: webdriver.Chrome, compared_site: tuple[Path, Comparison], viewport: int
) -> None:
    site, compared = compared_site
    console_errors(browser)
    browser.get((site / "index.html").as_uri())
    panel = browser.find_element(By.ID, "duplicate")
    assert panel.is_displayed()
    rows = panel.find_elements(By.CSS_SELECTOR, "table.duplicate-scores tbody tr")
    assert sorted(r.find_element(By.CSS_SELECTOR, "td").text for r in rows) == ["a", "b", "c"]
    assert visible_texts(browser, ".bias-verdict")[0].startswith("Verdict: ")
    link = browser.find_element(By.CSS_SELECTOR, "table.comparisons tbody a")
    assert link.text == compared.tid
    assert fits(browser) and console_errors(browser) == []
