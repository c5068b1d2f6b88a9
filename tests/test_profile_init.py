"""``mcp-accept profile init``: a starting profile from tools/list, with its guesses marked."""

from __future__ import annotations

import shlex
import sys

import pytest
import yaml

from conftest import FIXTURE, SERVERS, load_results, run_cli, start_http_server, statuses, stop_http_server
from mcp_accept.inputs.profile_init import build_profile, choose_tools, guess_arguments, Discovery
from mcp_accept.inputs.profile import load_profile

AUTOMATED = ("W01", "W02", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01")
FIXTURE_TOOLS = {"text": "search_text", "structured": "search_structured", "embedded": "search_embedded",
                 "link": "search_link"}


def run_with(profile, folder, **options):
    from mcp_accept.running.execute import RunOptions, run

    return run(RunOptions(profile=profile, out=folder, offline=True, **options))


def test_fixture_over_stdio_gives_a_profile_that_passes(tmp_path):
    out = tmp_path / "fixture-profile.yaml"
    done = run_cli("profile", "init", "--server", shlex.join([sys.executable, str(FIXTURE)]),
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    profile = load_profile(out)  # valid against the profile schema, line-checked like any profile
    assert {form: ref.name for form, ref in profile.tools.items()} == FIXTURE_TOOLS
    assert all(ref.arguments == {"q": "MCP"} for ref in profile.tools.values())
    assert profile.reference is None  # unknown: the rows compare the forms with each other
    assert profile.assertions == (("total-matches-hits", "total == length(hits)"),)
    notes = "\n".join(profile.guessed)
    assert "tools.text.arguments.q" in notes and "unknown_uri" in notes and "tools.link" in notes
    assert out.read_text().startswith("# Starting profile for mcp-accept-fixture")
    # guessed: is a block list, one note a line, and reads back as the same notes
    text = out.read_text(encoding="utf-8")
    tail = text[text.index("\nguessed:\n") + len("\nguessed:\n"):].splitlines()
    assert len(tail) == len(profile.guessed) and all(line.startswith('- "') for line in tail), tail
    assert [yaml.safe_load(line[2:]) for line in tail] == list(profile.guessed)
    assert yaml.safe_load(text)["guessed"] == list(profile.guessed)
    assert "''" not in text  # no doubled quotes inside a note
    outcome = run_with(out, tmp_path / "run")
    results = load_results(tmp_path / "run")
    # X01 waits until the profile says the forms carry one document
    assert {k: v for k, v in statuses(results).items() if k in AUTOMATED} == \
        {k: "UNOBTAINABLE" if k == "X01" else "PASS" for k in AUTOMATED}
    assert next(r for r in results["rows"] if r["id"] == "X01")["reason_id"] == "list.parts"
    assert "same_document: true" in next(r for r in results["rows"] if r["id"] == "X01")["reason"]
    assert int(outcome.status) == 0


def test_fixture_over_http_prints_the_profile_and_keeps_header_values_out(tmp_path):
    proc, url = start_http_server(str(FIXTURE), "--http", "0", "--protocol", "2025-11-25")
    try:
        done = run_cli("profile", "init", "--url", url, "--header", "Authorization: env:MCP_ACCEPT_TEST_TOKEN",
                       env={"MCP_ACCEPT_TEST_TOKEN": "Bearer sekrit-0123456789abcdef"})
    finally:
        stop_http_server(proc)
    assert done.returncode == 0, done.stderr
    assert "sekrit-0123456789abcdef" not in done.stdout + done.stderr
    data = yaml.safe_load(done.stdout)
    assert {form: tool["name"] for form, tool in data["tools"].items()} == FIXTURE_TOOLS
    assert "protocol 2025-11-25" in done.stdout  # the header says which era it was read in
    assert data["guessed"]


def test_sdk_server_profile_maps_its_tools_and_passes(tmp_path):
    pytest.importorskip("mcp.server.mcpserver", reason="needs the MCP Python SDK 2.x (pip install '.[test]')")
    from mcp_accept.inputs.profile_init import init_profile
    from mcp_accept.transport.factory import make_probe_transport

    command = shlex.join([sys.executable, str(SERVERS / "sdk_server.py")])
    text, _ = init_profile(make_probe_transport(server=command, url=None))
    out = tmp_path / "sdk.yaml"
    out.write_text(text)
    profile = load_profile(out)
    assert {form: ref.name for form, ref in profile.tools.items()} == {
        "text": "find_text", "structured": "find_structured", "embedded": "find_embedded", "link": "find_link"}
    assert all(ref.arguments == {"query": "MCP"} for ref in profile.tools.values())
    # the unknown URI takes the scheme of the resource template but must not match it
    assert profile.unknown_uri.startswith("docs://") and not profile.unknown_uri.startswith("docs://search/")
    run_with(out, tmp_path / "run", server=command)
    results = load_results(tmp_path / "run")
    assert {k: v for k, v in statuses(results).items() if k in AUTOMATED} == \
        {k: "UNOBTAINABLE" if k == "X01" else "PASS" for k in AUTOMATED}


def test_existing_out_file_is_kept_without_force(tmp_path):
    out = tmp_path / "p.yaml"
    out.write_text("keep me\n")
    done = run_cli("profile", "init", "--server", shlex.join([sys.executable, str(FIXTURE)]), "--out", str(out))
    assert done.returncode == 2 and "--force" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert out.read_text() == "keep me\n"


def test_a_missing_out_folder_is_made_as_run_makes_its_own(tmp_path):
    out = tmp_path / "profiles" / "new" / "p.yaml"
    done = run_cli("profile", "init", "--server", shlex.join([sys.executable, str(FIXTURE)]), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert load_profile(out).tools["text"].name == "search_text"


def test_an_out_folder_that_is_a_file_is_refused_before_the_server_starts(tmp_path):
    (tmp_path / "taken").write_text("a file\n")
    out = tmp_path / "taken" / "p.yaml"
    done = run_cli("profile", "init", "--server", "no-such-command-xyz", "--out", str(out))
    assert done.returncode == 2 and "is not a folder" in done.stderr and "--out" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, expected", [
    ([], "give --server CMD or --url URL"),
    (["--url", "not-a-url"], "--url"),
    (["--url", "http://127.0.0.1:9/mcp", "--header", "broken"], "--header #1"),
])
def test_bad_input_is_one_line_exit_2(args, expected):
    done = run_cli("profile", "init", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_unreachable_server_is_exit_3():
    done = run_cli("profile", "init", "--url", "http://127.0.0.1:9/mcp", "--timeout", "1")
    assert done.returncode == 3 and "could not be spoken to" in done.stderr
    assert "Traceback" not in done.stderr


# -- the guessing, as pure functions ---------------------------------------------------------

def test_no_hint_leaves_forms_out_and_says_so():
    tools = [{"name": "alpha", "inputSchema": {"type": "object"}},
             {"name": "beta", "outputSchema": {"type": "object"}},
             {"name": "gamma", "outputSchema": {"type": "object"}}]
    chosen, guessed = choose_tools(tools)
    assert {form: tool["name"] for form, tool in chosen.items()} == {"structured": "beta"}
    assert any("one of 2 tools" in g for g in guessed)
    for form in ("text", "embedded", "link"):
        assert any(g.startswith(f"tools.{form}: no tool's result had it, and none looked like it") for g in guessed)
    profile = build_profile(Discovery(server_name="odd name!", tools=tools))
    assert profile["profile"] == "odd-name" and profile["assertions"] == []
    assert set(profile["tools"]) == {"structured"}


def test_arguments_from_the_input_schema():
    tool = {"name": "t", "inputSchema": {"type": "object", "required": ["a", "b", "c", "d", "e", "f"],
                                         "properties": {
                                             "a": {"const": "fixed"},
                                             "b": {"type": "integer", "default": 5},
                                             "c": {"type": "string", "enum": ["x", "y"]},
                                             "d": {"type": "boolean"},
                                             "e": {"type": ["null", "number"]},
                                             "f": {"type": "string", "examples": ["hello"]},
                                             "optional": {"type": "string"}}}}
    args, guessed = guess_arguments(tool)
    assert args == {"a": "fixed", "b": 5, "c": "x", "d": True, "e": 1, "f": "hello"}
    assert not any(".a " in g for g in guessed)  # a const is no guess
    assert len(guessed) == 5


def thirdparty(mode: str, log) -> str:
    return shlex.join([sys.executable, str(SERVERS / "thirdparty_shapes.py"), "--mode", mode, "--log", str(log)])


def test_init_calls_read_only_tools_and_maps_the_forms_their_results_have(tmp_path):
    log = tmp_path / "calls.log"
    done = run_cli("profile", "init", "--server", thirdparty("prose", log), "--out", str(tmp_path / "p.yaml"))
    assert done.returncode == 0, done.stderr
    # every tool it called is marked read-only; the one that may only run as a task is not called
    assert log.read_text().split() == ["echo", "get_current_time", "get-resource-reference", "get-resource-links"]
    assert ("called 4 tools; mapped 4 of 5 forms: text → echo (seen), structured → get_current_time (seen), "
            "embedded → get-resource-reference (seen), link → get-resource-links (seen); none found for large") \
        in done.stderr
    profile = yaml.safe_load((tmp_path / "p.yaml").read_text())
    # the echo's prose and the embedded text/plain were seen: their body is text, not a guess
    assert profile["tools"]["text"]["body"] == profile["tools"]["embedded"]["body"] == "text"
    assert not any(g.startswith(("tools.text", "tools.embedded", "tools.structured")) for g in profile["guessed"])


def test_init_never_calls_a_tool_that_changes_state_even_when_named(tmp_path):
    log = tmp_path / "calls.log"
    done = run_cli("profile", "init", "--server", thirdparty("files", log), "--call", "write_note")
    assert done.returncode == 2
    assert "--call: 'write_note' is marked destructive (destructiveHint: true)" in done.stderr
    assert "write_note" not in log.read_text().split()
    # a result that was an error shows no form: that tool's form stays a guess, and says so
    done = run_cli("profile", "init", "--server", thirdparty("files", log), "--call", "nope")
    assert done.returncode == 2 and "--call: the server's tools/list has no tool 'nope'" in done.stderr
    done = run_cli("profile", "init", "--server", thirdparty("files", log))
    assert "text → read_text_file (guessed)" in done.stderr and "structured → list_roots (seen)" in done.stderr


def test_an_argument_it_cannot_guess_is_a_visible_placeholder_that_run_refuses(tmp_path):
    tool = {"name": "lookup", "inputSchema": {"type": "object", "required": ["filters", "since"], "properties": {
        "filters": {"type": "object"}, "since": {"type": "string", "format": "date-time"}}}}
    profile = build_profile(Discovery(server_name="s", tools=[{**tool, "description": "text"}]))
    assert profile["tools"]["text"]["arguments"] == {"filters": "<fill in: filters>", "since": "<fill in: since>"}
    from mcp_accept.inputs.profile_init import render

    text = render(profile, Discovery(server_name="s"))
    line = next(n for n, words in enumerate(text.splitlines(), 1) if "<fill in: filters>" in words)
    assert "# profile init could not guess this argument: give a real value" in text.splitlines()[line - 1]
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    done = run_cli("run", "--profile", str(path), "--out", str(tmp_path / "run"))
    assert done.returncode == 2 and not (tmp_path / "run" / "results.json").exists()
    assert done.stderr.strip().splitlines() == [
        f'mcp-accept: error: {path}:{line}: tools.text.arguments.filters: still the placeholder '
        f'"<fill in: filters>" that profile init left: give a real value']
