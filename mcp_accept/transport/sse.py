"""Server-sent events (``text/event-stream``) read by httpx-sse, the reader the official MCP
Python SDK uses, as a body's chunks arrive: the Streamable HTTP transport reads its answers
with it, the recording proxy the events it forwards.

httpx-sse follows the standard (WHATWG HTML, "Interpreting an event stream"): lines end at
CR LF, CR or LF, a field's value loses one leading space, a blank line dispatches the event,
the event id keeps its last value across events, and an event the stream cut off before its
blank line is never dispatched. Text is decoded as the answer's ``charset`` says (UTF-8
otherwise, undecodable bytes replaced).

httpx-sse holds the line and the event it is reading whole. With a ``limit`` (the proxy's,
which forwards every event whole but records only those it can hold), an event that grows
past it is not held: from there to its blank line each of its lines reaches httpx-sse as one
byte of no field, except an ``id`` line, whose id outlives the event. The event's end is
still found by httpx-sse's own line rules; it comes out as :class:`Oversized`, and the events
after it are read as usual. Without one (the transport's, whose ``--max-bytes`` ends the
exchange instead) the chunks reach httpx-sse as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

import httpx
from httpx_sse import EventSource, ServerSentEvent

__all__ = ["Oversized", "ServerSentEvent", "read_events"]

# One line with its ending (CR LF counts once), or the start of a line still coming
_PIECE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
ID_CAP = 4096  # an id line is kept whole up to this or the limit, whichever is more


@dataclass(frozen=True)
class Oversized:
    """An event larger than the limit: at least ``size`` bytes, its data not kept."""

    size: int
    id: str


class _Feed(httpx.SyncByteStream):
    """The chunks as httpx-sse reads them: counted since the last event, and from where an
    event passes ``limit`` to its blank line, reduced line by line: an ``id`` line whole (the
    id outlives the event), any other line to one byte of no field."""

    def __init__(self, chunks: Iterable[bytes], limit: int | None):
        self.chunks = chunks
        self.limit = limit
        self.id_cap = max(ID_CAP, limit or 0)
        self.size = 0  # bytes since the last event
        self.over = False
        self.after_cr = False
        # the line httpx-sse is reading: its first three bytes and its length
        self.head = b""
        self.length = 0
        # past the limit: whether this line has been given its byte, or its id was too long, and
        # whether the event still needs the data line that makes httpx-sse give it out
        self.marked = False
        self.id_dropped = False
        self.owe_data = False

    def dispatched(self) -> None:
        self.size = 0
        self.over = False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            if self.limit is None:
                yield chunk
                continue
            if self.after_cr and chunk.startswith(b"\n"):
                # the LF of a CR LF cut between chunks: its CR went in as CR LF (below), and
                # this LF must not become a blank line
                chunk = chunk[1:]
                self.size += 1
            self.after_cr = chunk.endswith(b"\r")
            if not chunk:
                continue
            if not self.over and self.size + len(chunk) <= self.limit:
                yield self._whole(chunk)
                continue
            # near or past the limit: a line at a time, so an event ending in this chunk is whole
            for match in _PIECE.finditer(chunk):
                piece = match.group()
                if not self.over and self.size + len(piece) <= self.limit:
                    yield self._whole(piece)
                    continue
                if not self.over:
                    self.over, self.owe_data, self.marked, self.id_dropped = True, True, False, False
                self.size += len(piece)
                yield self._reduced(piece)

    def _whole(self, data: bytes) -> bytes:
        self.size += len(data)
        data = _lf(data)
        end = max(data.rfind(b"\r"), data.rfind(b"\n"))
        if end >= 0:
            self.head, self.length = data[end + 1:end + 4], len(data) - end - 1
        else:
            self.head, self.length = (self.head + data)[:3], self.length + len(data)
        return data

    def _reduced(self, piece: bytes) -> bytes:
        text = piece.rstrip(b"\r\n")
        ends = len(text) < len(piece)
        out = b""
        if text:
            head = (self.head + text)[:3]
            is_id = head == b"id:" or (ends and head == b"id")
            if is_id or (not ends and b"id:".startswith(head)):  # an id line, or maybe one
                if self.length + len(text) <= self.id_cap:
                    out = text
                elif not self.id_dropped:
                    out, self.id_dropped = b"\0", True  # an id holding NUL is ignored
            elif not self.marked:
                out, self.marked = b"x", True
            self.head, self.length = head, self.length + len(text)
        if not ends:
            return out
        blank = self.length == 0
        out += b"\n"
        if self.owe_data:
            out, self.owe_data = (b"data\n" + out if blank else out + b"data\n"), False
        self.head, self.length, self.marked, self.id_dropped = b"", 0, False, False
        return out


def _lf(data: bytes) -> bytes:
    """A CR at the end made CR LF: httpx-sse would hold it back until the next chunk shows
    whether an LF follows, and with it the event that line may end (a following LF is dropped
    instead)."""
    return data + b"\n" if data.endswith(b"\r") else data


def read_events(chunks: Iterable[bytes], content_type: str | None = None, *,
                limit: int | None = None) -> Iterator[ServerSentEvent | Oversized]:
    """Every event ``chunks`` hold, as soon as its blank line has arrived. A chunk is asked
    for only when every event the one before completed has been taken."""
    params = (content_type or "").partition(";")[2]
    feed = _Feed(chunks, limit)
    # httpx-sse reads an httpx response; this one carries the chunks and the charset
    media = "text/event-stream" + (";" + params if params else "")
    response = httpx.Response(200, headers={"Content-Type": media}, stream=feed)
    for event in EventSource(response).iter_sse():
        yield Oversized(feed.size, event.id) if feed.over else event
        feed.dispatched()
