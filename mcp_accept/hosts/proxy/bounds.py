"""What the recording proxy does with a message larger than it may hold, or with a peer
that stops reading what it is sent.

A stdio line is forwarded once its end has been read, so that its record is queued
before the other side can act on it; a host's HTTP request body likewise. Such a
message is held whole up to ``--max-bytes``; past that it is read on and dropped, never
cut and passed on. Its top-level ``id`` is found on the way (:class:`JsonHead`, O(1)
memory however long the message), so the proxy answers the host with a JSON-RPC error
for that id and the record says what happened.

Every write the proxy makes waits for its reader at most ``--write-timeout`` seconds
(:data:`WRITE_TIMEOUT` by default) without progress: a server that stops reading its
stdin, or a host that stops reading its end, fills the pipe or socket, and a plain
blocking write would wait on it for ever (:func:`write_bounded`).

The error is JSON-RPC 2.0's "Internal error" (``-32603``, jsonrpc.org/specification
section 5.1) and names mcp-accept as its author, so it cannot be taken for the server's.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from mcp_accept.protocol import INTERNAL_ERROR
from mcp_accept.transport.stdio import write_until

WRITE_TIMEOUT = 30.0  # seconds a reader may take no byte of a write (--write-timeout)
PROXY_ERROR = INTERNAL_ERROR  # JSON-RPC 2.0, section 5.1
CHUNK = 64 * 1024  # what is read and forwarded at a time
_NO_ID = object()

# Outside a string only these bytes change the scanner's state; inside one only these two.
_STRUCTURE = re.compile(rb'["{}\[\],:]')
_NESTED = re.compile(rb'["{}\[\]]')  # below the top level only depth and strings matter
_IN_STRING = re.compile(rb'["\\]')
_FIELD_CAP = 256  # bytes of a top-level key or id value kept; no MCP key or id is longer
SCAN_BUDGET = 4 * 1024 * 1024  # bytes read token by token; past them only the tail is kept
_TAIL = 512
# A valid object whose last top-level member is "id": the value is followed by the final brace.
_TAIL_ID = re.compile(rb'[,{]\s*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.){0,200}")\s*}\s*$')


class JsonHead:
    """Reads a JSON object in pieces and keeps only what answering it needs: its
    top-level ``id`` and whether it is a request (a top-level ``method``) or a response
    (``result`` or ``error``). Holds at most a few hundred bytes, whatever is fed, and
    stops looking once both are known (SDKs write ``id`` before ``result``). Past
    :data:`SCAN_BUDGET` bytes (a huge result written before its ``id``) it only keeps the
    last bytes, where a last ``"id"`` member shows; :meth:`finish` reads them."""

    def __init__(self) -> None:
        self.depth = 0
        self.size = 0
        self._in_string = False
        self._escape = False
        self._key: bytearray | None = None  # the top-level key being read
        self._last_key: bytes | None = None
        self._value: bytearray | None = None  # the raw text of the top-level "id" value
        self._expect_key = False
        self._id: Any = _NO_ID
        self.kind: str | None = None  # "request" (has a method) or "response"
        self._tail = b""

    def feed(self, data: bytes) -> None:
        room = SCAN_BUDGET - self.size
        self.size += len(data)
        if len(data) > room:  # past the budget only the end is kept
            if not self.found_id:
                self._tail = (self._tail + data[-_TAIL:])[-_TAIL:]
            if room <= 0:
                return
            data = data[:room]
        pos, end = 0, len(data)
        while pos < end and not (self.found_id and self.kind):
            if self._in_string:
                pos = self._string(data, pos, end)
                continue
            match = (_STRUCTURE if self.depth <= 1 else _NESTED).search(data, pos)
            stop = match.start() if match else end
            if self._value is not None and stop > pos:
                self._take(self._value, data[pos:stop])
            if match is None:
                return
            self._structure(data[stop:stop + 1])
            pos = stop + 1

    def _string(self, data: bytes, pos: int, end: int) -> int:
        if self._escape:  # the byte after a backslash is never the string's end
            self._escape = False
            self._keep(data[pos:pos + 1])
            return pos + 1
        match = _IN_STRING.search(data, pos)
        stop = match.start() if match else end
        self._keep(data[pos:stop])
        if match is None:
            return end
        char = data[stop:stop + 1]
        self._keep(char)
        if char == b"\\":
            self._escape = True
        else:
            self._in_string = False
            if self._key is not None and self._value is None:
                self._last_key = bytes(self._key[1:-1])
                self._key = None
        return stop + 1

    def _keep(self, piece: bytes) -> None:
        if self._value is not None:
            self._take(self._value, piece)
        elif self._key is not None:
            self._take(self._key, piece)

    @staticmethod
    def _take(buffer: bytearray, piece: bytes) -> None:
        room = _FIELD_CAP - len(buffer)
        if room > 0:
            buffer += piece[:room]

    def _structure(self, char: bytes) -> None:
        if char == b'"':
            self._in_string = True
            if self.depth == 1 and self._expect_key:
                self._key = bytearray(b'"')
                self._expect_key = False
            elif self._value is not None:
                self._take(self._value, char)
            return
        if self.depth == 1 and char in (b",", b"}") and self._value is not None:
            self._close_value()
        if char in (b"{", b"["):
            if self.depth == 1 and self._value is not None:
                self._value = None  # an object or array is not an id
            self.depth += 1
            if self.depth == 1 and char == b"{":
                self._expect_key = True
        elif char in (b"}", b"]"):
            self.depth -= 1
        elif char == b"," and self.depth == 1:
            self._expect_key = True
        elif char == b":" and self.depth == 1 and self._last_key is not None:
            if self._last_key == b"id":
                self._value = bytearray()
            elif self._last_key == b"method":
                self.kind = "request"
            elif self._last_key in (b"result", b"error") and self.kind is None:
                self.kind = "response"
            self._last_key = None

    def finish(self) -> None:
        """The message has ended: look for a last ``id`` member in what was kept of its end."""
        if self.found_id or not self._tail:
            return
        match = _TAIL_ID.search(self._tail)
        if match:
            self._value = bytearray(match.group(1))
            self._close_value()

    def _close_value(self) -> None:
        raw, self._value = bytes(self._value), None
        try:
            value = json.loads(raw)
        except ValueError:
            return
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            self._id = value

    @property
    def found_id(self) -> bool:
        return self._id is not _NO_ID

    @property
    def id(self) -> Any:
        return None if self._id is _NO_ID else self._id


def error_answer(message_id: Any, text: str, **data: Any) -> bytes:
    """A JSON-RPC error response from the proxy, as one line of compact JSON."""
    body = {"jsonrpc": "2.0", "id": message_id,
            "error": {"code": PROXY_ERROR, "message": f"mcp-accept proxy: {text}",
                      "data": {"by": "mcp-accept proxy", **data}}}
    # ASCII escapes: a host's id may hold a lone surrogate (valid JSON text, not encodable as
    # UTF-8), and it must go back exactly as the host wrote it
    return json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def describe(head: JsonHead) -> str:
    if head.found_id:
        return f"id {json.dumps(head.id)}"
    return "no id found"


def write_bounded(fd: int, data: bytes, wait: float) -> int:
    """Write ``data`` to the non-blocking ``fd`` while its reader keeps taking bytes: each
    wait for room lasts at most ``wait`` seconds, so a slow reader is served to the end and
    one that stopped is given up on. Give how many bytes were written."""
    view = memoryview(data)
    done = 0
    while done < len(data):
        written = write_until(fd, view[done:], time.monotonic() + wait)
        if written == 0:
            break
        done += written
    return done
