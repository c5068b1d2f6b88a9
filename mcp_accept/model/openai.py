"""OpenAI's two APIs. **Responses** (``POST /v1/responses``, Codex): tools in ``tools[]``,
MCP tools grouped per server as ``{"type": "namespace", "name": …, "tools": [...]}``; the model's
calls are ``function_call`` items (echoing the ``namespace``), the host's results
``function_call_output`` items; streamed as ``response.created``, ``response.output_item.added``,
argument or text deltas, ``response.output_item.done``, ``response.completed``.
**Chat Completions** (``POST /v1/chat/completions``): tools as ``{"type": "function",
"function": {name, …}}``, calls in the assistant message's ``tool_calls``, results as
``role: "tool"`` messages; streamed as ``chat.completion.chunk`` objects, then ``[DONE]``.

A host may hand an earlier output item back as ``{"type": "item_reference", "id": …}``, which the
real API resolves from the items it stored (``store`` defaults to true; the AI SDK's provider of
the ai 6 series sends its calls so): the stand-in stores nothing, so the id of each call item it
answers carries the call itself (:func:`_item_id`), read back from the reference.

Shapes from the API references (https://platform.openai.com/docs/api-reference/responses,
https://platform.openai.com/docs/api-reference/chat) and Codex's use of them; checked in the
tests against the official ``openai`` SDK's types where it is installed.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp_accept.model.answer import Answer
from mcp_accept.model.script import (CallTool, Say, ToolOffer, Turn, fields, items, reply_text, text_or_none,
                                     tool_choice)

RESPONSES = "openai-responses"
CHAT = "openai-chat"
CREATED = 1_700_000_000  # a fixed time: the same requests get the same answers


def handles(bare: str) -> bool:
    """Whether a request's path (without its query) is this API's: a host may put the API's
    paths under a prefix of its own (its base URL's path)."""
    return bare.endswith(("/responses", "/chat/completions"))


def _usage_responses() -> dict:
    return {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0}, "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}


def api_of(path: str) -> str:
    return CHAT if path.endswith("/chat/completions") else RESPONSES


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def parse(path: str, body: dict) -> Turn:
    api = api_of(path)
    turn = Turn(api=api, model=text_or_none(body.get("model")), stream=bool(body.get("stream")))
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        # Chat Completions names the tool in {"type": "function", "function": {"name"}}, Responses
        # in {"type": "function", "name"}
        turn.tool_choice = tool_choice(choice.get("type"), fields(choice.get("function")).get("name")
                                       or choice.get("name"))
    else:
        turn.tool_choice = tool_choice(choice)
    if api == CHAT:
        _parse_chat(body, turn)
    else:
        _parse_responses(body, turn)
    if not turn.offers and not turn.calls:
        turn.side = "no tools"
        fmt = body.get("response_format") or fields(body.get("text")).get("format")
        if isinstance(fmt, dict):
            turn.schema = fields(fmt.get("json_schema")).get("schema") if "json_schema" in fmt else fmt.get("schema")
    return turn


CALL_ITEM = "fc_mcpaccept_"


def _item_id(n: int, call_id: str, name: str, arguments: str) -> str:
    """The id of the ``n``-th call item: its number, then the call (id, tool, arguments) as
    base64url JSON, so that a reference to it names the call without the stand-in storing it."""
    packed = json.dumps([call_id, name, arguments], separators=(",", ":")).encode()
    return f"{CALL_ITEM}{n:02d}_{base64.urlsafe_b64encode(packed).decode().rstrip('=')}"


def _referenced_call(item_id: Any) -> tuple[str, str, Any] | None:
    """The call a reference to one of the stand-in's call items names (None: not one of them)."""
    if not isinstance(item_id, str) or not item_id.startswith(CALL_ITEM) or "_" not in item_id[len(CALL_ITEM):]:
        return None
    packed = item_id[len(CALL_ITEM):].split("_", 1)[1]
    try:
        call = json.loads(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)))
    except (ValueError, binascii.Error):
        return None
    if not (isinstance(call, list) and len(call) == 3 and all(isinstance(part, str) for part in call)):
        return None
    return call[0], call[1], _arguments(call[2])


def _parse_responses(body: dict, turn: Turn) -> None:
    for tool in items(body.get("tools")):
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            ToolOffer.collect(turn.offers, items(tool.get("tools")), namespace=str(tool.get("name")))
        else:
            ToolOffer.collect(turn.offers, [tool])
    for item in items(body.get("input")):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call":
            turn.called(str(item.get("call_id")), str(item.get("name")), _arguments(item.get("arguments")))
        elif item.get("type") == "item_reference" and _referenced_call(item.get("id")):
            turn.called(*_referenced_call(item.get("id")))
        elif item.get("type") == "item_reference" and str(item.get("id")).startswith("msg_mcpaccept_"):
            turn.spoke()
        elif item.get("type") == "function_call_output":
            turn.answered(str(item.get("call_id")), item)
        elif item.get("role") == "assistant":
            turn.spoke()
        elif item.get("role") == "user":
            turn.added(item)


def _parse_chat(body: dict, turn: Turn) -> None:
    ToolOffer.collect(turn.offers, (fields(tool).get("function") for tool in items(body.get("tools"))))
    for message in items(body.get("messages")):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            turn.spoke()
            for call in map(fields, items(message.get("tool_calls"))):
                function = fields(call.get("function"))
                turn.called(str(call.get("id")), str(function.get("name")), _arguments(function.get("arguments")))
        elif message.get("role") == "tool":
            turn.answered(str(message.get("tool_call_id")), message)
        elif message.get("role") == "user":
            turn.added(message)


def respond(turn: Turn, action: CallTool | Say | None, body: dict) -> Answer:
    if turn.api == CHAT:
        return _respond_chat(turn, action)
    return _respond_responses(turn, action)


def _respond_responses(turn: Turn, action: CallTool | Say | None) -> Answer:
    n = len(turn.calls)
    response = {"id": f"resp_mcpaccept_{n:02d}", "object": "response", "created_at": CREATED,
                "status": "in_progress", "model": turn.model or "stand-in", "output": [],
                "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
                "usage": _usage_responses()}
    if isinstance(action, CallTool):
        arguments = json.dumps(action.arguments)
        item: dict[str, Any] = {"type": "function_call", "status": "completed",
                                "id": _item_id(n, action.call_id, action.offer.name, arguments),
                                "call_id": action.call_id, "name": action.offer.name, "arguments": arguments}
        if action.offer.namespace:
            item["namespace"] = action.offer.namespace
        added = dict(item, status="in_progress", arguments="")
        middle = [("response.function_call_arguments.delta",
                   {"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": 0,
                    "delta": arguments}),
                  ("response.function_call_arguments.done",
                   {"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0,
                    "arguments": arguments})]
    else:
        text = reply_text(turn, action)
        part = {"type": "output_text", "text": text, "annotations": []}
        item = {"type": "message", "id": f"msg_mcpaccept_{n:02d}", "status": "completed", "role": "assistant",
                "content": [part]}
        added = dict(item, status="in_progress", content=[])
        where = {"item_id": item["id"], "output_index": 0, "content_index": 0}
        middle = [("response.content_part.added", {"type": "response.content_part.added", **where,
                                                   "part": dict(part, text="")}),
                  ("response.output_text.delta", {"type": "response.output_text.delta", **where, "delta": text}),
                  ("response.output_text.done", {"type": "response.output_text.done", **where, "text": text}),
                  ("response.content_part.done", {"type": "response.content_part.done", **where, "part": part})]
    done = dict(response, status="completed", output=[item])
    if not turn.stream:
        return Answer(json=done)
    events = [("response.created", {"type": "response.created", "response": response}),
              ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": added}),
              *middle,
              ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
              ("response.completed", {"type": "response.completed", "response": done})]
    for number, (_, data) in enumerate(events):
        data["sequence_number"] = number
    return Answer(events=events)


def _respond_chat(turn: Turn, action: CallTool | Say | None) -> Answer:
    n = len(turn.calls)
    base = {"id": f"chatcmpl-mcpaccept-{n:02d}", "created": CREATED, "model": turn.model or "stand-in"}
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    if isinstance(action, CallTool):
        call = {"id": action.call_id, "type": "function",
                "function": {"name": action.offer.name, "arguments": json.dumps(action.arguments)}}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [dict(call, index=0)]}
    else:
        text = reply_text(turn, action)
        message = {"role": "assistant", "content": text}
        finish = "stop"
        delta = {"role": "assistant", "content": text}
    if not turn.stream:
        return Answer(json={**base, "object": "chat.completion", "usage": usage,
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
    chunk = {**base, "object": "chat.completion.chunk"}
    events: list[tuple[str | None, Any]] = [
        (None, dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
        (None, dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage)),
        (None, "[DONE]"),
    ]
    return Answer(events=events)


