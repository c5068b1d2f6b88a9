"""The Gemini API (``POST /v1beta/models/MODEL:generateContent``, ``:streamGenerateContent``
with ``alt=sse``, ``:countTokens``), as Gemini CLI speaks it: tools in
``tools[].functionDeclarations``, the model's calls as ``functionCall`` parts of a ``model``
content, the host's results as ``functionResponse`` parts of the next ``user`` content.
A stream is ``data:`` lines of ``GenerateContentResponse`` objects with no event names; the last
carries ``finishReason``.

Shapes from the API reference (https://ai.google.dev/api/generate-content); checked in the
tests against the official ``google-genai`` SDK's types where it is installed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_accept.model.answer import Answer
from mcp_accept.model.script import (CallTool, Exchange, Say, ToolOffer, Turn, fields, items, reply_text,
                                     tool_choice)

API = "gemini"
_METHOD = re.compile(r"/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")


def handles(bare: str) -> bool:
    """Whether a request's path (without its query) is this API's: ``.../models/MODEL:METHOD``."""
    return "/models/" in bare and ":" in bare.rsplit("/", 1)[-1]


def parse(path: str, body: dict) -> Turn:
    match = _METHOD.search(path)
    model, method = (match.group("model"), match.group("method")) if match else (None, "")
    turn = Turn(api=API, model=model, stream=method == "streamGenerateContent")
    if method == "countTokens":
        turn.side = "count_tokens"
        return turn
    config = fields(fields(body.get("toolConfig")).get("functionCallingConfig"))
    allowed = items(config.get("allowedFunctionNames"))
    turn.tool_choice = tool_choice(config.get("mode"), allowed[0] if len(allowed) == 1 else None)
    for tool in items(body.get("tools")):
        ToolOffer.collect(turn.offers, items(fields(tool).get("functionDeclarations")))
    open_calls: list[Exchange] = []
    for content in items(body.get("contents")):
        if not isinstance(content, dict):
            continue
        if content.get("role") == "model":
            turn.spoke()
        for part in items(content.get("parts")):
            if not isinstance(part, dict):
                continue
            if content.get("role") == "model" and isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                exchange = Exchange(str(call.get("id") or ""), str(call.get("name")), call.get("args"))
                turn.calls.append(exchange)
                open_calls.append(exchange)
            elif isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"]
                exchange = next((e for e in open_calls if response.get("id") and e.call_id == response.get("id")),
                                None) or next((e for e in open_calls if e.name == response.get("name")), None)
                if exchange is not None:
                    turn.handed(exchange, part)
                    open_calls.remove(exchange)
            elif content.get("role") != "model":
                turn.added(part)
    if not turn.offers and not turn.calls:
        turn.side = "no tools"
        config = fields(body.get("generationConfig"))
        turn.schema = config.get("responseJsonSchema") or config.get("responseSchema")
    return turn


def _tokens(body: dict) -> int:
    return max(1, len(json.dumps(body, ensure_ascii=False)) // 4)


def respond(turn: Turn, action: CallTool | Say | None, body: dict) -> Answer:
    if turn.side == "count_tokens":
        return Answer(json={"totalTokens": _tokens(body)})
    if isinstance(action, CallTool):
        part: dict[str, Any] = {"functionCall": {"name": action.offer.name, "args": action.arguments}}
    else:
        part = {"text": reply_text(turn, action)}
    usage = {"promptTokenCount": _tokens(body), "candidatesTokenCount": 1, "totalTokenCount": _tokens(body) + 1}
    whole = {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0, "finishReason": "STOP"}],
             "usageMetadata": usage, "modelVersion": turn.model or "stand-in"}
    if not turn.stream:
        return Answer(json=whole)
    return Answer(events=[(None, whole)])
