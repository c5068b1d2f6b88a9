"""The event-stream reader of the HTTP transport, held against httpx-sse's decoders (the
library it was read beside) on generated streams, cut into chunks at arbitrary places."""

from __future__ import annotations

import codecs

from hypothesis import given, settings, strategies as st
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

from mcp_accept.transport.sse import Event, events, text_encoding

FIELDS = st.sampled_from(["data", "event", "id", "retry", ":", "dat", ""])
VALUES = st.text(alphabet=st.sampled_from(list("ab é:\0\u2028\x0b\x1c12 ")), max_size=6)
ENDINGS = st.sampled_from(["\n", "\r", "\r\n"])


@st.composite
def streams(draw) -> bytes:
    parts = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            parts.append(draw(ENDINGS))  # a blank line: an event ends
        elif kind == 1:
            parts.append(draw(FIELDS) + draw(ENDINGS))  # a field with no colon
        else:
            parts.append(draw(FIELDS) + ":" + draw(st.sampled_from(["", " ", "  "])) + draw(VALUES)
                         + draw(ENDINGS))
    if draw(st.booleans()):
        parts.append("data: unterminated")
    data = "".join(parts).encode("utf-8")
    if draw(st.booleans()):  # bytes that are not UTF-8 are replaced, never fatal
        data += b"\xff\xfe"
    return data


def cut(data: bytes, points: list[int]) -> list[bytes]:
    edges = sorted({0, len(data), *(p % (len(data) + 1) for p in points)})
    return [data[a:b] for a, b in zip(edges, edges[1:])]


def reference(chunks: list[bytes], encoding: str = "utf-8") -> list[Event]:
    """What httpx-sse makes of the same chunks (its EventSource, without an httpx response)."""
    text = codecs.getincrementaldecoder(encoding)(errors="replace")
    lines, parser, out = SSELineDecoder(), SSEDecoder(), []
    pieces = [text.decode(c) for c in chunks] + [text.decode(b"", final=True)]
    found = [line for piece in pieces if piece for line in lines.decode(piece)] + lines.flush()
    for line in found:
        sse = parser.decode(line.rstrip("\n"))
        if sse is not None:
            out.append(Event(sse.event, sse.data, sse.id, sse.retry))
    return out


@settings(max_examples=400, deadline=None)
@given(streams(), st.lists(st.integers(0, 400), max_size=8))
def test_events_match_httpx_sse_however_the_stream_is_cut(data, points):
    chunks = cut(data, points)
    assert list(events(chunks)) == reference(chunks)


def test_events_follow_the_standard_on_a_known_stream():
    stream = (b": a comment\r\ndata: one\r\ndata:two\r\n\r\n"
              b"event: note\rid: 7\rretry: x\rdata\r\r"
              b"id: 8\0\nretry: 15\ndata:  spaced\n\n"
              b"data: cut off")
    got = list(events([stream[i:i + 3] for i in range(0, len(stream), 3)]))
    assert got == [Event("message", "one\ntwo", "", None),
                   Event("note", "", "7", None),
                   Event("message", " spaced", "7", 15)]  # the id outlives its event; one with NUL is ignored


def test_a_large_event_arrives_whole():
    body = "x" * (3 * 1024 * 1024)
    stream = f"data: {body}\n\n".encode()
    got = list(events(stream[i:i + 65536] for i in range(0, len(stream), 65536)))
    assert [len(e.data) for e in got] == [len(body)]


def test_charset_is_taken_from_the_content_type():
    assert text_encoding("text/event-stream; charset=ISO-8859-1") == "iso8859-1"
    assert text_encoding("text/event-stream; charset=\"utf-8\"") == "utf-8"
    assert text_encoding("text/event-stream; charset=no-such-codec") == "utf-8"
    assert text_encoding(None) == "utf-8"
    assert list(events([b"data: caf\xe9\n\n"], "iso8859-1")) == [Event("message", "café", "", None)]
