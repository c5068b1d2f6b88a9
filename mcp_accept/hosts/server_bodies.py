"""What the server sent, read from the recording proxy's ``wire.jsonl``: the host's requests paired
with their answers, and the body of each form as the server answered it (the bodies the host rows
look for in what the model was handed, on a server that is not the fixture).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

from mcp_accept.hosts.body_search import Body


@dataclass
class WireExchange:
    """A request the host sent on the MCP wire and the server's answer to it (as recorded)."""

    method: str
    params: dict
    answer: dict  # the JSON-RPC answer: ``result`` or ``error``
    seq: int | None  # the answer's seq in wire.jsonl
    request_seq: int | None


def wire_exchanges(entries: Iterable[dict]) -> list[WireExchange]:
    """The host's requests paired with their answers, from the entries of the proxy's
    ``wire.jsonl`` (:func:`mcp_accept.evidence.wirelog.read_entries`); in the order the answers
    came."""
    asked: dict[str, tuple[str, dict, int | None]] = {}
    paired: list[WireExchange] = []
    for entry in entries:
        message = entry.get("message")
        if not isinstance(message, dict) or "id" not in message:
            continue
        key = json.dumps(message["id"])
        if entry.get("dir") == "out" and isinstance(message.get("method"), str):
            asked[key] = (message["method"], message.get("params") or {}, entry.get("seq"))
        elif entry.get("dir") == "in" and key in asked and ("result" in message or "error" in message):
            method, params, request_seq = asked.pop(key)
            paired.append(WireExchange(method, params if isinstance(params, dict) else {}, message,
                                       entry.get("seq"), request_seq))
    return paired



def answered_text(exchanges: list[WireExchange], tool: str, arguments: Any) -> str | None:
    """The text the server answered to a ``tools/call`` of ``tool`` with ``arguments`` (its text
    items, and embedded resources' text, joined), the first such answer; None where none holds text."""
    for exchange in exchanges:
        result = exchange.answer.get("result")
        if exchange.method != "tools/call" or exchange.params.get("name") != tool or \
                not isinstance(result, dict) or (exchange.params.get("arguments") or {}) != (arguments or {}):
            continue
        items = [i for i in result.get("content") or [] if isinstance(i, dict)]
        texts = [i["text"] for i in items if i.get("type") == "text" and isinstance(i.get("text"), str)]
        texts += [i["resource"]["text"] for i in items if i.get("type") == "resource"
                  and isinstance(i.get("resource"), dict) and isinstance(i["resource"].get("text"), str)]
        if texts:
            return "\n".join(texts)
    return None


def server_bodies(exchanges: list[WireExchange], tools: dict[str, str]) -> dict[str, Body]:
    """form -> the body the server sent for it: text items (text), ``structuredContent`` and its
    twin (structured), the embedded resource's text or blob (embedded), and what
    ``resources/read`` of the link returned (link). ``tools``: form -> the server's tool name.
    The first answer of each wins."""
    bodies: dict[str, Body] = {}
    by_tool = {name: form for form, name in tools.items()}
    for exchange in exchanges:
        result = exchange.answer.get("result")
        if not isinstance(result, dict):
            continue
        method, params = exchange.method, exchange.params
        form = by_tool.get(params.get("name")) if method == "tools/call" else None
        if form is not None and form != "link" and form not in bodies:
            # the link's own result carries no body: the read below does
            items = [i for i in result.get("content") or [] if isinstance(i, dict)]
            resources = [i["resource"] for i in items if i.get("type") == "resource"
                         and isinstance(i.get("resource"), dict)]
            held = [r[k] for r in resources for k in ("text", "blob") if isinstance(r.get(k), str)]
            texts = [i["text"] for i in items if i.get("type") == "text" and isinstance(i.get("text"), str)]
            body = Body(texts=held if form == "embedded" else texts + held, seq=exchange.seq)
            if form == "structured" and "structuredContent" in result:
                body.values.append(result["structuredContent"])
            bodies[form] = body
        elif method == "resources/read" and "link" not in bodies:
            body = Body(seq=exchange.seq)
            for content in result.get("contents") or []:
                if isinstance(content, dict):
                    body.texts += [content[k] for k in ("text", "blob") if isinstance(content.get(k), str)]
            if body.texts:
                bodies["link"] = body
    for body in bodies.values():
        for text in body.texts:
            try:
                body.values.append(json.loads(text))
            except ValueError:
                pass
    return bodies
