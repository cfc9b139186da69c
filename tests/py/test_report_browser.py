# SPDX-License-Identifier: GPL-2.0-only
"""The report pages in a real browser: Debian's Chromium, driven by chromedriver.

`hotpath run` (against the scripted runner), `hotpath report last` and
`hotpath compare --html` each write a page; each is opened in headless
Chromium 1280 pixels wide and must show no console error, draw every
image (inline SVG plots and any <img>), and keep the summary box inside
the window (no horizontal scrolling: wide tables scroll in their own box).
A screenshot of each first screen is written to build/screenshots/ for a
person to look at. Chromium and chromium-driver come from the set-up
(scripts/setup.sh); missing, the test fails and says so.
"""

import shutil
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from conftest import ROOT

pytestmark = pytest.mark.usefixtures("fake_runner")

WIDTH, HEIGHT = 1280, 900
SHOTS = ROOT / "build" / "screenshots"
# The flags this machine's network needs (closed: no background fetches).
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", f"--window-size={WIDTH},{HEIGHT}",
)  # fmt: skip


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, (
        "chromium and chromedriver are needed (Debian chromium, chromium-driver: "
        "scripts/setup.sh installs them)"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(options=options, service=Service(driver))
    session.set_window_size(WIDTH, HEIGHT)
    yield session
    session.quit()


def check_page(browser, page: Path, shot: str) -> dict:
    """Open `page`; assert no console error, every image drawn, the summary
    inside the window; write the first screen to build/screenshots/."""
    browser.get_log("browser")  # drop what an earlier page left
    browser.get(page.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert not errors, errors
    images = browser.execute_script(
        "return Array.from(document.querySelectorAll('img')).map("
        "i => [i.src, i.complete && i.naturalWidth > 0])"
    )
    assert all(ok for _, ok in images), images
    drawn = browser.execute_script(
        "return Array.from(document.querySelectorAll('figure svg')).map("
        "s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    assert all(w > 100 and h > 100 for w, h in drawn), drawn
    box = browser.execute_script(
        "const s = document.getElementById('summary').getBoundingClientRect();"
        "return {left: s.left, right: s.right, top: s.top, inner: window.innerWidth,"
        " page: document.documentElement.scrollWidth,"
        " client: document.documentElement.clientWidth};"
    )
    assert box["left"] >= 0 and box["right"] <= box["inner"], box
    assert box["page"] <= box["client"], f"the page scrolls sideways: {box}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / shot))
    return {"svgs": len(drawn), "images": len(images)}


def test_run_report_in_chromium(cli, browser, tmp_path: Path):
    db = str(tmp_path / "h.sqlite")
    out = tmp_path / "report"
    assert cli("run", "--quick", "--out", str(out), "--db", db).status == 0
    seen = check_page(browser, out / "report.html", "report-first-screen.png")
    assert seen["svgs"] >= 4  # a plot per primitive and mode at least
    # The summary is the page's first section and names every lab's answer.
    text = browser.find_element("id", "summary").text
    for words in ("fastest", "hotpath's own", "seed's claims", "csum", "crc32c"):
        assert words in text
    heat = browser.execute_script("return document.querySelectorAll('td.heat').length")
    assert heat > 50


def test_stored_run_and_comparison_in_chromium(cli, browser, tmp_path: Path, monkeypatch):
    db = str(tmp_path / "h.sqlite")
    assert cli("csum", "--rounds", "20", "--db", db).status == 0
    monkeypatch.setenv("FAKE_RUNNER_SCALE", "1.25")
    assert cli("csum", "--rounds", "20", "--db", db).status == 0
    page = tmp_path / "stored"
    assert cli("report", "last", "--out", str(page), "--db", db).status == 0
    check_page(browser, page / "report.html", "report-stored-run.png")
    compare = tmp_path / "cmp"
    res = cli("compare", "1", "2", "--html", str(compare), "--db", db)
    assert res.status == 0, res.err
    check_page(browser, compare / "compare.html", "compare-first-screen.png")
    text = browser.find_element("id", "summary").text
    assert "B is faster (better) in 0, slower (worse) in" in text
