"""A ladder's live page, and the pages ``arena serve`` renders on request (an old replay, a
whole match list), in a real headless Chromium against a real ``arena serve`` process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import console_errors, screenshot, visible_texts
from selenium import webdriver
from selenium.webdriver.common.by import By
from site_support import serving, store_ladder

from arena.site import render_site
from arena.store import Store

NAMES = ["ace", "bea", "cy", "dot", "eve"]


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, str]]:
    """A ladder of five bots (one replaced, one retired, one set in flight) whose site keeps
    two replays as files, served with its database; yields the URL, the folder and its id."""
    root = tmp_path_factory.mktemp("ladder-site")
    tid = store_ladder(root / "arena.db", NAMES, sets=8, epoch_sets=3, replace="bea", retire="dot")
    render_site(root / "arena.db", root / "site", replays=2)
    with serving(root / "site", root / "arena.db") as url:
        yield url, root, tid


def test_ladder_page_in_browser(
    browser: webdriver.Chrome, ladder: tuple[str, Path, str], tmp_path: Path
) -> None:
    url, _, tid = ladder
    browser.get(url)
    browser.find_element(By.LINK_TEXT, "Tournament").click()  # the ladder is the current one
    assert browser.current_url.endswith(f"/tournaments/{tid}.html")
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith(f"Ladder {tid}")
    field = visible_texts(browser, "table.ladder-field tbody tr:not(.left-field) a.bot")
    assert sorted(field) == ["ace", "bea", "cy", "eve"]
    # The retired bot keeps its rank in the order, marked.
    assert "dot" in visible_texts(browser, "table.ladder-field tbody tr.left-field a.bot")
    assert "retired" in visible_texts(browser, "table.ladder-field tbody tr.left-field .tag")
    # Sorting by sets played (site.js): the column's numbers come out in order.
    header = browser.find_element(By.XPATH, "//table[contains(@class,'ladder-field')]//th[4]")
    header.click()
    sets = [int(t) for t in visible_texts(browser, "table.ladder-field tbody td:nth-child(4)")]
    assert sets == sorted(sets) or sets == sorted(sets, reverse=True)
    # No run holds it: paused, the set a stop cut short named (not "playing now").
    assert not visible_texts(browser, "ul.running li")
    assert "step 8" in visible_texts(browser, "p.paused")[0]
    left = visible_texts(browser, "table.ladder-left tbody td:nth-child(3)")
    assert sorted(left) == ["replaced", "retired"]
    screenshot(browser, tmp_path / "ladder.png")
    assert console_errors(browser) == []


def test_ladder_page_on_a_phone(browser: webdriver.Chrome, ladder: tuple[str, Path, str]) -> None:
    url, _, tid = ladder
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        browser.get(f"{url}tournaments/{tid}.html")
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0  # the wide tables scroll inside their own boxes
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert console_errors(browser) == []


def test_an_old_replay_served_on_request(
    browser: webdriver.Chrome, ladder: tuple[str, Path, str], tmp_path: Path
) -> None:
    url, root, tid = ladder
    with Store(root / "arena.db", create=False) as store:
        oldest = store.match_rows(tid=tid)[0].id  # step 0 (its sets were stored in step order)
    assert not (root / "site" / "matches" / f"{oldest}.html").exists()
    # Reached the way a reader does: the whole list of the ladder's matches, its last page.
    browser.get(f"{url}matches.html?tournament={tid}")
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Matches of Tournament {tid}"
    browser.find_element(By.LINK_TEXT, oldest).click()
    assert browser.current_url.endswith(f"/matches/{oldest}.html")
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Match ")
    assert len(visible_texts(browser, "table.seats tbody a.bot")) == 3
    # site.js runs on the served page as on a file: the trick stepper works.
    hand = next(
        h
        for h in browser.find_elements(By.CSS_SELECTOR, "article.hand")
        if h.find_elements(By.CSS_SELECTOR, ".stepper")
    )
    buttons = {b.text: b for b in hand.find_elements(By.CSS_SELECTOR, ".stepper button")}
    buttons["\u00ab First"].click()
    tricks = hand.find_elements(By.CSS_SELECTOR, "tr.trick")
    assert sum(t.is_displayed() for t in tricks) == 1
    screenshot(browser, tmp_path / "served-replay.png")
    assert console_errors(browser) == []
