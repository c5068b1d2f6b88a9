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
import tempfile
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


def _part_text(block) -> str:
    """A part of a tool result as the transcript's text keeps it: its text, nothing of an image,
    any other part as its JSON on one line (not joined strings like
    :func:`mcp_accept.hosts.body_search.block_text`: observe gives the line a token is on)."""
    if isinstance(block, str):
        return block
    if isinstance(block, dict):
        if isinstance(block.get("text"), str):
            return block["text"]
        if block.get("type") == "image":
            return ""
    return json.dumps(block, ensure_ascii=False)


ANSWER_KEPT = 1 << 20  # characters of the model's own words kept: they are shown, not searched


class _Handed:
    """What the host handed its model, a line per line of the transcript: in a list for a
    transcript given as text, in an unnamed temporary file for one read from a file (it
    can be as large as the transcript)."""

    def __init__(self, streamed: bool):
        self.lines: list[str] | None = None if streamed else []
        self.file = tempfile.TemporaryFile() if streamed else None

    def add(self, line: str) -> None:
        if self.file is None:
            self.lines.append(line)
        else:
            self.file.write(line.encode("utf-8", "surrogatepass") + b"\n")

    def text(self):
        if self.file is None:
            return "\n".join(self.lines) + "\n"
        from mcp_accept.hosts.streamed import StreamedText

        handle = self.file
        handle.flush()

        def reopen():
            handle.seek(0)
            return _Unclosed(handle)

        return StreamedText(reopen, "handed text")


class _Unclosed:
    """The temporary file, lent to one reader: closing the loan keeps the file."""

    def __init__(self, handle):
        self.handle = handle

    def read(self, size: int = -1) -> bytes:
        return self.handle.read(size)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


def read_claude_stream_json(raw, shown: str) -> Transcript:
    """``raw``: the transcript as text, or as a StreamedText read line by line (a line is
    held at a time, never the file)."""
    from mcp_accept.hosts.streamed import text_lines
    from mcp_accept.inputs.files import strict_json_loads

    handed_lines, answer_parts, results, servers = _Handed(not isinstance(raw, str)), [], 0, []
    answer_size, product = 0, None
    for number, line in enumerate(text_lines(raw), 1):
        if not line.strip():
            handed_lines.add("")
            continue
        try:
            event = strict_json_loads(line)
        except ValueError as exc:
            raise InputError(f"not JSON ({getattr(exc, 'msg', None) or exc}): is this `claude -p "
                             "--output-format stream-json` output?", file=shown, line=number) from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise InputError("each line must be a JSON object with a \"type\"", file=shown, line=number,
                             field="type")
        kind, message = event["type"], event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        handed, said = [], []
        if kind == "system" and event.get("subtype") == "init":
            product = "Claude Code"
            servers = [s for s in event.get("mcp_servers") or [] if isinstance(s, dict)]
        elif kind == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results += 1
                    inner = block.get("content")
                    parts = inner if isinstance(inner, list) else [inner]
                    handed += [_part_text(p) for p in parts if p is not None]
        elif kind == "assistant" and isinstance(content, list):
            said = [b["text"] for b in content
                    if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        elif kind == "result" and isinstance(event.get("result"), str):
            said = [event["result"]]
        for part in said:
            if answer_size < ANSWER_KEPT:
                answer_parts.append(part[:ANSWER_KEPT - answer_size])
                answer_size += len(answer_parts[-1])
        handed_lines.add(" ".join(" ".join(handed).split()))
    if product is None and not results:
        raise InputError("no system init message and no tool_result: not a Claude Code stream-json "
                         "transcript", file=shown, field="--format")
    return Transcript(handed_lines.text(), "\n".join(answer_parts), product, results, servers)


def read_transcript(raw: str, fmt: str, shown: str) -> Transcript:
    if fmt not in FORMATS:
        raise InputError(f"must be one of {', '.join(FORMATS)}", field="--format")
    return read_claude_stream_json(raw, shown)
