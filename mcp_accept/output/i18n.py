"""Reasons in another language: a row's reason rendered from its id and parameters.

A row of ``results.json`` carries its reason as data (``reason_id``, ``reason_params``, see
:mod:`mcp_accept.reasons`); the reason is rendered in the sheet's language from the message
catalog, and what a server supplied (a tool name, an error message, a JSON path) is carried
over as it is, never translated.

A reason without data (a row filled by hand, a file of an older version), or whose data no
longer says what its text says (a text edited by hand), is shown as it is written: English is
never read back into data.
"""

from __future__ import annotations

from mcp_accept.checks.registry import load_all
from mcp_accept.reasons import Reason

# The parameters that hold a reason's own words: a plain text there is words of mcp-accept
# that have no id yet (a check's detail), where any other plain text came from a server or the
# system (``why`` is most often a server's error message).
OWN_WORDS = ("part", "parts", "items")


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
    return text if said is None else said.render(lang)


def untranslated_parts(row: dict) -> list[str]:
    """The texts in a row's reason that no catalog entry renders (to keep the catalog
    complete): the whole reason when it has no data, else the own words in its parameters."""
    said = row_reason(row)
    if said is None:
        return [row["reason"]] if row.get("reason") else []
    left: list[str] = []

    def walk(value, name: str) -> None:
        if isinstance(value, Reason):
            for key, item in value.params.items():
                walk(item, key)
        elif isinstance(value, list):
            for item in value:
                walk(item, name)
        elif isinstance(value, str) and name in OWN_WORDS:
            left.append(value)

    walk(said, "")
    return left
