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
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_accept.hosts.adapters import ADAPTERS
from mcp_accept.hosts.adapters.base import HostContext
from test_host_test import HOSTS_BIN, PINNED, processes_mentioning, rows_of

PACKAGE = "@qwen-code/qwen-code"
SCHEME = "mcp__mcpaccept__{tool}"
INSTALL = "npm install --prefix tests/hosts (see .ci/run)"


def qwen_bin() -> str:
    local = HOSTS_BIN / "qwen"
    found = str(local) if local.exists() else shutil.which("qwen")
    if not found:
        pytest.skip(f"Qwen Code is not installed: {INSTALL}")
    return found


def run_qwen(tmp_path: Path, *args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "run"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "qwen-code", "--host-bin", qwen_bin(),
                           "--out", str(out), *args], capture_output=True, text=True, timeout=timeout, env=env)
    # the host never touches the user's HOME (no ~/.qwen there): only mcp-accept's own template cache
    written = sorted(str(p.relative_to(decoy)) for p in decoy.rglob("*"))
    assert all(w == ".cache" or w.startswith(".cache/mcp-accept") for w in written), written
    return done, out


def model_requests(folder: Path) -> list[dict]:
    lines = [json.loads(line) for line in (folder / "model.jsonl").read_text().splitlines()]
    return [e for e in lines if e["dir"] == "in"]


def assert_offline(facts: dict) -> None:
    assert facts["network_guard"].startswith("network namespace")
    if shutil.which("strace"):
        assert facts["connects"]["other"] == {}, facts["connects"]
        assert facts["connects"]["loopback"], "the host reached its stand-in model on 127.0.0.1"


def test_qwen_code_fills_the_host_rows_offline(tmp_path):
    done, folder = run_qwen(tmp_path)
    assert done.returncode in (0, 1), done.stderr
    rows, results = rows_of(folder)
    facts = json.loads((folder / "host-run.json").read_text())
    assert facts["version"] == PINNED[PACKAGE] == ADAPTERS["qwen-code"].tested_version
    assert results["conditions"]["host_version"] == PINNED[PACKAGE]
    assert facts["host_exit"] == 0 and not facts["timed_out"]
    assert facts["api"] == "openai-chat"
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
    forms = json.loads((folder / "rows" / "H01.json").read_text())["observed"]["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert {forms[f]["reached"] for f in ("text", "structured", "embedded")} == {"whole"}
    assert forms["structured"]["model_saw"] == ["structuredContent", "text twin"]
    # H02: the link alone carries no body; read_mcp_resource {server_name, uri} hands it whole
    h02 = json.loads((folder / "rows" / "H02.json").read_text())["observed"]
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] == "read_mcp_resource" and h02["body_via_read_tool"] == "whole"
    assert rows["H02"]["status"] == "PASS", rows["H02"]["reason"]
    # H03: whole up to 8 KiB; from 32 KiB a <persisted-output> stub (a 2000-character preview and
    # the file it saved in the private HOME); at 1 MiB (over 1000 lines) a head-and-tail excerpt
    h03 = json.loads((folder / "rows" / "H03.json").read_text())["observed"]
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
    done, folder = run_qwen(tmp_path, "--transport", "http")
    assert done.returncode in (0, 1), done.stderr
    rows, results = rows_of(folder)
    facts = json.loads((folder / "host-run.json").read_text())
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert facts["tool_name_scheme"] == SCHEME
    assert_offline(facts)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert rows["H02"]["status"] == "PASS", rows["H02"]["reason"]
    # this version sends MCP-Protocol-Version on every request after initialize by itself
    wire = [json.loads(line) for line in (folder / facts["proxy_folder"] / "wire.jsonl").read_text().splitlines()]
    calls = [e for e in wire if e["dir"] == "out" and (e.get("message") or {}).get("method") == "tools/call"]
    assert calls and all(dict(e["http"]["headers"]).get("mcp-protocol-version") == "2025-11-25" for e in calls)
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.invalid/v1")
    ctx = HostContext(folder=tmp_path / "run", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                      mcp_command=[sys.executable, "-m", "mcp_accept", "proxy"])
    launch = ADAPTERS["qwen-code"].prepare(ctx, "/bin/true")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    settings = json.loads((ctx.home / ".qwen" / "settings.json").read_text())
    assert settings["privacy"]["usageStatisticsEnabled"] is False
    assert settings["security"]["auth"]["selectedType"] == "openai"
    server = settings["mcpServers"]["mcpaccept"]
    assert server["command"] == sys.executable and server["alwaysLoadTools"] is True and server["trust"] is True
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1"
    assert launch.env["OPENAI_API_KEY"] != "sk-user-key-never-handed-over"
    assert launch.env["HOME"] == str(ctx.home) and launch.cwd == ctx.work


def call_id_of(folder, step: str) -> str:
    """The id the stand-in gave the call of one script step (its position depends on the script)."""
    for line in (folder / "model.jsonl").read_text().splitlines():
        action = (json.loads(line).get("http") or {}).get("action") or {}
        if action.get("step") == step:
            return action["call_id"]
    raise AssertionError(f"no call of step {step}")
