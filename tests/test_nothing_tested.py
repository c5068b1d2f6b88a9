"""A run that tested nothing is never green: when the server could not be started or spoken to,
every consumer of results.json says so as an error, with the run's one-line cause.

Two such runs, made as a user would: a server command that exits at once, and a URL where
nothing listens (a free port on 127.0.0.1). A run of the reference fixture is the control:
every format shows it as before. Each format is read back with the library that format's
readers use (junitparser, the OASIS SARIF schema, pytest's own outcome parsing).
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT, refused_port, run_cli

from mcp_accept.inputs.results import UNREACHED_REASON_PREFIX, untested_cause
from mcp_accept.inputs.sheet import load_sheet
from mcp_accept.untrusted import markdown_cell, plain_line

pytest_plugins = ["pytester"]

EXITS = shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"])  # a server that exits at once
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
UNTESTED = ("exits", "nobody")
ROWS = load_sheet().rows


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("untested") / "runs"
    folders = {name: base / name for name in (*UNTESTED, "reached")}
    done = run_cli("run", "--server", EXITS, "--out", str(folders["exits"]))
    assert done.returncode == 3, (done.returncode, done.stderr)
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/mcp"
        done = run_cli("run", "--url", url, "--out", str(folders["nobody"]))
    assert done.returncode == 3, (done.returncode, done.stderr)
    assert url in done.stderr
    done = run_cli("run", "--out", str(folders["reached"]))
    assert done.returncode == 0, done.stderr
    return folders


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def cause(folder: Path) -> str:
    return results(folder)["cause"]


def report(tmp_path: Path, fmt: str, *folders: Path) -> str:
    out = tmp_path / f"report.{fmt}"
    done = run_cli("report", *map(str, folders), "--format", fmt, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the one reader


@pytest.mark.parametrize("name", UNTESTED)
def test_the_reader_gives_the_runs_cause(runs, name):
    data = results(runs[name])
    assert data["cause"] and "\n" not in data["cause"]
    assert untested_cause(data) == data["cause"]
    says = {"exits": "code 3", "nobody": "127.0.0.1"}[name]
    assert says in data["cause"], data["cause"]
    automated = [row for row in data["rows"] if row["status"] != "PENDING"]
    assert automated and all(row["status"] == "UNOBTAINABLE" for row in automated)


def test_a_reached_run_tested_something(runs):
    assert untested_cause(results(runs["reached"])) is None


def test_a_file_without_its_cause_still_tested_nothing(runs):
    data = results(runs["nobody"])
    del data["cause"]
    assert untested_cause(data) == "the server could not be spoken to"
    one_row_judged = json.loads(json.dumps(data))
    one_row_judged["rows"][0].update(status="FAIL", reason="wire [must]: seen on the wire")
    assert untested_cause(one_row_judged) is None


def test_the_row_pointer_is_the_one_a_run_writes():
    from mcp_accept.running.execute import SEE_RUN_SPOKEN, SEE_RUN_STARTED

    assert SEE_RUN_STARTED.english().startswith(UNREACHED_REASON_PREFIX)
    assert SEE_RUN_SPOKEN.english().startswith(UNREACHED_REASON_PREFIX)


# --------------------------------------------------------------------------- report formats


@pytest.mark.parametrize("name", UNTESTED)
def test_junit_has_an_error_holding_the_cause(runs, name, tmp_path):
    from junitparser import Error, JUnitXml

    report(tmp_path, "junit", runs[name], runs["reached"])
    path = tmp_path / "report.junit"
    xml = JUnitXml.fromfile(str(path))
    assert xml.errors == 1
    suites = list(xml)
    untested, reached = suites
    assert untested.errors == 1 and reached.errors == 0 and reached.skipped == 3  # the host rows
    errors = [r for case in untested for r in case.result if isinstance(r, Error)]
    assert len(errors) == 1
    assert errors[0].message == plain_line(cause(runs[name])) and errors[0].type == "unreachable"
    first = next(iter(untested))
    assert first.result and isinstance(first.result[0], Error), "the error opens the suite"
    assert len(ET.parse(path).getroot().findall(".//testcase/error")) == 1


@pytest.mark.parametrize("name", UNTESTED)
def test_sarif_says_the_execution_did_not_succeed_and_why(runs, name, tmp_path):
    from jsonschema import Draft4Validator, FormatChecker  # the schema declares draft-04

    document = json.loads(report(tmp_path, "sarif", runs[name], runs["reached"]))
    validator = Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")),
                                format_checker=FormatChecker())
    errors = list(validator.iter_errors(document))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    untested, reached = (run["invocations"][0] for run in document["runs"])
    assert untested["executionSuccessful"] is False
    (note,) = untested["toolExecutionNotifications"]
    assert note["level"] == "error" and cause(runs[name]) in note["message"]["text"]
    assert document["runs"][0]["results"] == []
    assert reached["executionSuccessful"] is True and "toolExecutionNotifications" not in reached
    wrong = json.loads(json.dumps(document))  # the schema does look at notifications
    wrong["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["level"] = "fatal"
    assert not validator.is_valid(wrong)


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


@pytest.mark.parametrize("name", UNTESTED)
def test_github_prints_an_error_annotation_first(runs, name):
    done = run_cli("report", str(runs[name]), str(runs["reached"]), "--format", "github")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, lines  # the reached run has no FAIL row to annotate
    command, _, rest = lines[0][2:].partition(" ")
    assert command == "error"
    properties, _, message = rest.partition("::")
    assert unescape(message).startswith(cause(runs[name]))
    assert "Nothing was tested" in unescape(properties)
    done = run_cli("report", str(runs["reached"]), "--format", "github")
    assert done.returncode == 0 and done.stdout == ""


@pytest.mark.parametrize("name", UNTESTED)
def test_markdown_says_it_before_any_table(runs, name, tmp_path):
    text = report(tmp_path, "markdown", runs["reached"], runs[name])
    lines = text.splitlines()
    first_table = next(n for n, line in enumerate(lines) if line.startswith("|"))
    said = [n for n, line in enumerate(lines) if markdown_cell(cause(runs[name])) in line]
    assert said and said[0] < first_table, said
    assert "Nothing was tested" in "\n".join(lines[:first_table])
    assert "[Run 2](#run-2)" in lines[said[0]]  # it points at the run that tested nothing
    clean = report(tmp_path, "markdown", runs["reached"])
    assert "Nothing was tested" not in clean


@pytest.mark.parametrize("name", UNTESTED)
def test_html_says_it_before_any_table(runs, name, tmp_path):
    from markupsafe import escape

    page = report(tmp_path, "html", runs[name], runs["reached"])
    shown = str(escape(cause(runs[name])))
    assert shown in page and page.index(shown) < page.index("<table")
    assert 'role="alert"' in page[:page.index("<table")]
    clean = report(tmp_path, "html", runs["reached"])
    assert 'class="untested"' not in clean


@pytest.mark.parametrize("name", UNTESTED)
def test_json_report_lists_the_run_that_tested_nothing(runs, name, tmp_path):
    document = json.loads(report(tmp_path, "json", runs["reached"], runs[name]))
    assert [u["cause"] for u in document["untested"]] == [cause(runs[name])]
    assert document["untested"][0]["run"] == document["runs"][1]["folder"]
    assert list(document)[:3] == ["format", "generated_at", "untested"]
    assert json.loads(report(tmp_path, "json", runs["reached"]))["untested"] == []


# --------------------------------------------------------------------------- diff


def test_diff_against_a_run_that_tested_nothing_is_never_clean(runs):
    for base in ("reached", "exits"):
        done = run_cli("diff", str(runs[base]), str(runs["nobody"]))
        assert done.returncode == 1, (base, done.stdout, done.stderr)
        first = done.stdout.splitlines()[0]
        assert first == f"mcp-accept: error: the current run tested nothing: {cause(runs['nobody'])}"
        assert "(the current run tested nothing)" in done.stdout.splitlines()[-1]
    done = run_cli("diff", str(runs["exits"]), str(runs["reached"]))  # the server is back
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[0].startswith("mcp-accept: warning: the base run tested nothing: ")


# --------------------------------------------------------------------------- pytest


def run_pytest(pytester, *args: str):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfEs", *args, timeout=300)


@pytest.fixture
def target():
    """The plugin's options for a server that exits, or a URL nothing answers on (a port the
    test holds, refusing, until it ends)."""
    with contextlib.ExitStack() as held:
        def where(name: str) -> tuple[str, str]:
            if name == "exits":
                return ("--mcp-server", EXITS)
            return ("--mcp-url", f"http://127.0.0.1:{held.enter_context(refused_port())}/mcp")

        yield where


@pytest.mark.parametrize("name", UNTESTED)
def test_pytest_fails_with_the_cause_and_skips_nothing(pytester, target, name):
    result = run_pytest(pytester, *target(name), "--junitxml", "out.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert outcomes == {"failed": 1}, outcomes
    (folder,) = [p.parent for p in pytester.path.glob("mcp-accept-runs/*/results.json")]
    said = f"mcp-accept: nothing was tested: {plain_line(cause(folder))}"
    assert said in result.stdout.str()
    result.stdout.fnmatch_lines(["FAILED mcp-accept::W01 - *"])  # the first row; nothing after it ran
    from junitparser import Failure, JUnitXml

    cases = [case for suite in JUnitXml.fromfile(str(pytester.path / "out.xml")) for case in suite]
    failures = [r for case in cases for r in case.result if isinstance(r, Failure)]
    assert len(failures) == 1 and cause(folder) in failures[0].message
    assert not any(case.is_skipped for case in cases)


def test_pytest_k_counts_the_rows_it_selects(pytester, target):
    result = run_pytest(pytester, *target("exits"), "-k", "S01 or T01")
    result.stdout.fnmatch_lines([f"collected {len(ROWS)} items / {len(ROWS) - 2} deselected / 2 selected"])
    assert " -" not in next(line for line in result.stdout.lines if line.startswith("collected"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes() == {"failed": 1, "deselected": len(ROWS) - 2}


def test_pytest_fixture_errors_with_the_cause(pytester, target):
    pytester.makepyfile(test_own="""
        def test_structured_form(mcp_accept_run):
            assert mcp_accept_run.status("S01") == "PASS"
    """)
    result = run_pytest(pytester, *target("nobody"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes() == {"errors": 1}
    result.stdout.fnmatch_lines(["*ERROR at setup of test_structured_form*",
                                 "mcp-accept: nothing was tested: http://127.0.0.1:*"])


def test_pytest_under_xdist_is_not_green_either(pytester, target):
    pytest.importorskip("xdist")
    result = run_pytest(pytester, "-n", "2", *target("exits"))
    assert result.ret != pytest.ExitCode.OK
    outcomes = result.parseoutcomes()
    assert 1 <= outcomes.get("failed", 0) <= 2 and "skipped" not in outcomes and "passed" not in outcomes
    assert "nothing was tested: " in result.stdout.str()


def test_pytest_against_a_reached_server_is_unchanged(pytester, runs):
    from conftest import fixture_command

    result = run_pytest(pytester, "--mcp-server", fixture_command())
    assert result.ret == pytest.ExitCode.OK
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == results(runs["reached"])["summary"]["PASS"]
    assert "nothing was tested" not in result.stdout.str()


def test_an_untested_copy_keeps_its_cause_through_observe(runs, tmp_path):
    """A person fills a host row of a run that never reached its server: it still tested
    nothing automated, and the report still says so first."""
    folder = tmp_path / "observed"
    shutil.copytree(runs["nobody"], folder)
    shot = tmp_path / "chat.txt"
    shot.write_text("the host saw nothing\n", encoding="utf-8")
    done = run_cli("observe", str(folder), "H03", "--status", "UNOBTAINABLE", "--evidence", str(shot),
                   "--note", "no server to see")
    assert done.returncode == 0, done.stderr
    assert untested_cause(results(folder)) == cause(runs["nobody"])
    done = run_cli("report", str(folder), "--format", "github")
    assert done.stdout.startswith("::error ")
