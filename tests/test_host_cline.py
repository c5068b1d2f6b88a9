"""`mcp-accept host test cline` with the real Cline CLI of tests/hosts/package.json, the fixture in
marker mode (and a server that is not the fixture) behind the recording proxy, and the stand-in
model (Chat Completions, through Cline's openai-compatible provider) on 127.0.0.1.

Each test asserts what the run recorded: the pinned version, that no sign-in to Cline's own
service was asked for and nothing but the stand-in was reached (strace), that only the server's
tools were offered, what the model was handed for each form and each large size (model.jsonl),
that the user's HOME stayed untouched and that no process of the run outlives it.
"""

from __future__ import annotations

import json
import sys

from hostkit import (PINNED, assert_forms_whole, assert_link_unread, assert_offline, assert_shapes_forms,
                     call_id_of, handed_by_call, model_requests, observed, prepare_stdio, processes_mentioning,
                     fixture_tools, run_on_shapes, run_over_http_offering, run_pinned, scripted_requests)

PACKAGE = "cline"
SCHEME = "mcpaccept__{tool}"
FIXTURE_TOOLS = fixture_tools(SCHEME)


def test_cline_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "cline", PINNED[PACKAGE], "openai-chat")
    # the agent's MCP client is @cline/core's, which names itself with no version of its own
    assert facts["client_info"]["name"] == "@cline/core"
    # no feature-flag poll, no telemetry, no update check, no model catalog: the stand-in's port is
    # all it reached
    assert_offline(facts)
    # global-settings.json disabledTools: the server's tools and nothing of the host's own
    assert facts["tool_name_scheme"] == SCHEME and set(facts["offered_tools"]) == FIXTURE_TOOLS
    # one request per scripted call and one for the final text, no side request
    requests = scripted_requests(folder, facts, "/v1/chat/completions")
    assert all(r["message"]["model"] == "gpt-4.1" for r in requests)
    # H01: every form whole; each result is handed as the whole CallToolResult in JSON, so the
    # structured one carries both its text twin and its structuredContent
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent", "text twin"]
    handed = handed_by_call(requests)
    structured = json.loads(handed[call_id_of(folder, "structured")])
    assert "[MKS-" in json.dumps(structured["structuredContent"]) and "[MKW-" in structured["content"][0]["text"]
    # H02: the link alone carries no body, and the host has no tool that reads a resource
    assert_link_unread(folder, rows)
    # H03: whole at 1 KiB; from 8 KiB about 8,000 characters, the middle cut out and replaced by
    # "...[truncated N chars]..."
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert h03["threshold_bracket_bytes"] == [1024, 8192]
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert sizes[1024]["handling"] == "whole"
    for size in (8192, 32768, 65536, 262144, 1048576):
        assert sizes[size]["reached"] == "cut in the middle", sizes[size]
        assert 7900 <= sizes[size]["handed_characters"] <= 8100
    assert "...[truncated " in handed[call_id_of(folder, "large-1048576")]
    # the image is handed as text: its base64 inside the JSON of the result, in the tool message's
    # string content, never as an image part the model could see
    image = facts["extra_forms"]["image"]
    assert image["token"] == "whole" and image["png_data_in_request"] is True
    image_handed = handed[call_id_of(folder, "image")]
    assert isinstance(image_handed, str) and json.loads(image_handed)["content"][0]["type"] == "image"
    assert not any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
                   for m in requests[-1]["message"]["messages"])
    # the PDF likewise: its base64 as text, none of its words
    assert facts["extra_forms"]["blob"]["token"] == "absent"
    # the host kept its state in the private HOME's data folder (sandbox mode: no hub daemon)
    data = folder / "home" / ".cline" / "data"
    assert (data / "sessions").is_dir() and not (data / "logs" / "hub-daemon.log").exists()
    # its transcript: JSON events on stdout, the last the run's result from the stand-in's model
    events = [json.loads(line) for line in (folder / "host-stdout.txt").read_text().splitlines() if line.strip()]
    result = [e for e in events if e.get("type") == "run_result"][-1]
    assert result["finishReason"] == "completed" and result["model"]["provider"] == "openai-compatible"
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_cline_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "cline", FIXTURE_TOOLS, SCHEME)
    assert not processes_mentioning(str(folder))


def test_cline_with_a_server_that_is_not_the_fixture(tmp_path):
    """A structured result whose tool declares no outputSchema: its content and its
    structuredContent both reach the model, as the JSON of the whole result."""
    folder, rows, _, facts = run_on_shapes(tmp_path, "cline")
    assert_shapes_forms(folder, rows)
    structured = json.loads(handed_by_call(model_requests(folder))[call_id_of(folder, "structured")])
    assert structured["structuredContent"]["total"] == 3
    assert json.loads(structured["content"][0]["text"]) == structured["structuredContent"]
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINE_DIR", "/home/user/.cline")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-never-handed-over")
    ctx, launch = prepare_stdio(tmp_path, "cline")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    settings = ctx.home / ".cline" / "data" / "settings"
    server = json.loads((settings / "cline_mcp_settings.json").read_text())["mcpServers"]["mcpaccept"]
    assert server["type"] == "stdio" and server["command"] == sys.executable
    providers = json.loads((settings / "providers.json").read_text())
    provider = providers["providers"][providers["lastUsedProvider"]]["settings"]
    assert provider == {"provider": "openai-compatible", "apiKey": ctx.model_key, "model": "gpt-4.1",
                        "baseUrl": "http://127.0.0.1:5/v1"}
    global_settings = json.loads((settings / "global-settings.json").read_text())
    assert global_settings["telemetryOptOut"] is True and global_settings["autoUpdateEnabled"] is False
    assert {"run_commands", "read_files", "apply_patch", "fetch_web_content"} <= set(global_settings["disabledTools"])
    env = launch.env
    assert env["CLINE_DIR"] == str(ctx.home / ".cline") and env["HOME"] == str(ctx.home)
    assert "OPENAI_API_KEY" not in env
    assert launch.argv[launch.argv.index("--data-dir") + 1] == str(ctx.home / ".cline" / "data")
    assert launch.argv[-1] == ctx.prompt and launch.cwd == ctx.work
