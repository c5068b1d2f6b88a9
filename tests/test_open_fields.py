"""The fields the schema leaves open, checked wherever they occur: base64 data beyond `blob`,
`_meta` key names, the error codes 2026-07-28 forbids (W03's probes included), and numbers
read by JSON's rules (an integer-valued number such as 0.0 is an integer)."""

from __future__ import annotations

import pytest

from test_session_rules import run, verdicts

from mcp_accept import fixture as fx
from mcp_accept.checks.base import json_integer
from mcp_accept.checks.errors import forbidden_code
from mcp_accept.checks.wire import meta_key_problem, modern_result_problems

MODERN, LEGACY, OLDEST = "2026-07-28", "2025-11-25", "2025-06-18"
SPEC = "docs/specification"


@pytest.mark.parametrize("era, transport", [(MODERN, "http"), (OLDEST, "stdio")])
def test_image_data_that_is_not_base64(tmp_path, era, transport):
    results = run(tmp_path, "bad-image-data", era, transport)
    [v] = verdicts(results, "W01", "uri_and_blob_formats")
    assert (v["status"], v["rule"]) == ("FAIL", "must")
    assert "content[1] image data" in v["detail"] and "not valid base64" in v["detail"]
    assert v["source"] == f"{SPEC}/{era}/basic/index.mdx#schema"


@pytest.mark.parametrize("era, transport", [(MODERN, "stdio"), (LEGACY, "http")])
def test_a_meta_key_name_out_of_format(tmp_path, era, transport):
    results = run(tmp_path, "bad-meta-key", era, transport)
    [v] = verdicts(results, "W01", "meta_keys_valid")
    assert (v["status"], v["rule"]) == ("FAIL", "must") and fx.BAD_META_KEY in v["detail"]
    assert v["source"] == f"{SPEC}/{era}/basic/index.mdx#meta"


@pytest.mark.parametrize("key, valid", [
    ("io.modelcontextprotocol/serverInfo", True), ("com.example/note", True), ("note", True), ("", True),
    ("a.b-c.d9/x_y.z-1", True), ("com.example/", True),
    ("com.example/-note", False), ("-note", False), ("com..example/x", False), ("1com.example/x", False),
    ("com.example-/x", False), ("com.example/note_", False), ("com example/x", False), ("a/b/c", False),
])
def test_meta_key_names(key, valid):
    assert (meta_key_problem(key) is None) == valid


def test_reserved_error_code_is_a_must_in_2026_only(tmp_path):
    modern = run(tmp_path / "a", "reserved-error-code", MODERN)
    [w01] = verdicts(modern, "W01", "error_codes_allowed")
    assert (w01["status"], w01["rule"]) == ("FAIL", "must") and "-32050" in w01["detail"]
    assert w01["source"] == f"{SPEC}/{MODERN}/basic/index.mdx#error-codes"
    # The W03 probe that got it fails on the version's MUST, not only on pagination's SHOULD.
    [probe] = verdicts(modern, "W03", "invalid_cursor_error")
    assert (probe["status"], probe["rule"]) == ("FAIL", "must")
    assert probe["source"] == f"{SPEC}/{MODERN}/basic/index.mdx#error-codes"
    legacy = run(tmp_path / "b", "reserved-error-code", LEGACY, "http")
    assert [v["status"] for v in verdicts(legacy, "W01", "error_codes_allowed")] == ["PASS"]
    [probe] = verdicts(legacy, "W03", "invalid_cursor_error")
    assert (probe["status"], probe["rule"]) == ("FAIL", "should")


def test_forbidden_codes():
    assert forbidden_code(MODERN, -32050) and forbidden_code(MODERN, -32002) and forbidden_code(MODERN, -32042)
    assert forbidden_code(MODERN, -32050.0)  # the same number
    for code in (-32020, -32021, -32022, -32602, -32601, -32000, -32019, -32100, 1):
        assert forbidden_code(MODERN, code) is None, code
    assert forbidden_code(LEGACY, -32050) is None and forbidden_code(OLDEST, -32042) is None


def test_ttl_written_as_a_float_with_an_integer_value_passes(tmp_path):
    results = run(tmp_path, "ttl-float", MODERN, "http")
    assert [v["status"] for v in verdicts(results, "W02", "modern_result_fields")] == ["PASS"]
    assert '"ttlMs":0.0' in (results["folder"] / "wire.jsonl").read_text(encoding="utf-8")
    assert results["rows"][0]["status"] == "PASS"


@pytest.mark.parametrize("value, integer", [
    (0, True), (0.0, True), (-3.0, True), (7, True), (1e3, True),
    (0.5, False), (True, False), (False, False), ("0", False), (None, False), (float("nan"), False),
])
def test_one_integer_rule(value, integer):
    assert json_integer(value) == integer
    result = {"resultType": "complete", "tools": [], "ttlMs": value, "cacheScope": "private"}
    caching = [p for p in modern_result_problems("tools/list", result) if "ttlMs" in p[1]]
    assert (not caching) == (integer and value >= 0)


def test_every_place_a_resource_uri_or_base64_data_occurs():
    from mcp_accept.checks.wire import media_items, received_resources

    prompt = {"messages": [
        {"role": "user", "content": {"type": "resource", "resource": {"uri": "bad uri", "text": "x"}}},
        {"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}},
        {"role": "assistant", "content": {"type": "resource_link", "uri": "file:///a", "name": "a"}},
    ]}
    assert [w for w, _ in received_resources(prompt, "prompts/get")] == [
        "messages[0].content resource", "messages[2].content resource_link"]
    assert [w for w, _ in media_items(prompt, "prompts/get")] == ["messages[1].content"]
    tool = {"content": [{"type": "audio", "data": "not base64!", "mimeType": "audio/wav"},
                        {"type": "resource_link", "uri": "file:///b", "name": "b"}]}
    assert [w for w, _ in media_items(tool, "tools/call")] == ["content[0]"]
    assert [w for w, _ in received_resources(tool, "tools/call")] == ["content[1] resource_link"]
    # structuredContent is the tool's own data, not MCP content
    assert media_items({"content": [], "structuredContent": {"type": "image", "data": "!"}}, "tools/call") == []
