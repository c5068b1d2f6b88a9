"""Reasons in another language: a row's reason rendered from its id and parameters.

A row of ``results.json`` carries its reason as data (``reason_id``, ``reason_params``, see
:mod:`mcp_accept.reasons`); the reason is rendered in the sheet's language from the message
catalog, and what a server supplied (a tool name, an error message, a JSON path) is carried
over as it is, never translated.

Some texts still reach a reason as finished English: the run's own reasons for rows it never
judged (the server could not be started, the run was interrupted) and the transports'
account of a failed request or of a message that broke the protocol (a timeout,
``--max-bytes``, a closed pipe, a message that is not JSON), which stand in a reason as plain
text. Only these, listed in :data:`PARSED`, are matched against their
English template and put into the catalog's translation; any other text stays in English, so
a reason is never lost, only partly translated.
"""

from __future__ import annotations

import functools
import re

from mcp_accept.checks.registry import load_all
from mcp_accept.reasons import REASONS, Reason, translate

# The reason ids whose text is still written as finished English (see the docstring).
PARSED = (
    "transport.stdout-closed", "transport.stdin-closed", "transport.dropped-unread",
    "transport.message-too-large", "transport.answer-too-large", "transport.timeout",
    "wire.not-json",
)
# The parameters that hold a reason's own words as plain text (a check's detail, why a
# request failed), where a text of PARSED may stand.
OWN_WORDS = ("part", "parts", "items", "why")


@functools.cache
def _patterns() -> list[tuple[re.Pattern, str]]:
    out = []
    for rid in PARSED:
        english = REASONS[rid]
        parts = re.split(r"\{(\w+)\}", english)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
        out.append((re.compile(f"^{regex}$", re.S), english))
    return out


def _parsed(text: str, lang: str) -> str | None:
    for pattern, english in _patterns():
        found = pattern.match(text)
        if found:
            return translate(english, lang).format(**found.groupdict())
    return None


def _plain(lang: str):
    def plain(name: str, text: str) -> str:
        return translate_text(text, lang) if name in OWN_WORDS else text
    return plain


def translate_text(text: str | None, lang: str) -> str | None:
    """Finished English in ``lang``: each ``"; "``-separated part that is a text of
    :data:`PARSED` is translated, any other part is kept as it is."""
    if not text or lang == "en":
        return text
    separator = translate(REASONS["list.separator"], lang)
    return separator.join(_parsed(part, lang) or part for part in text.split("; "))


def row_reason(row: dict) -> Reason | None:
    """The row's reason as data, when the row has one that agrees with its text."""
    if not isinstance(row, dict) or not isinstance(row.get("reason_id"), str):
        return None
    load_all()  # a check's reasons are declared in its module
    try:
        said = Reason.from_json(row)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # an id of another version of mcp-accept, or a file edited by hand
    return said if said.english() == row.get("reason") else None


def translate_reason(row: dict | str | None, lang: str) -> str | None:
    """A row's reason (the row, or its reason's text) in ``lang``; English as it is."""
    text = row.get("reason") if isinstance(row, dict) else row
    if not text or lang == "en":
        return text
    said = row_reason(row) if isinstance(row, dict) else None
    if said is None:
        return translate_text(text, lang)
    return said.render(lang, _plain(lang))


def untranslated_parts(row: dict) -> list[str]:
    """The plain texts in a row's reason that no catalog entry renders (to keep the catalog
    complete): every part of a reason without an id, else the own words in its parameters."""
    said = row_reason(row)
    if said is None:
        return [part for part in (row.get("reason") or "").split("; ") if _parsed(part, "en") is None]
    left: list[str] = []

    def walk(value, name: str) -> None:
        if isinstance(value, Reason):
            for key, item in value.params.items():
                walk(item, key)
        elif isinstance(value, list):
            for item in value:
                walk(item, name)
        elif isinstance(value, str) and name in OWN_WORDS and name != "why":
            left.extend(part for part in value.split("; ") if _parsed(part, "en") is None)

    walk(said, "")
    return left
