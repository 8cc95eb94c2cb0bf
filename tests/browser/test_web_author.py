"""An author in headless Chromium: logs in with a token, uploads a bot with the form, sees it
stored on their page, and sees its first ladder set appear there (``arena ladder`` running
beside ``arena web`` on the same database), with what the bot printed escaped."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from browser_support import console_errors
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait
from web_support import web_server

from arena.api import Arena
from arena.web.context import WebSettings

REPO = Path(__file__).resolve().parents[2]

BOT = """class Bot:
    name = "webbot"

    def act(self, obs):
        import sys
        print("<script>alert('xss')</script> thinking", file=sys.stderr)
        return obs["legal"][0]
"""


def wait_until(driver: webdriver.Chrome, ready: Callable[[], bool], seconds: float) -> None:
    """Reload the page until ``ready()`` (bounded: an AssertionError after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, driver.page_source[-3000:]
        time.sleep(0.5)
        driver.refresh()


def submit(driver: webdriver.Chrome, button: str) -> None:
    """Click a form's ``button`` and wait until the page it posts to has replaced this one (a
    click returns before the navigation ends)."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, button).click()
    WebDriverWait(driver, 60).until(expected_conditions.staleness_of(page))


def test_an_author_uploads_with_the_form_and_sees_the_first_set(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    with Arena(db) as arena:
        _, token = arena.add_author("alice")
    bot = tmp_path / "webbot.py"
    bot.write_text(BOT, encoding="utf-8")
    console_errors(browser)  # forget the earlier tests' messages
    with web_server(WebSettings(db)) as url:
        browser.get(f"{url}/me")
        assert browser.current_url == f"{url}/login"  # a visitor is sent to log in
        browser.find_element(By.ID, "token").send_keys(token)
        submit(browser, "form.web-form button")
        assert browser.current_url == f"{url}/me"
        assert "alice" in browser.find_element(By.TAG_NAME, "h1").text

        browser.find_element(By.ID, "file").send_keys(str(bot))
        submit(browser, "form[action='/me/upload'] button")

        def stored() -> bool:
            found = browser.find_elements(By.CSS_SELECTOR, ".my-bot .version")
            return bool(found) and found[0].text == "v1"

        wait_until(browser, stored, 120)
        assert browser.find_element(By.CSS_SELECTOR, ".my-bot .check-status").text == "stored"

        ladder = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "ladder", "random", "heuristic", "--db",
             str(db), "--workers", "1", "--max-sets", "2", "--seconds", "240"],
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_until(
                browser, lambda: bool(browser.find_elements(By.CSS_SELECTOR, "details.log")), 240
            )
        finally:
            ladder.terminate()
            ladder.wait(60)
        log = browser.find_element(By.CSS_SELECTOR, "details.log")
        log.click()
        printed = log.find_element(By.TAG_NAME, "pre").text
        assert "<script>alert('xss')</script> thinking" in printed  # shown as text
        try:
            browser.switch_to.alert  # noqa: B018 (raises when no alert is open)
            raise AssertionError("a script the bot printed ran")
        except NoAlertPresentException:
            pass
    assert console_errors(browser) == []
