"""Reasons are text everywhere: a server's text full of the markup every view of mcp-accept
speaks (rich tags and links, emoji codes, ANSI and OSC escapes, Markdown pipes, hashes and
backticks, raw HTML, the end of an XML CDATA section) is shown as it is, by every command and
in every format, and the rule kind of a reason (``wire [must]: ...``) survives with it.

The text comes from real servers: one that cannot be spoken to and says it on stderr (the
run's cause quotes that), and the hostile server under that name. A copy of the second run
carries it in reasons and a check's detail too, the way a server's message lands there.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from faultkit import assert_no_traceback, hostile

from mcp_accept.output.console import shorten
from mcp_accept.output.diff import REASON_CAP
from mcp_accept.untrusted import plain_line

pytest_plugins = ["pytester"]

# Rich markup first: the console cuts a long reason, and these are what it could misread.
MARKUP = ("[/italic] [bold]bold[/bold] [link=http://127.0.0.1/]link[/link] :warning: [Errno 111] "
          "**z** <b>b</b> | pipe # hash `tick` <script>alert(1)</script> ]]> &amp; "
          "\x1b[31mRED\x1b[0m \x1b]8;;http://127.0.0.1/\x07osc\x1b]8;;\x07 bell\x07")
RICH = ("[/italic]", "[bold]bold[/bold]", "[link=http://127.0.0.1/]link[/link]", ":warning:", "[Errno 111]")
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
WIDE = {"COLUMNS": "1000"}  # no reason wraps: what the table shows can be compared whole


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("markup")
    loud = base / "loud_server.py"
    loud.write_text(f"import sys\nsys.stderr.write({MARKUP!r} + '\\n')\nsys.exit(3)\n", encoding="utf-8")
    folders = {name: base / "runs" / name for name in ("loud", "named", "edited")}
    done = run_cli("run", "--server", shlex.join([sys.executable, str(loud)]), "--out", str(folders["loud"]))
    assert done.returncode == 3, done.stderr
    named = hostile("--mode", "hostile-text", "--on", "tools/call:search_text,tools/call:search_link",
                    "--server-name", json.dumps(MARKUP)[1:-1])
    done = run_cli("run", "--server", named, "--out", str(folders["named"]), "--timeout", "5")
    assert done.returncode == 1, done.stderr[-2000:]
    edited = folders["edited"]
    shutil.copytree(folders["named"], edited)
    results = json.loads((edited / "results.json").read_text(encoding="utf-8"))
    for row in results["rows"]:
        if row["id"] in EDITED:
            assert row["status"] == "PASS", row
            row.update(status="FAIL", failed_rule=EDITED[row["id"]][0], reason=EDITED[row["id"]][1])
            results["summary"]["PASS"] -= 1
            results["summary"]["FAIL"] += 1
    (edited / "results.json").write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    evidence = json.loads((edited / "rows" / "S01.json").read_text(encoding="utf-8"))
    evidence["status"] = "FAIL"
    evidence["checks"][0].update(status="FAIL", detail=MARKUP)
    (edited / "rows" / "S01.json").write_text(json.dumps(evidence, ensure_ascii=False), encoding="utf-8")
    return folders


EDITED = {"S01": ("must", f"wire [must]: {MARKUP}"), "S02": ("should", f"type [should]: {MARKUP}")}


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def cause(runs) -> str:
    return results(runs["loud"])["cause"]


def assert_inert(text: str) -> None:
    """No escape, bell or other control character of the server's reached the output."""
    assert "\x1b" not in text and "\x07" not in text, "a server's escape reached the output"


def test_the_runs_carry_the_text(runs):
    assert MARKUP in cause(runs), "the cause quotes the server's stderr"
    assert results(runs["named"])["conditions"]["server_name"] == MARKUP


# --------------------------------------------------------------------------- the console


def test_run_prints_the_cause_and_the_name_as_text(runs, tmp_path):
    loud = runs["loud"].parent.parent / "loud_server.py"
    done = run_cli("run", "--server", shlex.join([sys.executable, str(loud)]), "--out", str(tmp_path / "again"))
    assert done.returncode == 3
    assert_no_traceback(done.stdout, done.stderr)
    assert_inert(done.stdout + done.stderr)
    (line,) = done.stderr.splitlines()
    assert line.startswith("mcp-accept: error: ") and plain_line(MARKUP) in line
    named = hostile("--mode", "hostile-text", "--server-name", json.dumps(MARKUP)[1:-1])
    done = run_cli("run", "--server", named, "--out", str(tmp_path / "named"), "--timeout", "5", env=WIDE)
    assert done.returncode == 1, done.stderr[-2000:]
    assert_inert(done.stdout + done.stderr)
    assert plain_line(f"mcp-accept: {MARKUP} (stdio, ") in done.stdout.splitlines()[0]
    (t01,) = [line for line in done.stdout.splitlines() if line.startswith("T01 ")]
    assert t01.split()[2:5] == ["FAIL", "meaning", "[profile]:"], t01


def test_the_terminal_table_shows_reasons_with_their_rule_kind(runs):
    from mcp_accept.output.console import Environment, print_run

    out = io.StringIO()
    print_run(results(runs["edited"]), runs["edited"], Environment(stdout=out, stdout_isatty=True, colors=False,
                                                                 width=1000))
    shown = out.getvalue()
    assert_inert(shown)
    assert "┃" in shown, "this is the terminal's table (rich), not the piped columns"
    for row_id, (_, reason) in EDITED.items():
        assert plain_line(reason)[:397] in shown, row_id
    for piece in RICH:
        assert piece in shown
    assert "⚠" not in shown, "an emoji code was replaced"


# --------------------------------------------------------------------------- diff


def test_diff_shows_reasons_as_text_with_their_rule_kind(runs):
    done = run_cli("diff", str(runs["named"]), str(runs["edited"]), env=WIDE)
    assert done.returncode == 1, (done.returncode, done.stderr)  # S01 and S02 regressed; not 70
    assert_no_traceback(done.stdout, done.stderr)
    assert_inert(done.stdout)
    for row_id, (_, reason) in EDITED.items():
        line = next(line for line in done.stdout.splitlines() if line.startswith(f"{row_id} "))
        shown = plain_line(shorten(reason, REASON_CAP))
        assert shown in line and shown.endswith(" ..."), line  # cut at a space, not inside a word
    assert "meaning [profile]: " in done.stdout  # T01, as the server really failed it
    assert done.stdout.splitlines()[-1].endswith("2 regressions: S01, S02.")


def test_diff_against_a_run_that_tested_nothing_shows_its_cause_as_text(runs):
    done = run_cli("diff", str(runs["named"]), str(runs["loud"]), env=WIDE)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert_inert(done.stdout)
    assert done.stdout.splitlines()[0] == ("mcp-accept: error: the current run tested nothing: "
                                           + plain_line(cause(runs)))


def test_diff_on_a_terminal_keeps_the_text_too(runs):
    from mcp_accept.output.console import Environment
    from mcp_accept.output.diff import diff_runs, print_diff

    out = io.StringIO()
    console = Environment(stdout=out, stdout_isatty=True, colors=False, width=1000).console()
    print_diff(diff_runs(runs["named"], runs["edited"]), console=console)
    shown = out.getvalue()
    assert_inert(shown)
    assert "wire [must]: [/italic] [bold]bold[/bold] [link=http://127.0.0.1/]link[/link] :warning:" in shown
    assert "type [should]: [/italic]" in shown


# --------------------------------------------------------------------------- report formats


def report(runs, fmt: str) -> str:
    done = run_cli("report", *(str(runs[n]) for n in ("loud", "named", "edited")), "--format", fmt)
    assert done.returncode == 0, (fmt, done.returncode, done.stderr)
    assert_no_traceback(done.stderr)
    return done.stdout


def test_markdown_escapes_the_text_and_keeps_the_rule_kind(runs):
    text = report(runs, "markdown")
    assert_inert(text)
    assert "<script>" not in text and "&lt;script>alert(1)&lt;/script>" in text
    assert text.index("Nothing was tested") < text.index("\n|")
    for line in text.splitlines():
        assert not line.startswith("# hash"), "a server's '#' started a heading"
        if line.startswith("|") and "pipe" in line:  # a table row holding server text: no cell gained
            assert line.count("|") - line.count("\\|") == line.replace("\\|", "").count("|")
            assert "\\| pipe" in line
    rows = [line for line in text.splitlines() if line.startswith("| S01 |") and "FAIL" in line]
    assert rows and "wire [must]: [/italic]" in rows[0] and "\\`tick\\`" in rows[0]
    # Markdown's own marks in a server's text are escaped: no bold, no tag, no emoji, no entity
    assert "\\*\\*z\\*\\*" in rows[0] and "&lt;b>b&lt;/b>" in rows[0] and "\\:warning:" in rows[0]
    assert "&amp;amp;" in rows[0] and "**z**" not in text.replace("\\*\\*z\\*\\*", "")


def test_html_escapes_the_text_and_keeps_the_rule_kind(runs):
    page = report(runs, "html")
    assert_inert(page)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "wire [must]: [/italic] [bold]bold[/bold]" in page
    assert page.index("[/italic]") < page.index("<table")  # the cause, said first


def test_junit_parses_and_carries_the_text(runs):
    from junitparser import Error, Failure, JUnitXml

    text = report(runs, "junit")
    assert_inert(text)
    ET.fromstring(text.encode("utf-8"))
    xml = JUnitXml.fromstring(text.encode("utf-8"))
    by_suite = list(xml)
    assert len(by_suite) == 3
    (error,) = [r for case in by_suite[0] for r in case.result if isinstance(r, Error)]
    assert error.message == plain_line(cause(runs))
    failures = {case.name.split()[0]: r.message for case in by_suite[2] for r in case.result
                if isinstance(r, Failure)}
    assert failures["S01"] == plain_line(EDITED["S01"][1])
    assert "]]> &amp;" in failures["S01"] and "<script>" in failures["S01"]
    assert failures["S02"].startswith("type [should]: ") and failures["T01"].startswith("meaning [profile]: ")
    assert by_suite[1].name.startswith("no host recorded / " + plain_line(MARKUP))


def test_sarif_is_valid_and_carries_the_text(runs):
    from jsonschema import Draft4Validator, FormatChecker

    document = json.loads(report(runs, "sarif"))
    validator = Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")), format_checker=FormatChecker())
    errors = list(validator.iter_errors(document))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    (note,) = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert MARKUP in note["message"]["text"]
    texts = {r["ruleId"]: r["message"]["text"] for r in document["runs"][2]["results"]}
    assert texts["S01"].startswith(f"S01 FAIL [must]: wire [must]: {MARKUP}")
    assert texts["S02"].startswith("S02 FAIL [should]: type [should]: ")
    assert document["runs"][2]["results"][1]["level"] == "error"  # S01: a broken MUST


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_github_annotations_are_one_line_each_and_inert(runs):
    text = report(runs, "github")
    assert_inert(text)
    lines = text.splitlines()
    fails = sum(row["status"] == "FAIL" for n in ("named", "edited") for row in results(runs[n])["rows"])
    assert len(lines) == 1 + fails and all(line.startswith("::") for line in lines)
    assert unescape(lines[0].split("::", 2)[2]).startswith(plain_line(cause(runs)))
    s01 = next(line for line in lines if "S01 FAIL [must]" in unescape(line))
    assert s01.startswith("::error ")
    assert unescape(s01.split("::", 2)[2]).startswith(plain_line(EDITED["S01"][1]))


def test_json_report_carries_the_text_as_it_is(runs):
    document = json.loads(report(runs, "json"))
    assert [u["cause"] for u in document["untested"]] == [cause(runs)]
    assert document["runs"][1]["results"]["conditions"]["server_name"] == MARKUP


# --------------------------------------------------------------------------- pytest


def test_pytest_shows_the_cause_as_text(pytester, runs):
    loud = runs["loud"].parent.parent / "loud_server.py"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--mcp-server",
                                           shlex.join([sys.executable, str(loud)]), timeout=300)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    shown = result.stdout.str()
    assert_inert(shown)
    assert "mcp-accept: nothing was tested: " in shown and plain_line(MARKUP) in shown


# --------------------------------------------------------------------------- more commands


def test_run_verbose_shows_the_server_text_and_each_check_as_text(runs, tmp_path):
    named = hostile("--mode", "hostile-text", "--on", "tools/call:search_text,tools/call:search_link",
                    "--server-name", json.dumps(MARKUP)[1:-1])
    done = run_cli("run", "-v", "--server", named, "--out", str(tmp_path / "v"), "--timeout", "5", env=WIDE)
    assert done.returncode == 1, done.stderr[-2000:]
    assert_no_traceback(done.stdout, done.stderr)
    assert_inert(done.stdout + done.stderr)
    assert plain_line(f"mcp-accept: {MARKUP} (stdio, ") in done.stdout.splitlines()[0]
    checks = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("- ")]
    assert checks and all(re.search(r"\((wire|type|meaning|sdk), (must|profile|should|app)", c) for c in checks), checks[:3]
    from mcp_accept.output.console import VERBOSE, Environment, print_run

    out = io.StringIO()
    print_run(results(runs["edited"]), runs["edited"], Environment(stdout=out, stdout_isatty=True, colors=False,
                                                                 width=1000, verbosity=VERBOSE))
    shown = out.getvalue()
    assert_inert(shown)
    assert plain_line(EDITED["S01"][1])[:397] in shown


def test_fleet_summary_shows_server_text_as_text(runs, tmp_path):
    from mcp_accept.output.console import Environment, print_fleet
    from mcp_accept.running.fleet import FleetOutcome, TargetResult

    loud = runs["loud"].parent.parent / "loud_server.py"
    named = hostile("--mode", "hostile-text", "--server-name", json.dumps(MARKUP)[1:-1])
    targets = tmp_path / "targets.yaml"
    targets.write_text("targets:\n"
                       f"  - {{name: named, server: {json.dumps(named)}, timeout: 5}}\n"
                       f"  - {{name: loud, server: {json.dumps(shlex.join([sys.executable, str(loud)]))}}}\n",
                       encoding="utf-8")
    done = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "fleet"), env=WIDE)
    assert done.returncode == 3, done.stderr[-2000:]
    assert_no_traceback(done.stdout, done.stderr)
    assert_inert(done.stdout + done.stderr)
    assert plain_line(MARKUP) in done.stdout  # the server's name, as it is
    assert plain_line(MARKUP) in done.stdout.split("loud: ", 1)[1]  # the cause quoting its stderr
    for isatty in (True, False):
        out = io.StringIO()
        fleet = FleetOutcome(folder=tmp_path / "f", status=3, seconds=1.0, jobs=1, results=[
            TargetResult(0, "named", str(tmp_path / "f" / "named"), 1, {"PASS": 1, "FAIL": 1}, MARKUP, "stdio",
                         "2026-07-28", 1.0, MARKUP)])
        print_fleet(fleet, Environment(stdout=out, stderr=io.StringIO(), stdout_isatty=isatty, colors=False,
                                       width=1000))
        shown = out.getvalue()
        assert_inert(shown)
        for piece in RICH:
            assert piece in shown, (isatty, piece)


def test_observe_prints_the_text_it_fills_as_text(runs, tmp_path):
    folder = tmp_path / "named"
    shutil.copytree(runs["named"], folder)
    evidence = tmp_path / "seen.txt"
    evidence.write_text(MARKUP + "\n", encoding="utf-8")
    note = MARKUP.replace("\x07", "")
    done = run_cli("observe", str(folder), "H03", "--status", "FAIL", "--evidence", str(evidence), "--note", note,
                   "--host", "[bold]host[/bold]")
    assert done.returncode == 0, done.stderr
    assert_no_traceback(done.stdout, done.stderr)
    assert_inert(done.stdout + done.stderr)
    assert plain_line(note) in done.stdout.splitlines()[0]
    sheet = (folder / "sheet.md").read_text(encoding="utf-8")
    assert_inert(sheet)
    assert "**z**" not in sheet and "<b>" not in sheet and "<script>" not in sheet


def test_verify_prints_conditions_as_text():
    from mcp_accept.output.console import Environment
    from mcp_accept.verify import VerifyOutcome, print_verify

    condition = {"id": "W01-" + MARKUP, "era": "2026-07-28", "transport": "stdio", "status": "FAIL",
                 "layers": {"wire": "FAIL"}, "sent": "fixture.py --break " + MARKUP, "expected": MARKUP,
                 "observed": MARKUP}
    report = {"conditions": [condition], "sdk": {"available": False, "reason": MARKUP},
              "summary": {"PASS": 0, "FAIL": 1}}
    for isatty in (True, False):
        out = io.StringIO()
        console = Environment(stdout=out, stdout_isatty=isatty, colors=False, width=1000).console()
        print_verify(VerifyOutcome(Path("verify-out"), report, 1), console=console)
        shown = out.getvalue()
        assert_inert(shown)
        for piece in RICH:
            assert piece in shown, (isatty, piece)
        assert "1 condition: 0 hold, 1 do not" in shown


@pytest.fixture(scope="module")
def host_runs(tmp_path_factory) -> Path:
    """A real `host test` (Claude Code and the stand-in model) of the hostile server under the
    markup name, so the host table carries the server's text."""
    claude = ROOT / "tests" / "hosts" / "node_modules" / ".bin" / "claude"
    if not claude.exists():
        pytest.skip("Claude Code is not installed: npm install --prefix tests/hosts (see .ci/run)")
    out = tmp_path_factory.mktemp("hosts") / "claude-code"
    named = hostile("--mode", "hostile-text", "--server-name", json.dumps(MARKUP)[1:-1])
    done = run_cli("host", "test", "claude-code", "--host-bin", str(claude), "--server", named, "--out", str(out),
                   timeout=300)
    # 0 or 1: the host ran and spoke to the server (3, a host or server that could not be
    # started, would leave a table without the server's text, and nothing to check below)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert_inert(done.stdout + done.stderr)
    conditions = json.loads((out / "results.json").read_text(encoding="utf-8"))["conditions"]
    assert conditions.get("server_name") == MARKUP, conditions
    return out


@pytest.mark.parametrize("fmt", ["hosts", "hosts-html"])
def test_host_reports_show_server_text_as_text(host_runs, fmt):
    done = run_cli("report", str(host_runs), "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert_no_traceback(done.stderr)
    assert_inert(done.stdout)
    assert "<script>" not in done.stdout and "<b>b" not in done.stdout
    for piece in RICH:  # the server's name is in the table's note, as text
        assert piece in done.stdout, (fmt, piece)
    if fmt == "hosts":
        assert "**z**" not in done.stdout
