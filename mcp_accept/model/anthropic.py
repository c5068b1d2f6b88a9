"""Anthropic Messages (``POST /v1/messages``, and ``/v1/messages/count_tokens``), as Claude Code
speaks it: tools in ``tools[]`` (``{name, description, input_schema}``), the model's calls as
``tool_use`` blocks, the host's results as ``tool_result`` blocks of the next user message.
Streaming answers are the API's SSE events: ``message_start``, ``content_block_start``,
``content_block_delta`` (``text_delta`` or ``input_json_delta``), ``content_block_stop``,
``message_delta``, ``message_stop``.

Shapes from the API reference (https://docs.anthropic.com/en/api/messages and
https://docs.anthropic.com/en/api/messages-streaming); checked in the tests against the
official ``anthropic`` SDK's types where it is installed.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_accept.model.answer import Answer
from mcp_accept.model.script import (CallTool, Say, ToolOffer, Turn, fields, items, reply_text, text_or_none,
                                     tool_choice)

API = "anthropic-messages"


def handles(bare: str) -> bool:
    """Whether a request's path (without its query) is this API's."""
    return bare in ("/v1/messages", "/v1/messages/count_tokens")


def parse(path: str, body: dict) -> Turn:
    turn = Turn(api=API, model=text_or_none(body.get("model")), stream=bool(body.get("stream")))
    choice = fields(body.get("tool_choice"))  # {"type": "auto"|"any"|"tool"|"none", "name"}
    turn.tool_choice = tool_choice(choice.get("type"), choice.get("name"))
    if path.endswith("/count_tokens"):
        turn.side = "count_tokens"
        return turn
    ToolOffer.collect(turn.offers, items(body.get("tools")))
    for message in items(body.get("messages")):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            turn.spoke()
        if not isinstance(message.get("content"), list):
            if message.get("role") == "user":
                turn.added(message)
            continue
        for block in message["content"]:
            if not isinstance(block, dict):
                continue
            if message.get("role") == "assistant" and block.get("type") == "tool_use":
                turn.called(str(block.get("id")), str(block.get("name")), block.get("input"))
            elif message.get("role") == "user" and block.get("type") == "tool_result":
                turn.answered(str(block.get("tool_use_id")), block)
            elif message.get("role") == "user":
                turn.added(block)
    if not turn.offers and not turn.calls:
        turn.side = "no tools"
    return turn


def count_tokens(body: dict) -> int:
    """A rough count, four characters a token, of what was sent: hosts compare it with their
    own limits (Claude Code keeps a large result in a file past one of them)."""
    return max(1, len(json.dumps(body, ensure_ascii=False)) // 4)


def respond(turn: Turn, action: CallTool | Say | None, body: dict) -> Answer:
    if turn.side == "count_tokens":
        return Answer(json={"input_tokens": count_tokens(body)})
    model = turn.model or "stand-in"
    message_id = f"msg_mcpaccept_{len(turn.calls):02d}"
    if isinstance(action, CallTool):
        block: dict[str, Any] = {"type": "tool_use", "id": action.call_id, "name": action.offer.name,
                                 "input": action.arguments}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": reply_text(turn, action)}
        stop = "end_turn"
    usage = {"input_tokens": count_tokens(body), "output_tokens": 1}
    if not turn.stream:
        return Answer(json={"id": message_id, "type": "message", "role": "assistant", "model": model,
                            "content": [block], "stop_reason": stop, "stop_sequence": None,
                            "usage": usage})
    start = dict(block, input={}) if block["type"] == "tool_use" else dict(block, text="")
    delta = ({"type": "input_json_delta", "partial_json": json.dumps(action.arguments)}
             if block["type"] == "tool_use" else {"type": "text_delta", "text": block["text"]})
    events = [
        ("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=0)}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return Answer(events=events)
