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

import yaml

from hostkit import (PINNED, ROOT, assert_forms_whole, assert_offline, assert_pinned_run, call_id_of, facts_of,
                     model_requests, observed, prepare_stdio, processes_mentioning, rows_of, run_host, run_over_http,
                     tool_calls)

PACKAGE = "@github/copilot"
SCHEME = "mcpaccept-{tool}"
FIXTURE_TOOLS = {f"mcpaccept-search_{t}" for t in ("text", "structured", "embedded", "link", "image", "blob",
                                                    "large")}
SHAPES = ROOT / "tests" / "servers" / "shapes_server.py"


def handed_by_call(requests: list[dict]) -> dict[str, str]:
    """What the last request handed the model for each call: its tool message's content."""
    return {m.get("tool_call_id"): m.get("content") for m in requests[-1]["message"]["messages"]
            if m.get("role") == "tool"}


def test_copilot_cli_fills_the_host_rows_offline(tmp_path):
    folder = run_host(tmp_path, "copilot-cli")
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED[PACKAGE], "copilot-cli", api="openai-chat")
    assert facts["client_info"] == {"name": "copilot-cli", "version": PINNED[PACKAGE]}
    assert results["conditions"]["protocol_version_on_wire"] == "2026-07-28"
    # no GitHub sign-in, no telemetry, no update check: the stand-in's port is all it reached
    assert_offline(facts)
    # --available-tools=mcpaccept: the server's tools and nothing of the host's own
    assert facts["tool_name_scheme"] == SCHEME and set(facts["offered_tools"]) == FIXTURE_TOOLS
    requests = model_requests(folder)
    assert all(r["http"]["path"] == "/v1/chat/completions" for r in requests)
    # one request per scripted call and one for the final text, no side request
    assert len(requests) == 13 and facts["side_calls"] == []
    # H01: every form whole; the structured result (its tool declares an outputSchema) is handed as
    # its text twin, a blank line, then the structuredContent: both reach the model
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent", "text twin"]
    handed = handed_by_call(requests)
    twin, structured = handed[call_id_of(folder, "structured")].split("\n\n")
    assert "[MKW-" in twin and "[MKS-" in structured and "[MKS-" not in twin
    # H02: the link alone carries no body, and the host has no tool that reads a resource
    h02 = observed(folder, "H02")
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] is None and rows["H02"]["status"] == "FAIL"
    # H03: whole up to 8 KiB; from 32 KiB "Output too large to read at once": a 500-character
    # preview and the file it saved in the private HOME's TMPDIR
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert h03["threshold_bracket_bytes"] == [8192, 32768]
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert [sizes[b]["handling"] for b in (1024, 8192)] == ["whole", "whole"]
    for size in (32768, 65536, 262144, 1048576):
        assert sizes[size]["handling"] == "saved to a file with a preview", sizes[size]
        assert sizes[size]["saved_to"].startswith("home/tmp/") and sizes[size]["handed_characters"] < 1000
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
    folder, rows, facts = run_over_http(tmp_path, "copilot-cli")
    assert facts["tool_name_scheme"] == SCHEME and set(facts["offered_tools"]) == FIXTURE_TOOLS
    assert_offline(facts)
    assert rows["H02"]["status"] == "FAIL"
    # this version sends MCP-Protocol-Version on every request after initialize by itself
    calls = tool_calls(folder, facts)
    assert calls and all(dict(e["http"]["headers"]).get("mcp-protocol-version") == "2026-07-28" for e in calls)
    assert not processes_mentioning(str(folder))


def test_copilot_cli_with_a_server_that_is_not_the_fixture(tmp_path):
    """A structured result whose tool declares no outputSchema and whose text twin disagrees with
    it (total 2 against 3): only the structuredContent reaches the model."""
    profile = tmp_path / "stale.yaml"
    profile.write_text(yaml.safe_dump({"profile": "shapes-stale", "tools": {
        "text": {"name": "summary_prose", "body": "text"},
        "structured": {"name": "stats_stale"},
        "embedded": {"name": "report_markdown", "mime_type": "text/markdown"},
        "link": {"name": "report_json_link", "body": "bytes"}}}))
    folder = run_host(tmp_path, "copilot-cli", "--server", f"{sys.executable} {SHAPES}", "--profile", str(profile))
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert results["conditions"]["server_name"] != "mcp-accept-fixture"
    assert_offline(facts)
    forms = observed(folder, "H01")["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert forms["text"]["found"].startswith("the server's own body") and forms["text"]["reached"] == "whole"
    assert forms["embedded"]["reached"] == "whole"
    structured = json.loads(handed_by_call(model_requests(folder))[call_id_of(folder, "structured")])
    assert structured["total"] == 3  # the structuredContent's; the text twin (total 2) is not handed
    assert rows["H02"]["status"] == "FAIL" and rows["H03"]["status"] == "UNOBTAINABLE"
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
