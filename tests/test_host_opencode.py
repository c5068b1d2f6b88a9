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
from hostkit import (PINNED, assert_ai_sdk_config, assert_ai_sdk_handed, assert_ai_sdk_remote, assert_large_saved,
                     assert_offline, assert_version_header, fixture_tools, prepare_stdio, processes_mentioning,
                     rows_of, run_host, run_over_http, run_pinned)

PACKAGE = "opencode-ai"
SCHEME = "mcpaccept_{tool}"
SERVER_TOOLS = fixture_tools(SCHEME)
# with every permission denied but the server's tools and "read", only these are offered
HOST_TOOLS = {"read", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}


def assert_opencode_offline(folder: Path, facts: dict) -> None:
    # unseeded, the config folder's npm install asks DNS for registry.npmjs.org, and the model
    # catalog is fetched from models.opencode.ai: either would show in the connects as port 53
    assert_offline(facts)
    # nothing was installed into the pre-seeded config folder
    assert list((folder / "home" / ".config" / "opencode" / "node_modules").iterdir()) == []


def test_opencode_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "opencode", PINNED[PACKAGE], "openai-chat")
    assert facts["client_info"] == {"name": "opencode", "version": PINNED[PACKAGE]}
    assert results["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert_opencode_offline(folder, facts)
    assert facts["tool_name_scheme"] == SCHEME
    # the denied built-ins (bash, edit, webfetch, task...) are not offered at all
    assert set(facts["offered_tools"]) == SERVER_TOOLS | HOST_TOOLS
    # one side call: the session title, asked of small_model with no tools
    assert [s["kind"] for s in facts["side_calls"]] == ["no tools"]
    # H01: every form whole, of the structured result only the text twin; H02: the resource_link
    # item is dropped, so the model is handed an empty result with no URI to give
    # read_mcp_resource, and the host reads nothing by itself: a FAIL that says why; opencode
    # moves a result's media into a user message after its tool message
    handed, after = assert_ai_sdk_handed(folder, rows)
    # H03: whole up to 32 KiB; past 51200 bytes a preview and the file it saved in the private HOME
    assert_large_saved(folder, rows, (32768, 65536), "saved to a file with a preview",
                       "home/.local/share/opencode/tool-output/", range(51200, 52000), saved_whole=True)
    assert "Full output saved to:" in handed["large-65536"]
    # the blob result's PDF and PNG follow its empty text as the image's PNG does
    assert "data:application/pdf;base64,JVBERi0" in after["blob"]
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_opencode_over_streamable_http(tmp_path):
    folder, _, facts = run_over_http(tmp_path, "opencode")
    assert facts["tool_name_scheme"] == SCHEME
    assert_opencode_offline(folder, facts)
    # this version sends MCP-Protocol-Version on every request after initialize by itself
    assert_version_header(folder, facts, "2025-11-25")
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
    config = assert_ai_sdk_config(ctx, "opencode", "@opencode-ai/plugin")
    assert config["autoupdate"] is False and config["share"] == "disabled"
    assert (ctx.work / ".git").read_text().startswith("gitdir: ")
    for flag in ("OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_PROJECT_CONFIG"):
        assert launch.env[flag] == "1"
    assert "OPENAI_API_KEY" not in launch.env and "OPENCODE_CONFIG" not in launch.env
    assert launch.env["XDG_CONFIG_HOME"] == str(ctx.home / ".config") and launch.cwd == ctx.work
    assert_ai_sdk_remote(tmp_path, "opencode", "opencode")
