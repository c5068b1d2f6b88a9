"""A recorded violation carries its kind, and the rule and spec sentence it breaks are
decided from that kind, never from the words of its detail."""

from __future__ import annotations

from mcp_accept.protocol import LATEST_LEGACY, MODERN
from mcp_accept.transport import messages as m


def test_decoding_names_the_kind_of_each_fault():
    assert m.decode_message(b"\xff{}").kind == m.NOT_UTF8
    assert m.decode_message("not json").kind == m.UNREADABLE
    assert m.decode_message("[1]").kind == m.UNREADABLE
    # no JSON at all (a banner, a log line) is noise; a batch or a deep message is JSON gone wrong
    assert m.decode_message("hello").noise and m.decode_message("42").noise and m.decode_message(b"\xff").noise
    assert not m.decode_message("[1]").noise and not m.decode_message("{}").noise
    flaws = m.decode_message('{"a": NaN, "b": 1, "b": 2}').flaws
    assert sorted(kind for kind, _ in flaws) == [m.DUPLICATE_KEY_FLAW, m.NOT_A_NUMBER_FLAW]


def test_the_rule_follows_the_kind_not_the_words():
    assert m.violation_rule(m.DUPLICATE_KEY_FLAW) == "should"
    assert m.violation_rule(m.OWN_LIMIT) == "app"
    assert m.violation_rule(m.DECODED_ANYWAY) == "app"
    assert m.violation_rule(m.NOT_A_NUMBER_FLAW) == "must"
    assert m.violation_rule(None) == "must"


def test_the_source_follows_the_kind_transport_and_version():
    assert m.violation_source(m.UNREADABLE, "stdio", MODERN) == ("basic/transports/stdio.mdx", "stdio")
    assert m.violation_source(m.UNREADABLE, "stdio", LATEST_LEGACY) == ("basic/transports.mdx", "stdio")
    assert m.violation_source(m.UNREADABLE, "http", MODERN) == ("basic/index.mdx", "messages")
    assert m.violation_source(m.STDOUT_NOISE, "stdio", LATEST_LEGACY) == ("basic/transports.mdx", "stdio")
    assert m.violation_source(m.STDOUT_NOISE, "stdio", MODERN) == ("basic/transports/stdio.mdx", "stdio")
    assert m.violation_rule(m.STDOUT_NOISE) == "must"
    assert m.violation_source(m.SERVER_REQUEST, "http", MODERN) == (
        "basic/transports/streamable-http.mdx", "receiving-messages")
    assert m.violation_source(m.TOOL_HEADER, "http", MODERN) == ("server/tools.mdx", "x-mcp-header")
    assert m.violation_source(m.TOOL_HEADER, "http", LATEST_LEGACY) == ("basic/index.mdx", "messages")
    assert m.violation_source(m.HTTP_ANSWER, "http", LATEST_LEGACY) == (
        "basic/transports.mdx", "sending-messages-to-the-server")
    assert m.violation_source(m.BAD_MESSAGE, "stdio", MODERN) == ("basic/index.mdx", "messages")
