"""The event-stream reader of the HTTP transport and the proxy (httpx-sse, with a bound on
what it holds), on generated streams cut into chunks at arbitrary places."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from mcp_accept.transport.sse import Oversized, read_events

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


def seen(events) -> list:
    return [e if isinstance(e, Oversized) else (e.event, e.data, e.id, e.retry) for e in events]


@settings(max_examples=400, deadline=None)
@given(streams(), st.lists(st.integers(0, 400), max_size=8))
def test_a_limit_never_reached_changes_nothing_however_the_stream_is_cut(data, points):
    whole = seen(read_events([data]))
    assert seen(read_events(cut(data, points))) == whole
    assert seen(read_events(cut(data, points), limit=len(data) + 1)) == whole


@settings(max_examples=400, deadline=None)
@given(streams(), st.lists(st.integers(0, 400), max_size=8), st.integers(1, 40))
def test_past_the_limit_events_are_dropped_never_changed(data, points, limit):
    whole = seen(read_events([data]))
    kept = [e for e in seen(read_events(cut(data, points), limit=limit)) if not isinstance(e, Oversized)]
    rest = iter(whole)
    assert all(any(e == w for w in rest) for e in kept), (kept, whole)  # in order, each one whole


def test_events_follow_the_standard_on_a_known_stream():
    stream = (b": a comment\r\ndata: one\r\ndata:two\r\n\r\n"
              b"event: note\rid: 7\rretry: x\rdata\r\r"
              b"id: 8\0\nretry: 15\ndata:  spaced\n\n"
              b"data: cut off")
    for limit in (None, 1000):
        got = seen(read_events([stream[i:i + 3] for i in range(0, len(stream), 3)], limit=limit))
        assert got == [("message", "one\ntwo", "", None),
                       ("note", "", "7", None),
                       ("message", " spaced", "7", 15)]  # the id outlives its event; one with NUL is ignored


def test_an_event_past_the_limit_is_reported_and_the_next_ones_are_read():
    stream = b"id: 1\ndata: small\n\n" + b"data: " + b"y" * 5000 + b"\r\n\r\ndata: after\r\rdata: cr\r\r"
    for step in (1, 3, 7, 100, len(stream)):
        got = seen(read_events([stream[i:i + step] for i in range(0, len(stream), step)], limit=1000))
        assert got[0] == ("message", "small", "1", None) and got[2:] == [("message", "after", "1", None),
                                                                          ("message", "cr", "1", None)]
        # at least the limit, at most the event: a chunk that ended the event before counts
        # only from where it was given
        assert isinstance(got[1], Oversized) and 1000 < got[1].size <= 5010 and got[1].id == "1"


def test_an_event_ending_in_cr_is_given_before_the_next_chunk_arrives():
    given_before = []

    def chunks():
        yield b"data: one\r\r"
        given_before.append(True)
        yield b"\ndata: two\n\n"

    events = read_events(chunks(), limit=1000)
    assert next(events).data == "one" and not given_before
    assert [e.data for e in events] == ["two"]


def test_a_large_event_arrives_whole():
    body = "x" * (3 * 1024 * 1024)
    stream = f"data: {body}\n\n".encode()
    got = list(read_events(stream[i:i + 65536] for i in range(0, len(stream), 65536)))
    assert [len(e.data) for e in got] == [len(body)]


def test_charset_is_taken_from_the_content_type():
    latin = [b"data: caf\xe9\n\n"]
    assert [e.data for e in read_events(latin, "text/event-stream; charset=ISO-8859-1")] == ["café"]
    assert [e.data for e in read_events(latin, "text/event-stream; charset=no-such-codec")] == ["caf\ufffd"]
    assert [e.data for e in read_events(latin, None)] == ["caf\ufffd"]
