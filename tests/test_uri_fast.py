"""The wire layer's plain URI pattern accepts nothing that rfc3986-validator's full RFC 3986
pattern refuses, so a URI's verdict is the validator's whichever of the two decides it."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st
from rfc3986_validator import validate_rfc3986

from mcp_accept.checks.wire import _PLAIN_URI, is_rfc3986_uri

PIECES = st.sampled_from(["a", "Z", "0", "9", "-", ".", "_", "~", "%", "%2F", "%zz", "%4", ":", "/", "//",
                          "?", "#", "@", "[", "]", "::1", "!", "$", "&", "'", "(", "*", "+", ",", ";",
                          "=", " ", "\n", "é", "\\", "^", "|", "search", "http", "1:", "x:"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join))
@example("search://results/demo-v1")
@example("x://a:80//b?c/d?#e")
@example("urn:ietf:rfc:3986")
def test_the_plain_pattern_is_a_part_of_rfc_3986(text):
    if _PLAIN_URI.fullmatch(text):
        assert validate_rfc3986(text, rule="URI"), text
    assert is_rfc3986_uri(text) == bool(validate_rfc3986(text, rule="URI")), text


def test_uris_outside_the_plain_pattern_still_get_the_full_rule():
    for uri in ("http://[::1]:8080/x", "http://user:pw@host/", "http://[v1.x]/"):
        assert not _PLAIN_URI.fullmatch(uri) and is_rfc3986_uri(uri)
    for not_uri in ("no scheme", "http://a b/", "x:%zz", "1x:y"):
        assert not is_rfc3986_uri(not_uri)
