"""Helpers of the browser tests: console errors, screenshots, viewports, and the geometry of
rendered bot names."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

PHONE = (390, 844)
"""A phone's viewport in CSS pixels (an iPhone 12 to 15)."""
DESKTOP = (1280, 900)

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


@contextmanager
def chromium() -> Iterator[webdriver.Chrome]:
    """A headless Debian Chromium driven by its own chromedriver, with a throw-away profile and
    its console log kept (the browser tests and ``bench/screenshots.py``)."""
    binary = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert binary and driver_path, "install Debian's chromium and chromium-driver (.ci/run)"
    options = webdriver.ChromeOptions()
    options.binary_location = binary
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


def console_errors(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """Console messages and failed loads at warning level or worse since the last call."""
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def set_viewport(driver: webdriver.Chrome, width: int, height: int) -> None:
    """Emulate a device of exactly this size (a desktop window cannot be made 390 px wide);
    below 600 px wide, as a mobile device."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def clear_viewport(driver: webdriver.Chrome) -> None:
    """Back to the window's own size."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def screenshot(driver: webdriver.Chrome, path: Path, width: int = DESKTOP[0]) -> None:
    """A full-page PNG at ``width`` CSS pixels (the viewport is grown to the page's height,
    then given back to the window)."""
    set_viewport(driver, width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    set_viewport(driver, width, min(int(height) + 40, 6000))
    try:
        assert driver.save_screenshot(str(path))
    finally:
        clear_viewport(driver)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {path}")


def scrolls_sideways(driver: webdriver.Chrome, element: WebElement) -> bool:
    """Whether ``element`` has more content than its width shows."""
    return bool(
        driver.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", element)
    )


def visible_texts(driver: webdriver.Chrome, css: str) -> list[str]:
    """The text of each displayed element matching ``css``."""
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]


_NAME_GEOMETRY = """
const out = [];
for (const e of document.querySelectorAll(arguments[0])) {
  const box = e.getBoundingClientRect();
  if (!e.getClientRects().length || box.width === 0) continue;   // not rendered
  const style = getComputedStyle(e);
  const vertical = style.writingMode.startsWith("vertical");
  // One rectangle per piece of text on a line (decorations such as the seat dot are not
  // text): count the distinct lines the pieces sit on.
  const lines = new Set();
  const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(t);
    for (const r of range.getClientRects()) {
      if (r.width > 0 && r.height > 0) lines.add(Math.round(vertical ? r.left : r.top));
    }
  }
  // How far the name's text sits below (+) or above (-) the text just before it on the same
  // line, at the same font size: 0 when the name is on the line's baseline.
  let baselineGap = null;
  const first = (() => {
    const w = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let t = w.nextNode(); t; t = w.nextNode()) if (t.data.trim()) return t;
    return null;
  })();
  const container = e.parentElement.closest("p, dd, li, div, td, th, h1, h2, h3");
  if (first && container) {
    let before = null;
    const w = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
    for (let t = w.nextNode(); t; t = w.nextNode()) {
      if (e.contains(t)) break;
      if (t.data.trim() && !t.parentElement.closest(".card, .seat-dot")) before = t;
    }
    if (before) {
      const end = before.data.trimEnd().length;
      const r1 = document.createRange();
      r1.setStart(before, end - 1); r1.setEnd(before, end);
      const r2 = document.createRange();
      r2.setStart(first, 0); r2.setEnd(first, 1);
      const a = r1.getBoundingClientRect(), b = r2.getBoundingClientRect();
      const sameSize = getComputedStyle(before.parentElement).fontSize === style.fontSize;
      if (sameSize && Math.abs(a.top - b.top) < a.height * 0.8) baselineGap = b.bottom - a.bottom;
    }
  }
  const block = style.display !== "inline";
  out.push({
    text: e.textContent,
    lines: lines.size,
    cut: block && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1),
    left: box.left + window.scrollX,
    right: box.right + window.scrollX,
    width: box.width,
    height: box.height,
    vertical: vertical,
    in_scroll_box: e.closest(".table-scroll") !== null,
    in_trick: e.closest(".who") !== null,
    baseline_gap: baselineGap,
  });
}
return out;
"""


def name_geometry(driver: webdriver.Chrome, css: str) -> list[dict[str, Any]]:
    """For each rendered element matching ``css``: its text, the number of lines the text
    takes, whether an ellipsis cuts it, its box, whether it sits in a scrolling box, and how
    far its text sits from the baseline of the text before it on the same line."""
    return list(driver.execute_script(_NAME_GEOMETRY, css))
