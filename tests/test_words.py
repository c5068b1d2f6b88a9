"""The outputs' fixed words: every table's strings are in each language's catalog, under the
table's context, with the same fields; a table in a language keeps its keys; a word the catalog
does not list is shown as written."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

import mcp_accept.output.host_matrix  # noqa: F401 (each output module declares its tables)
import mcp_accept.output.render  # noqa: F401
import mcp_accept.output.reporters.html_report  # noqa: F401
import mcp_accept.output.reporters.overview  # noqa: F401
from mcp_accept.output.words import LANGS, TABLES, Words
from mcp_accept.reasons import LOCALE_DIR, fields

OTHER_LANGS = [lang for lang in LANGS if lang != "en"]


def catalog(lang: str) -> dict:
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "mcp_accept.po", "rb") as f:
        return {(m.context, m.id): m for m in read_po(f, locale=lang) if m.id and m.context}


def test_the_tables_of_every_output_are_declared():
    assert {table.context for table in TABLES} >= {"report", "html", "overview", "matrix", "matrix value"}


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_every_word_is_translated_with_the_same_fields(lang):
    entries = catalog(lang)
    missing = sorted({(t.context, text) for t in TABLES for text in t.strings()} - set(entries))
    assert not missing, f"add them to the .po of {lang} (msgctxt, msgid): {missing}"
    for (context, text), message in entries.items():
        assert message.string and not message.fuzzy, (context, text)
        assert sorted(fields(message.string)) == sorted(fields(text)), (context, text)


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_no_entry_is_left_over(lang):
    used = {(t.context, text) for t in TABLES for text in t.strings()}
    stale = sorted(set(catalog(lang)) - used)
    assert not stale, f"the .po of {lang} holds words no table has: {stale}"


def test_a_table_in_a_language_keeps_its_keys_and_shape():
    from mcp_accept.output.host_matrix import COLUMNS
    from mcp_accept.output.reporters.overview import VERDICT_LABELS

    assert list(COLUMNS["ja"]) == list(COLUMNS["en"])
    assert COLUMNS["ja"]["text"] == "テキスト" and COLUMNS["en"]["text"] == "Text"
    assert VERDICT_LABELS["ja"]["run_n"] == ("実行 {n} 件", "実行 {n} 件")
    with pytest.raises(KeyError):
        COLUMNS["fr"]


def test_a_word_the_catalog_does_not_list_is_shown_as_written():
    table = Words("test only", {"a": "no catalog has this", "b": ("either", "or")})
    try:
        assert table["ja"] == {"a": "no catalog has this", "b": ("either", "or")}
        assert table.word("anything", "ja") == "anything"
    finally:
        TABLES.remove(table)
