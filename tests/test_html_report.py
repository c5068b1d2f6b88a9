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

from conftest import FIXTURE, fixture_command, run_cli, start_http_server, stop_http_server

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.mktemp("html")
    broken, over_http = base / "runs" / "broken", base / "runs" / "http"
    done = run_cli("run", "--server", fixture_command("--break", "total-999"), "--out", str(broken))
    assert done.returncode == 1, done.stderr
    proc, url = start_http_server(str(FIXTURE), "--http", "0")
    try:
        done = run_cli("run", "--url", url, "--out", str(over_http))
    finally:
        stop_http_server(proc)
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
    assert "実行ごとの集計" in ja and "判定" in ja and "通信メッセージ" in ja and '<html lang="ja">' in ja


def test_server_text_is_escaped_and_large_messages_are_cut(runs, tmp_path):
    hostile = tmp_path / "hostile"
    shutil.copytree(runs[0], hostile)
    data = results(hostile)
    for r in data["rows"]:
        if r["id"] == "S03":
            r["reason"] = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    (hostile / "results.json").write_text(json.dumps(data), encoding="utf-8")
    evidence = json.loads((hostile / "rows" / "X01.json").read_text(encoding="utf-8"))
    seq = next(m for m in evidence["messages"] if m["dir"] == "in")["seq"]
    for path in (hostile / "rows").glob("*.json"):  # the message as every row file holds it
        evidence = json.loads(path.read_text(encoding="utf-8"))
        for m in evidence.get("messages") or []:
            if m["seq"] == seq:
                m["message"]["result"]["content"][0]["text"] = "</pre><b>" + "x" * (2 * 1024 * 1024)  # 2 MiB
        path.write_text(json.dumps(evidence), encoding="utf-8")
    page = render(tmp_path, hostile).read_text(encoding="utf-8")
    assert "<script>alert(" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(" in page and "&lt;/pre&gt;&lt;b&gt;" in page
    assert len(page.encode("utf-8")) < 1024 * 1024  # the 2 MiB message is shown in part
    assert page.count("shown 20.0 KiB of 2.0 MiB") == 1  # cited by several rows, shown once


needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not look for a browser or driver
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,2000",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def kinds(tmp_path_factory, runs) -> dict[str, Path]:
    """A run that passes, one that fails (the broken fixture of ``runs``) and one that tested
    nothing (a server command that exits at once)."""
    base = tmp_path_factory.mktemp("kinds")
    passing, nothing = base / "passing", base / "nothing"
    done = run_cli("run", "--server", fixture_command(), "--out", str(passing))
    assert done.returncode == 0, done.stderr
    done = run_cli("run", "--server", "false", "--out", str(nothing))
    assert done.returncode == 3, done.stderr
    return {"passing": passing, "failing": runs[0], "nothing": nothing}


def keep_screenshot(driver, tmp_path: Path, name: str) -> Path:
    """The screenshot, where CI collects artefacts (MCP_ACCEPT_TEST_ARTIFACTS) or in tmp_path."""
    folder = Path(os.environ.get("MCP_ACCEPT_TEST_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / f"report-{name}.png"
    assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 0
    return shot


# Every element whose right edge passes the viewport and is not held by a box that scrolls
# (or clips) sideways within the viewport: what a reader at this width would lose.
CUT_AT_THE_EDGE = """
const width = document.documentElement.clientWidth, cut = [];
for (const el of document.body.querySelectorAll('*')) {
  const box = el.getBoundingClientRect();
  if ((box.width === 0 && box.height === 0) || box.right <= width + 0.5) continue;
  let held = false;
  for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    const ox = getComputedStyle(up).overflowX;
    if (ox !== 'visible' && up.getBoundingClientRect().right <= width + 0.5) { held = true; break; }
  }
  if (!held) cut.push(el.tagName + '.' + el.className + ' right=' + Math.round(box.right));
}
return cut;
"""


def assert_nothing_cut(driver) -> None:
    assert driver.execute_script("return window.innerWidth") == 1280
    widths = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth, window.innerWidth]")
    assert widths[0] <= widths[1] <= widths[2], widths  # no sideways scrolling of the page
    assert driver.execute_script(CUT_AT_THE_EDGE) == []
    # and with every box open: the checks, the wire messages and the matrix of rows
    driver.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    widths = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], widths
    assert driver.execute_script(CUT_AT_THE_EDGE) == []


def top(element) -> float:
    return element.rect["y"]


def cited_seqs(folder: Path) -> set[int]:
    seqs = set()
    for path in (folder / "rows").glob("*.json"):
        for check in json.loads(path.read_text(encoding="utf-8")).get("checks") or []:
            seqs.update(check.get("wire_seqs") or [])
    return seqs


@needs_chromium
def test_a_failing_run_reads_top_down_with_its_failures_open(kinds, driver, tmp_path):
    from selenium.webdriver.common.by import By

    folder = kinds["failing"]
    driver.get(render(tmp_path, folder).resolve().as_uri())
    verdict = driver.find_element(By.ID, "verdict")
    rows = driver.find_elements(By.CSS_SELECTOR, "details.row")
    assert verdict.is_displayed() and top(verdict) < min(top(r) for r in rows)
    assert top(verdict) < top(driver.find_element(By.CSS_SELECTOR, "table.runs"))
    assert "1 failed" in verdict.text and "profile (yours) 2" in verdict.text
    assert "mcp-accept-fixture 0.1.0" in verdict.text  # the server's version from its serverInfo

    # the FAIL rows come first, open, their reason and checks on screen
    failed = [r for r in results(folder)["rows"] if r["status"] == "FAIL"]
    shown = driver.find_elements(By.CSS_SELECTOR, "#failures details.row")
    assert [r.get_attribute("data-id") for r in shown] == [r["id"] for r in failed]
    others = [r for r in rows if r.get_attribute("data-status") != "FAIL"]
    assert max(top(r) for r in shown) < min(top(r) for r in others)
    for element, expected in zip(shown, failed):
        assert element.get_attribute("open") is not None
        reason = element.find_element(By.CSS_SELECTOR, ".reason")
        assert reason.is_displayed() and reason.size["height"] > 0
        assert expected["reason"] in reason.text
        assert element.find_element(By.CSS_SELECTOR, "table.checks").is_displayed()
    assert not any(r.get_attribute("open") for r in others)  # the rest are closed
    keep_screenshot(driver, tmp_path, "failing")

    # each wire message once, and a check's link opens the one it rests on
    messages = driver.find_elements(By.CSS_SELECTOR, "#evidence details.msg")
    ids = [m.get_attribute("id") for m in messages]
    assert len(ids) == len(set(ids)) == len(cited_seqs(folder))
    assert len(driver.find_elements(By.CSS_SELECTOR, "pre.wire")) == len(ids)
    s03 = driver.find_element(By.ID, "run-1-S03")
    link = s03.find_element(By.CSS_SELECTOR, "a.msg-link")
    target = driver.find_element(By.ID, link.get_attribute("href").split("#", 1)[1])
    wire = target.find_element(By.CSS_SELECTOR, "pre.wire")
    assert not wire.is_displayed()
    link.click()
    assert target.get_attribute("open") is not None and wire.is_displayed()
    assert '"tools/call"' in wire.text or '"structuredContent"' in wire.text
    assert "S03" in target.find_element(By.CSS_SELECTOR, ".body p").text  # and links back
    assert_nothing_cut(driver)


@needs_chromium
def test_a_passing_run_has_no_failures_and_every_row_closed(kinds, driver, tmp_path):
    from selenium.webdriver.common.by import By

    driver.get(render(tmp_path, kinds["passing"]).resolve().as_uri())
    verdict = driver.find_element(By.ID, "verdict")
    rows = driver.find_elements(By.CSS_SELECTOR, "details.row")
    assert top(verdict) < min(top(r) for r in rows)
    assert "1 without a failure" in verdict.text and "tested nothing" not in verdict.text
    assert not driver.find_elements(By.ID, "failures")
    assert not any(r.get_attribute("open") for r in rows)
    keep_screenshot(driver, tmp_path, "passing")
    assert_nothing_cut(driver)


@needs_chromium
def test_a_run_that_tested_nothing_is_said_first_with_its_cause(kinds, driver, tmp_path):
    from selenium.webdriver.common.by import By

    folder = kinds["nothing"]
    cause = results(folder)["cause"]
    driver.get(render(tmp_path, kinds["passing"], folder).resolve().as_uri())
    box = driver.find_element(By.CSS_SELECTOR, "#verdict .untested")
    assert box.is_displayed() and cause in box.text and "Run 2" in box.text
    assert top(box) < top(driver.find_element(By.CSS_SELECTOR, "table.runs"))
    assert top(box) < min(top(r) for r in driver.find_elements(By.CSS_SELECTOR, "details.row"))
    verdict = driver.find_element(By.ID, "verdict").text
    assert "2 runs" in verdict and "1 tested nothing" in verdict and "1 without a failure" in verdict
    assert verdict.index("tested nothing") < verdict.index("without a failure")
    # one line per run in the table, never two runs in one cell
    lines = driver.find_elements(By.CSS_SELECTOR, "table.runs tr.run-line")
    assert [line.get_attribute("data-run") for line in lines] == ["1", "2"]
    assert all(len(cell.find_elements(By.CSS_SELECTOR, ".st")) <= 1
               for cell in driver.find_elements(By.CSS_SELECTOR, "table.matrix td"))
    keep_screenshot(driver, tmp_path, "nothing-tested")
    assert_nothing_cut(driver)


@needs_chromium
def test_the_status_filter_and_search_in_chromium(runs, driver, tmp_path):
    from selenium.webdriver.common.by import By

    driver.get(render(tmp_path, *runs).resolve().as_uri())
    rows = driver.find_elements(By.CSS_SELECTOR, "details.row")
    assert len(rows) == sum(len(results(f)["rows"]) for f in runs)
    assert all(r.is_displayed() for r in rows), "the page did not render every row"
    fail = driver.find_element(By.ID, "run-1-S03")
    driver.find_element(By.CSS_SELECTOR, ".status-filter[value='PASS']").click()
    assert not any(r.is_displayed() for r in rows if r.get_attribute("data-status") == "PASS")
    assert fail.is_displayed()
    driver.find_element(By.CSS_SELECTOR, ".status-filter[value='PASS']").click()
    driver.find_element(By.ID, "search").send_keys("length(hits)")
    shown = [r.get_attribute("data-id") for r in rows if r.is_displayed()]
    assert "S03" in shown and "L02" not in shown
    assert driver.find_element(By.ID, "count").text == str(len(shown))
    keep_screenshot(driver, tmp_path, "two-runs")
    assert_nothing_cut(driver)


def test_the_verdict_names_host_and_server_versions_and_keeps_runs_apart(runs, tmp_path):
    copies = []
    for name in ("first", "second"):  # two runs of one host and server: two lines, not one
        folder = tmp_path / name
        shutil.copytree(runs[0], folder)
        data = results(folder)
        data["conditions"].update(host_product="VS Code", host_version="1.101")
        (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
        copies.append(folder)
    page = render(tmp_path, *copies).read_text(encoding="utf-8")
    verdict = page[page.index('id="verdict"'):page.index('id="runs-table"')]
    assert "2 runs · 1 host (VS Code 1.101) · 1 server (mcp-accept-fixture 0.1.0)" in verdict
    assert "2 failed" in verdict and "profile (yours) 4" in verdict
    assert page.count('<tr class="run-line"') == 2
    assert " / " not in page[page.index('<table class="matrix">'):page.index("</table>", page.index('<table class="matrix">'))]


SMUGGLED = "<script>window.smuggled = 1</script><img src=x onerror=\"window.smuggled = 2\">"


def csp_of(page: str) -> dict[str, list[str]]:
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    return {d.split()[0]: d.split()[1:] for d in (p.strip() for p in policy.split(";")) if d}


def smuggling(runs, tmp_path: Path) -> Path:
    """A copy of the failing run whose server name, reason and check detail carry a script."""
    folder = tmp_path / "smuggled"
    shutil.copytree(runs[0], folder)
    data = results(folder)
    data["conditions"]["server_name"] = SMUGGLED
    next(r for r in data["rows"] if r["id"] == "S03")["reason"] = SMUGGLED
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_the_policy_runs_the_pages_own_script_alone(runs, tmp_path):
    import base64
    import hashlib

    page = render(tmp_path, smuggling(runs, tmp_path)).read_text(encoding="utf-8")
    csp = csp_of(page)
    assert csp["default-src"] == ["'none'"] and csp["base-uri"] == ["'none'"]
    assert "'unsafe-inline'" not in csp["script-src"] and "'unsafe-eval'" not in csp["script-src"]
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == page.count("<script") == 1  # the smuggled one is text, not an element
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode("ascii")
    assert csp["script-src"] == [f"'sha256-{digest}'"]


@needs_chromium
def test_a_script_smuggled_through_results_json_never_runs(runs, driver, tmp_path):
    from selenium.webdriver.common.by import By

    out = render(tmp_path, smuggling(runs, tmp_path))
    driver.get(out.resolve().as_uri())
    assert driver.execute_script("return window.smuggled") is None
    assert len(driver.find_elements(By.TAG_NAME, "script")) == 1
    assert not driver.find_elements(By.CSS_SELECTOR, "img")
    assert SMUGGLED in driver.find_element(By.ID, "run-1-S03").text  # shown as text
    assert driver.find_element(By.ID, "count").text  # the page's own script ran
    # Were the escaping ever to fail, the policy still stops the script: written in raw ...
    page = out.read_text(encoding="utf-8")
    escaped = "&lt;script&gt;window.smuggled = 1&lt;/script&gt;"
    assert escaped in page
    raw = tmp_path / "raw.html"
    raw.write_text(page.replace(escaped, "<script>window.smuggled = 1</script>"), encoding="utf-8")
    driver.get(raw.resolve().as_uri())
    assert len(driver.find_elements(By.TAG_NAME, "script")) > 1
    assert driver.execute_script("return window.smuggled") is None
    # ... or added to the page as it runs
    driver.execute_script("var s = document.createElement('script'); s.textContent = 'window.smuggled = 3';"
                          "document.body.appendChild(s);")
    assert driver.execute_script("return window.smuggled") is None
    assert driver.find_element(By.ID, "count").text
