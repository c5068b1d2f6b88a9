"""Server-sent events read from a stream of byte chunks (WHATWG HTML, "Interpreting an event
stream"): lines end at CR LF, CR or LF, a line starting with ``:`` is a comment, a field's
value loses one leading space, a blank line dispatches the event, and an event the stream
cut off before its blank line is never dispatched.

Why not a library: httpx-sse holds the same two decoders, but importing it imports httpx
(a tenth of a second of every HTTP run, for a client that no longer uses httpx), and
sseclient-py joins each event's bytes by repeated concatenation, quadratic in a large
result. The behaviour here is httpx-sse's, field by field (``tests/test_sse.py`` holds the
two side by side on generated streams cut at every boundary): text is decoded as the
answer's charset says (UTF-8 otherwise, undecodable bytes replaced) and the event id keeps
its last value across events, as the standard says.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Iterable, Iterator


@dataclass(frozen=True)
class Event:
    event: str = ""
    data: str = ""
    id: str = ""
    retry: int | None = None


def _split(text: str) -> list[str]:
    """``text`` cut at CR LF, CR and LF only (``str.splitlines`` also cuts at other code points)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


class Lines:
    """Text chunks in, whole lines out; a CR at a chunk's end waits for the next chunk, which
    may begin with the LF of the same line ending."""

    def __init__(self) -> None:
        self.pending: list[str] = []
        self.cr = False

    def feed(self, text: str) -> list[str]:
        if self.cr:
            text = "\r" + text
            self.cr = False
        if text.endswith("\r"):
            self.cr = True
            text = text[:-1]
        if not text:
            return []
        parts = _split(text)
        # the last part is the start of a line still coming (empty when text ended a line)
        tail = parts.pop()
        if parts and self.pending:
            parts[0] = "".join(self.pending) + parts[0]
            self.pending = []
        if tail:
            self.pending.append(tail)
        return parts

    def end(self) -> list[str]:
        if not self.pending and not self.cr:
            return []
        line = "".join(self.pending)
        self.pending = []
        self.cr = False
        return [line]


class Events:
    """Lines in, events out."""

    def __init__(self) -> None:
        self.event = ""
        self.data: list[str] = []
        self.last_id = ""
        self.retry: int | None = None

    def feed(self, line: str) -> Event | None:
        if not line:
            if not self.event and not self.data and not self.last_id and self.retry is None:
                return None
            # an event with no type is a "message" (the standard's default)
            out = Event(self.event or "message", "\n".join(self.data), self.last_id, self.retry)
            self.event, self.data, self.retry = "", [], None  # the id is kept, as the standard says
            return out
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self.event = value
        elif name == "data":
            self.data.append(value)
        elif name == "id":
            if "\0" not in value:
                self.last_id = value
        elif name == "retry":
            try:
                self.retry = int(value)
            except ValueError:
                pass
        return None


def text_encoding(content_type: str | None) -> str:
    """The codec the answer's ``charset`` names when Python knows it, else UTF-8."""
    for param in (content_type or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            name = value.strip().strip("'\"")
            try:
                return codecs.lookup(name).name
            except LookupError:
                break
    return "utf-8"


def events(chunks: Iterable[bytes], encoding: str = "utf-8") -> Iterator[Event]:
    """Every event ``chunks`` hold, as soon as its blank line has arrived."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    lines, parser = Lines(), Events()
    for chunk in chunks:
        text = decoder.decode(chunk)
        if not text:
            continue
        for line in lines.feed(text):
            event = parser.feed(line)
            if event is not None:
                yield event
    rest = decoder.decode(b"", final=True)
    for line in (lines.feed(rest) if rest else []) + lines.end():
        event = parser.feed(line)
        if event is not None:
            yield event
