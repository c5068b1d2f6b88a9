"""Requests of any shape reach the stand-in model (a host, or anything else on loopback, may send
them): each is recorded and answered, and model.jsonl is read back without an exception; a body
nested deeper than the JSON parser goes is a 400, not a 500."""

from __future__ import annotations

import json

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_accept.hosts.model_view import read_view
from mcp_accept.model import anthropic, gemini, openai
from mcp_accept.model.script import Script, Step, ToolNaming
from mcp_accept.model.server import StandIn

# keys every API reads, so that generated bodies reach the code that reads them
KEYS = ["type", "name", "id", "role", "content", "parts", "functionCall", "functionResponse", "tool_calls",
        "function", "arguments", "input", "output", "call_id", "tool_use_id", "tools", "functionDeclarations",
        "namespace", "messages", "contents", "input_schema", "result", "text", "format", "json_schema",
        "model", "stream", "response_format", "generationConfig", "responseSchema"]
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
                    max_leaves=20)
BODIES = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6)
ROUTES = [(anthropic, "/v1/messages"), (anthropic, "/v1/messages/count_tokens"), (openai, "/v1/responses"),
          (openai, "/v1/chat/completions"), (gemini, "/v1beta/models/m:generateContent"),
          (gemini, "/v1beta/models/m:streamGenerateContent")]


def script() -> Script:
    return Script([Step("text", "search_text", {"q": "MCP"})], naming=ToolNaming("s", "{tool}"))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(ROUTES), BODIES)
def test_every_api_reads_and_answers_a_body_of_any_shape(route, body):
    dialect, path = route
    turn = dialect.parse(path, body)
    action = None if turn.side else script().next_action(turn)
    dialect.respond(turn, action, body)
    api = dialect.__name__.rsplit(".", 1)[-1]
    read_view([{"seq": 1, "dir": "in", "message": body, "http": {"path": path, "api": api}}])


def test_hostile_requests_over_http_are_recorded_and_read_back(tmp_path):
    log = tmp_path / "model.jsonl"
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    with StandIn(script(), log) as model:
        wrong = httpx.post(model.url + "/v1/messages", json={"messages": "x", "tools": 5})
        nested = httpx.post(model.url + "/v1/chat/completions", content=deep,
                            headers={"content-type": "application/json"})
        listed = httpx.post(model.url + "/v1/responses", json=[1, 2])
    assert wrong.status_code == 200 and wrong.json()["type"] == "message"
    assert nested.status_code == 400 and listed.status_code == 400
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["dir"] for e in entries] == ["in", "out"] * 3
    view = read_view(entries)
    assert view.requests == 3 and not view.steps
