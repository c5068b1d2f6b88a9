"""Reasons as data: a stable id and its parameters, rendered in a language from the message
catalog.

Every fixed reason text the runner writes has an id in :data:`REASONS`, whose English
template is also its msgid in ``mcp_accept/locale/<lang>/LC_MESSAGES/mcp_accept.po`` (compiled
to the ``.mo`` beside it, read with the standard library's :mod:`gettext`). The reasons of the
run as a whole, of the transports and those several checks share are written here; a check's own reasons are
declared beside it, in its module under ``mcp_accept/checks/``, with :func:`declare`, which
adds them here when the module is imported (``mcp_accept.checks.registry.load_all`` imports
them all). A template the catalog does not translate yet is shown in English. A :class:`Reason`
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
from typing import Any

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
    "row.off": "switched off by the profile (rows: {{{row}: off}}): none of its checks was run",
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
    # the sdk layer when the run has it off (running.sdk_replay.switched_off)
    "sdk.off": "the sdk layer is off ({option} or {env} turns it on; it needs the MCP Python SDK: "
               "{install} in a clone of mcp-accept)",
    "sdk.switched-off": "the sdk layer is switched off ({by})",
    # W01
    # T01
    "text.no-item": "content holds no text item",
    # calls that failed (the server's own words stay as they are)
    "call.failed": "tools/call {tool}: {why}",
    "read.failed": "resources/read {uri}: {why}",
    # what the transports say of a request that got no answer, or of a message they could not take
    "transport.stdout-closed": "the server closed its stdout",
    "transport.stdin-closed": "cannot write to the server's stdin",
    "transport.exited": "{what} (server exited with code {code})",
    "transport.dropped-unread": "{why}: a message of at least {size} bytes exceeds --max-bytes {limit} "
                                "and was dropped unread",
    "transport.message-too-large": "a message of at least {size} bytes exceeds --max-bytes {limit}",
    "transport.answer-too-large": "the answer exceeds --max-bytes {limit}",
    "transport.timeout": "no answer within {seconds}s",
    "transport.not-json": "not JSON ({detail})",
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
    # host test: what became of a result's image item and embedded blob (host_results.media_outcome)
    "host.media.image": "the image",
    "host.media.blob": "the embedded blob",
    "host.media.part": "{what} reached the model as a media part of its request ({at})",
    "host.media.beside": "{what} reached the model as a media part attached beside the result ({at})",
    "host.media.as-text": "the bytes of {what} reached the model as text (base64 inside JSON text at {at}), "
                          "not as an image or file part",
    "host.media.text-only": "the bytes of {what} did not reach the model: only the text beside it did",
    "host.media.no-bytes": "the bytes of {what} did not reach the model",
    "host.media.not-handed": "neither the bytes of {what} nor the text beside it reached the model",
}


def declare(reasons: dict[str, str]) -> None:
    """Add a module's reasons (id -> English template) to :data:`REASONS`. An id names one
    template: declaring it again with another is refused, whichever module did it first."""
    for rid, template in reasons.items():
        if REASONS.setdefault(rid, template) != template:
            raise ValueError(f"reason {rid!r} is declared twice, with two templates")


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

    def render(self, lang: str = "en") -> str:
        """The reason in ``lang``: plain-text parameters as they are, reasons among them in ``lang``."""
        values = {name: _value(value, lang) for name, value in self.params.items()}
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


def _value(value: Any, lang: str) -> Any:
    if isinstance(value, Reason):
        return value.render(lang)
    if isinstance(value, list):
        separator = translate(REASONS["list.separator"], lang)
        return separator.join(str(_value(item, lang)) for item in value)
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


def translate_word(context: str, text: str, lang: str) -> str:
    """A fixed word of one output (its ``msgctxt``: a table heading, a cell's value) in ``lang``,
    itself when the catalog has no entry."""
    if lang == "en":
        return text
    return _translations(lang).pgettext(context, text)
