"""Requests of any shape reach the stand-in model (a host, or anything else on loopback, may send
them): each is recorded and answered, and model.jsonl is read back without an exception; a body
nested deeper than the JSON parser goes is a 400, not a 500. What a request may cost is bounded:
the bodies read at once as a sum, the time a head or a body may take, and model.jsonl by the
run's byte budget; each refusal is recorded."""

from __future__ import annotations

import json
import socket
import time

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_accept.evidence.budget import ByteBudget
from mcp_accept.evidence.wirelog import read_entries
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


def messages(text: str) -> dict:
    return {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": text}],
            "tools": [{"name": "search_text", "input_schema": {"type": "object"}}]}


def test_the_record_is_read_back_from_the_file_not_kept_in_memory(tmp_path):
    log = tmp_path / "model.jsonl"
    with StandIn(script(), log) as model:
        for _ in range(3):
            assert httpx.post(model.url + "/v1/messages/count_tokens", json=messages("x" * 100_000)).status_code == 200
        called = httpx.post(model.url + "/v1/messages", json=messages("go")).json()
        kept = list(model.log.entries)
    assert kept == []  # six token-count requests of 50 MB would otherwise sit in memory until the rows are written
    assert called["content"][0]["name"] == "search_text"
    view = read_view(read_entries(log))
    assert view.requests == 4 and len(view.side_calls) == 3 and view.api == "anthropic-messages"
    assert "text" in view.asked_at


def raw_request(port: int, head: bytes, body: bytes = b"") -> socket.socket:
    """A connection to the stand-in that sends ``head`` (and ``body``) and then nothing more."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(head + body)
    return sock


def read_to_end(sock: socket.socket) -> bytes:
    """Everything the stand-in sends until it closes the connection (the socket's 30 s timeout
    fails a test whose connection is held open)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    return data


def events(log) -> list[dict]:
    return [e for e in read_entries(log) if e["dir"] == "event"]


def test_a_request_whose_head_or_body_stalls_is_answered_408_and_dropped(tmp_path):
    log = tmp_path / "model.jsonl"
    with StandIn(script(), log, read_timeout=0.5) as model:
        silent = socket.create_connection(("127.0.0.1", model.port), timeout=30)
        half_head = raw_request(model.port, b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: appl")
        stalled = raw_request(model.port, b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n"
                              b"content-type: application/json\r\n\r\n", b'{"messages": [')
        # meanwhile the stand-in answers others: the stalled requests hold nothing up
        assert httpx.post(model.url + "/v1/messages", json=messages("go")).status_code == 200
        answers = [read_to_end(s) for s in (silent, half_head, stalled)]
    assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers
    assert b"no byte of the body came within 0.5 s" in answers[2]
    reasons = sorted(e["http"]["reason"] for e in events(log) if e["event"] == "request-refused")
    assert reasons == ["body-timeout", "head-timeout", "head-timeout"]
    read = {e["http"]["reason"]: e["http"]["read"] for e in events(log)}
    assert read["body-timeout"] == len(b'{"messages": [')


def wait_for(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


def test_request_bodies_read_at_once_are_bounded_as_a_sum(tmp_path):
    log = tmp_path / "model.jsonl"
    body = json.dumps(messages("y" * 600_000)).encode()
    with StandIn(script(), log, in_flight=1_000_000) as model:
        first = raw_request(model.port, b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json"
                            b"\r\ncontent-length: %d\r\n\r\n" % len(body), body[:1000])
        wait_for(lambda: model.in_flight >= len(body))  # the first body is being read: its size is held
        second = httpx.post(model.url + "/v1/messages", content=body, headers={"content-type": "application/json"})
        first.sendall(body[1000:])
        answered = read_to_end_of_answer(first)
        third = httpx.post(model.url + "/v1/messages", content=body, headers={"content-type": "application/json"})
    assert second.status_code == 503 and second.headers["connection"] == "close"
    assert second.json()["error"]["type"] == "request_refused" and "would pass 1000000" in second.json()["error"]["message"]
    assert answered.startswith(b"HTTP/1.1 200") and third.status_code == 200  # held bytes are given back
    refused = [e for e in events(log) if e["event"] == "request-refused"]
    assert [e["http"]["reason"] for e in refused] == ["in-flight"]
    assert refused[0]["http"]["declared"] == len(body)
    assert read_view(read_entries(log)).requests == 2


def read_to_end_of_answer(sock: socket.socket) -> bytes:
    """One whole answer of known length on a connection kept alive."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(rest) < length:
        rest += sock.recv(65536)
    sock.close()
    return head + b"\r\n\r\n" + rest


def test_a_flooded_stand_in_writes_model_jsonl_within_the_run_budget(tmp_path):
    log = tmp_path / "model.jsonl"
    budget = ByteBudget(1 << 20)
    with StandIn(script(), log, budget=budget) as model:
        answers = [httpx.post(model.url + "/v1/messages/count_tokens", json=messages("z" * 200_000))
                   for _ in range(8)]
    assert log.stat().st_size <= 1 << 20
    assert [a.status_code for a in answers[:5]] == [200] * 5  # five requests fit, with their answers
    assert {a.status_code for a in answers[5:]} == {503}
    assert "byte bound (--max-run-bytes 1048576)" in answers[-1].json()["error"]["message"]
    lines = log.read_bytes().splitlines()
    assert all(isinstance(json.loads(line), dict) for line in lines)  # whole lines only
    assert budget.reached["by"] == "model.jsonl"
    record = budget.record()
    assert record["reached"] and record["parts"]["model.jsonl"] == log.stat().st_size
    assert record["not_written"]["model.jsonl"] > 0
