"""`mcp-accept host test mistral-vibe` with the real Mistral Vibe of tests/hosts/vibe-constraints.txt
(in tests/hosts/vibe-venv), the fixture in marker mode (and a server that is not the fixture)
behind the recording proxy, and the stand-in model (Chat Completions, through a generic
OpenAI-style provider of its config.toml) on 127.0.0.1.

This release offers an MCP server's tools to its model only as functions of its
``run_typescript`` sandbox (``tools.mcp_NAME.TOOL``): the stand-in calls each through that tool,
and what the program returns is what the model is handed. Each test asserts what the run
recorded: the pinned version, nothing reached but the stand-in (strace), what the model was
handed for each form and each large size (model.jsonl), that the user's HOME stayed untouched
and that no process of the run outlives it.
"""

from __future__ import annotations

import json
import sys

from hostkit import (assert_forms_whole, assert_large_saved, assert_link_unread, assert_offline, assert_shapes_forms,
                     call_id_of, handed_by_call, model_requests, observed, prepare_stdio, processes_mentioning, run_on_shapes,
                     run_on_shapes_offline,
                     run_over_http_offering, run_pinned, scripted_requests)

from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.output.host_matrix import row_of

VERSION = ADAPTERS["mistral-vibe"].tested_version
SCHEME = "tools.mcp_mcpaccept.{tool} in run_typescript"
# its own tools that no setting takes away, beside the sandbox and its search
OFFERED = {"search_tool_functions", "run_typescript", "read_file", "write_file", "edit", "bash", "skill"}


def test_mistral_vibe_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "mistral-vibe", VERSION, "openai-chat")
    assert facts["protocol_version"] == "2025-11-25"
    # no telemetry, update check, experiments or Mistral sign-in: the stand-in's port is all it reached
    assert_offline(facts)
    assert facts["tool_name_scheme"] == SCHEME and set(facts["offered_tools"]) == OFFERED
    # one request per scripted call and one for the final text, no side request (no title)
    requests = scripted_requests(folder, facts, "/v1/chat/completions")
    # the system prompt names the server's group among those its search finds
    assert "- mcp_mcpaccept" in requests[0]["message"]["messages"][0]["content"]
    calls = [json.loads(tc["function"]["arguments"])["code"] for r in requests
             for m in r["message"]["messages"] if m.get("role") == "assistant" for tc in m.get("tool_calls") or []]
    assert calls and all(c.startswith('return await tools["mcp_mcpaccept"]["search_') for c in calls)
    # H01: every form whole; of the structured result the program gets its structuredContent only
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent"]
    handed = handed_by_call(requests)
    assert "[MKS-" in handed[call_id_of(folder, "structured")] and "[MKW-" not in handed[call_id_of(folder, "structured")]
    # H02: the link is handed as "[resource: URI]", and it has no tool that reads a resource
    assert_link_unread(folder, rows)
    assert handed[call_id_of(folder, "link")].startswith("[resource: search://")
    # H03: whole up to 8 KiB; from 32 KiB saved to a file in the private HOME's TMPDIR, a preview handed
    assert_large_saved(folder, rows, (8192, 32768), "saved to a file with a head-and-tail preview", "home/tmp/",
                       range(10000))
    # the image's and the blob's bytes never reach the model
    assert facts["extra_forms"]["image"]["png_data_in_request"] is False
    assert facts["extra_forms"]["blob"]["pdf_data_in_request"] is False
    # its config stayed in the run's private HOME
    assert (folder / "home" / ".vibe" / "config.toml").is_file()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_mistral_vibe_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "mistral-vibe", OFFERED, SCHEME)
    assert not processes_mentioning(str(folder))


def test_mistral_vibe_with_a_server_that_is_not_the_fixture(tmp_path):
    """A structured result whose tool declares no outputSchema and whose text twin disagrees with
    it (total 2 against 3): the program is handed the structuredContent."""
    folder, rows, _, facts = run_on_shapes(tmp_path, "mistral-vibe")
    assert_shapes_forms(folder, rows, found=False)
    structured = json.loads(handed_by_call(model_requests(folder))[call_id_of(folder, "structured")])
    assert structured["total"] == 3
    assert not processes_mentioning(str(folder))


def test_mistral_vibe_measures_h03_with_a_servers_own_large_tool(tmp_path):
    """H03 on a server that is not the fixture, through the sandbox: the large results are matched
    on the MCP wire by the arguments the step asked for (the model hands Vibe code, not them),
    and the fixture's media tools, which this server lacks, are never called."""
    folder, rows, facts, _, called = run_on_shapes_offline(tmp_path, "mistral-vibe")
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL" and h03["threshold_bracket_bytes"] == [1024, 65536], rows["H03"]["reason"]
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert sizes[1024]["handling"] == "whole"
    assert sizes[65536]["handling"] == "saved to a file with a head-and-tail preview"
    assert "search_image" not in json.dumps(model_requests(folder)) and set(called) <= {"summary_with_preface", "stats_pretty",
                                                                                 "report_markdown", "report_json_link", "report_log"}
    row = row_of("mistral-vibe", folder)
    assert (row["image"], row["blob"], row["H03"]) == (None, None, "FAIL")
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "user-key-never-handed-over")
    ctx, launch = prepare_stdio(tmp_path, "mistral-vibe")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    env = launch.env
    assert env["VIBE_HOME"] == str(ctx.home / ".vibe") and env["HOME"] == str(ctx.home)
    assert env["MCP_ACCEPT_STAND_IN_KEY"] == ctx.model_key and "MISTRAL_API_KEY" not in env
    config = (ctx.home / ".vibe" / "config.toml").read_text()
    assert 'api_base = "http://127.0.0.1:5/v1"' in config and "enable_telemetry = false" in config
    assert f"command = {json.dumps(sys.executable)}" in config and 'transport = "stdio"' in config
    assert launch.argv[launch.argv.index("--prompt") + 1] == ctx.prompt and launch.cwd == ctx.work
