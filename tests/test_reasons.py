"""The reason catalog: every msgid of each language's ``.po`` is the English template of a
reason, translated with the same fields; the reasons of mcp_accept/reasons.py are all
translated, a check's own reasons (declared in its module) may not be yet and are then shown in
English; and the committed ``.mo`` is that ``.po`` compiled."""

from __future__ import annotations

import ast
import io
import json

import pytest
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from mcp_accept.checks.registry import load_all
from mcp_accept.reasons import LOCALE_DIR, REASONS, Reason, declare, fields, reason

load_all()  # the check modules declare their reasons
LANGS = sorted(p.name for p in LOCALE_DIR.iterdir() if p.is_dir())


def catalog(lang: str):
    with open(LOCALE_DIR / lang / "LC_MESSAGES" / "mcp_accept.po", "rb") as f:
        return read_po(f, locale=lang)


def test_japanese_is_shipped():
    assert "ja" in LANGS


def messages(found) -> dict:
    return {(m.context, m.id): m.string for m in found if m.id}


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


def written_in_reasons_py() -> set[str]:
    """The ids of the table in mcp_accept/reasons.py itself (the run's, the transports' and the
    shared ones), as written there: not those the check modules declare."""
    tree = ast.parse((LOCALE_DIR.parent / "reasons.py").read_text(encoding="utf-8"))
    table = next(node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                 and getattr(node.target, "id", None) == "REASONS")
    return {key.value for key in table.keys}


def untranslated(lang: str) -> list[str]:
    have = {m.id for m in catalog(lang) if m.id and not m.context}
    return sorted(rid for rid, template in REASONS.items() if template not in have)


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_is_a_reason_translated_with_the_same_fields(lang):
    # an entry with a context is a fixed word of an output (tests/test_words.py)
    messages = {m.id: m for m in catalog(lang) if m.id and not m.context}
    stale = set(messages) - set(REASONS.values())
    assert not stale, f"the .po of {lang} holds templates no reason has: {sorted(stale)}"
    for template, message in messages.items():
        assert message.string and not message.fuzzy, template
        assert sorted(fields(message.string)) == sorted(fields(template)), template


@pytest.mark.parametrize("lang", LANGS)
def test_the_reasons_of_reasons_py_are_all_translated(lang):
    core = written_in_reasons_py()
    assert {"list.parts", "run.interrupted", "call.failed"} <= core  # the table was found
    assert not core & set(untranslated(lang)), f"translate them in the .po of {lang}"


@pytest.mark.parametrize("lang", LANGS)
def test_a_reason_the_catalog_does_not_translate_is_shown_in_english(lang, monkeypatch):
    # a check's new reasons may come before their translation: the row reads in English there
    monkeypatch.setitem(REASONS, "test.untranslated", "{n} thing(s) no catalog translates")
    missing = untranslated(lang)
    assert "test.untranslated" in missing
    for rid in missing:
        params = {name: 1 for name in fields(REASONS[rid])}
        said = Reason(rid, params)
        assert said.render(lang) == said.english(), rid
    inside = reason("list.parts", parts=[reason("test.untranslated", n=2), reason("call.failed", tool="t", why="w")])
    assert inside.render(lang).startswith("2 thing(s) no catalog translates")
    assert inside.render(lang) != inside.english()  # the translated part is still translated


def test_a_reason_id_names_one_template():
    declare({"list.parts": REASONS["list.parts"]})  # the same again (a module imported twice)
    with pytest.raises(ValueError, match="declared twice"):
        declare({"list.parts": "something else"})


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


def test_no_english_is_read_back_into_data():
    """A reason is data from where it is made: nothing turns an English text back into an id
    (no pattern is built from a template, no template is read outside mcp_accept.reasons), and a
    text that carries no data is shown as written, in every language."""
    import ast
    from pathlib import Path

    import mcp_accept
    from mcp_accept.output import i18n

    package = Path(mcp_accept.__file__).parent
    readers = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            read = (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "REASONS") \
                or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "REASONS"
                    and node.attr in ("values", "items", "get"))
            if read and path.name != "reasons.py":
                readers.append(f"{path.relative_to(package)}:{node.lineno}")
    assert readers == [], f"a template read outside mcp_accept.reasons: {readers}"
    imported = {alias.name for node in ast.walk(ast.parse(Path(i18n.__file__).read_text(encoding="utf-8")))
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    assert "re" not in imported and not hasattr(i18n, "PARSED")
    # the exact English of a template, without its data, stays English
    assert i18n.translate_reason({"reason": "no answer within 5s"}, "ja") == "no answer within 5s"


SILENT = "import sys\nsys.stdin.readline()\nsys.stdin.readline()\n"  # reads the request, never answers
GONE = "import sys\nsys.stdin.readline()\nsys.exit(3)\n"  # reads the request, exits without an answer
JUNK = "import sys\nsys.stdin.readline()\nprint('not json', flush=True)\nsys.stdin.readline()\n"


@pytest.mark.parametrize("script, said", [
    (SILENT, reason("transport.timeout", seconds="0.5")),
    (GONE, reason("transport.exited", what=reason("transport.stdout-closed"), code=3)),
])
def test_a_transport_says_why_a_request_failed_as_data(tmp_path, script, said):
    import shlex
    import sys

    from mcp_accept.evidence.wirelog import WireLog
    from mcp_accept.transport.stdio import StdioTransport

    server = tmp_path / "server.py"
    server.write_text(script, encoding="utf-8")
    transport = StdioTransport(shlex.join([sys.executable, str(server)]), WireLog(None))
    transport.open()
    try:
        reply = transport.request({"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=0.5)
    finally:
        transport.close()
    assert reply.failure == said
    assert reply.describe_failure().render("ja") == said.render("ja") != said.english()


def test_a_message_that_is_not_json_is_recorded_with_its_reason_as_data(tmp_path):
    import shlex
    import sys

    from mcp_accept.evidence.wirelog import WireLog
    from mcp_accept.transport.stdio import StdioTransport

    server = tmp_path / "server.py"
    server.write_text(JUNK, encoding="utf-8")
    log = WireLog(tmp_path / "wire.jsonl")
    transport = StdioTransport(shlex.join([sys.executable, str(server)]), log)
    transport.open()
    try:
        transport.request({"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=0.5)
    finally:
        transport.close()
        log.close()
    written = [json.loads(line) for line in (tmp_path / "wire.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e for e in written if e.get("event") == "violation"] == \
        [e for e in log.entries if e.get("event") == "violation"]  # wire.jsonl holds the same data
    [violation] = [e for e in log.entries if e.get("event") == "violation"]
    said = Reason.from_json(violation)
    assert said.id == "transport.not-json" and said.english() == violation["detail"]
    assert said.render("ja").startswith("JSONではない（")
