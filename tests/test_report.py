"""`mcp-accept report`: filled sheets and the summary by host, as Markdown, JUnit XML, JSON.

Two runs, as a new user would make them: one observed through a marker answer
(host "Claude Code"), one against a broken fixture and observed by hand (host "VS Code").
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml, Skipped

from conftest import fixture_command, host_session_stdio, load_results, run_cli

from mcp_accept.fixture import FIXTURE_VERSION
from mcp_accept.output import render as report

STATUS_CELL = re.compile(r"^\[(?P<status>[^\]]+)\]\((?P<href>[^)]+)\)$")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.mktemp("report")
    first, second = base / "runs" / "claude-code", base / "runs" / "vs code"

    done = run_cli("run", "--out", str(first))
    assert done.returncode == 0, done.stderr
    log = base / "fixture-log"
    answers = host_session_stdio(log, ("search_text", "search_structured", "search_embedded",
                                       "search_link"), read_links=True)
    seen = [item["text"] for result in answers.values() for item in result.get("content", [])
            if item["type"] == "text"]
    seen += [c["text"] for result in answers.values() for c in result.get("contents", [])]
    answer = base / "answer.txt"
    answer.write_text("I can see:\n" + "\n".join(seen) + "\n", encoding="utf-8")
    done = run_cli("observe", str(first), "--answer", str(answer), "--fixture-log", str(log),
                   "--host", "Claude Code", "--host-version", "2.1.0")
    assert done.returncode == 0, done.stderr
    # The text items only were quoted: structuredContent's own token is missing, its twin's is
    # not. An absent token proves nothing, so the row is UNOBTAINABLE, never FAIL.
    assert "H01 UNOBTAINABLE: " in done.stdout and "only its text twin was" in done.stdout

    done = run_cli("run", "--server", fixture_command("--break", "total-999"), "--out", str(second))
    assert done.returncode == 1, done.stderr  # S03 fails: total 999 with two hits
    shot = base / "vscode-chat.txt"
    shot.write_text("chat log of the VS Code session\n", encoding="utf-8")
    for row, status in (("H01", "PASS"), ("H02", "FAIL"), ("H03", "UNOBTAINABLE")):
        done = run_cli("observe", str(second), row, "--status", status, "--evidence", str(shot),
                       "--note", f"{row} seen in the chat", "--host", "VS Code",
                       "--host-version", "1.101")
        assert done.returncode == 0, done.stderr
    return [first, second]


def table_after(markdown: str, heading: str) -> list[list[str]]:
    """The Markdown table that follows a heading, as rows of cells (separator dropped)."""
    lines = markdown.splitlines()
    start = lines.index(heading)
    table = []
    for line in lines[start + 1:]:
        if not line.strip() and not table:
            continue
        if not line.startswith("|"):
            break
        cells = [c.strip().replace("\\|", "|")
                 for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
        if not all(set(c) <= {"-", " "} for c in cells):
            table.append(cells)
    return table


def test_markdown_report_holds_both_sheets_and_a_summary_line_per_host(runs, tmp_path):
    out = tmp_path / "reports" / "hosts.md"
    done = run_cli("report", *map(str, runs), "--out", str(out))
    assert done.returncode == 0, done.stderr
    markdown = out.read_text(encoding="utf-8")
    all_results = [load_results(r) for r in runs]

    table = table_after(markdown, "## Summary by host")
    header, lines = table[0], table[1:]
    ids = [row["id"] for row in all_results[0]["rows"]]
    assert header == ["Host", "Host version", "Server", "Transport", "Protocol version", *ids]
    assert len(lines) == 2
    for line, results, folder in zip(lines, all_results, runs):
        c = results["conditions"]
        # the server's cell carries the version its serverInfo gave on the wire
        assert line[:5] == [c["host_product"], c["host_version"], f'{c["server_name"]} {FIXTURE_VERSION}',
                            c["transport"], c["protocol_version_on_wire"]]
        for rid, cell in zip(ids, line[5:]):
            expected = next(r for r in results["rows"] if r["id"] == rid)
            if expected["status"] == "PENDING":
                assert cell == "PENDING"
                continue
            match = STATUS_CELL.match(cell)
            assert match, cell
            assert match["status"] == expected["status"]
            target = (out.parent / match["href"].replace("%20", " ")).resolve()
            assert target == (folder / expected["evidence"]).resolve()
            assert target.is_file()
    assert [line[0] for line in lines] == ["Claude Code", "VS Code"]
    by_host = {line[0]: dict(zip(header, line)) for line in lines}
    assert by_host["VS Code"]["S03"].startswith("[FAIL]")
    assert by_host["VS Code"]["H03"].startswith("[UNOBTAINABLE]")
    assert by_host["Claude Code"]["H03"] == "PENDING"

    # Both filled sheets: a conditions block, then the rows with reason and evidence.
    assert markdown.count("### Execution conditions") == 2
    assert markdown.count("### Rows") == 2
    for results in all_results:
        for row in results["rows"]:
            if row["filled_by"] == "observe":
                assert row["reason"].replace("|", "\\|") in markdown
    for part, results in zip(markdown.split("### Rows")[1:], all_results):
        sheet = table_after("### Rows" + part, "### Rows")
        assert sheet[0] == ["ID", "Kind", "Title", "Status", "wire", "type", "meaning", "sdk",
                            "Reason", "Evidence"]
        assert [(cells[0], cells[3]) for cells in sheet[1:]] == \
            [(r["id"], f"**{r['status']}**") for r in results["rows"]]
        # each layer has its own column: the row's verdict at that layer, or a dash; "off" where
        # the run had the layer off (the sdk layer, by default), and why, once, below the rows
        for cells, r in zip(sheet[1:], results["rows"]):
            layers = r.get("layers") or {}
            off = {c["layer"] for c in r.get("checks") or [] if c.get("reason_id") == "sdk.off"}
            assert cells[4:8] == ["off" if name in off else layers.get(name) or "—"
                                  for name in ("wire", "type", "meaning", "sdk")]
        assert "\nsdk off: the sdk layer is off (--sdk or MCP_ACCEPT_SDK=on turns it on" in part


def test_junit_export_reads_back_with_the_right_counts(runs, tmp_path):
    out = tmp_path / "results.xml"
    done = run_cli("report", *map(str, runs), "--format", "junit", "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = [row for r in runs for row in load_results(r)["rows"]]
    count = {s: sum(row["status"] == s for row in rows) for s in
             ("PASS", "FAIL", "UNOBTAINABLE", "PENDING")}
    assert count["FAIL"] >= 2 and count["UNOBTAINABLE"] >= 1 and count["PENDING"] >= 1

    xml = JUnitXml.fromfile(str(out))
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == \
        (len(rows), count["FAIL"], 0, count["UNOBTAINABLE"] + count["PENDING"])
    suites = list(xml)
    assert len(suites) == 2
    assert suites[0].name.startswith("Claude Code 2.1.0") and suites[1].name.startswith("VS Code 1.101")
    by_name = {}
    for suite, folder in zip(suites, runs):
        for case in suite:
            by_name[(suite.name, case.name.split()[0])] = case
        results = load_results(folder)
        for row in results["rows"]:
            case = by_name[(suite.name, row["id"])]
            kinds = [type(r) for r in case.result]
            if row["status"] == "FAIL":
                assert kinds == [Failure] and case.result[0].message == row["reason"]
            elif row["status"] in ("UNOBTAINABLE", "PENDING"):
                assert kinds == [Skipped]
                if row["reason"]:
                    assert row["reason"] in case.result[0].message
            else:
                assert kinds == [] and case.is_passed
    # Cross-check with the standard library's parser: the counts are in the elements too.
    root = ET.parse(out).getroot()
    assert len(root.findall(".//testcase")) == len(rows)
    assert len(root.findall(".//testcase/failure")) == count["FAIL"]
    assert len(root.findall(".//testcase/skipped")) == count["UNOBTAINABLE"] + count["PENDING"]


def test_japanese_labels(runs):
    done = run_cli("report", *map(str, runs), "--lang", "ja")
    assert done.returncode == 0, done.stderr
    table = table_after(done.stdout, "## ホスト別の集計")
    assert table[0][:5] == ["ホスト", "ホストのバージョン", "サーバー", "トランスポート", "プロトコルバージョン"]
    vscode = dict(zip(table[0], table[2]))
    assert vscode["H03"].startswith("[取得不可](")
    assert dict(zip(table[0], table[1]))["H03"] == "未記入"
    assert "UNOBTAINABLE" not in done.stdout
    sheet = report.render_run(load_results(runs[1]), lang="ja")
    assert "**取得不可**" in sheet and "実行条件" in sheet


def test_a_report_of_server_runs_alone_says_nothing_of_hosts(tmp_path):
    """Runs of `run` with no host recorded: the verdict counts no host and the summary is by
    run, without host columns, in Markdown and HTML alike; the failed checks by rule kind are
    the ones `run` printed."""
    folder = tmp_path / "run"
    done = run_cli("run", "--server", fixture_command("--break", "total-999"), "--out", str(folder))
    assert done.returncode == 1, done.stderr
    rules = load_results(folder)["failures_by_rule"]
    assert f"Failed checks: {rules['must']} break a MUST, {rules['profile']} a rule of your profile, " \
           f"{rules['should']} a SHOULD of the spec, {rules['app']} the sheet's advice." in " ".join(done.stdout.split())
    markdown = run_cli("report", str(folder)).stdout
    verdict = next(line for line in markdown.splitlines() if line.startswith("**Verdict:**"))
    assert "host" not in verdict and verdict.startswith("**Verdict:** 1 run · 1 server (")
    assert f"must {rules['must']}, profile (yours) {rules['profile']}, should {rules['should']}, " \
           f"app (the sheet's advice) {rules['app']}" in verdict
    assert "## Summary by host" not in markdown and "no host recorded" not in markdown
    table = table_after(markdown, "## Summary by run")
    assert table[0][:3] == ["Server", "Transport", "Protocol version"]
    page = tmp_path / "report.html"
    assert run_cli("report", str(folder), "--format", "html", "--out", str(page)).returncode == 0
    html = page.read_text(encoding="utf-8")
    head = html[html.index('<p class="head">'):]
    assert head[:head.index("</p>")] == f'<p class="head">1 run · 1 server (mcp-accept-fixture {FIXTURE_VERSION})'
    runs_table = html[html.index('<table class="runs">'):]
    assert "<th>Host</th>" not in runs_table[:runs_table.index("</thead>")]


def test_json_report(runs, tmp_path):
    out = tmp_path / "report.json"
    done = run_cli("report", *map(str, runs), "--format", "json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == "mcp-accept/report/1"
    assert [h["host_product"] for h in data["hosts"]] == ["Claude Code", "VS Code"]
    second = load_results(runs[1])
    for row in second["rows"]:
        cell = data["hosts"][1]["cells"][row["id"]]
        assert [c["status"] for c in cell] == [row["status"]]
    assert data["runs"][1]["results"] == second


def test_a_template_of_ones_own(runs, tmp_path):
    template = tmp_path / "mine.md.j2"
    template.write_text(
        '{% import "macros.md.j2" as m %}Hosts seen: {{ summary.lines | length }}\n'
        '{% for line in summary.lines %}- {{ line.host_product }}: H01 {{ line.cells.H01[0].status }}\n'
        '{% endfor %}', encoding="utf-8")
    done = run_cli("report", *map(str, runs), "--template", str(template))
    assert done.returncode == 0, done.stderr
    h01 = [next(r["status"] for r in load_results(f)["rows"] if r["id"] == "H01") for f in runs]
    assert done.stdout.splitlines() == ["Hosts seen: 2", f"- Claude Code: H01 {h01[0]}",
                                        f"- VS Code: H01 {h01[1]}"]

    broken = tmp_path / "broken.md.j2"
    broken.write_text("line one\n{{ runs[0].nothing_here }}\n", encoding="utf-8")
    done = run_cli("report", str(runs[0]), "--template", str(broken))
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"mcp-accept: error: {broken}:2: template failed")


def test_a_bad_hand_edit_stops_the_report_and_overwrites_nothing(runs, tmp_path):
    edited = tmp_path / "edited"
    shutil.copytree(runs[1], edited)
    path = edited / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rows"][2]["evidence"] = "/etc/passwd"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    line = next(i for i, l in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if '"/etc/passwd"' in l)
    out = tmp_path / "report.md"
    out.write_text("an earlier report\n", encoding="utf-8")
    done = run_cli("report", str(runs[0]), str(edited), "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"mcp-accept: error: {path}:{line}: rows[2].evidence: must be a "
                                   "path relative to the run folder (no leading '/', no '..')")
    assert out.read_text(encoding="utf-8") == "an earlier report\n"


@pytest.mark.parametrize("args, says", [
    (["--lang", "fr"], "--lang: must be one of en, ja"),
    (["--format", "csv"], "--format: must be one of markdown, junit, json"),
    (["--format", "junit", "--template", "x.j2"], "--template"),
])
def test_bad_options(runs, args, says):
    done = run_cli("report", str(runs[0]), *args)
    assert done.returncode == 2 and says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
