"""The report in real headless Chromium: sections, console, sorting, colour-by, screenshot."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from spadework.report import SECTION_IDS, build_report
from spadework.report.browser import browser_session, check_report, missing_reason, severe_messages
from spadework.report.command import add_parser

pytestmark = [pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason())),
              pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def report(report_run: Any) -> Path:
    return build_report(report_run.run_dir, report_run.diversity)


def test_check_finds_every_section_no_console_error_and_saves_a_png(report: Path, tmp_path: Path):
    result = check_report(report, screenshot=tmp_path / "shot.png")
    assert result.sections == SECTION_IDS and result.missing == () and result.errors == ()
    assert result.ok
    assert result.screenshot is not None and result.screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def ids_in_order(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#env-table tbody tr')).map(r => r.dataset.env);")


def regrets_in_order(driver) -> list[float | None]:
    """The regret column as displayed, top to bottom (None where blank)."""
    values = driver.execute_script(
        "return Array.from(document.querySelectorAll('#env-table tbody tr'))"
        ".map(r => r.cells[6].getAttribute('data-sort'));")
    return [float(v) if v else None for v in values]


def click(driver, element) -> None:
    """Scroll ``element`` to the middle of the window (clear of the sticky header), then click it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def known_first(values: list[float | None]) -> list[float]:
    known = [v for v in values if v is not None]
    assert values[: len(known)] == known, "blank values sort last"
    return known


def test_sorting_colouring_and_opening_an_environment(report: Path, report_run: Any):
    from selenium.webdriver.common.by import By

    with browser_session() as driver:
        driver.get(report.as_uri())
        before = ids_in_order(driver)
        assert before == sorted(before, key=int)
        regret = driver.find_element(By.XPATH, "//table[@id='env-table']//th[normalize-space()='regret']")
        click(driver, regret)
        assert ids_in_order(driver) != before and regret.get_attribute("aria-sort") == "ascending"
        ascending = known_first(regrets_in_order(driver))
        assert ascending == sorted(ascending) and ascending[0] < ascending[-1]
        click(driver, regret)
        assert regret.get_attribute("aria-sort") == "descending"
        assert known_first(regrets_in_order(driver)) == sorted(ascending, reverse=True)

        point = driver.find_element(By.CSS_SELECTOR, "#diversity svg.scatter circle[data-index='0']")
        first = point.get_attribute("fill")
        button = "#diversity .segmented button[data-mode='{}']"
        click(driver, driver.find_element(By.CSS_SELECTOR, button.format("domain")))
        assert point.get_attribute("fill") != first
        legend = "#diversity .legend[data-mode='{}']"
        assert driver.find_element(By.CSS_SELECTOR, legend.format("domain")).is_displayed()
        assert not driver.find_element(By.CSS_SELECTOR, legend.format("iteration")).is_displayed()

        detail = driver.find_element(By.ID, f"env-{report_run.hostile_id}")
        assert not detail.is_displayed()
        click(driver, driver.find_element(By.CSS_SELECTOR, f"tr.env-row[data-env='{report_run.hostile_id}']"))
        assert detail.is_displayed() and "alert(1)" in detail.text  # shown as text, never run
        assert severe_messages(driver) == []
        assert driver.execute_script("return document.scripts.length") == 2  # no archived text ran


def test_cli_check_prints_sections_and_the_screenshot(report_run: Any, tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setattr("spadework.report.build.measure_diversity", lambda run_dir, valid: (None, "skipped"))
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    out = str(tmp_path / "r.html")
    args = parser.parse_args(["report", str(report_run.run_dir), "--out", out, "--check"])
    assert args.run(args) == 0
    printed = capsys.readouterr().out
    assert f"sections: {', '.join(SECTION_IDS)}" in printed and "console errors: 0" in printed
    assert f"screenshot: {report_run.run_dir / 'report.png'}" in printed
    assert (report_run.run_dir / "report.png").read_bytes()[:4] == b"\x89PNG"
