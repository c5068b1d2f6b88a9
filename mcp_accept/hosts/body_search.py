"""Where what a server sent stands in what a host handed its model: the text of a result block
(its framing left out), JSON opened however many times a host serialised it, a body found as text
or as a JSON value, the fixture's head and tail tokens, and the places a base64 body reached the
model as media or as text. Pure functions over values: nothing here reads a file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


# Keys of a result block that frame it rather than carry what the model reads.
FRAME_KEYS = frozenset({"type", "id", "tool_use_id", "tool_call_id", "call_id", "name", "cache_control",
                        "role", "status"})
# Framing keys whose value is framing whatever its shape: Anthropic's prompt-caching marker is an
# object, ``{"type": "ephemeral", "ttl": "5m"}``, an instruction to the API that the model never
# reads (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
FRAME_OBJECTS = frozenset({"cache_control"})


def _carries_text(key: str, item: Any) -> bool:
    """Whether a block's ``key`` holds what the model reads rather than the block's framing."""
    return key not in FRAME_OBJECTS and (key not in FRAME_KEYS or not isinstance(item, str))


def block_text(block: Any) -> str:
    """The strings of a result block joined, JSON escapes undone: what a person reads of it
    (the block's framing, such as its type and ids, left out)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if _carries_text(key, item):
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(block)
    return "\n".join(out)


# How deep JSON held in a JSON string is opened, and the largest string opened: a host may
# hand its model a result's content serialised once more (Continue CLI's
# JSON.stringify(content)), or a read tool's JSON answer as a string inside its own envelope.
NESTED_JSON_DEPTH = 4
NESTED_JSON_BYTES = 32 * 1024 * 1024


def searchable_text(block: Any) -> str:
    """``block_text``, and beside each string that holds JSON (an array, an object or a string:
    Mistral Vibe hands what its sandbox's program returned, a text as a JSON string) the text of
    that JSON's strings, opened the same way: a body is found with its quotes, newlines and
    Unicode unescaped however many times a host serialised it."""
    out: list[str] = []

    def walk(value: Any, depth: int) -> None:
        if isinstance(value, str):
            out.append(value)
            opened = value.lstrip()[:1]
            if depth >= NESTED_JSON_DEPTH or len(value) > NESTED_JSON_BYTES:
                return
            try:
                if opened not in ("[", "{", '"'):
                    raise ValueError(value)
                walk(json.loads(value), depth + 1)
            except (ValueError, RecursionError):
                # JSON with words before or after it (Claude Code puts a <system-reminder> after a
                # read tool's JSON, Codex "Wall time: ... Output:" before a result's)
                for inner in _json_within(value):
                    walk(inner, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                if _carries_text(key, item):
                    walk(item, depth)
        elif isinstance(value, list):
            for item in value:
                walk(item, depth)

    walk(block, 0)
    return "\n".join(out)


def _json_within(text: str, limit: int = 20) -> list[Any]:
    """The JSON objects and arrays in a text that is not JSON as a whole, each decoded once (the
    search goes on after a value's end), at most ``limit`` tries."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    index = 0
    for _ in range(limit):
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, index = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            index = start + 1
            continue
        found.append(value)
    return found



NO_TOKENS = "unknown"


def reach(text: str, heads: set[str], tails: set[str]) -> str:
    """``whole`` (head and tail tokens), ``cut`` (head without tail), ``tail only`` or ``absent``;
    ``unknown`` where the form has no tokens to look for (the server is not the fixture in
    marker mode): nothing can be told then, and nothing is judged."""
    if not heads:
        return NO_TOKENS
    head = any(t in text for t in heads)
    tail = any(t in text for t in tails) if tails else head
    if head and tail:
        return "whole"
    if head:
        return "cut"
    return "tail only" if tail else "absent"



@dataclass
class Body:
    """What the server sent for one form, as the proxy recorded it on the MCP wire."""

    texts: list[str] = field(default_factory=list)  # strings the model should get, verbatim
    values: list[Any] = field(default_factory=list)  # JSON values, found whatever their serialisation
    seq: int | None = None


NEEDLE_HEAD = 64  # characters of a body's start that show a cut body reached the model


def json_values_in(text: str, limit: int = 2000) -> list[Any]:
    """JSON objects and arrays found inside ``text`` (a host may wrap, indent or prefix them)."""
    decoder = json.JSONDecoder()
    found, tries = [], 0
    for index, char in enumerate(text):
        if char not in "{[":
            continue
        tries += 1
        if tries > limit:
            break
        try:
            value, _ = decoder.raw_decode(text, index)
        except ValueError:
            continue
        found.append(value)
    return found



def find_in(text: str, body: Body) -> tuple[str, str]:
    from mcp_accept.checks.base import same_json

    for needle in body.texts:
        if needle and needle in text:
            return "whole", "as text"
    flat = text.replace("\r\n", "\n")
    for needle in body.texts:
        if needle and "\r" in needle and needle.replace("\r\n", "\n") in flat:
            return "whole", "as text, its line endings made LF"
    if body.values:
        for value in json_values_in(text):
            if any(same_json(value, wanted) for wanted in body.values):
                return "whole", "as a JSON value"
    for needle in body.texts:
        if len(needle) > NEEDLE_HEAD and needle[:NEEDLE_HEAD] in text:
            return "cut", "its start as text"
    return "absent", "neither as text nor as a JSON value"


# --------------------------------------------------------------------------- media
# Where each model API takes bytes as media, not as text: Anthropic's image and document
# blocks (``source.data``: https://docs.anthropic.com/en/docs/build-with-claude/vision,
# .../pdf-support), OpenAI Chat's ``image_url`` and ``file`` parts and the Responses API's
# ``input_image`` and ``input_file`` items (https://platform.openai.com/docs/guides/images-vision,
# .../pdf-files), Gemini's ``inlineData`` parts (https://ai.google.dev/gemini-api/docs/image-understanding).
# Base64 anywhere else in a request (a JSON text, a JSON value of a function response) is
# characters the model reads as text, however image-like the object around it looks.
MEDIA_AS_PART, MEDIA_AS_TEXT = "media part", "text"


def _media_strings(part: dict) -> list:
    """The strings one part of a request hands its model as media bytes (none: no media part)."""
    kind, source = part.get("type"), part.get("source")
    if kind in ("image", "document") and isinstance(source, dict):
        return [source.get("data")]
    if kind == "image_url":
        url = part.get("image_url")
        return [url.get("url") if isinstance(url, dict) else url]
    if kind == "input_image":
        return [part.get("image_url")]
    if kind == "file":
        return [(part.get("file") or {}).get("file_data") if isinstance(part.get("file"), dict) else None]
    if kind == "input_file":
        return [part.get("file_data")]
    inline = part.get("inlineData", part.get("inline_data"))
    return [inline.get("data")] if isinstance(inline, dict) else []


def media_routes(value: Any, needle: str, limit: int = 8) -> list[dict]:
    """How a stretch of a base64 body reached the model in ``value`` (a result block, or a whole
    request): ``{"as": "media part" | "text", "at": JSON path}`` for each place it is, the first
    ``limit``. A media part's bytes are not searched for text again."""
    found: list[dict] = []

    def walk(item: Any, path: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(item, str):
            if needle in item:
                found.append({"as": MEDIA_AS_TEXT, "at": path or "."})
        elif isinstance(item, dict):
            media = [s for s in _media_strings(item) if isinstance(s, str) and needle in s]
            if media:
                found.append({"as": MEDIA_AS_PART, "at": path or "."})
                return
            for key, inner in item.items():
                walk(inner, f"{path}.{key}")
        elif isinstance(item, list):
            for index, inner in enumerate(item):
                walk(inner, f"{path}[{index}]")

    walk(value, "")
    return found
