"""The fixture's break modes for the rule kinds, each checked on the wire of the fixture itself.

``mcp-accept verify`` shows what the runner's checks make of each mode; these tests show that
each mode puts on the wire the one defect its description names, and nothing else.
"""

from __future__ import annotations

import base64
import binascii
import json

import pytest

from test_fixture import (LINK_URI, MODERN, REFERENCE, assert_valid, call_tool, check_response,  # noqa: F401
                          load_fixture_module, modern_request, stdio, structured_of, text_item,
                          type_layer_passes)

LEGACY = "2025-11-25"


def check_preface_item(server):
    result = call_tool(server, "search_text")["result"]
    texts = [c["text"] for c in result["content"] if c["type"] == "text"]
    assert len(texts) == 2 and "Search results" in texts[0] and json.loads(texts[1]) == REFERENCE


def check_no_output_schema(server):
    tools = server.ask("tools/list")["result"]["tools"]
    assert all("outputSchema" not in t for t in tools)
    assert call_tool(server, "search_structured")["result"]["structuredContent"] == REFERENCE


def check_is_error(server):
    result = call_tool(server, "search_text")["result"]
    assert result["isError"] is True and "quota exceeded" in result["content"][0]["text"]
    check_response(MODERN, "tools/call", {"jsonrpc": "2.0", "id": 1, "result": result})


def check_nan(server):
    server.send(modern_request("tools/call", {"name": "search_text", "arguments": {"q": "MCP"}}, 90))
    line = server.line()
    assert '"fixtureScore":NaN' in line
    with pytest.raises(ValueError):
        json.loads(line, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))


def check_duplicate_key(server):
    server.send(modern_request("tools/call", {"name": "search_text", "arguments": {"q": "MCP"}}, 91))
    line = server.line()
    assert line.count('"fixtureNote":') == 2
    assert json.loads(line)["result"]["content"][0]["text"] == json.dumps(REFERENCE, separators=(",", ":"))


def check_bad_uri(server):
    link = call_tool(server, "search_link")["result"]["content"][0]
    assert link["uri"] == "search://results/demo v1"
    read = server.ask("resources/read", {"uri": link["uri"]})["result"]
    assert read["contents"][0]["uri"] == link["uri"]
    assert json.loads(read["contents"][0]["text"]) == REFERENCE
    embedded = call_tool(server, "search_embedded")["result"]["content"][0]["resource"]
    assert embedded["uri"] == LINK_URI  # the other forms keep their URI


def check_bad_blob(server):
    resource = call_tool(server, "search_embedded")["result"]["content"][0]["resource"]
    assert "text" not in resource
    with pytest.raises(binascii.Error):
        base64.b64decode(resource["blob"], validate=True)
    assert json.loads(base64.b64decode(resource["blob"][:-1])) == REFERENCE


def check_dialect_unknown(server):
    schema, result = structured_of(server)
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert result["structuredContent"] == REFERENCE


def check_ref_in_enum(server):
    schema, result = structured_of(server)
    assert {"$ref": "http://127.0.0.1:9/elsewhere.json"} in schema["properties"]["source"]["enum"]
    assert type_layer_passes(schema, result["structuredContent"])


def check_no_discover(server):
    answer = server.ask("server/discover", {})
    assert answer["error"]["code"] == -32601
    assert call_tool(server, "search_text")["result"]["resultType"] == "complete"


def check_mrtr(server):
    first = call_tool(server, "search_structured")["result"]
    assert first["resultType"] == "input_required" and "inputRequests" not in first
    assert_valid(MODERN, "InputRequiredResult", first)
    retry = server.ask("tools/call", {"name": "search_structured", "arguments": {"q": "MCP"},
                                      "requestState": first["requestState"]})["result"]
    assert retry["resultType"] == "complete" and retry["structuredContent"] == REFERENCE
    legacy = call_tool(server, "search_structured", modern=False)["result"]
    assert legacy["structuredContent"] == REFERENCE  # no input_required before 2026-07-28


def check_mrtr_endless(server):
    state = None
    for _ in range(4):
        params = {"name": "search_structured", "arguments": {"q": "MCP"}}
        if state is not None:
            params["requestState"] = state
        result = server.ask("tools/call", params)["result"]
        assert result["resultType"] == "input_required" and result["requestState"] != state
        state = result["requestState"]


def check_paged_resources(server):
    first = server.ask("resources/list", {})["result"]
    assert first["resources"] == [] and isinstance(first["nextCursor"], str)
    second = server.ask("resources/list", {"cursor": first["nextCursor"]})["result"]
    assert [r["uri"] for r in second["resources"]] == [LINK_URI] and "nextCursor" not in second
    assert server.ask("resources/list", {"cursor": "other"})["error"]["code"] == -32602


def check_unknown_method_result(server):
    assert "result" in server.ask("no/such-method", {})
    assert "result" in server.ask("no/such-method", None, modern=False)


def check_bad_cursor_accepted(server):
    assert len(server.ask("tools/list", {"cursor": "never-handed-out"})["result"]["tools"]) == 4
    assert server.ask("resources/list", {"cursor": "never-handed-out"})["error"]["code"] == -32602


def check_legacy_32602(server):
    assert server.ask("resources/read", {"uri": "search://results/nope"})["error"]["code"] == -32602
    server.initialize(LEGACY)
    legacy = server.ask("resources/read", {"uri": "search://results/nope"}, modern=False)
    assert legacy["error"]["code"] == -32602


def check_legacy_object_schema(server):
    # alone, it changes nothing: the object outputSchema is the default one
    modern, _ = structured_of(server)
    legacy, _ = structured_of(server, modern=False)
    assert modern == legacy and modern["type"] == "object"


RULE_MODE_CHECKS = {
    "preface-item": check_preface_item,
    "no-output-schema": check_no_output_schema,
    "is-error": check_is_error,
    "nan": check_nan,
    "duplicate-key": check_duplicate_key,
    "bad-uri": check_bad_uri,
    "bad-blob": check_bad_blob,
    "dialect-unknown": check_dialect_unknown,
    "ref-in-enum": check_ref_in_enum,
    "no-discover": check_no_discover,
    "mrtr": check_mrtr,
    "mrtr-endless": check_mrtr_endless,
    "paged-resources": check_paged_resources,
    "unknown-method-result": check_unknown_method_result,
    "bad-cursor-accepted": check_bad_cursor_accepted,
    "legacy-32602": check_legacy_32602,
    "legacy-object-schema": check_legacy_object_schema,
}


@pytest.mark.parametrize("mode", list(RULE_MODE_CHECKS))
def test_rule_mode(stdio, mode):
    server = stdio("--break", mode, "--ref-url", "http://127.0.0.1:9/elsewhere.json")
    RULE_MODE_CHECKS[mode](server)


@pytest.mark.parametrize("value", ["null", "zero", "empty-array"])
def test_a_falsy_value_alone_keeps_the_object_schema_in_legacy(stdio, value):
    server = stdio("--break", f"structured-{value}", "--break", "legacy-object-schema")
    modern, modern_result = structured_of(server)
    legacy, legacy_result = structured_of(server, modern=False)
    assert modern != legacy and legacy["type"] == "object"
    assert_valid(LEGACY, "ListToolsResult", server.ask("tools/list", None, modern=False)["result"])
    assert modern_result["structuredContent"] == legacy_result["structuredContent"]
    assert type_layer_passes(modern, modern_result["structuredContent"])


def test_every_new_mode_is_listed():
    modes = load_fixture_module().BREAK_MODES
    assert set(RULE_MODE_CHECKS) <= set(modes)
    assert all(isinstance(modes[m], str) and modes[m] for m in RULE_MODE_CHECKS)
