"""The fixed words of the outputs (headings, labels, a matrix cell's values), written once in
English and read in another language from the same message catalog as the reasons.

Each table is a :class:`Words` with a context of its own (the ``msgctxt`` of its entries in
``mcp_accept/locale/<lang>/LC_MESSAGES/mcp_accept.po``), so that one English word may read
differently in two outputs. ``WORDS[lang]`` is the table in that language: its strings
translated, its keys (what the code looks words up by) as they are; a string the catalog does
not translate stays English. ``tests/test_words.py`` holds every table's strings translated,
with the same fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mcp_accept.reasons import translate_word

LANGS = ("en", "ja")
TABLES: list["Words"] = []  # every table, for the test that holds the catalog complete


class Words(Mapping[str, Any]):
    def __init__(self, context: str, english: Any):
        self.context = context
        self.english = english
        self._made: dict[str, Any] = {}
        TABLES.append(self)

    def __getitem__(self, lang: str) -> Any:
        if lang not in LANGS:
            raise KeyError(lang)
        if lang not in self._made:
            self._made[lang] = _translated(self.english, self.context, lang)
        return self._made[lang]

    def __iter__(self) -> Iterator[str]:
        return iter(LANGS)

    def __len__(self) -> int:
        return len(LANGS)

    def strings(self) -> Iterator[str]:
        """Every English string of the table."""
        yield from _strings(self.english)

    def word(self, text: str, lang: str) -> str:
        """One string in ``lang``: a value the table lists, or any other text as it is."""
        return translate_word(self.context, text, lang)


def _translated(value: Any, context: str, lang: str) -> Any:
    if isinstance(value, str):
        return translate_word(context, value, lang)
    if isinstance(value, tuple):
        return tuple(_translated(v, context, lang) for v in value)
    if isinstance(value, dict):
        return {key: _translated(v, context, lang) for key, v in value.items()}
    raise TypeError(f"a table of words holds strings, tuples and dicts, not {type(value).__name__}")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
