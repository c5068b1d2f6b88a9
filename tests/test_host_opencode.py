"""`mcp-accept host test opencode` with the real opencode of tests/hosts/package.json, the fixture
in marker mode behind the recording proxy, and the stand-in model (Chat Completions) on 127.0.0.1.

Each test asserts what the run recorded: the pinned version, the tool-name scheme, which tools the
model was offered, what it was handed for each form and each large size, that every connection
the host tried was to loopback (strace) and that nothing was installed from npm, that neither the
user's HOME nor a repository around the run folder was touched, and that no process of the run
outlives it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hostkit import (PINNED, assert_forms_whole, assert_offline, assert_pinned_run, call_ids, facts_of,
                     model_requests, observed, prepare_stdio, processes_mentioning, rows_of, run_host, run_over_http,
                     tool_calls)

from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts.adapters.base import HostContext

PACKAGE = "opencode-ai"
SCHEME = "mcpaccept_{tool}"
SERVER_TOOLS = {f"mcpaccept_search_{t}" for t in ("text", "structured", "embedded", "link", "large", "image", "blob")}
# with every permission denied but the server's tools and "read", only these are offered
HOST_TOOLS = {"read", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}


def assert_opencode_offline(folder: Path, facts: dict) -> None:
    # unseeded, the config folder's npm install asks DNS for registry.npmjs.org, and the model
    # catalog is fetched from models.opencode.ai: either would show in the connects as port 53
    assert_offline(facts)
    # nothing was installed into the pre-seeded config folder
    assert list((folder / "home" / ".config" / "opencode" / "node_modules").iterdir()) == []


def test_opencode_fills_the_host_rows_offline(tmp_path):
    folder = run_host(tmp_path, "opencode")
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED[PACKAGE], "opencode", api="openai-chat")
    assert facts["client_info"] == {"name": "opencode", "version": PINNED[PACKAGE]}
    assert results["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert_opencode_offline(folder, facts)
    assert facts["tool_name_scheme"] == SCHEME
    # the denied built-ins (bash, edit, webfetch, task...) are not offered at all
    assert set(facts["offered_tools"]) == SERVER_TOOLS | HOST_TOOLS
    # one side call: the session title, asked of small_model with no tools
    assert [s["kind"] for s in facts["side_calls"]] == ["no tools"]
    requests = model_requests(folder)
    step = call_ids(folder)
    messages = max((r["message"].get("messages") or [] for r in requests), key=len)
    tool_messages = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    handed = {key: tool_messages[call]["content"] for key, call in step.items()}
    after = {}  # what follows each tool message: opencode moves a result's media into a user message
    for index, message in enumerate(messages[:-1]):
        if message.get("role") == "tool" and messages[index + 1].get("role") == "user":
            after[message["tool_call_id"]] = json.dumps(messages[index + 1]["content"])
    after = {key: after.get(call, "") for key, call in step.items()}
    # H01: every form whole; of the structured result only the text twin reaches the model
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert forms["structured"]["structuredContent"] == "absent"
    # H02: the resource_link item is dropped, so the model is handed an empty result with no URI
    # to give read_mcp_resource, and the host reads nothing by itself
    h02 = observed(folder, "H02")
    assert handed["link"] == ""
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] == "read_mcp_resource" and h02["body_via_read_tool"] is None
    # with no URI the body cannot reach the model by any route: a FAIL that says why
    assert rows["H02"]["status"] == "FAIL" and "no URI" in rows["H02"]["reason"], rows["H02"]["reason"]
    # H03: whole up to 32 KiB; past 51200 bytes a preview and the file it saved in the private HOME
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert h03["threshold_bracket_bytes"] == [32768, 65536]
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    assert [sizes[b]["handling"] for b in (1024, 8192, 32768)] == ["whole"] * 3
    for size in (65536, 262144, 1048576):
        assert sizes[size]["handling"] == "saved to a file with a preview", sizes[size]
        assert sizes[size]["saved_to"].startswith("home/.local/share/opencode/tool-output/")
        assert sizes[size]["saved_file_whole"] is True
        assert 51200 <= sizes[size]["handed_characters"] < 52000
    assert "Full output saved to:" in handed["large-65536"]
    # the image's text reaches the tool message and its PNG a user message after it; the blob
    # result's text is empty and its PDF and PNG follow the same way
    assert "MKI-" in handed["image"]
    assert after["image"].startswith('[{"type": "text", "text": "Attached media from tool result:"}')
    assert "data:image/png;base64,iVBORw0KGgo" in after["image"]
    assert handed["blob"] == ""
    assert "data:application/pdf;base64,JVBERi0" in after["blob"]
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_opencode_over_streamable_http(tmp_path):
    folder, _, facts = run_over_http(tmp_path, "opencode")
    assert facts["tool_name_scheme"] == SCHEME
    assert_opencode_offline(folder, facts)
    # this version sends MCP-Protocol-Version on every request after initialize by itself
    calls = tool_calls(folder, facts)
    assert calls and all({k.lower(): v for k, v in e["http"]["headers"]}.get("mcp-protocol-version")
                         == "2025-11-25" for e in calls)
    assert not processes_mentioning(str(folder))


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed (apt-get install git)")
def test_a_run_inside_a_repository_leaves_the_repository_and_its_config_alone(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    # a project opencode would otherwise load: its config, its instructions, its config folder
    (repo / "opencode.json").write_text(json.dumps({"instructions": ["PROJECT-CONFIG-MARKER.md"]}))
    (repo / "AGENTS.md").write_text("PROJECT-AGENTS-MARKER\n")
    (repo / ".opencode").mkdir()
    before = sorted(str(p.relative_to(repo)) for p in (repo / ".git").rglob("*"))
    folder = run_host(tmp_path, "opencode", out=repo / "runs" / "opencode")
    rows, _ = rows_of(folder)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    # unfenced, opencode writes the project's id to .git/opencode of the repository around it
    assert sorted(str(p.relative_to(repo)) for p in (repo / ".git").rglob("*")) == before
    assert list((repo / ".opencode").iterdir()) == []  # no npm install into the project's folder
    model_log = (folder / "model.jsonl").read_text()
    assert "PROJECT-AGENTS-MARKER" not in model_log and "PROJECT-CONFIG-MARKER" not in model_log
    assert "projectID=global" in (folder / "host-stderr.txt").read_text()
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("OPENCODE_CONFIG", "/etc/users-own-opencode.json")
    ctx, launch = prepare_stdio(tmp_path, "opencode")
    assert launch.files and all(str(f).startswith(str(ctx.folder) + "/") for f in launch.files)
    config = json.loads((ctx.home / ".config" / "opencode" / "opencode.json").read_text())
    provider = config["provider"]["mcpaccept"]
    assert provider["npm"] == "@ai-sdk/openai-compatible"
    assert provider["options"]["baseURL"] == "http://127.0.0.1:5/v1"
    assert config["model"] == config["small_model"] == "mcpaccept/stand-in"
    assert config["mcp"]["mcpaccept"] == {"type": "local", "command": ctx.mcp_command, "enabled": True,
                                          "timeout": 60000}
    assert next(iter(config["permission"].items())) == ("*", "deny")
    assert config["autoupdate"] is False and config["share"] == "disabled"
    lock = json.loads((ctx.home / ".config" / "opencode" / "package-lock.json").read_text())
    assert "@opencode-ai/plugin" in lock["packages"][""]["dependencies"]
    assert (ctx.work / ".git").read_text().startswith("gitdir: ")
    for flag in ("OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_PROJECT_CONFIG"):
        assert launch.env[flag] == "1"
    assert "OPENAI_API_KEY" not in launch.env and "OPENCODE_CONFIG" not in launch.env
    assert launch.env["XDG_CONFIG_HOME"] == str(ctx.home / ".config") and launch.cwd == ctx.work
    http = HostContext(folder=tmp_path / "http", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                       mcp_url="http://127.0.0.1:6/mcp")
    ADAPTERS["opencode"].prepare(http, "/bin/true")
    remote = json.loads((http.home / ".config" / "opencode" / "opencode.json").read_text())["mcp"]["mcpaccept"]
    assert remote["type"] == "remote" and remote["url"] == "http://127.0.0.1:6/mcp" and remote["oauth"] is False
