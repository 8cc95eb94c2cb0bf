"""The pages on a phone (390 px) and on a desktop (1280 px), measured in a real Chromium.

Bot names must stay whole (one line, never split into fragments), a table wider than the
screen must scroll inside its box with a visible hint, and the head-to-head column headers
must show whole names. Screenshots of each page at each size go to the test's temporary
folder (printed with ``-s``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_support import (
    DESKTOP,
    PHONE,
    console_errors,
    name_geometry,
    screenshot,
    scrolls_sideways,
    set_viewport,
)
from selenium import webdriver
from selenium.webdriver.common.by import By
from site_support import RUN_BOTS, store_tournament

from arena.site import render_site

LONGEST = "MonteCarloWithMemoizedDeepRollouts-v2.1"
"""40 characters, the most a name may have: too wide for some boxes, so cut there."""
LONG_NAMES = ["defensive_specialist_v12", "montecarlo", "heuristic-plus", LONGEST]
"""Names as authors write them, with underscores and hyphens."""


@pytest.fixture(scope="module")
def long_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site of four bots with long names (a stored tournament, opened from file://)."""
    root = tmp_path_factory.mktemp("long-names")
    store_tournament(root / "arena.db", [(n, "Someone With A Long Name") for n in LONG_NAMES])
    render_site(root / "arena.db", root / "site")
    return root / "site"


def no_page_overflow(driver: webdriver.Chrome) -> None:
    """Nothing pushes the page sideways: wide content scrolls in its own box."""
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= driver.execute_script("return window.innerWidth")


def assert_whole_names(driver: webdriver.Chrome, css: str, names: list[str], width: int) -> int:
    """Every rendered element matching ``css`` is one of ``names``, whole, on one line, and
    inside the screen unless it is in a box that scrolls. Returns how many were checked."""
    found = name_geometry(driver, css)
    for n in found:
        assert n["text"] in names, n
        assert n["lines"] == 1, n  # not broken into pieces
        # An ellipsis is the last resort for a name wider than its box: in the trick list, or
        # for a name of the longest kind.
        assert not n["cut"] or n["in_trick"] or n["text"] == LONGEST, n
        if not n["in_scroll_box"]:
            assert 0 <= n["left"] and n["right"] <= width + 0.5, n
    return len(found)


def test_match_page_keeps_names_whole(
    browser: webdriver.Chrome, long_site: Path, viewport: int, tmp_path: Path
) -> None:
    match = sorted((long_site / "matches").glob("*.html"))[0]
    browser.get(match.as_uri())
    assert browser.execute_script("return window.innerWidth") == viewport
    names = "main a.bot, main .name, main .who, main td.winner"
    checked = assert_whole_names(browser, names, LONG_NAMES, viewport)
    hands = len(browser.find_elements(By.CSS_SELECTOR, "article.hand"))
    assert checked > 15 * hands  # seat boxes, bids, contract, tricks, verdict, hidden cards
    # Names in sentences sit on the line's baseline, like the words around them.
    gaps = [n["baseline_gap"] for n in name_geometry(browser, names)]
    measured = [g for g in gaps if g is not None]
    assert len(measured) >= 2 * hands and all(abs(g) <= 1.5 for g in measured), sorted(measured)
    # The seats table keeps each name on one line at its natural width.
    seats = name_geometry(browser, "table.seats a.bot")
    assert [s["text"] for s in seats] and all(s["lines"] == 1 for s in seats)
    no_page_overflow(browser)
    screenshot(browser, tmp_path / f"match-{viewport}.png", viewport)
    assert console_errors(browser) == []


def test_wide_leaderboard_scrolls_with_a_hint(
    browser: webdriver.Chrome, server: str, viewport: int, tmp_path: Path
) -> None:
    browser.get(server)
    box = browser.find_element(By.CSS_SELECTOR, "main .table-scroll")
    hint = browser.find_element(By.CSS_SELECTOR, "main .scroll-hint")
    overflows = scrolls_sideways(browser, box)
    # A shadow marks the side that has more (CSS, works without the script too).
    assert "radial-gradient" in box.value_of_css_property("background-image")
    assert_whole_names(browser, "table.standings a.bot", list(RUN_BOTS), viewport)
    # The rating chart's legend names the bots with a rating: "crashy" faults in all its matches,
    # so it has only a one-sided bound and no line.
    rated = [b for b in RUN_BOTS if b != "crashy"]
    charted = assert_whole_names(browser, "main .legend .name", rated, viewport)
    assert 1 <= charted <= len(rated)
    no_page_overflow(browser)
    if viewport == DESKTOP[0]:
        assert not overflows and not hint.is_displayed()
        screenshot(browser, tmp_path / "leaderboard-desktop.png", viewport)
        return
    assert overflows, "the leaderboard should be wider than a phone"
    assert hint.is_displayed() and hint.value_of_css_property("visibility") == "visible"
    assert "scroll sideways" in hint.text
    last_header = browser.find_element(By.CSS_SELECTOR, "table.standings thead th:last-child")
    assert last_header.rect["x"] + last_header.rect["width"] > box.rect["x"] + box.rect["width"]
    screenshot(browser, tmp_path / "leaderboard-phone.png", viewport)
    set_viewport(browser, *PHONE)
    browser.execute_script("arguments[0].scrollLeft = arguments[0].scrollWidth", box)
    # Scrolled to the end: the last column is in view and the hint has done its job.
    right = browser.execute_script("return arguments[0].getBoundingClientRect().right", box)
    header_right = browser.execute_script(
        "return arguments[0].getBoundingClientRect().right", last_header
    )
    assert header_right <= right + 1
    assert hint.value_of_css_property("visibility") == "hidden"
    assert console_errors(browser) == []


def test_head_to_head_headers_are_whole_words(
    browser: webdriver.Chrome, long_site: Path, viewport: int, tmp_path: Path
) -> None:
    browser.get((long_site / "h2h.html").as_uri())
    heads = name_geometry(browser, "table.matrix .colhead .name")
    assert sorted(h["text"] for h in heads) == sorted(LONG_NAMES)
    for h in heads:
        assert h["lines"] == 1 and not h["cut"], h  # whole, on one line
        assert h["vertical"] and h["height"] > h["width"], h
    rows = name_geometry(browser, "table.matrix th[scope=row] a.bot")
    assert sorted(r["text"] for r in rows) == sorted(LONG_NAMES)
    assert all(r["lines"] == 1 for r in rows)
    box = browser.find_element(By.CSS_SELECTOR, "main .table-scroll")
    # Four bots fit a phone and a desktop without scrolling: no column is cut off.
    assert not scrolls_sideways(browser, box)
    # Every cell says its interval: nothing to hover for (a phone cannot).
    cells = browser.find_elements(By.CSS_SELECTOR, "table.matrix td:not(.self):not(.none)")
    assert cells and all(c.find_elements(By.CSS_SELECTOR, ".ci") for c in cells)
    assert "Hover" not in browser.find_element(By.TAG_NAME, "main").text
    no_page_overflow(browser)
    screenshot(browser, tmp_path / f"h2h-{viewport}.png", viewport)
    assert console_errors(browser) == []


def test_bot_and_tournament_pages_fit(
    browser: webdriver.Chrome, long_site: Path, viewport: int, tmp_path: Path
) -> None:
    for page in ("bots/defensive_specialist_v12.html", next(long_site.glob("tournaments/*"))):
        browser.get((long_site / page).as_uri())
        assert_whole_names(browser, "main a.bot", LONG_NAMES, viewport)
        no_page_overflow(browser)
        screenshot(browser, tmp_path / f"{Path(page).stem}-{viewport}.png", viewport)
        set_viewport(browser, viewport, 900)
    assert console_errors(browser) == []


def test_dates_say_how_long_ago(browser: webdriver.Chrome, server: str) -> None:
    browser.get(server)
    footer = browser.find_element(By.CSS_SELECTOR, "footer time.rel")
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", footer.text)
    ago = browser.find_element(By.CSS_SELECTOR, "footer time.rel + .ago").text
    assert re.fullmatch(r" ?\((now|\d+ (second|minute|hour)s? ago)\)", ago), ago
    assert console_errors(browser) == []


def test_replay_marks_hidden_cards(browser: webdriver.Chrome, server: str) -> None:
    browser.get(server)
    browser.find_element(By.LINK_TEXT, "Tournament").click()
    browser.find_element(By.CSS_SELECTOR, "table.matches tbody a[href*='matches/']").click()
    boxes = browser.find_elements(By.CSS_SELECTOR, "article.hand .hidden-info")
    assert boxes and len(boxes) == len(browser.find_elements(By.CSS_SELECTOR, "article.hand"))
    first = boxes[0]
    assert "REVEALED AFTER THE HAND" in first.find_element(By.CSS_SELECTOR, "h4").text
    assert first.value_of_css_property("border-top-style") == "dashed"
    kitty = first.find_elements(By.CSS_SELECTOR, ".hidden-cards.kitty .card")
    assert len(kitty) in (3, 4) and all(c.is_displayed() for c in kitty)
    assert console_errors(browser) == []


CHART_TEXT_PX = """
return Array.from(document.querySelectorAll('.chart svg text')).map(t => {
  const svg = t.ownerSVGElement;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return parseFloat(getComputedStyle(t).fontSize) * scale;
});
"""


def test_chart_text_reads_on_a_phone(
    browser: webdriver.Chrome, long_site: Path, viewport: int
) -> None:
    for page in ("index.html", "bots/montecarlo.html"):
        browser.get((long_site / page).as_uri())
        sizes = browser.execute_script(CHART_TEXT_PX)
        assert sizes, page  # the charts have text
        assert min(sizes) >= 9.5, (page, viewport, sorted(sizes)[:5])
