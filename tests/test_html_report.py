"""`report --format html`: one self-contained page, opened in a real headless Chromium.

Chromium and chromedriver come from the Debian packages (.ci/run installs them); Selenium
drives them through /usr/bin/chromedriver and never downloads a browser or a driver.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import fixture_command, free_port, run_cli

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.mktemp("html")
    broken, over_http = base / "runs" / "broken", base / "runs" / "http"
    done = run_cli("run", "--server", fixture_command("--break", "total-999"), "--out", str(broken))
    assert done.returncode == 1, done.stderr
    port = free_port()
    done = run_cli("run", "--server", fixture_command("--http", str(port)),
                   "--url", f"http://127.0.0.1:{port}/mcp", "--out", str(over_http))
    assert done.returncode in (0, 1), done.stderr
    return [broken, over_http]


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def row(folder: Path, rid: str) -> dict:
    return next(r for r in results(folder)["rows"] if r["id"] == rid)


def render(tmp_path: Path, *folders: Path, lang: str = "en") -> Path:
    out = tmp_path / f"report-{lang}.html"
    done = run_cli("report", *map(str, folders), "--format", "html", "--lang", lang, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_the_page_is_self_contained_and_carries_checks_messages_and_headers(runs, tmp_path):
    page = render(tmp_path, *runs).read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # no network, nothing to fetch
    assert "<style>" in page and "<script>" in page
    assert page.count('<details class="row') == sum(len(results(f)["rows"]) for f in runs)
    start = page.index('data-id="S03"')
    s03 = page[start:page.index('data-id="', start + 1)]  # up to the next row
    assert "total == length(hits)" in s03 and "meaning" in s03 and "tools/call" in s03
    assert '<pre class="http">' in page and "mcp-protocol-version" in page.lower()  # HTTP run: headers
    ja = render(tmp_path, *runs, lang="ja").read_text(encoding="utf-8")
    assert "ホスト別の集計" in ja and "通信メッセージ" in ja and '<html lang="ja">' in ja


def test_server_text_is_escaped_and_large_messages_are_cut(runs, tmp_path):
    hostile = tmp_path / "hostile"
    shutil.copytree(runs[0], hostile)
    data = results(hostile)
    for r in data["rows"]:
        if r["id"] == "S03":
            r["reason"] = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    (hostile / "results.json").write_text(json.dumps(data), encoding="utf-8")
    evidence = json.loads((hostile / "rows" / "X01.json").read_text(encoding="utf-8"))
    big = next(m for m in evidence["messages"] if m["dir"] == "in")
    big["message"]["result"]["content"][0]["text"] = "</pre><b>" + "x" * (2 * 1024 * 1024)  # 2 MiB
    (hostile / "rows" / "X01.json").write_text(json.dumps(evidence), encoding="utf-8")
    page = render(tmp_path, hostile).read_text(encoding="utf-8")
    assert "<script>alert(" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(" in page and "&lt;/pre&gt;&lt;b&gt;" in page
    assert len(page.encode("utf-8")) < 1024 * 1024  # the 2 MiB message is shown in part
    assert "shown 20.0 KiB of 2.0 MiB" in page


@pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                    reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")
def test_a_fail_row_opens_onto_its_reason_and_wire_messages_in_chromium(runs, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not look for a browser or driver
    page = render(tmp_path, *runs)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,2000",
                f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        driver.get(page.resolve().as_uri())
        rows = driver.find_elements(By.CSS_SELECTOR, "details.row")
        assert len(rows) == sum(len(results(f)["rows"]) for f in runs)
        assert all(r.is_displayed() for r in rows), "the page did not render every row"

        fail = driver.find_element(By.CSS_SELECTOR, "#run-1 details.row[data-id='S03']")
        assert fail.get_attribute("data-status") == "FAIL"
        reason = fail.find_element(By.CSS_SELECTOR, ".reason")
        assert not reason.is_displayed()  # closed until opened
        fail.find_element(By.TAG_NAME, "summary").click()
        assert reason.is_displayed()
        assert row(runs[0], "S03")["reason"] in reason.text
        wire = [p for p in fail.find_elements(By.CSS_SELECTOR, "pre.wire") if p.is_displayed()]
        assert wire and any('"tools/call"' in p.text for p in wire)
        assert any('"structuredContent"' in p.text for p in wire)
        shot = tmp_path / "report-fail-row.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 0
        keep = os.environ.get("MCP_ACCEPT_TEST_ARTIFACTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / shot.name)

        # The status filter and the search box.
        driver.find_element(By.CSS_SELECTOR, ".status-filter[value='PASS']").click()
        assert not any(r.is_displayed() for r in rows if r.get_attribute("data-status") == "PASS")
        assert fail.is_displayed()
        driver.find_element(By.CSS_SELECTOR, ".status-filter[value='PASS']").click()
        driver.find_element(By.ID, "search").send_keys("length(hits)")
        shown = [r.get_attribute("data-id") for r in rows if r.is_displayed()]
        assert "S03" in shown and "L02" not in shown
        assert driver.find_element(By.ID, "count").text == str(len(shown))
    finally:
        driver.quit()
