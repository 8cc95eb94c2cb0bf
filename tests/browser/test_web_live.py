"""The live leaderboard in Chromium: served by the web application (arena/web/pages.py) under
its Content-Security-Policy, it takes in a set stored meanwhile without a reload."""

from __future__ import annotations

import sys
from pathlib import Path

from browser_support import console_errors
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from site_support import ladder_set, store_ladder  # noqa: E402
from web_support import live_site  # noqa: E402

from arena.store import Store  # noqa: E402

BOTS = ["ace", "bea", "cy", "dot"]


def _matches_of(browser: webdriver.Chrome, name: str) -> str:
    row = browser.find_element(By.XPATH, f"//main//tr[.//a[contains(@href, 'bots/{name}.html')]]")
    return row.text


def test_the_leaderboard_takes_in_a_new_set_without_a_reload(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    tid = store_ladder(db, BOTS, sets=3)
    with live_site(db) as (url, _):
        browser.get(url + "/")
        console_errors(browser)  # forget what came before
        WebDriverWait(browser, 20).until(
            lambda b: b.execute_script(
                "return document.querySelector('script[src$=\"live.js\"]') !== null"
            )
        )
        # A mark on this document: a reload would lose it.
        browser.execute_script("window.arenaMark = 'kept';")
        before = browser.find_element(By.TAG_NAME, "main").get_attribute("innerHTML")
        row = _matches_of(browser, "dot")
        with Store(db) as store:
            step = store.ladder_sets(tid)[-1].step + 1
            epoch = store.ladder_epochs(tid)[-1].epoch
            ids = [store.latest_version(n).id for n in ("ace", "bea", "dot")]  # type: ignore[union-attr]
            ladder_set(store, tid, step, ids, epoch, finish=True)
        WebDriverWait(browser, 30).until(
            lambda b: b.find_element(By.TAG_NAME, "main").get_attribute("innerHTML") != before
        )
        assert browser.execute_script("return window.arenaMark") == "kept"
        assert _matches_of(browser, "dot") != row
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("data-live-version")
        # The swapped-in table is sortable again (site.js enhanced the new content).
        assert browser.find_elements(By.CSS_SELECTOR, "main th.sort-ready")
        assert console_errors(browser) == []
