"""The README's screenshots: the leaderboard and a match replay of a real tournament's site.

Run by hand (``make screenshots``) after a change to the site's look::

    python bench/screenshots.py                    # writes docs/images/leaderboard.png, replay.png
    python bench/screenshots.py --out /tmp/shots   # somewhere else

Everything is the real thing: the ``arena`` console script runs a small duplicate round robin
of the three bundled bots, sandboxed, into a fresh database and renders its site; Debian's
headless Chromium (the browser tests' driver, ``tests/browser/browser_support.py``) opens the
pages from disk and photographs them. The tournament's seed and deal secret are fixed, so every
run deals the same cards (the standings repeat too on a quiet machine; the Monte-Carlo bot's
safety clock can cut a search short under heavy load).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By

from arena.matches.secrecy import SecretFile

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "browser"))

from browser_support import (  # noqa: E402
    chromium,
    clear_viewport,
    console_errors,
    set_viewport,
)

BOTS = ("random", "heuristic", "montecarlo")
ROUNDS = 8
SEED = 1
# A fixed deal secret (a throw-away tournament: nothing to hide), so the deals repeat.
SECRET = hashlib.sha256(b"euchre-arena screenshots").digest()
WIDTH = 1100


def run_tournament(work: Path) -> Path:
    """Play the tournament with the real console script; the site's folder."""
    secret_file = work / "secret.json"
    secret_file.write_text(SecretFile(SEED, SECRET).to_json(), encoding="utf-8")
    arena = Path(sys.executable).with_name("arena")
    command = [str(arena), "run", *BOTS, "--rounds", str(ROUNDS), "--seed", str(SEED)]
    command += ["--secret-file", str(secret_file), "--db", str(work / "arena.db")]
    command += ["--out", str(work / "site"), "--workers", "2"]
    subprocess.run(command, check=True, cwd=work, stdout=subprocess.DEVNULL)
    return work / "site"


def shoot(driver: webdriver.Chrome, url: str, path: Path, css: str, top: bool = False) -> None:
    """A PNG, ``WIDTH`` CSS pixels wide, of the first element matching ``css`` at ``url``; with
    ``top``, of the page from its top down to the end of the last element matching ``css``."""
    driver.get(url)
    set_viewport(driver, WIDTH, 2400)  # tall enough for the whole element
    try:
        element = driver.find_element(By.CSS_SELECTOR, css)
        if top:
            bottom = driver.execute_script(
                "return Math.max(...[...document.querySelectorAll(arguments[0])].map("
                "e => e.parentElement.getBoundingClientRect().bottom + window.scrollY))",
                css,
            )
            set_viewport(driver, WIDTH, int(bottom) + 20)
            driver.execute_script("window.scrollTo(0, 0)")
            assert driver.save_screenshot(str(path)), url
        else:
            driver.execute_script("arguments[0].scrollIntoView()", element)
            assert element.screenshot(str(path)), url
    finally:
        clear_viewport(driver)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
    errors = console_errors(driver)
    assert not errors, errors
    print(f"{path}: {css} of {url}")


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arena-shots-") as tmp:
        site = run_tournament(Path(tmp))
        with chromium() as driver:
            # The leaderboard: the page from its top to the end of the charts.
            index = (site / "index.html").as_uri()
            shoot(driver, index, args.out / "leaderboard.png", "figure.chart", top=True)
            # A replay: the first match of the tournament page, its first hand in which the
            # maker took the dummy (deal, bids, tricks, then the cards hidden during the hand).
            driver.get(next((site / "tournaments").glob("*.html")).as_uri())
            match = driver.find_element(By.CSS_SELECTOR, "a[href*='matches/']")
            url = match.get_attribute("href") or ""
            driver.get(url)
            hands = driver.find_elements(By.CSS_SELECTOR, "article.hand")
            chosen = next((h for h in hands if "takes the dummy" in h.text), hands[0])
            css = f"article.hand#{chosen.get_attribute('id')}"
            shoot(driver, url, args.out / "replay.png", css)


if __name__ == "__main__":
    main()
