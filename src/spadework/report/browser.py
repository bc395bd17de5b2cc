"""Open a report in headless Chromium: which sections render, what the console says, a screenshot.

Uses selenium with the system's chromium and chromedriver (Debian: ``apt-get install chromium
chromium-driver``); the driver path is passed explicitly, so nothing is downloaded.
"""

from __future__ import annotations

import base64
import resource
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.errors import UsageError
from spadework.report.build import SECTION_IDS

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)
INSTALL_HINT = "install them with `apt-get install chromium chromium-driver` (and `pip install selenium`)"
WINDOW = (1280, 900)
MAX_SCREENSHOT_HEIGHT = 16_000


@dataclass(frozen=True)
class BrowserCheck:
    """What the browser saw.

    Attributes:
        sections: ids of the expected sections present on the page, in page order.
        missing: expected section ids not on the page.
        errors: SEVERE console messages (script errors, failed loads).
        screenshot: the full-page PNG, or None when none was asked for.
    """

    sections: tuple[str, ...]
    missing: tuple[str, ...]
    errors: tuple[str, ...]
    screenshot: Path | None

    @property
    def ok(self) -> bool:
        """Whether every expected section is on the page and the console showed no errors."""
        return not self.missing and not self.errors


def find_chromium() -> tuple[str, str] | None:
    """(browser, driver) paths when both are installed, else None."""
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = next((p for p in map(shutil.which, DRIVERS) if p), None)
    if driver is None and Path("/usr/lib/chromium/chromedriver").is_file():
        driver = "/usr/lib/chromium/chromedriver"
    return (browser, driver) if browser and driver else None


def missing_reason() -> str | None:
    """Why the browser check cannot run here (with what to install), or None when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return f"selenium is not installed; {INSTALL_HINT}"
    if find_chromium() is None:
        return f"chromium or chromedriver is not installed; {INSTALL_HINT}"
    return None


def _lift_address_space_limit() -> None:
    """In the driver's process, before it starts: Chromium reserves far more address space than it
    uses and dies under a lowered soft limit (as test runs set), so raise it back to the hard one."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


@contextmanager
def browser_session(window: tuple[int, int] = WINDOW) -> Iterator[Any]:
    """A headless Chromium WebDriver that records the browser console; quit on exit.

    Raises:
        UsageError: selenium, chromium or chromedriver is missing (the message says what to install).
    """
    reason = missing_reason()
    if reason is not None:
        raise UsageError(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = find_chromium() or ("", "")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={window[0]},{window[1]}", "--hide-scrollbars"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(driver_path, popen_kw={"preexec_fn": _lift_address_space_limit})
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def severe_messages(driver: Any) -> list[str]:
    """The SEVERE entries of the browser console since the last call."""
    return [entry.get("message", "") for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def full_screenshot(driver: Any, path: Path) -> Path:
    """A PNG of the whole page (not only the window), cut at ``MAX_SCREENSHOT_HEIGHT`` pixels."""
    driver.execute_script("window.scrollTo(0, 0);")
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
    width = int(size.get("width") or WINDOW[0])
    height = min(int(size.get("height") or WINDOW[1]), MAX_SCREENSHOT_HEIGHT)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
    })
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def present_sections(driver: Any) -> list[str]:
    """Ids of the page's ``<section>`` elements, in page order."""
    return list(driver.execute_script(
        "return Array.from(document.querySelectorAll('section[id]')).map(s => s.id);"))


def check_report(report: Path, screenshot: Path | None = None,
                 expected: Sequence[str] = SECTION_IDS) -> BrowserCheck:
    """Open ``report`` headless; list its sections and console errors; save a full screenshot.

    Args:
        report: the HTML file.
        screenshot: where to save the PNG; None for no screenshot.
        expected: the section ids it should have (the run report's by default).

    Raises:
        UsageError: no such file, or the browser is missing.
    """
    report = Path(report).resolve()
    if not report.is_file():
        raise UsageError(f"{report} does not exist; write it first with `spadework report RUN_DIR`")
    with browser_session() as driver:
        driver.get(report.as_uri())
        found = present_sections(driver)
        errors = severe_messages(driver)
        shot = full_screenshot(driver, screenshot) if screenshot is not None else None
    sections = tuple(s for s in found if s in expected)
    missing = tuple(s for s in expected if s not in found)
    return BrowserCheck(sections, missing, tuple(errors), shot)
