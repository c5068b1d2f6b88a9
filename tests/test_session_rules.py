"""Rules across a whole session (mcp_accept/checks/session.py): each case runs mcp-accept against
the reference fixture in one break mode, over stdio or Streamable HTTP, and reads the verdict
of the check, its rule and the spec section it cites in the version on the wire."""

from __future__ import annotations

import json

import pytest

from conftest import fixture_command, load_results, run_cli, start_http_server, stop_http_server

from mcp_accept import fixture as fx

MODERN, LEGACY, OLDEST = "2026-07-28", "2025-11-25", "2025-06-18"
SPEC = "docs/specification"


def run(tmp_path, mode: str, era: str, transport: str = "stdio") -> dict:
    folder = tmp_path / "run"
    breaks = [a for m in mode.split("+") for a in ("--break", m)]
    if transport == "http":
        proc, url = start_http_server(str(fx.__file__), "--http", "0", *breaks)
        try:
            done = run_cli("run", "--url", url, "--protocol", era, "--out", str(folder), "--timeout", "5")
        finally:
            stop_http_server(proc)
    else:
        done = run_cli("run", "--server", fixture_command(*breaks), "--protocol", era, "--out", str(folder),
                       "--timeout", "5")
    assert done.returncode in (0, 1), done.stderr
    results = load_results(folder)
    results["folder"] = folder
    return results


def verdicts(results: dict, row_id: str, check: str) -> list[dict]:
    """The row's verdicts of one check, with their details (rows/<ID>.json)."""
    row = json.loads((results["folder"] / "rows" / f"{row_id}.json").read_text(encoding="utf-8"))
    return [c for c in row["checks"] if c["check"] == check]


def status_of(results: dict, row_id: str) -> str:
    return next(r for r in results["rows"] if r["id"] == row_id)["status"]


@pytest.mark.parametrize("mode, check, era, transport, page, says", [
    ("stray-progress", "progress_tokens_known", MODERN, "stdio", "basic/patterns/progress.mdx", fx.PROGRESS_TOKEN),
    ("stray-progress", "progress_tokens_known", OLDEST, "http", "basic/utilities/progress.mdx", fx.PROGRESS_TOKEN),
    ("stray-cancel", "cancellations_in_flight", MODERN, "stdio", "basic/patterns/cancellation.mdx",
     "subscriptions/listen"),
    ("stray-cancel", "cancellations_in_flight", LEGACY, "http", "basic/utilities/cancellation.mdx",
     "a request of its own"),
])
def test_a_notification_for_no_request_in_flight(tmp_path, mode, check, era, transport, page, says):
    results = run(tmp_path, mode, era, transport)
    [v] = verdicts(results, "W01", check)
    assert (v["status"], v["rule"]) == ("FAIL", "must")
    assert v["source"] == f"{SPEC}/{era}/{page}#behavior-requirements"
    assert says in v["detail"] and v["wire_seqs"]


@pytest.mark.parametrize("era, transport", [(MODERN, "http"), (LEGACY, "stdio")])
def test_log_messages_by_the_version(tmp_path, era, transport):
    results = run(tmp_path, "stray-log", era, transport)
    found = {v["source"]: v for v in verdicts(results, "W01", "log_messages_allowed")}
    capability = f"{SPEC}/{era}/server/utilities/logging.mdx#capabilities"
    level = f"{SPEC}/{era}/server/utilities/logging.mdx#per-request-log-level"
    assert found[capability]["status"] == "FAIL" and found[capability]["rule"] == "must"
    # Only 2026-07-28 ties a log message to the request's own log level.
    assert (level in found) == (era == MODERN)


def test_declared_logging_is_allowed_in_legacy_and_not_enough_in_2026(tmp_path):
    legacy = run(tmp_path / "a", "log-declared", LEGACY)
    [v] = verdicts(legacy, "W01", "log_messages_allowed")
    assert v["status"] == "PASS" and status_of(legacy, "W01") == "PASS"
    modern = run(tmp_path / "b", "log-declared", MODERN)
    [v] = verdicts(modern, "W01", "log_messages_allowed")
    assert (v["status"], v["rule"]) == ("FAIL", "must") and "logLevel" in v["detail"]
    assert v["source"].endswith("server/utilities/logging.mdx#per-request-log-level")


@pytest.mark.parametrize("era, transport", [(LEGACY, "http"), (OLDEST, "stdio")])
def test_a_request_for_a_capability_the_client_did_not_declare(tmp_path, era, transport):
    results = run(tmp_path, "stray-request", era, transport)
    [v] = verdicts(results, "W01", "server_requests_declared")
    assert (v["status"], v["rule"]) == ("FAIL", "must") and "roots/list" in v["detail"]
    assert v["source"] == f"{SPEC}/{era}/basic/lifecycle.mdx#operation"


def test_resources_served_undeclared(tmp_path):
    results = run(tmp_path, "undeclared-resources", OLDEST)
    found = {v["rule"]: v for v in verdicts(results, "W01", "features_declared")}
    assert found["must"]["source"] == f"{SPEC}/{OLDEST}/server/resources.mdx#capabilities"
    assert found["should"]["source"] == f"{SPEC}/{OLDEST}/server/tools.mdx#embedded-resources"
    # An error for the unknown URI: the server serves no resources to be missing.
    assert status_of(results, "L03") == "UNOBTAINABLE"


@pytest.mark.parametrize("era", [MODERN, LEGACY])
def test_an_unknown_uri_answered_by_a_server_without_resources_fails_l03_alike(tmp_path, era):
    results = run(tmp_path, "unknown-uri-empty+undeclared-resources", era, "http" if era == MODERN else "stdio")
    [v] = verdicts(results, "L03", "unknown_uri_error")
    assert (v["status"], v["rule"]) == ("FAIL", "must")
    assert v["source"] == f"{SPEC}/{era}/server/resources.mdx#capabilities"


def test_the_baseline_breaks_no_session_rule(tmp_path):
    results = run(tmp_path, "ttl-float", MODERN, "http")
    for check in ("progress_tokens_known", "log_messages_allowed", "server_requests_declared",
                  "cancellations_in_flight", "features_declared"):
        assert [v["status"] for v in verdicts(results, "W01", check)] == ["PASS"], check
