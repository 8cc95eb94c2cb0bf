"""The clone flag in a real headless Chromium against a real ``arena serve``: the tag beside a
flagged bot in the ladder's order leads to the evidence, nothing overflows on a phone, and
the page logs no error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import console_errors, screenshot, visible_texts
from selenium import webdriver
from selenium.webdriver.common.by import By
from site_support import serving, store_ladder

from arena.site import render_site

pytestmark = pytest.mark.slow

SOURCE = 'class Bot:\n    name = "ace"\n    n = 0\n'


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Five bots, bea a byte-for-byte copy of ace under another owner; served."""
    root = tmp_path_factory.mktemp("clone-site")
    tid = store_ladder(
        root / "arena.db",
        ["ace", "bea", "cy", "dot", "eve"],
        sets=6,
        sources={"ace": SOURCE, "bea": SOURCE},
        owners={"ace": "owner-a", "bea": "owner-b"},
    )
    render_site(root / "arena.db", root / "site")
    with serving(root / "site", root / "arena.db") as url:
        yield url, tid


def test_the_flag_leads_to_the_evidence(
    browser: webdriver.Chrome, ladder: tuple[str, str], tmp_path: Path
) -> None:
    url, tid = ladder
    browser.get(f"{url}tournaments/{tid}.html")
    rows = browser.find_elements(By.CSS_SELECTOR, "table.ladder-field tbody tr")
    tagged = sorted(
        r.find_element(By.CSS_SELECTOR, "a.bot").text
        for r in rows
        if r.find_elements(By.CSS_SELECTOR, ".clone-flag")
    )
    assert tagged == ["ace", "bea"]
    flag = browser.find_element(By.CSS_SELECTOR, ".clone-flag")
    assert "identical code: the same file as" in (flag.get_attribute("title") or "")
    flag.click()
    assert browser.current_url.endswith("#clones")
    lines = visible_texts(browser, "ul.clones li")
    assert len(lines) == 2 and all("identical code" in x and "of another owner" in x for x in lines)
    screenshot(browser, tmp_path / "clones.png")
    assert console_errors(browser) == []


def test_the_flag_fits_a_phone(browser: webdriver.Chrome, ladder: tuple[str, str]) -> None:
    url, tid = ladder
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        browser.get(f"{url}tournaments/{tid}.html")
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert console_errors(browser) == []
