"""Wire-layer verdicts name the rule they enforce: each case runs mcp-accept against a real
server process (tests/servers/wire_server.py, the reference fixture with one defect) and
reads results.json: the row's status, the rule of the failing check, its spec source and
the reason."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conftest import load_results, run_cli

SERVER = Path(__file__).resolve().parent / "servers" / "wire_server.py"
FAST = ("--timeout", "5")


def server(*args: str) -> str:
    return shlex.join([sys.executable, str(SERVER), *args])


def run(tmp_path: Path, *args: str, protocol: str | None = None) -> dict:
    folder = tmp_path / "run"
    extra = ("--protocol", protocol) if protocol else ()
    proc = run_cli("run", "--server", server(*args), "--out", str(folder), *FAST, *extra)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    return load_results(folder)


def row(results: dict, row_id: str) -> dict:
    return next(r for r in results["rows"] if r["id"] == row_id)


def failing(entry: dict, check: str) -> list[dict]:
    return [c for c in entry["checks"] if c["check"] == check and c["status"] == "FAIL"]


def wire_events(tmp_path: Path) -> list[dict]:
    # Python's json reads NaN back; what matters here is the violation events.
    return [json.loads(line) for line in (tmp_path / "run" / "wire.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("defect, token, path", [
    ("nan", "NaN", "$.result.structuredContent.score"),
    ("infinity", "-Infinity", "$.result.structuredContent.score"),
])
def test_nan_and_infinity_are_not_json(tmp_path, defect, token, path):
    results = run(tmp_path, "--defect", defect)
    w01 = row(results, "W01")
    assert w01["status"] == "FAIL" and w01["failed_rule"] == "must"
    [bad] = failing(w01, "no_protocol_violations")
    assert bad["rule"] == "must" and bad["source"].endswith("basic/index.mdx#messages")
    assert f"{token} at {path} is not a JSON number" in w01["reason"]
    # the violation names the message it was found in, and that message is in the log
    [event] = [e for e in wire_events(tmp_path) if e.get("event") == "violation"]
    seq = int(event["detail"].split("#", 1)[1].split(":", 1)[0])
    received = next(e for e in wire_events(tmp_path) if e["seq"] == seq)
    assert received["dir"] == "in" and "score" in received["message"]["result"]["structuredContent"]


def test_a_duplicate_key_breaks_a_should_of_rfc_8259(tmp_path):
    results = run(tmp_path, "--defect", "duplicate-key")
    w01 = row(results, "W01")
    assert w01["status"] == "FAIL" and w01["failed_rule"] == "should"
    [bad] = failing(w01, "no_protocol_violations")
    assert bad["rule"] == "should" and bad["source"].startswith("RFC 8259 section 4")
    assert "duplicate object key 'total' at $.result.structuredContent" in w01["reason"]
    # the last value is kept, as JSON readers commonly do: total 2 validates
    assert row(results, "S01")["status"] == "PASS"


def test_valid_traffic_keeps_w01_passing(tmp_path):
    results = run(tmp_path)
    assert {r["id"]: r["status"] for r in results["rows"]}["W01"] == "PASS"
    assert row(results, "W01")["failed_rule"] is None


def test_a_custom_scheme_uri_that_is_not_rfc_3986_breaks_a_must(tmp_path):
    results = run(tmp_path, "--defect", "bad-link-uri")
    l01 = row(results, "L01")
    assert l01["status"] == "FAIL" and l01["failed_rule"] == "must"
    [bad] = failing(l01, "link_item")
    assert bad["rule"] == "must" and bad["source"].endswith("server/resources.mdx#custom-uri-schemes")
    assert "'search://results/demo v1' is not a URI by RFC 3986" in l01["reason"]
    w01 = row(results, "W01")  # the same URI, found in every received message
    assert w01["status"] == "FAIL" and failing(w01, "uri_and_blob_formats")[0]["rule"] == "must"


def test_an_https_uri_that_is_not_rfc_3986_breaks_a_should(tmp_path):
    results = run(tmp_path, "--defect", "bad-link-scheme")
    l01 = row(results, "L01")
    assert l01["status"] == "FAIL" and l01["failed_rule"] == "should"
    [bad] = failing(l01, "link_item")
    assert bad["source"].endswith("server/resources.mdx#resource")


def test_a_blob_that_is_not_base64_breaks_a_must(tmp_path):
    results = run(tmp_path, "--defect", "bad-blob")
    e01 = row(results, "E01")
    assert e01["status"] == "FAIL" and e01["failed_rule"] == "must"
    [bad] = failing(e01, "embedded_item")
    assert bad["rule"] == "must" and bad["source"].endswith("server/resources.mdx#security-considerations")
    assert "blob 'not base64!' is not valid base64" in e01["reason"]


def test_a_link_without_name_breaks_a_must_and_a_body_only_the_sheet(tmp_path):
    results = run(tmp_path, "--defect", "link-no-name")
    [bad] = failing(row(results, "L01"), "link_item")
    assert bad["rule"] == "must" and bad["source"].endswith("server/tools.mdx#resource-links")
    assert "resource_link lacks name" in row(results, "L01")["reason"]

    results = run(tmp_path, "--defect", "link-body")
    l01 = row(results, "L01")
    assert l01["status"] == "FAIL" and l01["failed_rule"] == "app"
    [bad] = failing(l01, "link_item")
    assert bad["rule"] == "app" and bad["source"] is None
    assert "the spec does not forbid it" in l01["reason"]


def test_a_tool_that_reports_an_error_fails_the_profiles_rule_with_its_words(tmp_path):
    results = run(tmp_path, "--defect", "tool-error")
    t01 = row(results, "T01")
    assert t01["status"] == "FAIL" and t01["failed_rule"] == "profile"
    assert "the tool reported an error: Search backend quota exceeded for q=MCP" in t01["reason"]
    # a result with isError is a well-formed answer: no wire failure, the wire layer has no
    # item to judge; the profile expected the document, and that is what fails
    assert "wire" not in t01["reason"]
    text_item = next(c for c in t01["checks"] if c["check"] == "text_item")
    assert text_item["status"] == "UNOBTAINABLE"
    assert all(c["rule"] == "profile" for c in t01["checks"] if c["status"] == "FAIL")


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25", "2025-06-18"])
def test_the_fixture_passes_l03_in_every_era(tmp_path, protocol):
    l03 = row(run(tmp_path, protocol=protocol), "L03")
    assert l03["status"] == "PASS", l03["reason"]
    assert l03["checks"][0]["rule"] == ("must" if protocol == "2026-07-28" else "should")


@pytest.mark.parametrize("protocol, defect, code, rule, words", [
    ("2026-07-28", "unknown-empty", None, "must", "empty contents array instead of an error, which 2026-07-28 forbids"),
    ("2026-07-28", "unknown-code", "-32002", "must", "a code 2026-07-28 implementations MUST NOT emit"),
    ("2025-11-25", "unknown-code", "-32602", "should", "gave error -32602 (2025-11-25: servers SHOULD return -32002)"),
    ("2025-06-18", "unknown-code", "-32602", "should", "gave error -32602 (2025-06-18: servers SHOULD return -32002)"),
    ("2025-11-25", "unknown-empty", None, "should", "empty contents array instead of an error (2025-11-25"),
    ("2025-06-18", "unknown-empty", None, "should", "empty contents array instead of an error (2025-06-18"),
])
def test_l03_is_judged_by_the_words_of_each_version(tmp_path, protocol, defect, code, rule, words):
    args = ("--defect", defect) + (("--code", code) if code else ())
    l03 = row(run(tmp_path, *args, protocol=protocol), "L03")
    assert l03["status"] == "FAIL" and l03["failed_rule"] == rule
    [bad] = failing(l03, "unknown_uri_error")
    assert bad["source"] == f"docs/specification/{protocol}/server/resources.mdx#error-handling"
    assert words in l03["reason"]


def test_every_wire_and_type_check_names_its_rule(tmp_path):
    from mcp_accept.checks.base import REGISTRY, RULES
    from mcp_accept.checks.registry import load_all

    load_all()
    for name, found in REGISTRY.items():
        if found.layer in ("wire", "type"):
            assert found.rule in RULES, name
            assert found.rule == "app" or found.source is not None, name


@pytest.mark.parametrize("fail_on, code", [("must", 1), ("should", 1), ("app", 1)])
def test_a_must_break_makes_exit_1_whatever_fail_on_says(tmp_path, fail_on, code):
    folder = tmp_path / fail_on
    proc = run_cli("run", "--server", server("--defect", "bad-link-uri"), "--out", str(folder), *FAST,
                   "--fail-on", fail_on)
    assert proc.returncode == code, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert load_results(folder)["failures_by_rule"]["must"] >= 1


def test_only_a_should_break_exits_0_under_fail_on_must_and_1_under_should(tmp_path):
    codes = {}
    for fail_on in ("must", "should"):
        proc = run_cli("run", "--server", server("--defect", "bad-link-scheme"), "--out", str(tmp_path / fail_on),
                       *FAST, "--fail-on", fail_on)
        codes[fail_on] = proc.returncode
    assert codes == {"must": 0, "should": 1}
