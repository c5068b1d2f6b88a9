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
import sys

import yaml

from hostkit import (PINNED, ROOT, assert_forms_whole, assert_offline, assert_pinned_run, call_id_of, call_ids,
                     facts_of, model_requests, observed, prepare_stdio, processes_mentioning, rows_of, run_host,
                     run_over_http, tool_calls)

from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts.adapters.base import HostContext

PACKAGE = "@kilocode/cli"
SCHEME = "mcpaccept_{tool}"
SERVER_TOOLS = {f"mcpaccept_search_{t}" for t in ("text", "structured", "embedded", "link", "large", "image", "blob")}
# with every permission denied but the server's tools and "read", only these are offered
HOST_TOOLS = {"read", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}
SHAPES = ROOT / "tests" / "servers" / "shapes_server.py"


def assert_kilo_offline(folder, facts: dict) -> None:
    assert_offline(facts)
    config = folder / "home" / ".config" / "kilo"
    # nothing was installed into the pre-seeded config folder
    assert list((config / "node_modules").iterdir()) == []
    # the config's explicit bash rule kept Kilo from rewriting it to allow bash
    assert json.loads((config / "kilo.json").read_text())["permission"]["bash"] == "deny"


def test_kilo_code_fills_the_host_rows_offline(tmp_path):
    folder = run_host(tmp_path, "kilo-code")
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED[PACKAGE], "kilo-code", api="openai-chat")
    assert facts["client_info"] == {"name": "kilo", "version": PINNED[PACKAGE]}
    assert results["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert_kilo_offline(folder, facts)
    assert facts["tool_name_scheme"] == SCHEME
    # no bash, edit, webfetch, task...: denied tools are not offered at all
    assert set(facts["offered_tools"]) == SERVER_TOOLS | HOST_TOOLS
    # at most one side call: the session title, asked with no tools and in parallel with the
    # run, which may end before the host asks for it
    assert [s["kind"] for s in facts["side_calls"]] in ([], ["no tools"])
    requests = model_requests(folder)
    assert all(r["http"]["path"] == "/v1/chat/completions" for r in requests)
    step = call_ids(folder)
    messages = max((r["message"].get("messages") or [] for r in requests), key=len)
    tool_messages = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    handed = {key: tool_messages[call]["content"] for key, call in step.items()}
    after = {}  # what follows each tool message: a result's media move into a user message
    for index, message in enumerate(messages[:-1]):
        if message.get("role") == "tool" and messages[index + 1].get("role") == "user":
            after[message["tool_call_id"]] = json.dumps(messages[index + 1]["content"])
    after = {key: after.get(call, "") for key, call in step.items()}
    # H01: every form whole; of the structured result only the text twin reaches the model
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert forms["structured"]["structuredContent"] == "absent"
    # H02: the resource_link item is dropped: an empty result, no URI for read_mcp_resource
    h02 = observed(folder, "H02")
    assert handed["link"] == ""
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] == "read_mcp_resource" and h02["body_via_read_tool"] is None
    assert rows["H02"]["status"] == "FAIL" and "no URI" in rows["H02"]["reason"], rows["H02"]["reason"]
    # H03: whole up to 32 KiB; past about 50 KiB a preview and the file it saved in the private HOME
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert h03["threshold_bracket_bytes"] == [32768, 65536]
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert [sizes[b]["handling"] for b in (1024, 8192, 32768)] == ["whole"] * 3
    for size in (65536, 262144, 1048576):
        assert sizes[size]["handling"] == "saved to a file with a preview", sizes[size]
        assert sizes[size]["saved_to"].startswith("home/.local/share/kilo/tool-output/")
        assert sizes[size]["saved_file_whole"] is True
        assert 50000 <= sizes[size]["handed_characters"] < 52000
    # the image's text reaches the tool message and its PNG a user message after it; the blob
    # result's text is empty and its PDF follows the same way
    assert "MKI-" in handed["image"]
    assert after["image"].startswith('[{"type": "text", "text": "Attached media from tool result:"}')
    assert "data:image/png;base64,iVBORw0KGgo" in after["image"]
    assert handed["blob"] == ""
    assert "application/pdf" in after["blob"] or "JVBERi0" in after["blob"], after["blob"][:200]
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_kilo_code_over_streamable_http(tmp_path):
    folder, _, facts = run_over_http(tmp_path, "kilo-code")
    assert facts["tool_name_scheme"] == SCHEME
    assert_kilo_offline(folder, facts)
    calls = tool_calls(folder, facts)
    assert calls and all({k.lower(): v for k, v in e["http"]["headers"]}.get("mcp-protocol-version")
                         == "2025-11-25" for e in calls)
    assert not processes_mentioning(str(folder))


def test_kilo_code_with_a_server_that_is_not_the_fixture(tmp_path):
    """The shapes server's own bodies under the profile's names: prose, a structured result whose
    tool declares no outputSchema (its text twin the same document), Markdown and a link."""
    profile = tmp_path / "stale.yaml"
    profile.write_text(yaml.safe_dump({"profile": "shapes-stale", "tools": {
        "text": {"name": "summary_prose", "body": "text"},
        "structured": {"name": "stats_stale"},
        "embedded": {"name": "report_markdown", "mime_type": "text/markdown"},
        "link": {"name": "report_json_link", "body": "bytes"}}}))
    folder = run_host(tmp_path, "kilo-code", "--server", f"{sys.executable} {SHAPES}", "--profile", str(profile))
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert results["conditions"]["server_name"] != "mcp-accept-fixture"
    assert_kilo_offline(folder, facts)
    forms = observed(folder, "H01")["forms"]
    assert forms["text"]["found"].startswith("the server's own body") and forms["text"]["reached"] == "whole"
    assert forms["embedded"]["reached"] == "whole"
    requests = model_requests(folder)
    # the longest conversation: the title side call, asked last or not, holds no tool message
    messages = max((r["message"].get("messages") or [] for r in requests), key=len)
    handed = {m.get("tool_call_id"): m.get("content") for m in messages if m.get("role") == "tool"}
    structured = json.loads(handed[call_id_of(folder, "structured")])
    assert structured["total"] == 3
    assert forms["structured"]["model_saw"] == ["structuredContent or its text twin (the same document)"]
    assert rows["H02"]["status"] == "FAIL" and rows["H03"]["status"] == "UNOBTAINABLE"
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("KILO_CONFIG", "/etc/users-own-kilo.json")
    monkeypatch.setenv("KILO_API_KEY", "kilo-user-key-never-handed-over")
    ctx, launch = prepare_stdio(tmp_path, "kilo-code")
    assert launch.files and all(str(f).startswith(str(ctx.folder) + "/") for f in launch.files)
    config = json.loads((ctx.home / ".config" / "kilo" / "kilo.json").read_text())
    provider = config["provider"]["mcpaccept"]
    assert provider["npm"] == "@ai-sdk/openai-compatible"
    assert provider["options"]["baseURL"] == "http://127.0.0.1:5/v1"
    assert config["model"] == config["small_model"] == "mcpaccept/stand-in"
    assert config["enabled_providers"] == ["mcpaccept"]
    assert config["mcp"]["mcpaccept"] == {"type": "local", "command": ctx.mcp_command, "enabled": True,
                                          "timeout": 60000}
    assert next(iter(config["permission"].items())) == ("*", "deny") and config["permission"]["bash"] == "deny"
    lock = json.loads((ctx.home / ".config" / "kilo" / "package-lock.json").read_text())
    assert "@kilocode/plugin" in lock["packages"][""]["dependencies"]
    for flag in ("KILO_DISABLE_MODELS_FETCH", "KILO_DISABLE_AUTOUPDATE", "KILO_DISABLE_PROJECT_CONFIG",
                 "KILO_DISABLE_SESSION_INGEST", "KILO_DISABLE_CLAUDE_CODE"):
        assert launch.env[flag] == "1"
    assert launch.env["KILO_TELEMETRY_LEVEL"] != "all"
    assert not {"OPENAI_API_KEY", "KILO_CONFIG", "KILO_API_KEY"} & set(launch.env)
    assert launch.env["XDG_CONFIG_HOME"] == str(ctx.home / ".config") and launch.cwd == ctx.work
    http = HostContext(folder=tmp_path / "http", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                       mcp_url="http://127.0.0.1:6/mcp")
    ADAPTERS["kilo-code"].prepare(http, "/bin/true")
    remote = json.loads((http.home / ".config" / "kilo" / "kilo.json").read_text())["mcp"]["mcpaccept"]
    assert remote["type"] == "remote" and remote["url"] == "http://127.0.0.1:6/mcp" and remote["oauth"] is False
