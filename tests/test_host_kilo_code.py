"""`mcp-accept host test kilo-code` with the real Kilo Code CLI of tests/hosts/package.json, the
fixture in marker mode (and a server that is not the fixture) behind the recording proxy, and the
stand-in model (Chat Completions, through an OpenAI-compatible provider) on 127.0.0.1.

Each test asserts what the run recorded: the pinned version, the tool-name scheme, that no shell
nor any other of the host's own tools was offered (Kilo turns bash back on in a config without a
rule for it), what the model was handed for each form and each large size, that every connection
the host tried was to loopback (strace) and nothing was installed from npm, that the user's HOME
stayed untouched and that no process of the run outlives it.
"""

from __future__ import annotations

import json

from hostkit import (PINNED, assert_ai_sdk_config, assert_ai_sdk_handed, assert_ai_sdk_remote, assert_large_saved,
                     assert_offline, assert_shapes_forms, assert_version_header, call_id_of, fixture_tools,
                     model_requests, prepare_stdio, processes_mentioning, run_on_shapes, run_over_http, run_pinned)

PACKAGE = "@kilocode/cli"
SCHEME = "mcpaccept_{tool}"
SERVER_TOOLS = fixture_tools(SCHEME)
# with every permission denied but the server's tools and "read", only these are offered
HOST_TOOLS = {"read", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}


def assert_kilo_offline(folder, facts: dict) -> None:
    assert_offline(facts)
    config = folder / "home" / ".config" / "kilo"
    # nothing was installed into the pre-seeded config folder
    assert list((config / "node_modules").iterdir()) == []
    # the config's explicit bash rule kept Kilo from rewriting it to allow bash
    assert json.loads((config / "kilo.json").read_text())["permission"]["bash"] == "deny"


def test_kilo_code_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "kilo-code", PINNED[PACKAGE], "openai-chat")
    assert facts["client_info"] == {"name": "kilo", "version": PINNED[PACKAGE]}
    assert results["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert_kilo_offline(folder, facts)
    assert facts["tool_name_scheme"] == SCHEME
    # no bash, edit, webfetch, task...: denied tools are not offered at all
    assert set(facts["offered_tools"]) == SERVER_TOOLS | HOST_TOOLS
    # at most one side call: the session title, asked with no tools and in parallel with the
    # run, which may end before the host asks for it
    assert [s["kind"] for s in facts["side_calls"]] in ([], ["no tools"])
    assert all(r["http"]["path"] == "/v1/chat/completions" for r in model_requests(folder))
    # H01: every form whole, of the structured result only the text twin; H02: the resource_link
    # item is dropped (an empty result, no URI for read_mcp_resource); a result's media move into a
    # user message after its tool message
    handed, after = assert_ai_sdk_handed(folder, rows)
    # H03: whole up to 32 KiB; past about 50 KiB a preview and the file it saved in the private HOME
    assert_large_saved(folder, rows, (32768, 65536), "saved to a file with a preview",
                       "home/.local/share/kilo/tool-output/", range(50000, 52000), saved_whole=True)
    # the blob result's PDF follows its empty text as the image's PNG does
    assert "application/pdf" in after["blob"] or "JVBERi0" in after["blob"], after["blob"][:200]
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_kilo_code_over_streamable_http(tmp_path):
    folder, _, facts = run_over_http(tmp_path, "kilo-code")
    assert facts["tool_name_scheme"] == SCHEME
    assert_kilo_offline(folder, facts)
    assert_version_header(folder, facts, "2025-11-25")
    assert not processes_mentioning(str(folder))


def test_kilo_code_with_a_server_that_is_not_the_fixture(tmp_path):
    """The shapes server's own bodies under the profile's names: prose, a structured result whose
    tool declares no outputSchema (its text twin the same document), Markdown and a link."""
    folder, rows, _, facts = run_on_shapes(tmp_path, "kilo-code")
    assert_kilo_offline(folder, facts)
    forms = assert_shapes_forms(folder, rows, passed=False)
    requests = model_requests(folder)
    # the longest conversation: the title side call, asked last or not, holds no tool message
    messages = max((r["message"].get("messages") or [] for r in requests), key=len)
    handed = {m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"}
    structured = json.loads(handed[call_id_of(folder, "structured")])
    assert structured["total"] == 3
    assert forms["structured"]["model_saw"] == ["structuredContent or its text twin (the same document)"]
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("KILO_CONFIG", "/etc/users-own-kilo.json")
    monkeypatch.setenv("KILO_API_KEY", "kilo-user-key-never-handed-over")
    ctx, launch = prepare_stdio(tmp_path, "kilo-code")
    assert launch.files and all(str(f).startswith(str(ctx.folder) + "/") for f in launch.files)
    config = assert_ai_sdk_config(ctx, "kilo", "@kilocode/plugin")
    assert config["enabled_providers"] == ["mcpaccept"] and config["permission"]["bash"] == "deny"
    for flag in ("KILO_DISABLE_MODELS_FETCH", "KILO_DISABLE_AUTOUPDATE", "KILO_DISABLE_PROJECT_CONFIG",
                 "KILO_DISABLE_SESSION_INGEST", "KILO_DISABLE_CLAUDE_CODE"):
        assert launch.env[flag] == "1"
    assert launch.env["KILO_TELEMETRY_LEVEL"] != "all"
    assert not {"OPENAI_API_KEY", "KILO_CONFIG", "KILO_API_KEY"} & set(launch.env)
    assert launch.env["XDG_CONFIG_HOME"] == str(ctx.home / ".config") and launch.cwd == ctx.work
    assert_ai_sdk_remote(tmp_path, "kilo-code", "kilo")
