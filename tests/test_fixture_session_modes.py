"""The fixture's break modes for the rules across a session and the fields the schema leaves
open, each checked on the fixture's own stdout: the mode puts on the wire the one defect its
description names (what mcp-accept makes of it is in tests/test_session_rules.py,
tests/test_open_fields.py and ``mcp-accept verify``)."""

from __future__ import annotations

import base64
import binascii
import json

import pytest

from test_fixture import MODERN, REFERENCE, call_tool, load_fixture_module, modern_request, stdio  # noqa: F401

LEGACY = "2025-11-25"
fx = load_fixture_module()


def text_call(server, *, modern=True) -> list[dict]:
    """Every message the fixture writes for one search_text call, the answer last."""
    server.next_id += 1
    params = {"name": "search_text", "arguments": {"q": "MCP"}}
    if modern:
        server.send(modern_request("tools/call", params, server.next_id))
    else:
        server.send({"jsonrpc": "2.0", "id": server.next_id, "method": "tools/call", "params": params})
    out = [server.recv()]
    while out[-1].get("id") != server.next_id or "method" in out[-1]:
        out.append(server.recv())
    return out


def capabilities(server, *, modern=True) -> dict:
    if modern:
        return server.ask("server/discover", {})["result"]["capabilities"]
    return server.initialize(LEGACY)["result"]["capabilities"]


def check_stray_progress(server):
    *before, answer = text_call(server)
    assert [m["method"] for m in before] == ["notifications/progress"]
    assert before[0]["params"]["progressToken"] == fx.PROGRESS_TOKEN and "result" in answer


def check_stray_log(server):
    assert "logging" not in capabilities(server)
    *before, _ = text_call(server)
    assert [m["method"] for m in before] == ["notifications/message"]


def check_log_declared(server):
    assert capabilities(server)["logging"] == {}
    *before, _ = text_call(server)
    assert [m["method"] for m in before] == ["notifications/message"]


def check_stray_request(server):
    *before, _ = text_call(server)
    assert before == []  # 2026-07-28: nothing
    server.initialize(LEGACY)
    *before, answer = text_call(server, modern=False)
    assert [(m["method"], m["id"]) for m in before] == [("roots/list", "fixture-roots-1")] and "result" in answer


def check_stray_cancel(server):
    *before, answer = text_call(server)
    assert [m["method"] for m in before] == ["notifications/cancelled"]
    assert before[0]["params"]["requestId"] == answer["id"]


def check_undeclared_resources(server):
    assert capabilities(server) == {"tools": {}}
    assert capabilities(server, modern=False) == {"tools": {}}
    assert server.ask("resources/list", {})["result"]["resources"] == []
    assert call_tool(server, "search_embedded")["result"]["content"][0]["type"] == "resource"


def check_undeclared_tools(server):
    assert capabilities(server) == {"resources": {}}
    assert len(server.ask("tools/list", {})["result"]["tools"]) == 4


def check_bad_image_data(server):
    *_, answer = text_call(server)
    text, image = answer["result"]["content"]
    assert json.loads(text["text"]) == REFERENCE and image["type"] == "image"
    with pytest.raises(binascii.Error):
        base64.b64decode(image["data"], validate=True)


def check_bad_meta_key(server):
    *_, answer = text_call(server)
    [item] = answer["result"]["content"]
    assert list(item["_meta"]) == [fx.BAD_META_KEY] and json.loads(item["text"]) == REFERENCE


def check_reserved_error_code(server):
    answer = server.ask("tools/list", {"cursor": "never-handed-out"})
    assert answer["error"]["code"] == fx.RESERVED_CODE


def check_ttl_float(server):
    server.send(modern_request("tools/list", {}, 77))
    line = server.line()
    assert '"ttlMs":0.0' in line and json.loads(line)["result"]["ttlMs"] == 0


def check_text_prose(server):
    *_, answer = text_call(server)
    [item] = answer["result"]["content"]
    assert item["text"] == fx.PROSE_TEXT % "MCP"


def check_empty_cursor(server):
    first = server.ask("tools/list", {})["result"]
    assert first["nextCursor"] == "" and [t["name"] for t in first["tools"]] == ["search_text", "search_structured"]
    second = server.ask("tools/list", {"cursor": ""})["result"]
    assert "nextCursor" not in second and [t["name"] for t in second["tools"]] == ["search_embedded", "search_link"]
    assert server.ask("tools/list", {"cursor": "other"})["error"]["code"] == -32602


SESSION_MODE_CHECKS = {
    "stray-progress": check_stray_progress,
    "stray-log": check_stray_log,
    "log-declared": check_log_declared,
    "stray-request": check_stray_request,
    "stray-cancel": check_stray_cancel,
    "undeclared-resources": check_undeclared_resources,
    "undeclared-tools": check_undeclared_tools,
    "bad-image-data": check_bad_image_data,
    "bad-meta-key": check_bad_meta_key,
    "reserved-error-code": check_reserved_error_code,
    "ttl-float": check_ttl_float,
    "text-prose": check_text_prose,
    "empty-cursor": check_empty_cursor,
}


@pytest.mark.parametrize("mode", list(SESSION_MODE_CHECKS))
def test_session_mode(stdio, mode):
    SESSION_MODE_CHECKS[mode](stdio("--break", mode))
