"""Fixtures of the browser tests: the site of a real ``arena run``, a real ``arena serve``
process, and a headless Chromium (Debian's ``chromium`` and ``chromium-driver``)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from site_support import run_tournament, serving  # noqa: E402 (needs the path above)

# The flags this machine needs for Chromium as root, with nothing fetched from the network.
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site that a real ``arena run`` rendered (shared with tests/test_site.py)."""
    return run_tournament(tmp_path_factory.getbasetemp() / "arena-run") / "site"


@pytest.fixture(scope="session")
def server(site: Path) -> Iterator[str]:
    """A real ``arena serve`` process for the site; yields its base URL."""
    with serving(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    """One headless Chromium for the session (its console log is read by the tests)."""
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "install Debian's chromium and chromium-driver (.ci/run)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument("--window-size=1280,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
