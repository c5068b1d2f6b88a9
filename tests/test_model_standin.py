"""The stand-in model over real HTTP on 127.0.0.1: each API's requests get a scripted tool call
under the host's own tool name, then the final text; every answer parses with the official
SDK's types (where the SDK is installed); model.jsonl holds both directions, flushed."""

from __future__ import annotations

import json

import httpx
import pytest
from httpx_sse import EventSource

from mcp_accept.model.script import Script, Step, ToolNaming, ToolOffer, Turn, value_for_schema
from mcp_accept.model.server import StandIn
from mcp_accept.hosts.registry import ADAPTERS


def script(scheme: str = "mcp__{server}__{tool}") -> Script:
    return Script([Step("text", "search_text", {"q": "MCP"}), Step("link", "search_link", {"q": "MCP"})],
                  naming=ToolNaming(server="s", scheme=scheme))


def sse_events(response: httpx.Response) -> list[tuple[str, str]]:
    return [(e.event, e.data) for e in EventSource(response).iter_sse()]


@pytest.fixture
def standin(request, tmp_path):
    """The stand-in with the script above; a test names the host's tool-name scheme by
    parametrizing this fixture indirectly (default: Claude Code's)."""
    with StandIn(script(getattr(request, "param", "mcp__{server}__{tool}")), tmp_path / "model.jsonl") as model:
        yield model


def test_a_server_tool_is_found_under_the_hosts_scheme_only():
    naming = ToolNaming(server="srv", scheme="mcp__{server}__{tool}")
    offers = [ToolOffer("run_shell_command"), ToolOffer("mcp__srv__run_shell_command"), ToolOffer("mcp__srv__search_text")]
    assert naming.find(offers, "search_text")[0].name == "mcp__srv__search_text"
    # the host's own tool of the same name is never taken for the server's
    assert naming.find(offers, "run_shell_command")[0].name == "mcp__srv__run_shell_command"
    assert naming.find([ToolOffer("run_shell_command")], "run_shell_command") == (None, None)
    assert naming.find(offers, "search_embedded") == (None, None)
    assert naming.find([ToolOffer("mcp__other__search_text")], "search_text") == (None, None)
    # a name the host rewrote for its model API (a dot becomes "_")
    assert naming.find([ToolOffer("mcp__srv__search_v2")], "search.v2")[0].name == "mcp__srv__search_v2"
    spaced = ToolNaming(server="srv", scheme="mcp__{server}/{tool}")
    assert spaced.find([ToolOffer("search_text", "mcp__srv"), ToolOffer("search_text")], "search_text")[0].namespace == "mcp__srv"


def test_a_bare_scheme_never_calls_a_name_the_host_has_itself():
    naming = ToolNaming(server="srv", scheme="{tool}", product="Host X", own_tools=frozenset({"Bash"}))
    offer, refusal = naming.find([ToolOffer("Bash"), ToolOffer("search_text")], "Bash")
    assert offer is None and refusal.id == "own-tool-name" and "Host X" in refusal.text()
    assert naming.find([ToolOffer("search_text")], "search_text")[0].name == "search_text"
    twice = naming.find([ToolOffer("search_text"), ToolOffer("search_text")], "search_text")
    assert twice[0] is None and twice[1].id == "ambiguous-tool-name"


def test_a_server_tool_offered_only_inside_a_code_tool_is_called_through_it(tmp_path):
    """Mistral Vibe's naming: a server's tools are functions of its run_typescript sandbox only.
    The stand-in calls the sandbox with code that calls the server's tool, one step at a time,
    and calls a tool of the request by its name where the host offers it."""
    naming = ADAPTERS["mistral-vibe"].naming("srv")
    steps = [Step("text", "search_text", {"q": "MCP"}), Step("link", "search_link", {})]
    with StandIn(Script(steps, naming=naming), tmp_path / "model.jsonl") as model:
        request = {"model": "m", "messages": [{"role": "user", "content": "go"}],
                   "tools": [{"type": "function", "function": {"name": name, "parameters": {}}}
                             for name in ("run_typescript", "bash")]}
        first = httpx.post(model.url + "/v1/chat/completions", json=request).json()
        call = first["choices"][0]["message"]["tool_calls"][0]
        request["messages"] += [first["choices"][0]["message"],
                                {"role": "tool", "tool_call_id": call["id"], "content": "{}"}]
        second = httpx.post(model.url + "/v1/chat/completions", json=request).json()
    assert call["function"]["name"] == "run_typescript"
    assert json.loads(call["function"]["arguments"]) == {
        "code": 'return await tools["mcp_srv"]["search_text"]({"q": "MCP"});'}
    link = second["choices"][0]["message"]["tool_calls"][0]["function"]
    assert json.loads(link["arguments"])["code"].startswith('return await tools["mcp_srv"]["search_link"]')
    # without the sandbox in the request there is nothing to call; a host without one never uses it
    assert naming.sandbox([ToolOffer("bash")], "search_text", {}) is None
    assert ToolNaming(server="srv").sandbox is None


def test_a_refused_step_is_passed_over_and_recorded(tmp_path):
    naming = ToolNaming(server="s", scheme="{tool}", product="Host X", own_tools=frozenset({"Bash"}))
    steps = [Step("text", "Bash", {"command": "touch /tmp/x"}), Step("link", "search_link", {})]
    with StandIn(Script(steps, naming=naming), tmp_path / "model.jsonl") as model:
        request = {"model": "m", "messages": [{"role": "user", "content": "go"}],
                   "tools": [{"type": "function", "function": {"name": name, "parameters": {}}}
                             for name in ("Bash", "search_link")]}
        answer = httpx.post(model.url + "/v1/chat/completions", json=request).json()
    call = answer["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "search_link"
    entries = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()]
    refused = [e["http"]["refused"] for e in entries if (e.get("http") or {}).get("refused")]
    assert refused == [{"text": {"id": "own-tool-name", "tool": "Bash", "product": "Host X",
                                 "reason": refused[0]["text"]["reason"]}}]


def test_value_for_schema_answers_classifiers():
    schema = {"type": "object", "properties": {"next_speaker": {"type": "string", "enum": ["model", "user"]},
                                               "score": {"type": "integer", "minimum": 1, "maximum": 100}}}
    assert value_for_schema(schema) == {"next_speaker": "user", "score": 50}


def anthropic_request(messages, stream):
    return {"model": "claude-x", "max_tokens": 100, "stream": stream, "messages": messages,
            "tools": [{"name": "mcp__s__search_text", "input_schema": {"type": "object"}},
                      {"name": "mcp__s__search_link", "input_schema": {"type": "object"}}]}


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_messages_script_and_sdk_types(standin, tmp_path, stream):
    url = standin.url + "/v1/messages?beta=true"
    first = httpx.post(url, json=anthropic_request([{"role": "user", "content": "go"}], stream))
    assert first.status_code == 200
    if stream:
        events = [(n, json.loads(d)) for n, d in sse_events(first)]
        assert [n for n, _ in events] == ["message_start", "content_block_start", "content_block_delta",
                                          "content_block_stop", "message_delta", "message_stop"]
        block = events[1][1]["content_block"]
        assert block["name"] == "mcp__s__search_text"
        assert json.loads(events[2][1]["delta"]["partial_json"]) == {"q": "MCP"}
        anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK checks the event shapes")
        from pydantic import TypeAdapter

        for _, data in events:
            TypeAdapter(anthropic.types.RawMessageStreamEvent).validate_python(data)
    else:
        body = first.json()
        assert body["content"][0]["name"] == "mcp__s__search_text" and body["stop_reason"] == "tool_use"
        anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK checks the message shape")
        anthropic.types.Message.model_validate(body)
    call_id = "call_mcpaccept_00"
    after = anthropic_request([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "mcp__s__search_text",
                                           "input": {"q": "MCP"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "body"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_mcpaccept_01",
                                           "name": "mcp__s__search_link", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_mcpaccept_01", "content": "x"}]},
    ], False)
    final = httpx.post(url, json=after).json()
    assert final["content"] == [{"type": "text", "text": "done"}] and final["stop_reason"] == "end_turn"
    counted = httpx.post(standin.url + "/v1/messages/count_tokens", json=after).json()
    assert counted["input_tokens"] > 0
    lines = (tmp_path / "model.jsonl").read_text().splitlines()
    kinds = [(json.loads(line)["dir"]) for line in lines]
    assert kinds == ["in", "out"] * 3  # flushed as answered: the file holds every exchange already


@pytest.mark.parametrize("query", ["", "?beta=true"])
def test_anthropic_count_tokens_whatever_the_query_string(standin, query):
    # Claude Code asks /v1/messages/count_tokens?beta=true: a Message there would be read as no count.
    request = anthropic_request([{"role": "user", "content": "go"}], False)
    answer = httpx.post(standin.url + "/v1/messages/count_tokens" + query, json=request)
    assert answer.status_code == 200
    assert set(answer.json()) == {"input_tokens"} and answer.json()["input_tokens"] > 0
    anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK checks the count's shape")
    anthropic.types.MessageTokensCount.model_validate(answer.json())
    # the same path with its query still drives the script for a real turn
    turn = httpx.post(standin.url + "/v1/messages" + query, json=request).json()
    assert turn["type"] == "message" and turn["content"][0]["name"] == "mcp__s__search_text"


@pytest.mark.parametrize("standin", ["{tool}"], indirect=True)
def test_openai_final_text_answers_match_the_sdk_types(standin):
    tools = [{"type": "function", "name": "search_text", "parameters": {"type": "object"}}]
    responses = {"model": "m", "tools": tools, "input": [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "call_mcpaccept_00", "name": "search_text", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_mcpaccept_00", "output": "body"},
        {"type": "function_call", "call_id": "call_mcpaccept_01", "name": "search_link", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_mcpaccept_01", "output": "x"}]}
    answer = httpx.post(standin.url + "/v1/responses", json=responses).json()
    item = answer["output"][0]
    assert item["type"] == "message" and item["content"][0]["text"] == "done"
    chat = {"model": "m", "tools": [{"type": "function", "function": {"name": "search_text", "parameters": {}}},
                                    {"type": "function", "function": {"name": "search_link", "parameters": {}}}],
            "messages": [{"role": "user", "content": "go"},
                         {"role": "assistant", "content": None, "tool_calls": [
                             {"id": "call_mcpaccept_00", "type": "function",
                              "function": {"name": "search_text", "arguments": "{}"}},
                             {"id": "call_mcpaccept_01", "type": "function",
                              "function": {"name": "search_link", "arguments": "{}"}}]},
                         {"role": "tool", "tool_call_id": "call_mcpaccept_00", "content": "body"},
                         {"role": "tool", "tool_call_id": "call_mcpaccept_01", "content": "x"}]}
    final = httpx.post(standin.url + "/v1/chat/completions", json=chat).json()
    assert final["choices"][0]["message"]["content"] == "done"
    assert final["choices"][0]["finish_reason"] == "stop"
    openai = pytest.importorskip("openai", reason="the openai SDK checks the answer shapes")
    parsed = openai.types.responses.Response.model_validate(answer)
    assert parsed.output_text == "done"
    assert openai.types.chat.ChatCompletion.model_validate(final).choices[0].message.content == "done"


@pytest.mark.parametrize("standin", ["mcp__{server}/{tool}"], indirect=True)
@pytest.mark.parametrize("stream", [False, True])
def test_openai_responses_with_namespaces(standin, stream):
    request = {"model": "m", "stream": stream, "input": [{"role": "user", "content": "go"}],
               "tools": [{"type": "namespace", "name": "mcp__s", "tools": [
                   {"type": "function", "name": "search_text", "parameters": {"type": "object"}}]}]}
    answer = httpx.post(standin.url + "/v1/responses", json=request)
    if stream:
        events = [json.loads(d) for _, d in sse_events(answer)]
        assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
        item = events[-1]["response"]["output"][0]
        openai = pytest.importorskip("openai", reason="the openai SDK checks the event shapes")
        from pydantic import TypeAdapter

        for event in events:
            TypeAdapter(openai.types.responses.ResponseStreamEvent).validate_python(event)
    else:
        item = answer.json()["output"][0]
        openai = pytest.importorskip("openai", reason="the openai SDK checks the response shape")
        openai.types.responses.Response.model_validate(answer.json())
    assert item["type"] == "function_call" and item["name"] == "search_text" and item["namespace"] == "mcp__s"
    assert json.loads(item["arguments"]) == {"q": "MCP"}


@pytest.mark.parametrize("standin", ["{server}__{tool}"], indirect=True)
@pytest.mark.parametrize("stream", [False, True])
def test_openai_chat_completions(standin, stream):
    request = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "go"}],
               "tools": [{"type": "function", "function": {"name": "s__search_text", "parameters": {}}}]}
    answer = httpx.post(standin.url + "/v1/chat/completions", json=request)
    openai = None
    try:
        import openai
    except ImportError:
        pass
    if stream:
        chunks = [d for _, d in sse_events(answer)]
        assert chunks[-1] == "[DONE]"
        first = json.loads(chunks[0])
        call = first["choices"][0]["delta"]["tool_calls"][0]
        if openai:
            for data in chunks[:-1]:
                openai.types.chat.ChatCompletionChunk.model_validate(json.loads(data))
    else:
        body = answer.json()
        call = body["choices"][0]["message"]["tool_calls"][0]
        if openai:
            openai.types.chat.ChatCompletion.model_validate(body)
    assert call["function"]["name"] == "s__search_text"


@pytest.mark.parametrize("standin", ["mcp_{server}_{tool}"], indirect=True)
@pytest.mark.parametrize("method", ["generateContent", "streamGenerateContent"])
def test_gemini_generate_content(standin, method):
    request = {"contents": [{"role": "user", "parts": [{"text": "go"}]}],
               "tools": [{"functionDeclarations": [{"name": "mcp_s_search_text"}]}]}
    path = f"/v1beta/models/gemini-x:{method}" + ("?alt=sse" if method.startswith("stream") else "")
    answer = httpx.post(standin.url + path, json=request)
    data = json.loads(sse_events(answer)[-1][1]) if method.startswith("stream") else answer.json()
    part = data["candidates"][0]["content"]["parts"][0]
    assert part["functionCall"] == {"name": "mcp_s_search_text", "args": {"q": "MCP"}}
    assert data["candidates"][0]["finishReason"] == "STOP"
    genai = pytest.importorskip("google.genai", reason="the google-genai SDK checks the response shape")
    genai.types.GenerateContentResponse.model_validate(data)
    # a host that renames the call's id (Gemini CLI does) is counted by its calls
    request["contents"] += [{"role": "model", "parts": [{"functionCall": {"id": "host-own-id", "name": "mcp_s_search_text", "args": {}}}]},
                            {"role": "user", "parts": [{"functionResponse": {"id": "host-own-id", "name": "mcp_s_search_text", "response": {"output": "x"}}}]}]
    final = httpx.post(standin.url + "/v1beta/models/gemini-x:generateContent", json=request).json()
    assert final["candidates"][0]["content"]["parts"][0] == {"text": "done"}


def test_side_calls_get_well_formed_answers(standin):
    classifier = {"contents": [{"role": "user", "parts": [{"text": "classify"}]}],
                  "generationConfig": {"responseJsonSchema": {"type": "object", "properties": {
                      "complexity_score": {"type": "integer", "minimum": 1, "maximum": 100}}}}}
    answer = httpx.post(standin.url + "/v1beta/models/flash-lite:generateContent", json=classifier).json()
    assert json.loads(answer["candidates"][0]["content"]["parts"][0]["text"]) == {"complexity_score": 50}
    tokens = httpx.post(standin.url + "/v1beta/models/x:countTokens", json=classifier).json()
    assert tokens["totalTokens"] > 0
    assert httpx.get(standin.url + "/api/hello").status_code == 404


def test_credentials_the_host_sends_never_reach_the_record(standin, tmp_path):
    httpx.post(standin.url + "/v1/messages", json=anthropic_request([{"role": "user", "content": "go"}], False),
               headers={"x-api-key": "sk-ant-secret-value-123456", "authorization": "Bearer tok-987654321"})
    text = (tmp_path / "model.jsonl").read_text()
    assert "sk-ant-secret-value-123456" not in text and "tok-987654321" not in text
    assert '"anthropic"' in text


def test_a_turn_whose_last_call_has_no_result_ends_the_script():
    turn = Turn(api="x", model=None, stream=False, offers=[ToolOffer("search_text"), ToolOffer("search_link")])
    from mcp_accept.model.script import Exchange

    turn.calls = [Exchange("call_mcpaccept_00", "search_text", {}, answered=False)]
    assert script().next_action(turn).text == "done"


def test_a_host_that_compacts_its_conversation_is_not_called_round_in_circles(tmp_path):
    # Continue CLI, past its context limit, drops the latest exchanges and asks for a summary,
    # tools still offered: calling the dropped steps again would repeat the overflow for ever.
    steps = [Step("text", "search_text", {"q": "MCP"}), Step("link", "search_link", {"q": "MCP"}),
             Step("large", "search_large", {"bytes": 1048576})]
    tools = [{"name": name, "input_schema": {"type": "object"}} for name in ("search_text", "search_link", "search_large")]

    def conversation(answered: int, tail: str | None = None) -> dict:
        messages = [{"role": "user", "content": "go"}]
        for index in range(answered):
            call_id = f"call_mcpaccept_{index:02d}"
            messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": call_id,
                                                             "name": steps[index].tool, "input": {}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "x"}]}]
        if tail:
            messages[-1]["content"].append({"type": "text", "text": tail})
        return {"model": "claude-x", "max_tokens": 100, "messages": messages, "tools": tools}

    with StandIn(Script(steps), tmp_path / "model.jsonl") as model:
        def ask(body: dict) -> dict:
            block = httpx.post(model.url + "/v1/messages", json=body).json()["content"][0]
            return block.get("name") or block.get("text")

        assert [ask(conversation(n)) for n in range(3)] == ["search_text", "search_link", "search_large"]
        assert ask(conversation(2)) == "search_large"  # the same request again: the same call, once
        assert ask(conversation(1, tail="Please provide a concise summary")) == "done"  # calls were dropped
        assert ask(conversation(0)) == "done"  # the conversation after its summary
        assert ask(conversation(2)) == "done"  # a step is called at most twice
        assert ask(conversation(3)) == "done"


@pytest.mark.parametrize("standin", ["{tool}"], indirect=True)
@pytest.mark.parametrize("path, body, said", [
    ("/v1/chat/completions", {"tool_choice": "none", "messages": [],
                              "tools": [{"type": "function", "function": {"name": "search_text"}}]}, "none"),
    ("/v1/responses", {"tool_choice": "none", "input": [], "tools": [{"type": "function", "name": "search_text"}]},
     "none"),
    ("/v1/messages", {"tool_choice": {"type": "none"}, "messages": [], "tools": [{"name": "search_text"}]}, "none"),
    ("/v1beta/models/m:generateContent", {"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}, "contents": [],
                                          "tools": [{"functionDeclarations": [{"name": "search_text"}]}]}, "none"),
    ("/v1/chat/completions", {"tool_choice": "required", "parallel_tool_calls": True, "messages": [],
                              "tools": [{"type": "function", "function": {"name": "search_text"}}]}, "required"),
    ("/v1/messages", {"tool_choice": {"type": "tool", "name": "search_text"}, "messages": [],
                      "tools": [{"name": "search_text"}]}, "tool:search_text"),
])
def test_tool_choice_none_is_answered_with_text_and_every_choice_recorded(standin, tmp_path, path, body, said):
    answer = httpx.post(standin.url + path, json={"model": "m", **body})
    assert answer.status_code == 200
    out = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()][-1]
    assert out["http"]["tool_choice"] == said
    action = out["http"]["action"]
    if said == "none":  # the request forbids a call: the final text, and the script waits
        assert action == {"say": "done"} and standin.script.issued == []
    else:  # one call a turn, whatever the request allows (a parallel call is never needed)
        assert action["call"] == "search_text"
        calls = answer.json()["choices"][0]["message"]["tool_calls"] if "chat" in path else \
            [b for b in answer.json()["content"] if b["type"] == "tool_use"]
        assert len(calls) == 1


def test_a_stand_in_for_one_api_refuses_the_others_and_records_why(tmp_path):
    from mcp_accept.model.server import API_NAMES

    with StandIn(script("{tool}"), tmp_path / "model.jsonl", api=API_NAMES["openai-chat"]) as model:
        tools = [{"type": "function", "function": {"name": "search_text"}}]
        other = httpx.post(model.url + "/v1/messages", json={"model": "m", "messages": [], "tools": [{"name": "x"}]})
        unknown = httpx.post(model.url + "/v2/complete", json={"prompt": "hi"})
        not_json = httpx.post(model.url + "/v1/chat/completions", content=b"{not json")
        right = httpx.post(model.url + "/v1/chat/completions", json={"model": "m", "messages": [], "tools": tools})
    assert (other.status_code, unknown.status_code, not_json.status_code, right.status_code) == (404, 404, 400, 200)
    assert "answers the openai-chat API only" in other.json()["error"]["message"]
    outs = [json.loads(line)["http"] for line in (tmp_path / "model.jsonl").read_text().splitlines()
            if json.loads(line)["dir"] == "out"]
    assert outs[0]["wrong-api"] == {"called": "anthropic-messages", "answered": "openai-chat"}
    assert [o["status"] for o in outs] == [404, 404, 400, 200] and outs[3]["action"]["call"] == "search_text"
    # every request is a line of the record, the refused ones too
    from mcp_accept.hosts.model_view import read_view
    from mcp_accept.evidence.wirelog import read_entries

    view = read_view(read_entries(tmp_path / "model.jsonl"))
    assert [w["called"] for w in view.wrong_api] == ["anthropic-messages"]
    assert [(u["path"], u["status"]) for u in view.unanswered] == [("/v2/complete", 404), ("/v1/chat/completions", 400)]
