"""Verdicts on servers shaped like published ones: a profile written by ``profile init``
for a server it has never seen, then a run with it (tests/servers/thirdparty_shapes.py)."""

from __future__ import annotations

import json
import shlex
import sys

import yaml

from conftest import SERVERS, load_results, run_cli, statuses

SHAPES = SERVERS / "thirdparty_shapes.py"


def shapes(mode: str, log=None) -> str:
    extra = ["--log", str(log)] if log else []
    return shlex.join([sys.executable, str(SHAPES), "--mode", mode, *extra])


def init(tmp_path, mode: str, log=None):
    out = tmp_path / f"{mode}.yaml"
    done = run_cli("profile", "init", "--server", shapes(mode, log), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, yaml.safe_load(out.read_text(encoding="utf-8"))


def run(tmp_path, mode: str, profile, name: str = "run", log=None):
    folder = tmp_path / name
    done = run_cli("run", "--server", shapes(mode, log), "--profile", str(profile), "--out", str(folder))
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    return load_results(folder), folder


def row(results: dict, row_id: str) -> dict:
    return next(r for r in results["rows"] if r["id"] == row_id)


def checks(folder, row_id: str) -> dict[str, dict]:
    data = json.loads((folder / "rows" / f"{row_id}.json").read_text(encoding="utf-8"))
    return {c["check"]: c for c in data["checks"]}


def rewrite(path, data: dict):
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_profile_init_passes_over_tools_that_change_state(tmp_path):
    log = tmp_path / "calls.log"
    profile, data = init(tmp_path, "files")
    # write_note declares outputSchema too, but says readOnlyHint: false: never chosen.
    assert data["tools"]["structured"] == {"name": "list_roots", "arguments": {}}
    assert "write_note" not in json.dumps(data["tools"])
    assert any("passed over write_note" in note for note in data["guessed"])
    results, _ = run(tmp_path, "files", profile, log=log)
    assert "write_note" not in log.read_text(encoding="utf-8").split()
    assert row(results, "S01")["status"] == "PASS"


def test_unknown_uri_on_a_server_without_resources_is_unobtainable(tmp_path):
    profile, _ = init(tmp_path, "files")
    results, folder = run(tmp_path, "files", profile)
    l03 = row(results, "L03")
    # No resources capability: resources/read is an unknown method (-32601), and the
    # not-found rule of server/resources.mdx has no resource to judge.
    assert l03["status"] == "UNOBTAINABLE", l03["reason"]
    assert "declares no resources capability" in l03["reason"] and "-32601" in l03["reason"]
    assert checks(folder, "L03")["unknown_uri_error"]["rule"] == "app"


def test_unknown_uri_on_a_server_with_resources_is_still_judged(tmp_path):
    profile, _ = init(tmp_path, "prose")
    results, folder = run(tmp_path, "prose", profile)
    verdict = checks(folder, "L03")["unknown_uri_error"]
    # 2025-11-25 server/resources.mdx#error-handling: -32002 for a missing resource is a SHOULD.
    assert row(results, "L03")["status"] == "FAIL"
    assert verdict["rule"] == "should"
    assert verdict["source"] == "docs/specification/2025-11-25/server/resources.mdx#error-handling"


def test_a_tool_refusing_guessed_arguments_is_unobtainable_not_failed(tmp_path):
    profile, data = init(tmp_path, "files")
    assert data["tools"]["text"] == {"name": "read_text_file", "arguments": {"path": "MCP"}}
    results, _ = run(tmp_path, "files", profile)
    t01 = row(results, "T01")
    assert t01["status"] == "UNOBTAINABLE", t01["reason"]
    assert "guesses of profile init" in t01["reason"] and "ENOENT" in t01["reason"]
    # Once a person has checked the arguments (no guess left), the same refusal fails the
    # profile's expectation of a result from this tool: a rule of the profile, not the spec.
    data["guessed"] = [g for g in data["guessed"] if not g.startswith("tools.text.arguments.")]
    results, folder = run(tmp_path, "files", rewrite(profile, data), "checked")
    assert row(results, "T01")["status"] == "FAIL"
    assert checks(folder, "T01")["text_is_reference"]["rule"] == "app"
    # and with real arguments the row passes
    data["tools"]["text"]["arguments"] = {"path": "notes.txt"}
    results, _ = run(tmp_path, "files", rewrite(profile, data), "real")
    assert row(results, "T01")["status"] == "PASS", row(results, "T01")["reason"]


def test_prose_bodies_are_seen_by_profile_init_and_judged_as_text(tmp_path):
    # profile init calls the read-only tools and sees prose: it writes body: text for each form,
    # and the prose bodies are had, so the rows pass
    profile, data = init(tmp_path, "prose")
    assert data["tools"]["text"].get("body") == "text"
    results, _ = run(tmp_path, "prose", profile)
    got = statuses(results)
    assert (got["T01"], got["E01"]) == ("PASS",) * 2, results["rows"]
    # a link's body is read only at run time: body: text said by a person for it, and L02 passes
    if got["L02"] != "PASS":
        assert "body: text" in row(results, "L02")["reason"]
        data["tools"]["link"]["body"] = "text"
        results, _ = run(tmp_path, "prose", rewrite(profile, data), "as-text")
        assert statuses(results)["L02"] == "PASS", row(results, "L02")["reason"]
    # body: json said by a person: prose is a FAIL
    for form in ("text", "embedded", "link"):
        data["tools"][form]["body"] = "json"
    results, folder = run(tmp_path, "prose", rewrite(profile, data), "as-json")
    assert statuses(results)["E01"] == "FAIL"
    assert checks(folder, "E01")["embedded_is_reference"]["rule"] == "app"


def test_profile_init_takes_an_example_from_the_description(tmp_path):
    profile, data = init(tmp_path, "prose")
    # "IANA timezone name (e.g., 'Europe/London', ...)": a value the tool accepts
    assert data["tools"]["structured"] == {"name": "get_current_time",
                                           "arguments": {"timezone": "Europe/London"}}
    results, _ = run(tmp_path, "prose", profile)
    assert statuses(results)["S01"] == "PASS", row(results, "S01")["reason"]
    assert statuses(results)["S02"] == "PASS"


# The fixture with one more tool in its list, which it refuses to run as it refuses any tool it
# does not have: -32602 "Unknown tool".
REFUSING_FIXTURE = """\
import sys
sys.path.insert(0, {root!r})
from mcp_accept import fixture

listed = fixture.Fixture._search_tools


def search_tools(self, output_schema, common):
    return listed(self, output_schema, common) + [dict(name="refused_tool", description="listed, never run", **common)]


fixture.Fixture._search_tools = search_tools
sys.exit(fixture.main([]))
"""


def test_sdk_layer_does_not_fail_a_client_library_for_raising_the_servers_error(tmp_path):
    from conftest import ROOT

    # A listed tool whose call the server refuses with -32602: the MCP Python SDK raises it, as
    # a client should; the advisory layer has nothing to judge.
    script = tmp_path / "refusing.py"
    script.write_text(REFUSING_FIXTURE.format(root=str(ROOT)), encoding="utf-8")
    profile = rewrite(tmp_path / "p.yaml", {"profile": "refused", "reference": None,
                                            "tools": {"text": {"name": "refused_tool", "arguments": {}}}})
    folder = tmp_path / "run"
    done = run_cli("run", "--server", shlex.join([sys.executable, str(script)]), "--protocol", "2026-07-28",
                   "--profile", str(profile), "--out", str(folder), env={"MCP_ACCEPT_SDK": "on"})
    assert done.returncode in (0, 1), done.stderr
    verdict = checks(folder, "T01")["sdk_call_text"]
    # The SDK (package mcp) is a dependency of the test extra: a verdict saying it is unavailable
    # is a regression of the sdk layer, never a reason to skip.
    assert "unavailable" not in verdict["detail"] and "not installed" not in verdict["detail"], verdict
    assert verdict["status"] == "UNOBTAINABLE", verdict
    assert "-32602" in verdict["detail"]
    assert checks(folder, "T01")["text_item"]["status"] == "UNOBTAINABLE"


def test_a_tool_that_runs_only_as_a_task_is_not_chosen_nor_failed(tmp_path):
    profile, data = init(tmp_path, "prose")
    assert "research" not in json.dumps(data["tools"])
    assert any("passed over research" in note and "taskSupport" in note for note in data["guessed"])
    # Named by hand: the plain call is refused, as 2025-11-25 basic/utilities/tasks.mdx
    # requires of the server; the runner, not the server, broke the client's MUST.
    data["tools"]["text"] = {"name": "research", "arguments": {"topic": "MCP"}, "body": "text"}
    data["guessed"] = []
    results, _ = run(tmp_path, "prose", rewrite(profile, data), "task")
    t01 = row(results, "T01")
    assert t01["status"] == "UNOBTAINABLE", t01["reason"]
    assert "taskSupport: required" in t01["reason"]


def test_tools_whose_annotations_say_they_change_state_are_passed_over():
    from mcp_accept.inputs.profile_init import choose_tools

    schema = {"type": "object"}
    tools = [
        {"name": "drop_table", "inputSchema": schema, "outputSchema": schema,
         "annotations": {"destructiveHint": True}},  # readOnlyHint defaults to false
        {"name": "add_row", "inputSchema": schema, "outputSchema": schema,
         "annotations": {"readOnlyHint": False, "destructiveHint": False}},
        {"name": "plain", "inputSchema": schema, "outputSchema": schema},  # says nothing: kept
        {"name": "query", "inputSchema": schema, "outputSchema": schema, "annotations": {"readOnlyHint": True}},
    ]
    chosen, notes = choose_tools(tools)
    assert chosen["structured"]["name"] == "query"
    assert any("passed over drop_table, add_row" in note for note in notes)
    chosen, _ = choose_tools(tools[:3])
    assert chosen["structured"]["name"] == "plain"
