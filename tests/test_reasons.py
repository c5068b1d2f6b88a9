"""The reason catalog: every reason id's English template is a msgid of each language's
``.po``, translated with the same fields, and the committed ``.mo`` is that ``.po`` compiled."""

from __future__ import annotations

import io

import pytest
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from mcp_accept.reasons import LOCALE_DIR, REASONS, Reason, fields, reason

LANGS = sorted(p.name for p in LOCALE_DIR.iterdir() if p.is_dir())


def catalog(lang: str):
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "mcp_accept.po", "rb") as f:
        return read_po(f, locale=lang)


def test_japanese_is_shipped():
    assert "ja" in LANGS


def messages(found) -> dict:
    return {m.id: m.string for m in found if m.id}


@pytest.mark.parametrize("lang", LANGS)
def test_the_mo_is_the_compiled_po(lang):
    # Compared message by message: the header of a compiled catalog names the Babel version.
    compiled = io.BytesIO()
    write_mo(compiled, catalog(lang))
    compiled.seek(0)
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "mcp_accept.mo", "rb") as f:
        shipped = read_mo(f)
    assert messages(shipped) == messages(read_mo(compiled)), \
        "compile it: pybabel compile -d mcp_accept/locale -D mcp_accept"


@pytest.mark.parametrize("lang", LANGS)
def test_every_reason_is_translated_with_the_same_fields(lang):
    messages = {m.id: m for m in catalog(lang) if m.id}
    assert set(messages) == set(REASONS.values()), "the .po and mcp_accept.reasons.REASONS differ"
    for template in REASONS.values():
        message = messages[template]
        assert message.string and not message.fuzzy, template
        assert sorted(fields(message.string)) == sorted(fields(template)), template


def test_templates_are_unique():
    assert len(set(REASONS.values())) == len(REASONS)


def test_a_reason_is_its_template_formatted_and_round_trips_through_json():
    said = reason("list.parts", parts=[reason("call.failed", tool="search", why="no answer within 5s"),
                                      "the tool's own words"])
    assert said.english() == "tools/call search: no answer within 5s; the tool's own words"
    assert Reason.from_json(said.as_json()) == said
    assert said.render("ja") == "tools/call search：no answer within 5s、the tool's own words"


def test_an_unknown_id_or_a_missing_field_is_refused():
    with pytest.raises(KeyError):
        reason("no.such-reason")
    with pytest.raises(KeyError):
        reason("call.failed", tool="search")
