"""Loading and validating sheets, profiles, conditions and results files."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from mcp_accept.evidence import credentials
from mcp_accept.inputs import sheet as sh
from mcp_accept.data import data_path
from mcp_accept.inputs.conditions import CONDITION_KEYS, load_conditions, parse_set
from mcp_accept.inputs.files import load_yaml
from mcp_accept.inputs.profile import DEFAULT_UNKNOWN_URI, ToolRef, default_profile_path, load_profile
from mcp_accept.inputs.results import validate_results
from mcp_accept.errors import ExitStatus, InputError

REFERENCE = {"query": "MCP", "total": 2, "hits": [
    {"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
    {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."}]}

SHEET = """\
sheet: small
version: 1
title: {en: "Small sheet", ja: "小さなシート"}
rows:
  - id: S01
    kind: normative
    title: {en: "Structured", ja: "構造化"}
    establishes: {en: "structuredContent validates", ja: "検証される"}
    steps: [tools/list, call:structured]
    checks:
      - {layer: type, check: structured_valid}
  - id: S02
    kind: additional
    title: {en: "Twin", ja: "テキスト"}
    establishes: {en: "text twin equals", ja: "一致する"}
    steps: [call:structured]
    checks:
      - {layer: meaning, check: text_twin}
    options: {mode: json-equal}
  - id: H01
    kind: observation
    title: {en: "Host", ja: "ホスト"}
    establishes: {en: "what reaches the model", ja: "モデルに届くもの"}
    procedure: {en: "Ask the host.", ja: "ホストに聞く。"}
    forms: [text, structured, embedded]
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def error_of(func, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        func(*args, **kwargs)
    return info.value


@pytest.fixture
def small_sheet(tmp_path: Path) -> sh.Sheet:
    return sh.load_sheet(write(tmp_path, "sheet.yaml", SHEET))


# --------------------------------------------------------------------------- package data


@pytest.mark.parametrize("name", ["sheet", "profile", "conditions", "results"])
def test_package_schemas_are_valid(name):
    schema = json.loads(data_path("schemas", f"{name}.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)


def test_results_conditions_match_conditions_schema():
    def props(name, *where):
        doc = json.loads(data_path("schemas", f"{name}.schema.json").read_text("utf-8"))
        for key in where:
            doc = doc[key]
        return {k: {kk: vv for kk, vv in v.items() if kk != "description"}
                for k, v in doc["properties"].items()}

    conditions = props("conditions")
    assert list(conditions) == list(CONDITION_KEYS)
    assert props("results", "$defs", "conditions") == conditions


def test_fixture_profile_loads():
    profile = load_profile()
    assert profile.name == "reference-fixture"
    assert {form: (t.name, t.arguments) for form, t in profile.tools.items()} == {
        "text": ("search_text", {"q": "MCP"}),
        "structured": ("search_structured", {"q": "MCP"}),
        "embedded": ("search_embedded", {"q": "MCP"}),
        "link": ("search_link", {"q": "MCP"}),
    }
    assert profile.reference == REFERENCE and profile.has_reference
    assert profile.twin == "json-equal"
    assert profile.assertions == (("total-matches-hits", "total == length(hits)"),)
    assert profile.unknown_uri == "search://results/does-not-exist"
    assert profile.guessed == ()
    assert profile.path == default_profile_path()


def test_conditions_template_loads_and_names_every_key():
    path = data_path("sheets", "conditions-template.yaml")
    assert load_conditions(path) == {}
    text = path.read_text("utf-8")
    for key in CONDITION_KEYS:
        assert f"\n{key}:" in text


def test_default_sheet_loads_if_present():
    path = sh.default_sheet_path()
    if not path.exists():
        pytest.skip("default sheet not present")
    sheet = sh.load_sheet()
    assert sheet.name == "default"
    # the ids users cite stay, in this order (a new row may come beside them)
    cited = ["W01", "W02", "W03", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01",
             "H01", "H02", "H03"]
    assert [i for i in sheet.ids() if i in cited] == cited
    assert all(row.automated == (not row.id.startswith("H")) for row in sheet.rows)


# --------------------------------------------------------------------------- sheets


def test_small_sheet_loads(small_sheet: sh.Sheet, tmp_path: Path):
    assert small_sheet.name == "small" and small_sheet.version == 1
    assert small_sheet.ids() == ["S01", "S02", "H01"]
    assert small_sheet.path == tmp_path / "sheet.yaml"
    s01 = small_sheet.row("S01")
    assert s01.automated
    assert s01.steps == ("tools/list", "call:structured")
    assert s01.checks == (sh.Check("type", "structured_valid"),)
    assert s01.options == {} and s01.procedure is None and s01.forms == ()
    assert small_sheet.row("S02").options == {"mode": "json-equal"}
    h01 = small_sheet.row("H01")
    assert not h01.automated
    assert h01.procedure == {"en": "Ask the host.", "ja": "ホストに聞く。"}
    assert h01.forms == ("text", "structured", "embedded") and h01.steps == ()
    with pytest.raises(KeyError):
        small_sheet.row("Z99")


def test_yaml_one_one_words_stay_strings(tmp_path: Path):
    text = SHEET.replace("{mode: json-equal}", "{mode: off, since: 2026-07-28, on: yes}")
    sheet = sh.load_sheet(write(tmp_path, "s.yaml", text))
    assert sheet.row("S02").options == {"mode": "off", "since": "2026-07-28", "on": "yes"}


def test_missing_file(tmp_path: Path):
    err = error_of(sh.load_sheet, tmp_path / "nope.yaml")
    assert err.file == str(tmp_path / "nope.yaml") and "no such file" in err.message
    assert err.status == ExitStatus.BAD_INPUT


def test_directory_is_refused(tmp_path: Path):
    assert "directory" in error_of(sh.load_sheet, tmp_path).message


def test_unreadable_file(open_tmp_path: Path):
    # Loaded by a user the file's mode binds (as root, nobody: root reads any file).
    import subprocess
    import sys

    from conftest import unprivileged

    path = write(open_tmp_path, "s.yaml", SHEET)
    path.chmod(0)
    load = ("import sys\nfrom mcp_accept.errors import InputError\nfrom mcp_accept.inputs.sheet import load_sheet\n"
            "try:\n    load_sheet(sys.argv[1])\nexcept InputError as err:\n"
            "    print(err.file, err.status.value, err.message, sep='\\n')\nelse:\n    print('loaded')\n")
    done = subprocess.run([*unprivileged(), sys.executable, "-c", load, str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    file, status, message = done.stdout.splitlines()
    assert file == str(path) and int(status) == ExitStatus.BAD_INPUT
    assert "permission" in message, message


def test_bad_utf8_names_its_line(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"sheet: x\nversion: 1\ntitle: \xff\xfe\n")
    err = error_of(sh.load_sheet, path)
    assert err.line == 3 and "UTF-8" in err.message


def test_yaml_syntax_error_names_its_line(tmp_path: Path):
    path = write(tmp_path, "s.yaml", "sheet: x\nversion: 1\nrows: [a, b\ntitle: x\n")
    err = error_of(sh.load_sheet, path)
    assert err.file == str(path) and err.line is not None and err.line >= 3
    assert "YAML" in err.message
    path = write(tmp_path, "t.yaml", "sheet: x\nversion: 1\n  bad: indent\n")
    assert error_of(sh.load_sheet, path).line == 3


def test_tab_and_control_characters(tmp_path: Path):
    path = write(tmp_path, "s.yaml", "sheet: x\nversion: \x07\n")
    err = error_of(sh.load_sheet, path)
    assert err.line == 2


def test_duplicate_key_refused(tmp_path: Path):
    text = SHEET.replace("    kind: additional\n", "    kind: additional\n    kind: normative\n")
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", text))
    assert err.line == 14 and err.field == "rows[1].kind"
    assert "duplicate key" in err.message and "line 13" in err.message


def test_duplicate_top_level_key(tmp_path: Path):
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", SHEET + "version: 2\n"))
    assert err.field == "version" and err.line == SHEET.count("\n") + 1


def test_merge_keys_may_override(tmp_path: Path):
    path = write(tmp_path, "p.yaml", """\
    profile: merged
    tools:
      text: &t {name: search_text, arguments: {q: MCP}}
      structured:
        <<: *t
        name: search_structured
    """)
    profile = load_profile(path)
    assert profile.tools["structured"] == ToolRef("search_structured", {"q": "MCP"})


def test_recursive_alias_refused(tmp_path: Path):
    path = write(tmp_path, "p.yaml", "profile: x\ntools: {}\nreference: &a [1, *a]\n")
    assert "recursive" in error_of(load_profile, path).message


def test_alias_bomb_refused(tmp_path: Path):
    lines = ["profile: x", "tools: {}", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    err = error_of(load_profile, write(tmp_path, "p.yaml", "\n".join(lines) + "\n"))
    assert "too many" in err.message


@pytest.mark.parametrize("text, what", [
    ("", "empty"),
    ("# only a comment\n", "empty"),
    ("- a\n- b\n", "a list"),
    ("just text\n", "a string"),
])
def test_top_level_must_be_a_mapping(tmp_path: Path, text: str, what: str):
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", text))
    assert what in err.message


def test_non_string_key_refused(tmp_path: Path):
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", SHEET + "1: x\n"))
    assert "keys must be strings" in err.message and err.line == SHEET.count("\n") + 1


def test_several_documents_refused(tmp_path: Path):
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", SHEET + "---\nsheet: y\n"))
    assert err.line == SHEET.count("\n") + 1


@pytest.mark.parametrize("old, new, line, field, words", [
    ("    kind: additional\n", "    kind: bogus\n", 13, "rows[1].kind", "one of"),
    ("version: 1\n", "version: one\n", 2, "version", "must be an integer, not a string"),
    ("  - id: S02\n", "  - id: s2\n", 12, "rows[1].id", "like S01"),
    ("    steps: [call:structured]\n", "    steps: [call:nothing]\n", 16, "rows[1].steps[0]",
     "one of"),
    ("      - {layer: meaning, check: text_twin}\n",
     "      - {layer: semantic, check: text_twin}\n", 18, "rows[1].checks[0].layer", "one of"),
    ("      - {layer: meaning, check: text_twin}\n",
     "      - {layer: meaning, check: Text-Twin}\n", 18, "rows[1].checks[0].check", "check name"),
    ("    checks:\n      - {layer: meaning, check: text_twin}\n", "    checks: []\n",
     17, "rows[1].checks", "must not be empty"),
    ("    options: {mode: json-equal}\n", "    options: {mode: [a]}\n", 19,
     "rows[1].options.mode", "must be a string, a number, a boolean or null, not a list"),
    ("    title: {en: \"Twin\", ja: \"テキスト\"}\n", "    title: {en: \"Twin\"}\n", 14,
     "rows[1].title", "missing required field 'ja'"),
    ("    kind: additional\n", "    kind: additional\n    colour: red\n", 14,
     "rows[1].colour", "unknown field"),
    ("    forms: [text, structured, embedded]\n", "    forms: [text, audio]\n", 25,
     "rows[2].forms[1]", "one of"),
])
def test_wrong_values_name_line_and_field(tmp_path, old, new, line, field, words):
    assert old in SHEET
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", SHEET.replace(old, new, 1)))
    assert (err.line, err.field) == (line, field), err.one_line()
    assert words in err.message
    assert err.one_line().startswith(f"{tmp_path / 's.yaml'}:{line}: {field}: ")


def test_row_with_procedure_and_steps_refused(tmp_path: Path):
    text = SHEET.replace("    forms: [text, structured, embedded]\n",
                         "    steps: [all]\n    checks: [{layer: sdk, check: x}]\n")
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", text))
    assert err.field == "rows[2].steps" and err.line == 25
    assert "manual row" in err.message


def test_row_with_neither_refused(tmp_path: Path):
    text = SHEET.replace("    procedure: {en: \"Ask the host.\", ja: \"ホストに聞く。\"}\n", "")
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", text))
    assert err.field == "rows[2]" and err.line == 20
    assert "either steps and checks" in err.message


def test_forms_only_on_manual_rows(tmp_path: Path):
    text = SHEET.replace("    options: {mode: json-equal}\n", "    forms: [text]\n")
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", text))
    assert err.field == "rows[1].forms" and "manual rows" in err.message


def test_duplicate_row_id(tmp_path: Path):
    err = error_of(sh.load_sheet, write(tmp_path, "s.yaml", SHEET.replace("id: S02", "id: S01")))
    assert (err.line, err.field) == (12, "rows[1].id") and "duplicate row id S01" in err.message


def test_first_problem_in_the_file_is_reported(tmp_path: Path):
    text = SHEET.replace("version: 1", "version: x").replace("kind: additional", "kind: y")
    assert error_of(sh.load_sheet, write(tmp_path, "s.yaml", text)).field == "version"


def test_load_yaml_returns_data(tmp_path: Path):
    data = load_yaml(write(tmp_path, "s.yaml", SHEET), "sheet")
    assert data["rows"][0]["id"] == "S01"


# --------------------------------------------------------------------------- profiles

PROFILE = """\
profile: other
tools:
  structured: {name: find, arguments: {query: x}}
assertions:
  - {name: count, expr: "total == length(hits)"}
"""


def test_profile_defaults(tmp_path: Path):
    profile = load_profile(write(tmp_path, "p.yaml", PROFILE))
    assert set(profile.tools) == {"structured"}
    assert profile.reference is None and not profile.has_reference
    assert profile.twin == "json-equal" and profile.guessed == ()
    assert profile.unknown_uri == DEFAULT_UNKNOWN_URI
    assert profile.path == tmp_path / "p.yaml"


def test_profile_reference_null_and_guesses(tmp_path: Path):
    text = PROFILE + "reference: null\ntwin: off\nguessed: [tool names]\n"
    profile = load_profile(write(tmp_path, "p.yaml", text))
    assert profile.reference is None and profile.twin == "off"
    assert profile.guessed == ("tool names",)


def test_profile_bad_jmespath(tmp_path: Path):
    text = PROFILE + "  - {name: broken, expr: \"total == length(hits\"}\n"
    err = error_of(load_profile, write(tmp_path, "p.yaml", text))
    assert (err.line, err.field) == (6, "assertions[1].expr")
    assert "JMESPath" in err.message


def test_profile_duplicate_assertion_name(tmp_path: Path):
    text = PROFILE + "  - {name: count, expr: \"total > `0`\"}\n"
    err = error_of(load_profile, write(tmp_path, "p.yaml", text))
    assert (err.line, err.field) == (6, "assertions[1].name")


@pytest.mark.parametrize("extra, line, field", [
    ("twin: fuzzy\n", 6, "twin"),
    ("unknown_uri: not a uri\n", 6, "unknown_uri"),
    ("guessed: yes\n", 6, "guessed"),
])
def test_profile_wrong_values(tmp_path, extra, line, field):
    err = error_of(load_profile, write(tmp_path, "p.yaml", PROFILE + extra))
    assert (err.line, err.field) == (line, field), err.one_line()


def test_profile_unknown_form_and_missing_name(tmp_path: Path):
    text = PROFILE.replace("  structured:", "  audio: {name: a}\n  structured:")
    err = error_of(load_profile, write(tmp_path, "p.yaml", text))
    assert (err.line, err.field) == (3, "tools.audio")
    text = PROFILE.replace("{name: find, arguments: {query: x}}", "{arguments: {query: x}}")
    err = error_of(load_profile, write(tmp_path, "p.yaml", text))
    assert (err.line, err.field) == (3, "tools.structured")
    assert "'name'" in err.message


# --------------------------------------------------------------------------- conditions


def test_conditions_load(tmp_path: Path):
    path = write(tmp_path, "c.yaml", """\
    host_product: Claude Code
    host_version: 1.10
    server_commit: 0123456789abcdef0123456789abcdef01234567
    transport: Streamable HTTP
    auth_context: tenant=acme role=reader
    result_size_utf8_bytes: 180
    executed_at_utc: 2026-07-28T10:15:00Z
    model_and_settings:
    """)
    assert load_conditions(path) == {
        "host_product": "Claude Code",
        "host_version": "1.10",
        "server_commit": "0123456789abcdef0123456789abcdef01234567",
        "transport": "Streamable HTTP",
        "auth_context": "tenant=acme role=reader",
        "result_size_utf8_bytes": 180,
        "executed_at_utc": "2026-07-28T10:15:00Z",
    }
    assert load_conditions(None) == {}
    assert load_conditions(write(tmp_path, "empty.yaml", "# nothing yet\n")) == {}
    assert "mapping" in error_of(load_conditions, write(tmp_path, "l.yaml", "- a\n")).message


@pytest.mark.parametrize("text, line, field, words", [
    ("host_product: x\ncolour: red\n", 2, "colour", "unknown field"),
    ("transport: pigeon\n", 1, "transport", "one of"),
    ("result_size_utf8_bytes: -1\n", 1, "result_size_utf8_bytes", "at least 0"),
    ("result_size_utf8_bytes: lots\n", 1, "result_size_utf8_bytes", "integer"),
    ("host_product: [a, b]\n", 1, "host_product", "string"),
])
def test_conditions_wrong(tmp_path, text, line, field, words):
    err = error_of(load_conditions, write(tmp_path, "c.yaml", text))
    assert (err.line, err.field) == (line, field) and words in err.message


def test_conditions_credential_refused_without_echo(tmp_path: Path):
    secret = "Bearer abc123def456ghi789"
    path = write(tmp_path, "c.yaml", f"host_product: x\nauth_context: \"{secret}\"\n")
    err = error_of(load_conditions, path)
    assert (err.line, err.field) == (2, "auth_context")
    assert "bearer token" in err.message and "never recorded" in err.message
    assert "abc123" not in err.one_line()


# --------------------------------------------------------------------------- credentials

CREDENTIALS = {
    "Bearer abc123def456": "bearer token",
    "Authorization: bearer ya29.a0AfH6SMB": "bearer token",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U": "JWT",
    "sk-ant-api03-abcdefghijklmnopqrst": "API key",
    "sk-proj-0123456789abcdefABCDEF": "API key",
    "sk_live_51Habcdefghijklmn": "API key",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345": "API key",
    "github_pat_11AAAAAAA0123456789_abcdefghij": "API key",
    "xoxb-1234567890-abcdefghij": "API key",
    "AKIAIOSFODNN7EXAMPLE": "API key",
    "AIzaSyD-0123456789abcdefghijklmnopqrstu": "API key",
    "password=hunter2": "password assignment",
    "pwd: s3cret!": "password assignment",
    "tenant=acme secret=abc": "secret assignment",
    "token=abc": "token assignment",
    "api_key: 12345": "API key assignment",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n": "private key",
    "-----BEGIN PRIVATE KEY-----": "private key",
    "https://alice:wonderland@example.com/mcp": "basic auth in URL",
    "Basic YWxpY2U6d29uZGVybGFuZA==": "basic auth header",
    "Kx9mQ2vL7pR4tW8zN3bY6cF1hJ5sD0gA": "high-entropy token",
    "a8f3k2m9q7w1e5r4t6y8u0i2o3p5a7s9x": "high-entropy token",
}

NOT_CREDENTIALS = [
    "tenant=acme role=reader", "Claude Code", "1.2.3", "2026-07-28", "2026-07-28T10:15:00Z",
    "gpt-5 temperature=0", "claude-sonnet-4-5-20250929 temperature=0 max_tokens=4096",
    "resources/read", "Streamable HTTP", "observable answer with marker", "python mcp 1.10.0",
    "0123456789abcdef0123456789abcdef01234567",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "123e4567-e89b-12d3-a456-426614174000", "https://example.com/mcp",
    "mcp-accept-runs/20260728T101500Z-3f9a2c/rows/S01.json",
    "run-2026-07-28-1530-acme-reader-evidence-001", "bearer authentication",
    "Basic configuration", "password: none", "token: <redacted>", "token: 4096",
    "risk-assessment-framework-v2-2026", "tenant=acme role=admin (OAuth, bearer)",
    "search://results/does-not-exist", "", "task-force-alpha",
]


@pytest.mark.parametrize("value, kind", sorted(CREDENTIALS.items()))
def test_credentials_recognised(value, kind):
    assert credentials.looks_like_credential(value) == kind


@pytest.mark.parametrize("value", NOT_CREDENTIALS)
def test_ordinary_values_not_flagged(value):
    assert credentials.looks_like_credential(value) is None


@pytest.mark.parametrize("value", sorted(CREDENTIALS))
def test_check_condition_value_never_echoes(value):
    err = error_of(credentials.check_condition_value, "auth_context", value, source="c.yaml")
    assert err.field == "auth_context" and err.file == "c.yaml"
    assert value not in err.one_line()
    assert "credentials are never recorded" in err.message


def test_check_condition_value_passes_others():
    credentials.check_condition_value("server_commit", "0123456789abcdef0123456789abcdef01234567",
                             source="x")
    credentials.check_condition_value("result_size_utf8_bytes", 12, source="x")


# --------------------------------------------------------------------------- --set


def test_parse_set(small_sheet: sh.Sheet):
    conditions, options = parse_set(
        ["host_product=Claude Code", "result_size_utf8_bytes=180", "S02.mode=exact",
         "S02.mode=off", "auth_context=tenant=acme role=reader"], small_sheet)
    assert conditions == {"host_product": "Claude Code", "result_size_utf8_bytes": 180,
                          "auth_context": "tenant=acme role=reader"}
    assert options == {"S02": {"mode": "off"}}
    assert parse_set([], small_sheet) == ({}, {})


@pytest.mark.parametrize("item, field, words", [
    ("host_product", "host_product", "KEY=VALUE"),
    ("=x", None, "KEY=VALUE"),
    ("colour=red", "colour", "unknown key"),
    ("S99.mode=exact", "S99.mode", "no row S99"),
    ("s02.mode=exact", "s02.mode", "unknown key"),
    ("result_size_utf8_bytes=big", "result_size_utf8_bytes", "whole number"),
    ("result_size_utf8_bytes=-3", "result_size_utf8_bytes", "whole number"),
    ("transport=pigeon", "transport", "one of"),
    ("auth_context=Bearer abc123def456", "auth_context", "bearer token"),
    ("S02.mode=sk-ant-api03-abcdefghijklmnopqrst", "S02.mode", "API key"),
    ("S01.limit=3", "S01.limit", "has no option 'limit' (it takes: none)"),
    ("S02.nosuch=1", "S02.nosuch", "has no option 'nosuch' (it takes: mode)"),
    ("S02.mode=bogus", "S02.mode", "must be one of json-equal, exact, off"),
])
def test_parse_set_errors(small_sheet: sh.Sheet, item, field, words):
    err = error_of(parse_set, [item], small_sheet)
    assert err.file == "--set" and err.field == field and words in err.message
    if "abc" in item:
        assert item.split("=", 1)[1] not in err.one_line()


def test_parse_set_source_name(small_sheet: sh.Sheet):
    assert error_of(parse_set, ["x=1"], small_sheet, source="-s").file == "-s"


# --------------------------------------------------------------------------- results


def results_doc() -> dict:
    title = {"en": "t", "ja": "t"}
    return {
        "format": "mcp-accept/results/1",
        "tool": {"name": "mcp-accept", "version": "0.1.0"},
        "sheet": {"name": "default", "version": 1},
        "profile": "reference-fixture",
        "conditions": {"transport": "stdio", "result_size_utf8_bytes": 180, "host_product": None},
        "schemas": [{"version": "2025-11-25", "url": "https://example.com/schema.json",
                     "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     "source": "dir"}],
        "rows": [
            {"id": "S01", "kind": "normative", "title": title, "status": "PASS",
             "reason": "validates", "evidence": "rows/S01.json",
             "layers": {"wire": "PASS", "type": "PASS", "meaning": None, "sdk": None},
             "filled_by": "runner"},
            {"id": "W02", "kind": "normative", "title": title, "status": "UNOBTAINABLE",
             "reason": "legacy era", "evidence": "rows/W02.json", "filled_by": "runner"},
            {"id": "H01", "kind": "observation", "title": title, "status": "PENDING",
             "reason": None, "evidence": None, "filled_by": "runner", "note": "later",
             "observed": {"text": "reaches"}},
        ],
        "summary": {"PASS": 1, "FAIL": 0, "UNOBTAINABLE": 1, "PENDING": 1},
        "started_at": "2026-07-28T10:15:00Z",
        "finished_at": None,
        "interrupted": False,
    }


def write_results(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def line_containing(path: Path, needle: str, last: bool = False) -> int:
    lines = [number for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if needle in line]
    return lines[-1] if last else lines[0]


def test_results_valid(tmp_path: Path):
    assert validate_results(write_results(tmp_path, results_doc())) == results_doc()


@pytest.mark.parametrize("change, field, needle, words", [
    (lambda d: d["rows"][1].update(evidence="/abs/W02.json"), "rows[1].evidence",
     '"/abs/W02.json"', "relative"),
    (lambda d: d["rows"][1].update(evidence="rows/../../W02.json"), "rows[1].evidence",
     "../../W02", "relative"),
    (lambda d: d["rows"][1].update(reason=None), "rows[1].reason", '"reason": null',
     "PENDING"),
    (lambda d: d["rows"][0].update(status="OK"), "rows[0].status", '"OK"', "one of"),
    (lambda d: d["rows"][0]["layers"].update(wire="YES"), "rows[0].layers.wire", '"YES"',
     "one of"),
    (lambda d: d["schemas"][0].update(sha256="abc"), "schemas[0].sha256", '"abc"', "64"),
    (lambda d: d["conditions"].update(colour="red"), "conditions.colour", '"colour"',
     "unknown field"),
    (lambda d: d.update(format="other/1"), "format", '"format"', "must be"),
    (lambda d: d["summary"].update(PASS=2), "summary.PASS", '"PASS": 2', "rows hold 1"),
    (lambda d: d["conditions"].update(auth_context="token=abc123"),
     "conditions.auth_context", "token=", "credentials are never recorded"),
    (lambda d: d["rows"][2].update(id="S01"), "rows[2].id", ('"id": "S01"', True),
     "duplicate row id"),
])
def test_results_invalid(tmp_path, change, field, needle, words):
    doc = results_doc()
    change(doc)
    path = write_results(tmp_path, doc)
    err = error_of(validate_results, path)
    assert err.field == field, err.one_line()
    text, last = needle if isinstance(needle, tuple) else (needle, False)
    assert err.line == line_containing(path, text, last=last), err.one_line()
    assert words in err.message


def test_results_missing_field_names_its_object(tmp_path: Path):
    doc = results_doc()
    del doc["rows"][1]["filled_by"]
    path = write_results(tmp_path, doc)
    err = error_of(validate_results, path)
    assert err.field == "rows[1]" and "filled_by" in err.message
    assert err.line == line_containing(path, '"id": "W02"') - 1


def test_results_not_json(tmp_path: Path):
    path = tmp_path / "results.json"
    path.write_text('{\n  "format": "x",\n  "tool": \n}\n', encoding="utf-8")
    err = error_of(validate_results, path)
    assert err.line == 4 and "JSON" in err.message


def test_results_duplicate_key(tmp_path: Path):
    path = tmp_path / "results.json"
    path.write_text('{\n  "format": "x",\n  "format": "y"\n}\n', encoding="utf-8")
    err = error_of(validate_results, path)
    assert (err.line, err.field) == (3, "format") and "duplicate" in err.message


def test_results_compact_json_lines(tmp_path: Path):
    doc = results_doc()
    doc["interrupted"] = "no"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    err = error_of(validate_results, path)
    assert (err.line, err.field) == (1, "interrupted")


def test_results_top_level_and_missing(tmp_path: Path):
    path = tmp_path / "results.json"
    path.write_text("[1, 2]\n", encoding="utf-8")
    assert "mapping" in error_of(validate_results, path).message
    assert "no such file" in error_of(validate_results, tmp_path / "none.json").message


def test_a_sheet_changed_on_disk_is_read_again_and_an_unchanged_one_is_not(tmp_path):
    from mcp_accept.inputs.sheet import default_sheet_path, load_sheet

    path = tmp_path / "sheet.yaml"
    text = default_sheet_path().read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    first = load_sheet(path)
    assert load_sheet(path) is first  # parsed once
    path.write_text(text + "\n# edited\n", encoding="utf-8")
    assert load_sheet(path) is not first
    path.write_text("rows: [\n", encoding="utf-8")  # broken now: the error, not the old sheet
    with pytest.raises(InputError):
        load_sheet(path)
