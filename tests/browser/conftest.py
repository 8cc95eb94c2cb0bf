"""Fixtures of the browser tests: the site of a real ``arena run``, a real ``arena serve``
process, and a headless Chromium (Debian's ``chromium`` and ``chromium-driver``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from browser_support import chromium  # noqa: E402 (needs the path above)
from site_support import run_tournament, serving  # noqa: E402


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
    with chromium() as driver:
        yield driver
