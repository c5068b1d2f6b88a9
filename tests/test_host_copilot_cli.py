"""`mcp-accept host test copilot-cli` with the real GitHub Copilot CLI of tests/hosts/package.json,
the fixture in marker mode (and a server that is not the fixture) behind the recording proxy, and
the stand-in model (Chat Completions, through the host's bring-your-own-model settings) on
127.0.0.1.

Each test asserts what the run recorded: the pinned version, that no GitHub sign-in was asked
for and nothing but the stand-in was reached (strace), that only the server's tools were offered,
what the model was handed for each form and each large size (model.jsonl), that the user's HOME
stayed untouched and that no process of the run outlives it.
"""

from __future__ import annotations

import json
import sys

from hostkit import (PINNED, assert_forms_whole, assert_large_saved, assert_link_unread, assert_offline,
                     assert_shapes_forms, call_id_of, fixture_tools, handed_by_call, model_requests, prepare_stdio,
                     processes_mentioning, run_on_shapes, run_over_http_offering, run_pinned, scripted_requests,
                     tool_calls)

PACKAGE = "@github/copilot"
SCHEME = "mcpaccept-{tool}"
FIXTURE_TOOLS = fixture_tools(SCHEME)


def test_copilot_cli_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "copilot-cli", PINNED[PACKAGE], "openai-chat")
    assert facts["client_info"] == {"name": "copilot-cli", "version": PINNED[PACKAGE]}
    assert results["conditions"]["protocol_version_on_wire"] == "2026-07-28"
    # no GitHub sign-in, no telemetry, no update check: the stand-in's port is all it reached
    assert_offline(facts)
    # --available-tools=mcpaccept: the server's tools and nothing of the host's own
    assert facts["tool_name_scheme"] == SCHEME and set(facts["offered_tools"]) == FIXTURE_TOOLS
    # one request per scripted call and one for the final text, no side request
    requests = scripted_requests(folder, facts, "/v1/chat/completions")
    # H01: every form whole; the structured result (its tool declares an outputSchema) is handed as
    # its text twin, a blank line, then the structuredContent: both reach the model
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent", "text twin"]
    handed = handed_by_call(requests)
    twin, structured = handed[call_id_of(folder, "structured")].split("\n\n")
    assert "[MKW-" in twin and "[MKS-" in structured and "[MKS-" not in twin
    # H02: the link alone carries no body, and the host has no tool that reads a resource
    assert_link_unread(folder, rows)
    # H03: whole up to 8 KiB; from 32 KiB "Output too large to read at once": a 500-character
    # preview and the file it saved in the private HOME's TMPDIR
    assert_large_saved(folder, rows, (8192, 32768), "saved to a file with a preview", "home/tmp/", range(1000))
    assert handed[call_id_of(folder, "large-1048576")].startswith("Output too large to read at once (1.0 MB).")
    # the image's bytes never reach the model, only the text beside it
    image = facts["extra_forms"]["image"]
    assert image["token"] == "whole" and image["png_data_in_request"] is False
    assert not any("iVBORw0KGgo" in json.dumps(r["message"]) for r in requests)
    # the host unpacked itself into the private HOME's cache, not the user's
    assert (folder / "home" / ".cache" / "copilot" / "pkg" / "linux-x64" / PINNED[PACKAGE] / "index.js").is_file()
    # its transcript: JSONL events on stdout
    events = [json.loads(line) for line in (folder / "host-stdout.txt").read_text().splitlines() if line.strip()]
    assert any(e.get("type") == "session.mcp_server_tools_loaded" for e in events)
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_copilot_cli_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "copilot-cli", FIXTURE_TOOLS, SCHEME)
    # this version sends MCP-Protocol-Version on every request after initialize by itself
    calls = tool_calls(folder, facts)
    assert calls and all(dict(e["http"]["headers"]).get("mcp-protocol-version") == "2026-07-28" for e in calls)
    assert not processes_mentioning(str(folder))


def test_copilot_cli_with_a_server_that_is_not_the_fixture(tmp_path):
    """A structured result whose tool declares no outputSchema and whose text twin disagrees with
    it (total 2 against 3): only the structuredContent reaches the model."""
    folder, rows, _, facts = run_on_shapes(tmp_path, "copilot-cli")
    assert_shapes_forms(folder, rows)
    structured = json.loads(handed_by_call(model_requests(folder))[call_id_of(folder, "structured")])
    assert structured["total"] == 3  # the structuredContent's; the text twin (total 2) is not handed
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("COPILOT_PROVIDER_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("GH_TOKEN", "ghp_user_token_never_handed_over")
    ctx, launch = prepare_stdio(tmp_path, "copilot-cli")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    config = json.loads((ctx.home / ".copilot" / "mcp-config.json").read_text())
    server = config["mcpServers"]["mcpaccept"]
    assert server["type"] == "stdio" and server["command"] == sys.executable and server["tools"] == ["*"]
    env = launch.env
    assert env["COPILOT_HOME"] == str(ctx.home / ".copilot") and env["HOME"] == str(ctx.home)
    assert env["COPILOT_PROVIDER_BASE_URL"] == "http://127.0.0.1:5/v1" and env["COPILOT_PROVIDER_TYPE"] == "openai"
    assert env["COPILOT_PROVIDER_API_KEY"] == ctx.model_key and "GH_TOKEN" not in env
    assert env["COPILOT_OFFLINE"] == "true" and env["COPILOT_AUTO_UPDATE"] == "false"
    assert "--available-tools=mcpaccept" in launch.argv and launch.argv[launch.argv.index("-p") + 1] == ctx.prompt
    assert launch.cwd == ctx.work
