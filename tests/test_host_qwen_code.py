"""`mcp-accept host test qwen-code` with the real Qwen Code of tests/hosts/package.json, the
fixture in marker mode behind the recording proxy, and the stand-in model (Chat Completions) on
127.0.0.1.

Each test asserts what the run recorded: the pinned version, the tool-name scheme, that the
server's tools and the host's resource reader were in the model's tool list itself (Qwen Code
defers MCP tools behind a search bridge unless told otherwise), what the model was handed for
each form and each large size, that every connection the host tried was to loopback (strace),
that the user's HOME stayed untouched and that no process of the run outlives it.
"""

from __future__ import annotations

import json
import sys

from hostkit import (PINNED, assert_forms_whole, assert_offline, assert_pinned_run, call_id_of, facts_of,
                     model_requests, observed, prepare_stdio, processes_mentioning, rows_of, run_host, run_over_http,
                     tool_calls)

PACKAGE = "@qwen-code/qwen-code"
SCHEME = "mcp__mcpaccept__{tool}"


def test_qwen_code_fills_the_host_rows_offline(tmp_path):
    folder = run_host(tmp_path, "qwen-code")
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED[PACKAGE], "qwen-code", api="openai-chat")
    assert facts["client_info"]["name"] == "qwen-cli-mcp-client-mcpaccept"
    assert results["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert_offline(facts)
    # the server's tools and read_mcp_resource are in the tool list itself, not behind tool_search
    assert facts["tool_name_scheme"] == SCHEME
    assert {"mcp__mcpaccept__search_text", "mcp__mcpaccept__search_link", "read_mcp_resource"} <= set(
        facts["offered_tools"])
    requests = model_requests(folder)
    # one request per scripted call and one for the final text: no memory agent asked afterwards
    assert len(requests) == 14 and facts["side_calls"] == []
    assert all(any(t["function"]["name"] == "mcp__mcpaccept__search_text" for t in r["message"]["tools"])
               for r in requests)
    # H01: every form whole; the structured result is handed as its text twin followed by the
    # structuredContent, so the model sees both
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent", "text twin"]
    # H02: the link alone carries no body; read_mcp_resource {server_name, uri} hands it whole
    h02 = observed(folder, "H02")
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] == "read_mcp_resource" and h02["body_via_read_tool"] == "whole"
    assert rows["H02"]["status"] == "PASS", rows["H02"]["reason"]
    # H03: whole up to 8 KiB; from 32 KiB a <persisted-output> stub (a 2000-character preview and
    # the file it saved in the private HOME); at 1 MiB (over 1000 lines) a head-and-tail excerpt
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert h03["threshold_bracket_bytes"] == [8192, 32768]
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert [sizes[b]["handling"] for b in (1024, 8192)] == ["whole", "whole"]
    for size in (32768, 65536, 262144):
        assert sizes[size]["handling"] == "saved to a file with a preview", sizes[size]
        assert sizes[size]["saved_to"].startswith("home/.qwen/") and sizes[size]["saved_file_whole"] is True
        assert sizes[size]["handed_characters"] < 2100
    biggest = sizes[1048576]
    assert biggest["reached"] != "whole" and biggest["handed_characters"] < 3000, biggest
    assert biggest["saved_to"].startswith("home/.qwen/") and biggest["saved_file_whole"] is True
    handed = {m.get("tool_call_id"): json.dumps(m.get("content")) for m in requests[-1]["message"]["messages"]}
    assert "[CONTENT TRUNCATED]" in handed[call_id_of(folder, "large-1048576")]
    # the image's bytes never reach the model, only a line naming its type
    assert "[image: image/png]" in handed[call_id_of(folder, "image")]
    assert not any("iVBORw0KGgo" in json.dumps(r["message"]) for r in requests)
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_qwen_code_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http(tmp_path, "qwen-code")
    assert facts["tool_name_scheme"] == SCHEME
    assert_offline(facts)
    assert rows["H02"]["status"] == "PASS", rows["H02"]["reason"]
    # this version sends MCP-Protocol-Version on every request after initialize by itself
    calls = tool_calls(folder, facts)
    assert calls and all(dict(e["http"]["headers"]).get("mcp-protocol-version") == "2025-11-25" for e in calls)
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.invalid/v1")
    ctx, launch = prepare_stdio(tmp_path, "qwen-code")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    settings = json.loads((ctx.home / ".qwen" / "settings.json").read_text())
    assert settings["privacy"]["usageStatisticsEnabled"] is False
    assert settings["security"]["auth"]["selectedType"] == "openai"
    server = settings["mcpServers"]["mcpaccept"]
    assert server["command"] == sys.executable and server["alwaysLoadTools"] is True and server["trust"] is True
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1"
    assert launch.env["OPENAI_API_KEY"] != "sk-user-key-never-handed-over"
    assert launch.env["HOME"] == str(ctx.home) and launch.cwd == ctx.work

