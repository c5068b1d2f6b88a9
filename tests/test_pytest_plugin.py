"""The pytest plugin: the sheet's rows as pytest items, driven against the real fixture.

Each test runs pytest as a real process inside a pytester folder; the plugin comes in
through its ``pytest11`` entry point, as it does for a user who installed mcp-accept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import FIXTURE, ROOT, fixture_command

pytest_plugins = ["pytester"]

MISSING_TOOL_PROFILE = (ROOT / "sheets" / "profile-fixture.yaml").read_text(encoding="utf-8").replace(
    "search_text", "find_text")


def run_pytest(pytester, *args: str):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfs", *args, timeout=300)


def only_run(pytester) -> Path:
    folders = [p.parent for p in pytester.path.glob("mcp-accept-runs/*/results.json")]
    assert len(folders) == 1, folders
    return folders[0]


def load(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def by_status(results: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in results["rows"]:
        out.setdefault(row["status"], []).append(row["id"])
    return out


def test_every_row_becomes_an_item_whose_outcome_is_its_status(pytester):
    result = run_pytest(pytester, "--mcp-server", fixture_command(), "-v")
    results = load(only_run(pytester))
    got = by_status(results)
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == len(got.get("PASS", []))
    assert outcomes.get("failed", 0) == len(got.get("FAIL", []))
    assert outcomes.get("skipped", 0) == len(got.get("UNOBTAINABLE", [])) + len(got.get("PENDING", []))
    # The reference fixture passes every row whose form it serves; host rows wait for a person.
    for rid in ("T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01"):
        result.stdout.fnmatch_lines([f"mcp-accept::{rid} PASSED*"])
    result.stdout.fnmatch_lines(["*SKIPPED*PENDING: not observed yet*"])


def test_a_break_mode_fails_its_rows_with_reason_rule_and_evidence(pytester):
    result = run_pytest(pytester, "--mcp-server", fixture_command("--break", "total-999"))
    folder = only_run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*S03 FAIL [[]profile[]]: *total == length(hits)*",
        "*rule: profile (a rule you wrote in your profile)*",
        f"*evidence: *{folder.name}/rows/S03.json*",
    ])
    assert load(folder)["summary"]["FAIL"] == result.parseoutcomes()["failed"]


def test_a_profile_naming_a_tool_the_server_lacks_stops_the_session_at_its_line(pytester):
    # a typo in a profile is the user's input error, as for mcp-accept run (exit 2 there): the
    # session stops at the first row with the profile's file, line and field, and fails
    profile = pytester.path / "profile.yaml"
    profile.write_text(MISSING_TOOL_PROFILE, encoding="utf-8")
    result = run_pytest(pytester, "--mcp-server", fixture_command(), "--mcp-profile", "profile.yaml",
                        "-k", "T01 or S01")
    assert result.ret != 0
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and "passed" not in outcomes, outcomes
    result.stdout.fnmatch_lines(['*profile.yaml:*: tools.text.name: *no tool "find_text"*"search_text"*'])


def test_k_selects_rows_and_x_stops_at_the_first_failure(pytester):
    result = run_pytest(pytester, "--mcp-server", fixture_command("--break", "total-999"), "-k", "S01")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and "failed" not in outcomes and outcomes.get("deselected", 0) >= 10

    result = run_pytest(pytester, "--mcp-server", fixture_command("--break", "total-999"), "-x",
                        "--mcp-out", "x-run")
    assert result.parseoutcomes().get("failed") == 1  # S03 and X01 fail; -x stops at the first
    assert len(by_status(load(pytester.path / "x-run"))["FAIL"]) >= 2


def test_junitxml_carries_one_case_per_row(pytester):
    from junitparser import Failure, JUnitXml, Skipped

    run_pytest(pytester, "--mcp-server", fixture_command("--break", "total-999"), "--junitxml", "out.xml")
    results = load(only_run(pytester))
    cases = {case.name: case for suite in JUnitXml.fromfile(str(pytester.path / "out.xml")) for case in suite}
    assert set(cases) == {row["id"] for row in results["rows"]}
    for row in results["rows"]:
        kinds = {type(r) for r in cases[row["id"]].result}
        if row["status"] == "FAIL":
            assert kinds == {Failure}
        elif row["status"] in ("UNOBTAINABLE", "PENDING"):
            assert kinds == {Skipped}
        else:
            assert not kinds


def test_xdist_workers_share_one_run_of_the_server(pytester):
    pytest.importorskip("xdist")
    starts = pytester.path / "starts.log"
    counting = pytester.path / "counting_server.py"
    counting.write_text(
        "import os, sys\n"
        f"with open({str(starts)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        f"os.execv(sys.executable, [sys.executable, {str(FIXTURE)!r}, '--break', 'total-999'])\n",
        encoding="utf-8")
    result = run_pytest(pytester, "-n", "2", "--mcp-server", f"{sys.executable} {counting}")
    outcomes = result.parseoutcomes()
    results = load(only_run(pytester))
    assert outcomes.get("failed") == results["summary"]["FAIL"] >= 2
    assert outcomes.get("passed") == results["summary"]["PASS"]
    result.stdout.fnmatch_lines(["*gw[01]*"])  # it really ran on two workers
    assert len(starts.read_text().splitlines()) == 1  # and the server was started once


def test_the_fixture_gives_a_test_the_filled_results(pytester):
    pytester.makepyfile(test_own="""
        def test_structured_form(mcp_accept_run):
            assert mcp_accept_run.status("S01") == "PASS"
            assert mcp_accept_run.status("S03") == "FAIL"
            assert (mcp_accept_run.folder / "rows" / "S03.json").is_file()
    """)
    result = run_pytest(pytester, "--mcp-server", fixture_command("--break", "total-999"), "-k",
                        "structured_form")
    assert result.parseoutcomes() .get("passed") == 1


def test_without_its_options_the_plugin_adds_no_items_and_imports_nothing_heavy(pytester):
    pytester.makepyfile(test_plain="""
        import sys

        def test_plain(mcp_accept_run):
            pass

        def test_light():
            assert "mcp_accept.pytest_plugin" in sys.modules  # loaded through the entry point
            heavy = [m for m in ("mcp_accept.running.execute", "mcp_accept.inputs.sheet", "filelock", "jsonschema",
                                 "jinja2", "httpx") if m in sys.modules]
            assert heavy == []
    """)
    result = run_pytest(pytester)
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and outcomes.get("skipped") == 1, outcomes
    result.stdout.fnmatch_lines(["*no MCP server given*"])


def test_a_bad_option_is_a_usage_error_naming_it(pytester):
    result = run_pytest(pytester, "--mcp-server", fixture_command(), "--mcp-profile", "nowhere.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "nowhere.yaml" in result.stderr.str()
    assert "Traceback" not in result.stderr.str()
    assert not list(pytester.path.glob("mcp-accept-runs/*/results.json"))


def sdk_checks(folder: Path) -> list[dict]:
    return [c for row in load(folder)["rows"] for c in row.get("checks") or [] if c["layer"] == "sdk"]


def test_mcp_sdk_adds_the_sdk_layer_and_changes_no_outcome(pytester, monkeypatch):
    pytest.importorskip("mcp", reason="the sdk extra is not installed")
    server = fixture_command("--break", "total-string")
    plain = run_pytest(pytester, "--mcp-server", server, "--mcp-out", "plain")
    with_sdk = run_pytest(pytester, "--mcp-server", server, "--mcp-out", "sdk", "--mcp-sdk")
    assert plain.parseoutcomes() == with_sdk.parseoutcomes()  # the layer reports, it decides no item
    assert plain.ret == with_sdk.ret == pytest.ExitCode.TESTS_FAILED
    off = sdk_checks(pytester.path / "plain")
    assert off and {c.get("reason_id") for c in off} == {"sdk.off"}, off
    on = sdk_checks(pytester.path / "sdk")
    assert on and all(c["status"] in ("PASS", "FAIL") for c in on), on
    monkeypatch.setenv("MCP_ACCEPT_SDK", "maybe")
    refused = run_pytest(pytester, "--mcp-server", server, "--mcp-out", "refused")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "MCP_ACCEPT_SDK: must be on or off, not 'maybe'" in refused.stderr.str()


def test_mcp_env_gives_the_server_a_variable_and_nothing_else_of_the_environment(pytester, monkeypatch):
    env_server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'env_server.py'}"
    monkeypatch.setenv("MCPA_PLUGIN_DECOY", "mcpa-plugin-decoy-5e4d3c2b1a")
    result = run_pytest(pytester, "--mcp-server", env_server, "--mcp-out", "given",
                        "--mcp-env", "MCPA_PLUGIN_SET=x1y2z3w4v5")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    stderr = (pytester.path / "given" / "stderr.log").read_text(encoding="utf-8")
    assert '"MCPA_PLUGIN_SET": "[REDACTED]"' in stderr and "x1y2z3w4v5" not in stderr
    assert "MCPA_PLUGIN_DECOY" not in stderr
    environment = load(pytester.path / "given")["invocation"]["target"]["environment"]
    assert environment["set"] == ["MCPA_PLUGIN_SET"] and environment["inherited"] is False
    result = run_pytest(pytester, "--mcp-server", env_server, "--mcp-out", "inherited", "--mcp-inherit-env")
    assert result.ret == pytest.ExitCode.OK
    assert "mcpa-plugin-decoy-5e4d3c2b1a" in (pytester.path / "inherited" / "stderr.log").read_text(encoding="utf-8")
