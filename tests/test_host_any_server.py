"""`host test` on a server that is not the fixture: no marker tokens, so each form is found by
the server's own bodies (recorded by the proxy on the MCP wire) in what the model was handed,
as text or as a JSON value whatever the host's serialisation."""

from __future__ import annotations

import json
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_accept.hosts.body_search import Body, json_values_in
from mcp_accept.hosts.model_view import Handed, find_body
from hostkit import ROOT, facts_of, observed, processes_mentioning, rows_of, run_host

from mcp_accept.output.host_matrix import row_of


def handed(block) -> Handed:
    return Handed(step="x", tool="t", answered=True, block=block, text=json.dumps(block))


def test_a_json_body_is_found_as_a_value_whatever_the_serialisation():
    body = Body(texts=['{"total":2,"hits":["a","b"]}'], values=[{"total": 2, "hits": ["a", "b"]}])
    shown = handed({"content": 'Result:\n{\n  "hits": ["a", "b"],\n  "total": 2\n}\n(end)'})
    assert find_body(shown, body) == ("whole", "as a JSON value")
    assert find_body(handed({"content": '{"total": 2, "hits": ["a"]}'}), body)[0] == "absent"
    # true is not 1: a host's value must be the same JSON value, not an equal Python one
    assert find_body(handed({"content": '{"ok": 1}'}), Body(values=[{"ok": True}]))[0] == "absent"


def test_prose_is_found_as_text_and_a_cut_by_its_start():
    prose = "The quarter closed with growth in both regions. " * 4
    assert find_body(handed([{"type": "text", "text": prose}]), Body(texts=[prose])) == ("whole", "as text")
    assert find_body(handed([{"type": "text", "text": prose[:100]}]), Body(texts=[prose]))[0] == "cut"


def test_json_values_in_is_bounded():
    assert json_values_in('[1] {"a": 2}') == [[1], {"a": 2}]
    assert len(json_values_in("{" * 10_000, limit=50)) == 0


def test_claude_code_with_a_report_server(tmp_path):
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'shapes_server.py'}"
    folder = run_host(tmp_path, "claude-code", "--server", server,
                      "--profile", str(ROOT / "docs" / "examples" / "report.yaml"))
    rows, results = rows_of(folder)
    forms = observed(folder, "H01")["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert forms["text"]["found"].startswith("the server's own body")
    assert forms["structured"]["found"] == "the server's own bodies"
    # the structured result is found as a JSON value inside what the model received, not as bytes
    assert forms["structured"]["how"] == "as a JSON value" and forms["structured"]["reached"] == "whole"
    assert results["conditions"]["server_name"] != "mcp-accept-fixture"
    # the link's body is a blob: Claude Code reads it for the model but saves it to a file and
    # hands over the path, so the body itself never reaches the model, and the row says so
    h02 = observed(folder, "H02")
    assert rows["H02"]["status"] == "FAIL" and h02["body_via_read_tool"] == "saved to a file"
    assert h02["read_tool_saved_to"].startswith("home/") and h02["read_tool_saved_to"] in h02["read_tool_result"]
    assert h02["read_tool_saved_file_whole"] in (True, None)  # None: the host removed it on exit
    assert "body through it: saved to a file (home/" in rows["H02"]["reason"]
    assert row_of("claude-code", folder)["link_body_via_tool"] == "saved to a file"
    assert h02["host_reads"] and not h02["host_read_by_itself"]
    assert rows["H03"]["status"] == "UNOBTAINABLE"
    assert not processes_mentioning(str(folder))


def test_prose_and_a_pdf_blob_through_claude_code(tmp_path):
    """Prose (with CRLF line endings) and an embedded PDF: the prose reaches the model, the PDF
    is saved to a file and only its path is handed over."""
    profile = tmp_path / "pdf.yaml"
    profile.write_text("profile: shapes-pdf-host\ntools:\n"
                       "  text: {name: summary_prose, body: text}\n"
                       "  structured: {name: stats}\n"
                       "  embedded: {name: report_pdf, body: bytes, mime_type: application/pdf}\n"
                       "  link: {name: report_pdf_link, body: bytes, mime_type: application/pdf}\n")
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'shapes_server.py'}"
    folder = run_host(tmp_path, "claude-code", "--server", server, "--profile", str(profile))
    rows, _ = rows_of(folder)
    forms = observed(folder, "H01")["forms"]
    assert forms["text"]["reached"] == "whole" and forms["text"]["found"].startswith("the server's own body")
    assert forms["structured"]["reached"] == "whole"
    # saved to a file in the run's private HOME, its path handed to the model in its place
    assert forms["embedded"]["reached"] == "saved to a file" and "Binary content (application/pdf" in forms["embedded"]["quote"]
    assert forms["embedded"]["saved_to"].startswith("home/") and forms["embedded"]["saved_file_whole"] in (True, None)
    assert rows["H01"]["status"] == "FAIL" and "embedded: saved to a file (home/" in rows["H01"]["reason"]
    assert row_of("claude-code", folder)["embedded"] == "saved to a file"
    # the blob is looked for by its content type (an embedded application/pdf), not by a tool
    # name of the fixture: found in the embedded step, and its absence explained by what was handed
    blob = facts_of(folder)["extra_forms"]["blob"]
    assert (blob["step"], blob["tool"]) == ("embedded", "report_pdf")
    assert blob["pdf_data_handed"] is False and blob["pdf_data_in_request"] is False
    assert "application/pdf" in blob["handed"]
    assert row_of("claude-code", folder)["blob"] == "not handed"
    assert not processes_mentioning(str(folder))


def test_media_are_found_by_content_type_whatever_the_tool_is_called():
    from mcp_accept.hosts.host_results import media_needles
    from mcp_accept.hosts.server_bodies import WireExchange

    png, pdf = "iVBORw0KGgo" + "A" * 200, "JVBERi0xLjQK" + "B" * 60 + "C" * 140
    result = {"content": [{"type": "text", "text": "chart"}, {"type": "image", "data": png, "mimeType": "image/png"},
                          {"type": "resource", "resource": {"uri": "file:///r.pdf", "blob": pdf,
                                                            "mimeType": "application/pdf"}}]}
    found = media_needles([WireExchange("tools/call", {"name": "quarterly_chart"}, {"result": result}, 9, 8)])
    assert found["image"] == {"tool": "quarterly_chart", "kinds": {"png": png[60:120]}}
    assert found["blob"] == {"tool": "quarterly_chart", "kinds": {"pdf": pdf[60:120]}}


PROSE = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=300)


@settings(max_examples=300, deadline=None)
@given(PROSE, st.sampled_from(["continue", "read-tool", "read-tool-reminder", "words-before", "twice", "sandbox"]))
def test_a_body_is_found_inside_json_strings_however_often_serialised(prose, wrapping):
    # Continue CLI hands its model JSON.stringify(content); Claude Code's and Codex's read tools
    # hand {"contents": [{..., "text": BODY}]} as a string; a host may serialise that again
    items = [{"type": "text", "text": prose}]
    if wrapping == "continue":
        block = {"type": "tool_result", "tool_use_id": "x", "content": json.dumps(items)}
    elif wrapping == "read-tool":
        block = {"type": "function_call_output", "call_id": "c",
                 "output": json.dumps({"contents": [{"uri": "search://x", "mimeType": "text/plain", "text": prose}]})}
    elif wrapping == "read-tool-reminder":
        # Claude Code 2.1: the read tool's JSON, then a <system-reminder> after it in the same text
        block = {"type": "tool_result", "tool_use_id": "x",
                 "content": json.dumps({"contents": [{"uri": "doc://x", "mimeType": "text/plain", "text": prose}]})
                 + "\n\n<system-reminder>\n<total_tokens>14994700 tokens left</total_tokens>\n</system-reminder>"}
    elif wrapping == "words-before":
        # Codex: "Wall time: ... Output:" and then the result's JSON
        block = {"type": "function_call_output", "call_id": "c",
                 "output": "Wall time: 0.0023 seconds\nOutput:\n" + json.dumps(items)}
    elif wrapping == "sandbox":
        # Mistral Vibe: the text a program in its sandbox returned, as a JSON string
        block = {"role": "tool", "tool_call_id": "c", "content": json.dumps(prose)}
    else:
        block = {"content": json.dumps([{"type": "text", "text": json.dumps(items)}])}
    assert find_body(handed(block), Body(texts=[prose])) == ("whole", "as text")


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=20).filter(lambda v: isinstance(v, (dict, list)) and v))
def test_a_json_body_serialised_into_a_string_is_found_as_a_value(value):
    block = {"type": "tool_result", "content": json.dumps([{"type": "text", "text": json.dumps(value, indent=1)}])}
    assert find_body(handed(block), Body(values=[value]))[0] == "whole"


def test_continue_hands_bodies_serialised_once_more_and_they_are_found_whole(tmp_path):
    # Continue CLI puts JSON.stringify(result.content) in front of its model: the prose (CRLF),
    # the JSON twin and the embedded JSON are there whole, inside a JSON string
    profile = tmp_path / "prose.yaml"
    profile.write_text("profile: prose\ntools:\n  text: {name: summary_prose, body: text}\n"
                       "  structured: {name: stats}\n  embedded: {name: report_json, mime_type: application/json}\n")
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'shapes_server.py'}"
    folder = run_host(tmp_path, "continue", "--server", server, "--profile", str(profile))
    rows, _ = rows_of(folder)
    forms = observed(folder, "H01")["forms"]
    assert {forms[f]["reached"] for f in ("text", "structured", "embedded")} == {"whole"}, rows["H01"]["reason"]
    assert rows["H01"]["status"] == "PASS"


def test_h03_on_a_server_that_is_not_the_fixture(tmp_path):
    # the profile names a large tool whose argument takes the size; the bodies are the server's
    # own prose (quotes, CRLF, accents), found by their two ends in what the model was handed
    profile = tmp_path / "large.yaml"
    profile.write_text("profile: shapes-large\ntools:\n  text: {name: summary_prose, body: text}\n"
                       "  large: {name: report_log, arguments: {chars: '{bytes}'}}\n")
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'shapes_server.py'}"
    folder = run_host(tmp_path, "claude-code", "--server", server, "--profile", str(profile),
                      "--large-sizes", "1024,32768,65536")
    rows, _ = rows_of(folder)
    h03 = observed(folder, "H03")
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert sorted(sizes) == [1024, 32768, 65536]
    # as with the fixture: Claude Code hands 32 KiB whole and saves 64 KiB to a file with a preview
    assert sizes[1024]["handling"] == sizes[32768]["handling"] == "whole"
    assert sizes[65536]["handling"] == "saved to a file with a preview", sizes[65536]
    assert "handed_quote" in sizes[65536] and "handed_quote" not in sizes[1024]
    assert rows["H03"]["status"] == "FAIL" and h03["threshold_bracket_bytes"] == [32768, 65536]
    assert not processes_mentioning(str(folder))


def test_large_sizes_are_checked(tmp_path):
    import subprocess

    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code", "--large-sizes", "10,x",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--large-sizes" in done.stderr and "Traceback" not in done.stderr
