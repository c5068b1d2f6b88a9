"""`mcp-accept host test mistral-vibe` with the real Mistral Vibe of tests/hosts/vibe-constraints.txt
(in tests/hosts/vibe-venv), the fixture in marker mode behind the recording proxy, and the
stand-in model (Chat Completions, through a generic OpenAI-style provider of its config.toml) on
127.0.0.1.

This release hands an MCP server's tools to its model only inside its ``run_typescript`` sandbox
(``tools.mcp_NAME.TOOL``, found with ``search_tool_functions``), never as tools of the request:
the stand-in, which calls a server's tools by the names the request offers, finds none, and the
rows are unobtainable. The tests hold what was measured: the pinned version, the handshake with
the server, the connector group the system prompt names, nothing reached but the stand-in, the
user's HOME untouched, no process outliving the run.
"""

from __future__ import annotations

import json
import sys

from hostkit import (ROOT, assert_offline, facts_of, model_requests, prepare_stdio, processes_mentioning, rows_of,
                     run_host)

from mcp_accept.hosts.registry import ADAPTERS

VERSION = ADAPTERS["mistral-vibe"].tested_version
SHAPES = ROOT / "tests" / "servers" / "shapes_server.py"


def offered_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request["message"].get("tools", [])]


def assert_tools_only_in_the_sandbox(folder, group: str) -> None:
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert facts["version"] == VERSION and results["conditions"]["host_version"] == VERSION
    assert facts["api"] == "openai-chat" and facts["host_exit"] == 0 and not facts["timed_out"]
    assert_offline(facts)
    requests = model_requests(folder)
    assert requests and all(r["http"]["path"] == "/v1/chat/completions" for r in requests)
    offered = offered_names(requests[0])
    # the sandbox and its search, never a server tool as a tool of the request
    assert {"run_typescript", "search_tool_functions"} <= set(offered), offered
    assert not any(name.startswith("mcpaccept") or name.startswith("search_") and name != "search_tool_functions"
                   for name in offered), offered
    assert sorted(facts["offered_tools"]) == sorted(offered)
    assert f"- {group}" in requests[0]["message"]["messages"][0]["content"]
    assert {row["status"] for row in rows.values()} == {"UNOBTAINABLE"}
    assert "offered its model none of the server's tools" in rows["H01"]["reason"]
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_mistral_vibe_offers_the_servers_tools_only_inside_run_typescript(tmp_path):
    folder = run_host(tmp_path, "mistral-vibe", codes=(3,))
    facts = facts_of(folder)
    # it spoke MCP with the server through the proxy: its clientInfo and protocol on the wire
    assert facts["protocol_version"] == "2025-11-25" and facts["client_info"]["name"]
    assert_tools_only_in_the_sandbox(folder, "mcp_mcpaccept")
    # its config stayed in the run's private HOME
    assert (folder / "home" / ".vibe" / "config.toml").is_file()


def test_mistral_vibe_over_streamable_http(tmp_path):
    folder = run_host(tmp_path, "mistral-vibe", "--transport", "http", codes=(3,))
    _, results = rows_of(folder)
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert_tools_only_in_the_sandbox(folder, "mcp_mcpaccept")


def test_mistral_vibe_with_a_server_that_is_not_the_fixture(tmp_path):
    folder = run_host(tmp_path, "mistral-vibe", "--server", f"{sys.executable} {SHAPES}", codes=(3,))
    _, results = rows_of(folder)
    assert results["conditions"]["server_name"] != "mcp-accept-fixture"
    assert_tools_only_in_the_sandbox(folder, "mcp_mcpaccept")


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
