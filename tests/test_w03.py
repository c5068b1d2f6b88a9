"""W03, errors are JSON-RPC errors: the probes, their verdicts and rule kinds, in every era.

The probes run against real servers: the reference fixture, and
``tests/servers/variant_server.py`` (the fixture with one variant per ``--mode``).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conftest import SERVERS, start_http_server, stop_http_server

ERAS = ("2026-07-28", "2025-11-25", "2025-06-18")
W03_CHECKS = ("unknown_tool_error", "unknown_method_error", "call_without_name_error", "invalid_cursor_error",
              "still_answers")
AUTOMATED = ("W01", "W02", "W03", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01")


def variant(*modes: str) -> str:
    argv = [sys.executable, str(SERVERS / "variant_server.py")]
    for mode in modes:
        argv += ["--mode", mode]
    return shlex.join(argv)


def run_here(folder: Path, **options):
    from mcp_accept.running.execute import RunOptions, run

    return run(RunOptions(out=folder, offline=True, timeout=10, **options))


def w03(folder: Path) -> tuple[dict, dict[str, dict]]:
    """The W03 row of results.json, and its checks by name (from rows/W03.json)."""
    results = json.loads((folder / "results.json").read_text())
    row = next(r for r in results["rows"] if r["id"] == "W03")
    checks = json.loads((folder / "rows" / "W03.json").read_text())["checks"]
    return row, {c["check"]: c for c in checks}


@pytest.mark.parametrize("era", ERAS)
def test_a_server_that_refuses_properly_passes_w03_and_nothing_else_moves(tmp_path, era):
    # The fixture plus -32602 for a cursor it never handed out.
    folder = tmp_path / era
    outcome = run_here(folder, server=variant("strict-cursor"), protocol=era)
    row, checks = w03(folder)
    assert row["status"] == "PASS", row["reason"]
    assert set(checks) == set(W03_CHECKS)
    for name, verdict in checks.items():
        assert verdict["status"] == "PASS", verdict
        assert verdict["rule"] in ("must", "should", "app")
        assert verdict["source"].startswith(f"docs/specification/{era}/"), verdict
    got = {r["id"]: r["status"] for r in outcome.results["rows"] if r["id"] in AUTOMATED}
    want = {rid: "PASS" for rid in AUTOMATED}
    if era != "2026-07-28":
        want["W02"] = "UNOBTAINABLE"
    # the probes (one of them invalid on purpose) break no other row: W01 included
    assert got == want, [(r["id"], r["reason"]) for r in outcome.results["rows"] if got.get(r["id"]) != want.get(r["id"])]


@pytest.mark.parametrize("era", ERAS)
def test_the_fixture_passes_w03(tmp_path, era):
    folder = tmp_path / era
    run_here(folder, protocol=era)
    row, checks = w03(folder)
    assert row["status"] == "PASS", row["reason"]
    assert all(checks[name]["status"] == "PASS" for name in W03_CHECKS), checks


def test_w03_over_streamable_http(tmp_path):
    # 2026-07-28 over HTTP: an unknown method is a 404 carrying -32601.
    proc, url = start_http_server(str(SERVERS / "variant_server.py"), "--mode", "strict-cursor", "--http", "0")
    try:
        run_here(tmp_path / "run", url=url, protocol="2026-07-28")
    finally:
        stop_http_server(proc)
    row, checks = w03(tmp_path / "run")
    assert row["status"] == "PASS", row["reason"]
    entries = [json.loads(line) for line in (tmp_path / "run" / "wire.jsonl").read_text().splitlines()]
    answer = next(e for e in entries if e.get("step") == "probe:unknown-method" and e["dir"] == "in")
    assert answer["message"]["error"]["code"] == -32601


@pytest.mark.parametrize("mode, words", [
    ("unknown-result", "mcp-accept/no-such-method answered a result instead of error -32601"),
    ("unknown-code", "mcp-accept/no-such-method gave error -32600, expected -32601"),
])
def test_an_unknown_method_answered_wrongly_fails_a_must(tmp_path, mode, words):
    for era in ("2026-07-28", "2025-11-25"):
        folder = tmp_path / f"{mode}-{era}"
        run_here(folder, server=variant(mode, "strict-cursor"), protocol=era)
        row, checks = w03(folder)
        assert row["status"] == "FAIL" and row["failed_rule"] == "must", row
        assert words in row["reason"] and "wire [must]" in row["reason"]
        verdict = checks["unknown_method_error"]
        assert verdict["status"] == "FAIL" and verdict["rule"] == "must"
        assert verdict["source"] == f"docs/specification/{era}/basic/index.mdx#messages"
        assert checks["unknown_tool_error"]["status"] == "PASS"


def test_an_unknown_tool_answered_with_is_error_fails_a_rule_of_the_sheet(tmp_path):
    # The official SDK's server answers an unknown tool with a result carrying isError: true.
    folder = tmp_path / "run"
    run_here(folder, server=shlex.join([sys.executable, str(SERVERS / "mrtr_sdk_server.py")]))
    row, checks = w03(folder)
    verdict = checks["unknown_tool_error"]
    # tools.mdx#error-handling classifies an unknown tool as a protocol error but has no MUST or
    # SHOULD for it: a FAIL of the sheet's own rule, which --fail-on should lets pass
    assert verdict["status"] == "FAIL" and verdict["rule"] == "app", verdict
    assert "a result with isError: true instead of error -32602" in verdict["detail"]
    assert verdict["source"].endswith("server/tools.mdx#error-handling")
    assert checks["unknown_method_error"]["status"] == "PASS"


def test_probes_stay_away_from_the_rows_steps(tmp_path):
    outcome = run_here(tmp_path / "run")  # the built-in fixture
    steps = outcome.recording.steps
    probes = [name for name in steps if name.startswith("probe:")]
    assert probes == ["probe:unknown-tool", "probe:unknown-method", "probe:call-without-name",
                      "probe:invalid-cursor", "probe:still-answers"]
    for name in probes:
        sent = steps[name].reply.request
        assert sent["method"] != "resources/read"
        assert (sent.get("params") or {}).get("name") not in outcome.recording.tools
