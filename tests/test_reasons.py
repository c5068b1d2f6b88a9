"""The reason catalog: every reason id's English template is a msgid of each language's
``.po``, translated with the same fields, and the committed ``.mo`` is that ``.po`` compiled."""

from __future__ import annotations

import io
import json

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
