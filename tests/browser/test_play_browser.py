"""Playing the bots in headless Chromium, on a phone's screen: start a game from /play, then
play a whole hand by tapping the cards and buttons, under the app's Content-Security-Policy
(no inline script or style), with nothing on the console."""

from __future__ import annotations

import time
from pathlib import Path

from browser_support import PHONE, clear_viewport, console_errors, set_viewport
from play_support import app, serving, stored_bots
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from arena import Arena


def _tap_once(browser: webdriver.Chrome) -> bool:
    """Make the decision the page asks for, by tapping; False when none is asked now."""
    turn = browser.find_element(By.ID, "turn")
    if not turn.is_displayed():
        return False
    keep = browser.find_elements(By.ID, "keep")
    if keep:  # the maker takes the dummy: tap five cards, one at a time, then Keep
        picked = browser.find_elements(By.CSS_SELECTOR, "button.play-card.picked")
        if len(picked) < 5:
            css = "button.play-card.playable:not(.picked)"
            browser.find_elements(By.CSS_SELECTOR, css)[0].click()
        else:
            keep[0].click()
        return True
    playable = browser.find_elements(By.CSS_SELECTOR, "#hand button.play-card.playable")
    if playable:  # play or discard: tap a highlighted card
        playable[0].click()
        return True
    choices = browser.find_elements(By.CSS_SELECTOR, "#choices button")
    if not choices:
        return False
    choices[-1].click()  # order up, name a suit, go alone: hands get played
    return True


def test_a_person_plays_a_whole_hand_by_tapping(browser: webdriver.Chrome, tmp_path: Path) -> None:
    db = stored_bots(tmp_path / "arena.db")
    set_viewport(browser, *PHONE)
    try:
        with serving(app(db)) as url:
            console_errors(browser)
            browser.get(f"{url}/play")
            browser.find_element(By.NAME, "name").send_keys("<i>carol</i>")
            Select(browser.find_element(By.NAME, "opponent1")).select_by_value("heuristic")
            Select(browser.find_element(By.NAME, "opponent2")).select_by_value("random")
            browser.find_element(By.CSS_SELECTOR, "input[name=seat][value='1']").click()
            browser.find_element(By.ID, "start").click()
            WebDriverWait(browser, 30).until(lambda d: "/games/" in d.current_url)
            taps = 0
            deadline = time.monotonic() + 180
            # A whole hand: until the table lists it among the hands played (or the match ends).
            while not browser.find_elements(By.CSS_SELECTOR, "#history li"):
                assert time.monotonic() < deadline, "no hand was finished"
                assert not browser.find_element(By.ID, "result").is_displayed()
                try:
                    tapped = _tap_once(browser)
                except StaleElementReferenceException:  # the page showed a new state meanwhile
                    tapped = False
                if tapped:
                    taps += 1
                    time.sleep(0.3)  # the page answers, then polls for the next turn
                else:
                    time.sleep(0.1)
            assert taps >= 1
            history = browser.find_element(By.CSS_SELECTOR, "#history li").text
            assert history.startswith("Hand 1:")
            names = browser.find_element(By.ID, "scores").text
            assert "You" in names and "heuristic" in names and "random" in names
            # Nothing overflows a phone's width; the cards are big enough to tap.
            width = browser.execute_script("return document.documentElement.scrollWidth")
            assert width <= PHONE[0]
            for card in browser.find_elements(By.CSS_SELECTOR, "#hand button.play-card"):
                assert card.size["height"] >= 40 and card.size["width"] >= 40
            assert console_errors(browser) == []
            assert browser.find_elements(By.TAG_NAME, "i") == []  # the name stayed text
            browser.find_element(By.ID, "leave").click()
            WebDriverWait(browser, 60).until(
                lambda d: d.find_element(By.ID, "result").is_displayed()
            )
            assert "You forfeited" in browser.find_element(By.ID, "status").text
    finally:
        clear_viewport(browser)
    with Arena(db) as arena:
        [listed] = arena.tournaments()
        assert listed.tournament.kind == "human"
        assert "<i>carol</i> (human)" in {
            r[0] for r in arena.store.conn.execute("SELECT name FROM bots")
        }
