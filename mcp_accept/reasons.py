"""Reasons as data: a stable id and its parameters, rendered in a language from the message
catalog.

Every fixed reason text the runner writes has an id in :data:`REASONS`, whose English
template is also its msgid in ``mcp_accept/locale/<lang>/LC_MESSAGES/mcp_accept.po`` (compiled
to the ``.mo`` beside it, read with the standard library's :mod:`gettext`). A :class:`Reason`
renders by translating its template and formatting the same parameters, so the English text
and every translation come from one value and never from parsing each other. A parameter that
is plain text came from a server or the system (a tool name, an error message, a JSON path)
and stays as it is in every language; a parameter that is a :class:`Reason` is rendered in the
same language; a list is its items joined by the catalog's separator.

Changing an English template changes its msgid: change the ``.po`` entry with it and compile
(``pybabel compile -d mcp_accept/locale -D mcp_accept``); ``tests/test_reasons.py`` holds the
two together.
"""

from __future__ import annotations

import functools
import gettext
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "mcp_accept"

# id -> English template. An id never changes once written to a results.json; a template
# may be reworded (with its .po entry).
REASONS: dict[str, str] = {
    # parts of a reason in a row: a list param is its items joined by list.separator
    "list.parts": "{parts}",
    "list.separator": "; ",
    "list.more": "{items} (+{n} more)",
    # how a row's reason is assembled from its verdicts
    "row.part": "{layer}: {part}",
    "row.part-rule": "{layer} [{rule}]: {part}",
    "row.more": "and {n} more",
    "row.no-checks": "the row has no checks",
    "layer.wire": "wire",
    "layer.type": "type",
    "layer.meaning": "meaning",
    "layer.sdk": "sdk",
    # the run as a whole
    "run.not-started": "see run: the server could not be started",
    "run.not-spoken": "see run: the server could not be spoken to",
    "run.interrupted-starting": "interrupted while the server started",
    "run.interrupted-judging": "interrupted while judging",
    "run.interrupted": "interrupted",
    # W01
    "wire.messages-valid": "{n} checks over {m} messages valid against {version}",
    "wire.no-violations": "no protocol violations on the wire",
    "wire.items-valid": "{n} items: every URI is an RFC 3986 URI, and every blob and image or audio data is base64",
    "wire.no-items": "no resource, link, contents, image or audio item was received",
    "wire.meta-keys": "{n} _meta keys, each a valid key name",
    "wire.no-meta": "the server sent no _meta key",
    "wire.error-codes": "{n} error answer(s), none with a code {modern} forbids",
    "wire.no-reserved-range": "{version} reserves no error code range ({modern} does)",
    "wire.progress": "{n} progress notification(s), each for a token of a request in flight",
    "wire.no-progress": "no progress notification was received",
    "wire.logs": "{n} log message(s), each one the version allows",
    "wire.no-logs": "no log message was received",
    "wire.no-session-capabilities": "{modern} negotiates no session capabilities ({n} request(s) from the server)",
    "wire.server-requests": "{n} request(s) from the server, none for an undeclared client capability",
    "wire.no-server-requests": "the server sent no request",
    "wire.cancellations": "{n} cancellation(s), each of a request in flight",
    "wire.no-cancellations": "the server cancelled nothing",
    "wire.features-declared": "every feature served was declared: {features}",
    "wire.no-declaration": "no capability declaration was recorded, so none is held against what the server served",
    "wire.received-invalid": "#{seq} received {what} ({version}): {detail}",
    "wire.not-json": "#{seq} not JSON ({detail})",
    "wire.no-messages": "no message was recorded",
    # W02
    "wire.discover-lists": "server/discover lists {version}",
    "wire.result-types": "{n} results carry resultType and their caching hints",
    "wire.no-modern-result": "no {modern} result was recorded",
    "wire.discover-not-sent": "server/discover was not sent",
    # W03
    "probe.result-not-error": "{request} answered a result instead of error {code} ({why})",
    "probe.no-answer": "{request}: no answer ({why})",
    "probe.error": "{request} gave error {code}",
    "probe.wrong-error": "{request} gave error {got}, expected {code}",
    "probe.cursor-invalid": "a cursor the server never handed out is invalid",
    "probe.still-answers": "tools/list still answers after the probes ({n} tools)",
    "probe.after-failed": "tools/list after the probes: {why}",
    # T01
    "text.items": "content holds {n} text item(s)",
    "text.no-item": "content holds no text item",
    "text.equals-reference": "the text item equals the reference document ({how})",
    # S01
    "structured.declares-schema": "{tool} declares an outputSchema",
    "structured.valid": "structuredContent validates against outputSchema",
    "structured.mismatch": "structuredContent does not match outputSchema at {path}: {detail}",
    "structured.absent-declared": "structuredContent is absent although an outputSchema is declared",
    "structured.absent": "structuredContent is absent",
    "structured.external-ref": "outputSchema refers outside itself ({ref})",
    "structured.refused": "refused, nothing was fetched",
    # S02
    "twin.equal": "the text twin's JSON equals structuredContent",
    "twin.differs": "the text twin differs at {path}: {detail}",
    "twin.absent": "content holds no text twin of structuredContent",
    "twin.not-due": "no structuredContent, so no text twin is due",
    "twin.off": "the text-twin check is off (mode: off)",
    "twin.byte-equal": "a text item is byte-equal to the compact JSON",
    # S03
    "assert.error": "{expr} could not be evaluated: {detail}",
    "assert.false": "{expr} gave {got}, not true",
    "assert.holds": "{expr} holds",
    "assert.none": "the profile has no assertions",
    # E01
    "embedded.text-item": "resource item {uri} with a text body",
    "embedded.blob-item": "resource item {uri} with a blob body",
    "embedded.equals-reference": "embedded resource {uri} equals the reference document ({how})",
    "embedded.differs": "embedded resource {uri} differs from the reference document ({how}): {detail}",
    "embedded.no-read-needed": "the body came with the call: no resources/read needed",
    "embedded.none": "the result holds no embedded resource with a body",
    # L01
    "link.no-body": "resource_link {uri} with no body",
    "link.size-equal": "size {size} equals the body's byte length",
    "link.size-differs": "size {size} but the body read is {n} bytes",
    "link.no-size": "the link declares no size",
    "link.no-item": "content holds no resource_link item",
    "link.none": "no resource_link item",
    # L02
    "link.equals-reference": "the link's body equals the reference document ({how})",
    "link.read-once": "read {uri} once",
    "link.not-listed": "it is not listed in resources/list",
    "link.listed": "it is listed in resources/list",
    "link.read-times": "read {uri} {times}; it is {where} in resources/list",
    # L03
    "missing.error": "resources/read {uri} gave error {code}",
    "missing.empty-contents": "resources/read {uri} answered an empty contents array instead of an error, "
                              "which {version} forbids ({version2}: servers MUST return {code})",
    # X01
    "forms.agree": "{forms} carry the same document",
    "forms.differ": "{a} differs from {b} ({what}): {detail} (compared: {forms})",
    "forms.partly": "the forms obtained agree ({agree}), but not every form could be had: {missing}",
    # calls that failed (the server's own words stay as they are)
    "call.failed": "tools/call {tool}: {why}",
    "read.failed": "resources/read {uri}: {why}",
    "transport.stdout-closed": "the server closed its stdout (server exited with code {code})",
    "transport.stdin-closed": "cannot write to the server's stdin (server exited with code {code})",
    "transport.dropped-unread": "no answer within {seconds}s: a message of at least {size} bytes exceeds "
                                "--max-bytes {limit} and was dropped unread",
    "transport.message-too-large": "a message of at least {size} bytes exceeds --max-bytes {limit}",
    "transport.answer-too-large": "the answer exceeds --max-bytes {limit}",
    "transport.timeout": "no answer within {seconds}s",
    # forms the server or the profile does not offer
    "profile.no-tool": "the profile names no {form} tool",
    "profile.not-listed": "tools/list does not list {tool}",
    # what stops a run before its rows: a stdio server's stdout that is no message, a profile's
    # tool the server does not list
    "stdout.noise": "the server wrote '{line}' to stdout, which is not JSON-RPC; MCP's stdio transport "
                    "allows only messages there",
    "wire.stdout-noise": "#{seq} {noise}",
    "run.stdout-noise": "see run: the server could not be spoken to: {noise}",
    "run.profile-unlisted": "see run: the profile names a tool the server does not list",
}


@dataclass(frozen=True)
class Reason:
    """One reason: its id in :data:`REASONS` and the values its template's fields take."""

    id: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.id not in REASONS:
            raise KeyError(f"no reason {self.id!r} in mcp_accept.reasons.REASONS")
        missing = set(fields(REASONS[self.id])) - set(self.params)
        if missing:
            raise KeyError(f"reason {self.id!r} needs {', '.join(sorted(missing))}")

    @property
    def template(self) -> str:
        return REASONS[self.id]

    def english(self) -> str:
        return self.render("en")

    def __str__(self) -> str:
        return self.english()

    def render(self, lang: str = "en", plain: Callable[[str, str], str] | None = None) -> str:
        """The reason in ``lang``. ``plain(name, text)`` may stand in for a plain-text
        parameter (by default it is kept as it is)."""
        values = {name: _value(name, value, lang, plain) for name, value in self.params.items()}
        return translate(self.template, lang).format(**values)

    def as_json(self) -> dict:
        """``{"reason_id": ..., "reason_params": ...}`` as results.json holds them."""
        return {"reason_id": self.id, "reason_params": {k: _json(v) for k, v in self.params.items()}}

    @classmethod
    def from_json(cls, data: dict) -> "Reason":
        params = data.get("reason_params") or {}
        return cls(data["reason_id"], {k: _from_json(v) for k, v in params.items()})


def reason(id: str, **params: Any) -> Reason:
    return Reason(id, params)


def fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _value(name: str, value: Any, lang: str, plain) -> Any:
    if isinstance(value, Reason):
        return value.render(lang, plain)
    if isinstance(value, list):
        separator = translate(REASONS["list.separator"], lang)
        return separator.join(str(_value(name, item, lang, plain)) for item in value)
    if isinstance(value, str) and plain is not None:
        return plain(name, value)
    return value


def _json(value: Any) -> Any:
    if isinstance(value, Reason):
        return value.as_json()
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, dict) and "reason_id" in value:
        return Reason.from_json(value)
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    return value


@functools.cache
def _translations(lang: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang], fallback=True)


def translate(template: str, lang: str) -> str:
    """An English template in ``lang`` (itself when the catalog has no entry)."""
    if lang == "en":
        return template
    return _translations(lang).gettext(template)
