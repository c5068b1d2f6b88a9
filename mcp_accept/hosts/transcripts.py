"""Host debug transcripts: what a host handed its model, read from the host's own trace.

``observe --transcript FILE --format NAME`` reads one of these instead of a pasted answer.
A transcript shows the tool results as the host put them before its model, so the marker
tokens found there are what the model was given (``model_visible_capture_method`` is
``debug trace``), not only what the model chose to repeat.

Formats:

* ``claude-code-stream-json``: the newline-delimited JSON that ``claude -p
  --output-format stream-json --verbose`` prints, one SDK message per line: ``system``
  (``subtype: "init"``, with ``mcp_servers`` and ``model``), ``assistant`` (its
  ``message.content`` holds ``text`` and ``tool_use`` blocks), ``user`` (its
  ``message.content`` holds the ``tool_result`` blocks: ``tool_use_id``, ``content`` as
  a string or a list of ``text``/``image`` blocks, ``is_error``) and the final ``result``.
  Taken from the Agent SDK reference (https://docs.claude.com/en/docs/agent-sdk/typescript,
  "Message Types": SDKSystemMessage, SDKAssistantMessage, SDKUserMessage, SDKResultMessage)
  and the CLI reference (https://docs.claude.com/en/docs/claude-code/cli-reference,
  ``--output-format``). What reached the model is the ``tool_result`` content of ``user``
  messages; the ``assistant`` text and the ``result`` are the model's answer.

The text returned keeps the transcript's line numbers: line N of it holds what line N of
the file handed the model (newlines inside a result folded into spaces), so the lines
``observe`` cites are lines of the transcript file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from mcp_accept.errors import InputError

FORMATS = ("claude-code-stream-json",)


@dataclass
class Transcript:
    text: str  # what the host handed its model, line by line of the file
    answer: str  # what the model said
    host_product: str | None = None
    tool_results: int = 0
    mcp_servers: list = field(default_factory=list)


def _block_text(block) -> str:
    if isinstance(block, str):
        return block
    if isinstance(block, dict):
        if isinstance(block.get("text"), str):
            return block["text"]
        if block.get("type") == "image":
            return ""
    return json.dumps(block, ensure_ascii=False)


def read_claude_stream_json(raw: str, shown: str) -> Transcript:
    seen_lines, answer_parts, results, servers = [], [], 0, []
    product = None
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            seen_lines.append("")
            continue
        try:
            event = json.loads(line)
        except ValueError as exc:
            raise InputError(f"not JSON ({exc.msg}): is this `claude -p --output-format stream-json` "
                             "output?", file=shown, line=number) from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise InputError("each line must be a JSON object with a \"type\"", file=shown, line=number,
                             field="type")
        kind, message = event["type"], event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        handed = []
        if kind == "system" and event.get("subtype") == "init":
            product = "Claude Code"
            servers = [s for s in event.get("mcp_servers") or [] if isinstance(s, dict)]
        elif kind == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results += 1
                    inner = block.get("content")
                    parts = inner if isinstance(inner, list) else [inner]
                    handed += [_block_text(p) for p in parts if p is not None]
        elif kind == "assistant" and isinstance(content, list):
            answer_parts += [b["text"] for b in content
                             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        elif kind == "result" and isinstance(event.get("result"), str):
            answer_parts.append(event["result"])
        seen_lines.append(" ".join(" ".join(handed).split()))
    if product is None and not results:
        raise InputError("no system init message and no tool_result: not a Claude Code stream-json "
                         "transcript", file=shown, field="--format")
    return Transcript("\n".join(seen_lines) + "\n", "\n".join(answer_parts), product, results, servers)


def read_transcript(raw: str, fmt: str, shown: str) -> Transcript:
    if fmt not in FORMATS:
        raise InputError(f"must be one of {', '.join(FORMATS)}", field="--format")
    return read_claude_stream_json(raw, shown)
