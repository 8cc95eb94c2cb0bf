"""What a club organiser and its members read, in a real Chromium on a phone (390 px) and a
desktop (1280 px): a paused ladder with a retired bot and a comparison beside it.

One "retired" mark wherever the bot is listed, the ranks of the ladder's order without a gap,
no "playing now" on a stopped ladder, a legend for every reason in the "Why" column, one
match count per bot, a bot's comparisons on its page, a "Latest sets" row one line tall and
replay chart labels that read on a phone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_support import console_errors, screenshot, visible_texts
from compare_support import store_comparison
from selenium import webdriver
from selenium.webdriver.common.by import By
from site_support import store_ladder

from arena.site import render_site
from arena.store import Store


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A ladder of five bots (dot retired half-way, one set cut short by a stop) and a
    comparison of heuristic with random, rendered; the site, the ladder's and the
    comparison's ids."""
    root = tmp_path_factory.mktemp("club")
    lid = store_ladder(root / "arena.db", ["ace", "bea", "cy", "dot", "eve"], sets=12,
                       retire="dot")  # fmt: skip
    compared = store_comparison(root / "arena.db")
    render_site(root / "arena.db", root / "site")
    with Store(root / "arena.db", create=False) as store:
        assert store.tournament(lid).status == "interrupted"  # no run holds it: paused
    return root / "site", lid, compared.tid


def _rows_by_bot(driver: webdriver.Chrome, table: str) -> dict[str, str]:
    return {
        r.find_element(By.CSS_SELECTOR, "a.bot").text: r.text
        for r in driver.find_elements(By.CSS_SELECTOR, f"{table} tbody tr")
    }


def test_the_leaderboard_of_a_paused_ladder(
    browser: webdriver.Chrome, club: tuple[Path, str, str], viewport: int, tmp_path: Path
) -> None:
    site, lid, _ = club
    console_errors(browser)
    browser.get((site / "index.html").as_uri())
    lede = visible_texts(browser, ".hero .lede")[0]
    assert lede.startswith(f"Ladder {lid}") and "its latest sets" in lede
    rows = _rows_by_bot(browser, "table.standings")
    assert visible_texts(browser, "table.standings .tag.retired") == ["retired"]
    assert "retired" in rows["dot"]
    assert all("retired" not in text for bot, text in rows.items() if bot != "dot")
    # One count per bot: the Matches column is the place chart's n.
    matches = {
        r.find_element(By.CSS_SELECTOR, "a.bot").text: r.find_elements(By.TAG_NAME, "td")[3].text
        for r in browser.find_elements(By.CSS_SELECTOR, "table.standings tbody tr")
    }
    ns = re.findall(r"n=(\d+)", browser.page_source)
    assert sorted(ns) == sorted(matches.values())
    # No chart over time for a ladder, and the page says why.
    assert any("No chart over time for a ladder" in t for t in visible_texts(browser, "p.muted"))
    screenshot(browser, tmp_path / f"club-index-{viewport}.png", viewport)
    assert console_errors(browser) == []


def test_the_ladder_page_of_a_paused_ladder(
    browser: webdriver.Chrome, club: tuple[Path, str, str], viewport: int, tmp_path: Path
) -> None:
    site, lid, _ = club
    console_errors(browser)
    browser.get((site / "tournaments" / f"{lid}.html").as_uri())
    # The order: ranks without a gap, the retired bot kept in it with its mark.
    ranks = [int(t) for t in visible_texts(browser, "table.ladder-field tbody .rank") if t != "–"]
    assert ranks == list(range(1, len(ranks) + 1)) and len(ranks) == 5
    assert "retired" in _rows_by_bot(browser, "table.ladder-field")["dot"]
    # Paused: nothing playing now, the set a stop cut short named.
    assert not browser.find_elements(By.CSS_SELECTOR, "ul.running")
    (paused,) = visible_texts(browser, "p.paused")
    assert "not running" in paused and "step 12" in paused
    assert "in flight" not in visible_texts(browser, ".hero .lede")[0]
    # Every reason of the Why column is in the legend, shown.
    why = set(visible_texts(browser, "table.ladder-sets abbr.why"))
    assert why and why <= set(visible_texts(browser, "dl.why-legend dt"))
    # A latest set is one line tall, on a phone too.
    line = browser.execute_script(
        "const td = document.querySelector('table.ladder-sets tbody td');"
        "return [td.getBoundingClientRect().height, parseFloat(getComputedStyle(td).lineHeight)]"
    )
    assert line[0] < 2 * line[1] + 20, line
    screenshot(browser, tmp_path / f"club-ladder-{viewport}.png", viewport)
    assert console_errors(browser) == []


def test_bot_pages_mark_retired_and_list_comparisons(
    browser: webdriver.Chrome, club: tuple[Path, str, str], viewport: int, tmp_path: Path
) -> None:
    site, _, tid = club
    console_errors(browser)
    browser.get((site / "bots" / "dot.html").as_uri())
    assert visible_texts(browser, "h1 .tag.retired") == ["retired"]
    browser.get((site / "bots" / "heuristic.html").as_uri())
    section = browser.find_element(By.ID, "comparisons")
    assert section.is_displayed()
    link = section.find_element(By.CSS_SELECTOR, f"a[href$='tournaments/{tid}.html']")
    assert link.text == tid
    stat = visible_texts(browser, ".stats-cards .stat")[0]
    assert "its comparisons are below" in stat
    screenshot(browser, tmp_path / f"club-bot-{viewport}.png", viewport)
    link.click()
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith(f"Comparison {tid}")
    assert console_errors(browser) == []


def test_replay_chart_labels_read_on_a_phone(
    browser: webdriver.Chrome, club: tuple[Path, str, str], viewport: int
) -> None:
    site, _, _ = club
    replay = sorted((site / "matches").glob("*.html"))[0]
    browser.get(replay.as_uri())
    sizes = browser.execute_script(
        "return [...document.querySelectorAll('#score-chart-title ~ text.tick')]"
        ".map(t => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 9, sizes
