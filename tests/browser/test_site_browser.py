"""The rendered site in a real headless Chromium, served by a real ``arena serve`` process.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them). Screenshots
are saved in the test's temporary folder (printed with ``-s``; pytest keeps the last runs
under ``/tmp/pytest-of-$USER``).
"""

from __future__ import annotations

from pathlib import Path

from browser_support import console_errors, screenshot, visible_texts
from selenium import webdriver
from selenium.webdriver.common.by import By
from site_support import RUN_BOTS

BOTS = list(RUN_BOTS)


def test_leaderboard_in_browser(browser: webdriver.Chrome, server: str, tmp_path: Path) -> None:
    browser.get(server)
    assert browser.title == "Leaderboard · Euchre Arena"
    assert browser.find_element(By.TAG_NAME, "h1").text == "Leaderboard"
    names = visible_texts(browser, "table.standings tbody a.bot")
    assert sorted(names) == sorted(BOTS)
    assert names[-1] == "crashy"  # it forfeits by a fault: last
    # The stylesheet really applied (served from static/, not a CDN).
    header_bg = browser.find_element(By.CSS_SELECTOR, "header.top").value_of_css_property(
        "background-color"
    )
    assert header_bg == "rgba(15, 23, 42, 1)"
    for chart in browser.find_elements(By.CSS_SELECTOR, "figure.chart svg"):
        assert chart.size["width"] > 300 and chart.size["height"] > 80
    # Sorting by a header click (site.js): by name, then back.
    header = browser.find_element(By.XPATH, "//table[contains(@class,'standings')]//th[2]")
    header.click()
    assert visible_texts(browser, "table.standings tbody a.bot") == sorted(names)
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert visible_texts(browser, "table.standings tbody a.bot") == sorted(names, reverse=True)
    screenshot(browser, tmp_path / "leaderboard.png")
    assert console_errors(browser) == []


def test_leaderboard_on_a_phone(browser: webdriver.Chrome, server: str, tmp_path: Path) -> None:
    # A real phone viewport (desktop windows have a minimum width): 390 CSS px, no desktop chrome.
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        browser.get(server)
        assert browser.execute_script("return window.innerWidth") == 390
        # Nothing pushes the page sideways: wide tables scroll inside their own box.
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0
        names = visible_texts(browser, "table.standings tbody a.bot")
        assert sorted(names) == sorted(BOTS)  # whole words, not split letters
        name_width = browser.find_element(By.CSS_SELECTOR, "table.standings a.bot").size["width"]
        assert name_width > 40
        assert browser.save_screenshot(str(tmp_path / "leaderboard-phone.png"))
        print(f"screenshot: {tmp_path / 'leaderboard-phone.png'}")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert console_errors(browser) == []


def test_bot_page_in_browser(browser: webdriver.Chrome, server: str, tmp_path: Path) -> None:
    browser.get(server)
    browser.find_element(By.LINK_TEXT, "crashy").click()
    assert browser.current_url.endswith("/bots/crashy.html")
    assert browser.find_element(By.TAG_NAME, "h1").text == "crashy"
    labels = visible_texts(browser, ".stat-label")
    assert labels[0] == "matches" and visible_texts(browser, ".stat-value")[0] == "18"
    faults = visible_texts(browser, "table.faults tbody tr")
    assert faults and all("RuntimeError: crashy gives up" in f for f in faults)
    screenshot(browser, tmp_path / "bot.png")
    assert console_errors(browser) == []


def test_match_page_steps_through_tricks(
    browser: webdriver.Chrome, server: str, tmp_path: Path
) -> None:
    browser.get(server)
    browser.find_element(By.LINK_TEXT, "Tournament").click()
    browser.find_element(By.CSS_SELECTOR, "table.matches tbody a[href*='matches/']").click()
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Match ")
    seats = visible_texts(browser, "table.seats tbody a.bot")
    assert len(seats) == 3
    hand = next(
        h
        for h in browser.find_elements(By.CSS_SELECTOR, "article.hand")
        if h.find_elements(By.CSS_SELECTOR, ".stepper")
    )
    tricks = hand.find_elements(By.CSS_SELECTOR, "tr.trick")
    assert len(tricks) == 5 and all(t.is_displayed() for t in tricks)

    def shown() -> int:
        return sum(t.is_displayed() for t in tricks)

    buttons = {b.text: b for b in hand.find_elements(By.CSS_SELECTOR, ".stepper button")}
    buttons["\u00ab First"].click()
    assert shown() == 1
    assert hand.find_element(By.CSS_SELECTOR, ".step-status").text == "trick 1 of 5"
    buttons["Next \u25b6"].click()
    buttons["Next \u25b6"].click()
    assert shown() == 3
    buttons["\u25c0 Prev"].click()
    assert shown() == 2
    buttons["All"].click()
    assert shown() == 5
    screenshot(browser, tmp_path / "match.png")
    assert console_errors(browser) == []


def test_site_works_from_file_urls(browser: webdriver.Chrome, site: Path) -> None:
    browser.get((site / "index.html").as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text == "Leaderboard"
    browser.find_element(By.LINK_TEXT, "Head-to-head").click()
    cells = browser.find_elements(By.CSS_SELECTOR, "table.matrix td strong")
    assert len(cells) == len(BOTS) * (len(BOTS) - 1)
    assert console_errors(browser) == []
