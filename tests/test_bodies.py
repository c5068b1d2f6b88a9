"""Bodies of any shape: prose, a preface before the JSON, Markdown, PDF and PNG blobs, a tool
without outputSchema, a tool that reports an error, and forms that are missing or differ.

Every test drives tests/servers/shapes_server.py as a real stdio process through
``mcp-accept run --server ... --profile ...`` and reads the run folder it writes."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from conftest import SERVERS, load_results, run_cli, statuses

SERVER = shlex.join([sys.executable, str(SERVERS / "shapes_server.py")])
DATA = Path(__file__).resolve().parent / "data"
REPORT = {"quarter": "Q3", "growth_pct": 12, "regions": ["north", "south"], "total": 2}
MARKDOWN = "# Q3 report\n\nRevenue grew **12%**.\n\n- north\n- south\n"


def run_shapes(tmp_path: Path, profile: str, *args: str, files: tuple[str, ...] = ()):
    """Run the shapes server under ``profile`` (YAML text); ``files`` from tests/data are
    copied beside the profile. Returns the finished process and the results."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name in files:
        shutil.copy(DATA / name, tmp_path / name)
    path = tmp_path / "profile.yaml"
    path.write_text(profile, encoding="utf-8")
    out = tmp_path / "run"
    proc = run_cli("run", "--server", SERVER, "--profile", str(path), "--out", str(out), "--timeout", "10", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc, load_results(out)


def row(results: dict, row_id: str) -> dict:
    return next(r for r in results["rows"] if r["id"] == row_id)


def verdicts(tmp_path: Path, row_id: str) -> dict[str, dict]:
    """The row's checks from its evidence file, by check name."""
    data = json.loads((tmp_path / "run" / "rows" / f"{row_id}.json").read_text(encoding="utf-8"))
    return {c["check"]: c for c in data["checks"]}


def test_prose_is_compared_by_characters_with_line_endings_normalised(tmp_path):
    # The server writes CRLF; the reference is written with LF.
    profile = ("profile: prose\n"
               "tools:\n  text: {name: summary_prose, body: text}\n"
               "reference: \"Q3 summary\\nRevenue grew 12%.\\nTwo regions reported.\"\n")
    _, results = run_shapes(tmp_path, profile)
    assert statuses(results)["T01"] == "PASS"
    check = verdicts(tmp_path, "T01")["text_is_reference"]
    assert check["rule"] == "profile" and "equals the reference document (text" in check["detail"]


def test_prose_that_differs_fails_an_app_rule_naming_the_line(tmp_path):
    profile = ("profile: prose\n"
               "tools:\n  text: {name: summary_prose, body: text}\n"
               "reference: \"Q3 summary\\nRevenue grew 15%.\\nTwo regions reported.\"\n")
    proc, results = run_shapes(tmp_path, profile, "--fail-on", "must")
    t01 = row(results, "T01")
    assert t01["status"] == "FAIL" and t01["failed_rule"] == "profile"
    assert "meaning [profile]" in t01["reason"] and "line 2" in t01["reason"] and "12%" in t01["reason"]
    assert proc.returncode == 0  # only a rule of the profile is broken: not a MUST


def test_fail_on_app_counts_a_body_that_differs(tmp_path):
    profile = ("profile: prose\n"
               "tools:\n  text: {name: summary_prose, body: text}\n"
               "reference: \"something else\"\n")
    proc, results = run_shapes(tmp_path, profile, "--fail-on", "app")
    assert row(results, "T01")["status"] == "FAIL" and proc.returncode == 1


def test_a_preface_text_item_before_the_json_is_fine(tmp_path):
    profile = ("profile: preface\n"
               "tools:\n  text: {name: summary_with_preface}\n"
               f"reference: {json.dumps(REPORT)}\n")
    _, results = run_shapes(tmp_path, profile)
    assert statuses(results)["T01"] == "PASS"
    assert "text item 2 equals the reference document" in row(results, "T01")["reason"]


def test_markdown_embedded_resource_with_its_mime_type(tmp_path):
    (tmp_path / "q3.md").write_bytes(MARKDOWN.replace("\n", "\r\n").encode("utf-8"))  # CRLF on disk
    profile = ("profile: markdown\n"
               "tools:\n"
               "  embedded: {name: report_markdown, body: text, mime_type: text/markdown, reference_file: q3.md}\n"
               "  link: {name: report_markdown_link, body: text, mime_type: text/markdown, reference_file: q3.md}\n"
               "same_document: true\n")
    _, results = run_shapes(tmp_path, profile)
    got = statuses(results)
    assert got["E01"] == got["L01"] == got["L02"] == "PASS"
    e01 = verdicts(tmp_path, "E01")
    assert e01["embedded_is_reference"]["status"] == "PASS"
    assert e01["embedded_is_reference.mime_type"]["status"] == "PASS"
    assert e01["embedded_is_reference.mime_type"]["rule"] == "profile"
    assert "it is listed in resources/list" in row(results, "L02")["reason"]
    # The Markdown is text in the embedded form and a blob when read: the same document.
    assert got["X01"] == "UNOBTAINABLE"
    assert "the forms obtained agree (embedded, link)" in row(results, "X01")["reason"]


def test_a_mime_type_other_than_the_profiles_fails_an_app_rule(tmp_path):
    profile = ("profile: markdown\n"
               "tools:\n  embedded: {name: report_markdown, body: text, mime_type: text/plain}\n")
    _, results = run_shapes(tmp_path, profile)
    e01 = row(results, "E01")
    assert e01["status"] == "FAIL" and e01["failed_rule"] == "profile"
    assert "mimeType 'text/markdown', the profile names 'text/plain'" in e01["reason"]


def test_pdf_blob_against_a_reference_file(tmp_path):
    profile = ("profile: pdf\n"
               "tools:\n"
               "  embedded: {name: report_pdf, body: bytes, mime_type: application/pdf}\n"
               "  link: {name: report_pdf_link, body: bytes, mime_type: application/pdf}\n"
               "reference_file: report.pdf\n"
               "unknown_uri: files://missing.pdf\n")
    _, results = run_shapes(tmp_path, profile, files=("report.pdf",))
    got = statuses(results)
    assert got["E01"] == got["L01"] == got["L02"] == got["L03"] == "PASS"
    assert f"size {(DATA / 'report.pdf').stat().st_size} equals" in row(results, "L01")["reason"]
    assert "(bytes, reference_file report.pdf)" in row(results, "L02")["reason"]


def test_a_pdf_that_differs_by_one_byte_fails(tmp_path):
    data = bytearray((DATA / "report.pdf").read_bytes())
    data[-10] ^= 1
    (tmp_path / "other.pdf").write_bytes(bytes(data))
    profile = ("profile: pdf\n"
               "tools:\n  embedded: {name: report_pdf, body: bytes, reference_file: other.pdf}\n")
    _, results = run_shapes(tmp_path, profile)
    e01 = row(results, "E01")
    assert e01["status"] == "FAIL" and e01["failed_rule"] == "profile"
    assert f"first difference at byte {len(data) - 10}" in e01["reason"]


def test_png_image_blob_and_a_link_size_that_is_off(tmp_path):
    profile = ("profile: png\n"
               "tools:\n"
               "  embedded: {name: chart, body: bytes, mime_type: image/png}\n"
               "  link: {name: chart_link_badsize, body: bytes, mime_type: image/png}\n"
               "reference_file: chart.png\n")
    _, results = run_shapes(tmp_path, profile, files=("chart.png",))
    got = statuses(results)
    assert got["E01"] == got["L02"] == "PASS"
    size = (DATA / "chart.png").stat().st_size
    assert got["L01"] == "FAIL"
    check = verdicts(tmp_path, "L01")["link_size"]
    assert check["rule"] == "app" and check["source"] is None  # size is a hint: the sheet's rule
    assert f"size {size + 1} but the body read is {size} bytes" in check["detail"]


def test_a_tool_without_output_schema_still_gets_its_twin_and_assertions(tmp_path):
    profile = ("profile: stats\n"
               "tools:\n  structured: {name: stats}\n"
               "assertions:\n  - {name: total-is-regions, expr: 'total == length(regions)'}\n")
    _, results = run_shapes(tmp_path, profile)
    got = statuses(results)
    assert got["S02"] == got["S03"] == "PASS"
    twin = verdicts(tmp_path, "S02")["text_twin"]
    assert twin["rule"] == "should"
    assert twin["source"] == "docs/specification/2026-07-28/server/tools.mdx#structured-content"
    assert verdicts(tmp_path, "S03")["assert:total-is-regions"]["rule"] == "profile"


def test_the_twin_rule_is_cited_in_the_legacy_version_and_exact_is_a_rule_of_the_profile(tmp_path):
    profile = "profile: stats\ntools:\n  structured: {name: stats}\ntwin: exact\n"
    _, results = run_shapes(tmp_path, profile, "--protocol", "2025-06-18")
    assert results["conditions"]["protocol_version_on_wire"] == "2025-06-18"
    twin = verdicts(tmp_path, "S02")["text_twin"]
    assert twin["status"] == "PASS" and twin["rule"] == "profile"


def test_a_pretty_twin_keeps_the_should_and_fails_only_the_exact_mode_asked_for(tmp_path):
    profile = "profile: stats\ntools:\n  structured: {name: stats_pretty}\n"
    _, results = run_shapes(tmp_path / "a", profile)
    assert statuses(results)["S02"] == "PASS"
    proc, results = run_shapes(tmp_path / "b", profile, "--set", "S02.mode=exact", "--fail-on", "must")
    s02 = row(results, "S02")
    assert s02["status"] == "FAIL" and s02["failed_rule"] == "profile" and "mode: exact" in s02["reason"]
    assert proc.returncode == 0  # no MUST broken


def test_the_twin_source_follows_the_version_on_the_wire(tmp_path):
    profile = "profile: stats\ntools:\n  structured: {name: stats}\n"
    run_shapes(tmp_path, profile, "--protocol", "2025-11-25")
    twin = verdicts(tmp_path, "S02")["text_twin"]
    assert twin["source"] == "docs/specification/2025-11-25/server/tools.mdx#structured-content"


def test_a_tool_reporting_an_error_is_a_fail_of_its_row_not_of_the_wire(tmp_path):
    profile = ("profile: flaky\n"
               "tools:\n  text: {name: flaky, body: text}\n"
               "reference: anything\n")
    _, results = run_shapes(tmp_path, profile)
    t01 = row(results, "T01")
    assert t01["status"] == "FAIL"
    check = verdicts(tmp_path, "T01")["text_is_reference"]
    assert check["layer"] == "meaning" and check["rule"] == "profile"
    assert "tools/call flaky: the tool reported an error: upstream timeout after 30s" in check["detail"]
    assert "meaning [profile]" in t01["reason"]


def test_x01_is_unobtainable_when_forms_are_missing_and_names_the_compared_ones(tmp_path):
    profile = ("profile: partial\n"
               "tools:\n"
               "  text: {name: summary_with_preface}\n"
               "  structured: {name: stats}\n"
               "  link: {name: flaky}\n"
               f"reference: {json.dumps(REPORT)}\n")
    _, results = run_shapes(tmp_path, profile)
    x01 = row(results, "X01")
    assert x01["status"] == "UNOBTAINABLE"
    assert "the forms obtained agree (text, structured)" in x01["reason"]
    assert "embedded (the profile names no embedded tool)" in x01["reason"]
    assert "link (" in x01["reason"]  # its call reported an error


def test_x01_fails_when_two_forms_differ_even_with_forms_missing(tmp_path):
    profile = ("profile: stale\n"
               "tools:\n"
               "  text: {name: summary_with_preface}\n"
               "  structured: {name: stats_stale}\n"
               "same_document: true\n")
    _, results = run_shapes(tmp_path, profile)
    x01 = row(results, "X01")
    assert x01["status"] == "FAIL" and x01["failed_rule"] == "profile"
    assert "structured differs from text" in x01["reason"] and "$.total: 3 vs 2" in x01["reason"]


@pytest.mark.parametrize("reference", [json.dumps(REPORT), "null"])
def test_x01_passes_across_body_kinds(tmp_path, reference):
    # JSON text item, structuredContent, an embedded JSON text and a link read as a blob.
    profile = ("profile: all-json\n"
               "tools:\n"
               "  text: {name: summary_with_preface}\n"
               "  structured: {name: stats}\n"
               "  embedded: {name: report_json, mime_type: application/json}\n"
               "  link: {name: report_json_link, body: bytes}\n"
               f"reference: {reference}\nsame_document: true\n")
    proc, results = run_shapes(tmp_path, profile, "--fail-on", "must")
    got = statuses(results)
    assert got["X01"] == "PASS", row(results, "X01")["reason"]
    assert got["T01"] == got["E01"] == got["L02"] == "PASS"
    if reference != "null":  # a JSON reference for a bytes body: the bytes are read as JSON
        assert "equals the reference document (bytes read as JSON" in row(results, "L02")["reason"]
    assert proc.returncode == 0


def test_x01_compares_text_with_bytes_and_finds_a_difference(tmp_path):
    profile = ("profile: mixed\n"
               "tools:\n"
               "  text: {name: summary_prose, body: text}\n"
               "  embedded: {name: report_markdown, body: text}\n"
               "  link: {name: report_markdown_link, body: bytes}\n"
               "same_document: true\n")
    _, results = run_shapes(tmp_path, profile)
    x01 = row(results, "X01")
    assert x01["status"] == "FAIL" and "line 1" in x01["reason"]


@pytest.mark.parametrize("profile, line, field, words", [
    ("profile: p\ntools:\n  text: {name: t}\nreference_file: nowhere.json\n", 4, "reference_file",
     "no such file"),
    ("profile: p\ntools:\n  embedded:\n    name: t\n    reference: x\n    reference_file: a.pdf\n", 6,
     "tools.embedded.reference_file", "not both"),
    ("profile: p\ntools:\n  link:\n    name: t\n    body: pdf\n", 5, "tools.link.body",
     'must be one of "json", "text", "bytes"'),
    ("profile: p\ntools:\n  text: {name: t}\nreference_file: notes.txt\n", 4, "reference_file",
     "is not JSON"),
    ("profile: p\ntools:\n  text: {name: t}\n\nreference_file: chart.png\n", 5, "reference_file",
     "is not UTF-8 text"),
])
def test_a_bad_profile_is_one_line_naming_file_line_and_field(tmp_path, profile, line, field, words):
    shutil.copy(DATA / "chart.png", tmp_path / "chart.png")
    (tmp_path / "notes.txt").write_text("Q3 went well.\n", encoding="utf-8")
    path = tmp_path / "bad.yaml"
    path.write_text(profile, encoding="utf-8")
    proc = run_cli("run", "--server", SERVER, "--profile", str(path), "--out", str(tmp_path / "run"))
    assert proc.returncode == 2
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{path}:{line}: {field}: " in err and words in err


def test_prose_under_the_default_json_body_fails_the_profiles_rule_with_a_hint(tmp_path):
    profile = "profile: prose\ntools:\n  text: {name: summary_prose}\n"
    _, results = run_shapes(tmp_path, profile)
    t01 = row(results, "T01")
    assert t01["status"] == "FAIL" and t01["failed_rule"] == "app"
    assert "the text item is not JSON" in t01["reason"] and "body: text" in t01["reason"]


def test_a_forms_own_reference_overrides_the_profiles_and_null_turns_it_off(tmp_path):
    from mcp_accept.inputs import profile as profiles
    from mcp_accept.inputs.profile import ToolRef, load_profile

    shutil.copy(DATA / "report.pdf", tmp_path / "report.pdf")
    path = tmp_path / "p.yaml"
    path.write_text("profile: p\n"
                    "tools:\n"
                    "  text: {name: t, body: text, reference: \"hello\\r\\n\"}\n"
                    "  structured: {name: s, reference: null}\n"
                    "  embedded: {name: e, body: bytes, mime_type: 'application/pdf; charset=binary'}\n"
                    "reference_file: report.pdf\n", encoding="utf-8")
    loaded = load_profile(path)
    assert load_profile is profiles.load_profile and ToolRef is profiles.ToolRef  # still importable from sheet
    assert loaded.reference_for("text") == profiles.Expected("text", "hello\r\n", "tools.text.reference")
    assert loaded.reference_for("structured") is None
    assert loaded.reference_for("embedded").value == (DATA / "report.pdf").read_bytes()
    assert loaded.tools["embedded"] == ToolRef("e", {}, "bytes", "application/pdf; charset=binary")
    assert loaded.has_reference and loaded.reference is None
