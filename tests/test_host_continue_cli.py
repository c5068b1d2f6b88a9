"""`mcp-accept host test continue` with the real Continue CLI of tests/hosts/package.json, the
fixture in marker mode behind the recording proxy, and the stand-in model (Anthropic Messages)
on 127.0.0.1.

Each test asserts what the run recorded: the pinned version, the tool-name scheme (the server's
own names), what the model was handed for each form and each large size (past its context limit
the host compacts the conversation instead of handing the result over), that the one call home
with no setting (the start-up version check) met the adapter's guard and nothing else of the
Continue Hub was asked for, that every connection the host tried was to loopback (strace), that
the user's HOME stayed untouched and that no process of the run outlives it.
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
from test_host_test import HOSTS_BIN, PINNED, processes_mentioning, rows_of

PACKAGE = "@continuedev/cli"
INSTALL = "npm install --prefix tests/hosts (see .ci/run)"
COMPACTION_ASK = "Please provide a concise summary of our conversation so far"


def cn_bin() -> str:
    local = HOSTS_BIN / "cn"
    found = str(local) if local.exists() else shutil.which("cn")
    if not found:
        pytest.skip(f"Continue CLI is not installed: {INSTALL}")
    return found


def run_cn(tmp_path: Path, *args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "run"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "continue", "--host-bin", cn_bin(),
                           "--out", str(out), *args], capture_output=True, text=True, timeout=timeout, env=env)
    # no ~/.continue in the user's HOME: only mcp-accept's own template cache may appear there
    written = sorted(str(p.relative_to(decoy)) for p in decoy.rglob("*"))
    assert all(w == ".cache" or w.startswith(".cache/mcp-accept") for w in written), written
    return done, out


def model_requests(folder: Path) -> list[dict]:
    lines = [json.loads(line) for line in (folder / "model.jsonl").read_text().splitlines()]
    return [e for e in lines if e["dir"] == "in"]


def server_result(proxy: Path, arguments: dict) -> dict:
    """The result the server sent for the ``tools/call`` with these arguments, from the proxy's record."""
    asked, results = {}, {}
    for line in (proxy / "wire.jsonl").read_text().splitlines():
        message = json.loads(line).get("message") or {}
        if message.get("method") == "tools/call" and message["params"].get("arguments") == arguments:
            asked[json.dumps(message["id"])] = True
        elif "result" in message and json.dumps(message.get("id")) in asked:
            results = message["result"]
    return results


def assert_offline(folder: Path, facts: dict) -> None:
    assert facts["network_guard"].startswith("network namespace")
    if shutil.which("strace"):
        assert facts["connects"]["other"] == {}, facts["connects"]
        assert facts["connects"]["loopback"], "the host reached its stand-in model on 127.0.0.1"
    # the version check (no setting turns it off) met the fetch guard, query and machine id
    # not kept; no other request to the Continue Hub was made
    refused = [json.loads(line) for line in (folder / "host-config" / "refused.jsonl").read_text().splitlines()]
    assert [r["url"] for r in refused] == ["https://api.continue.dev/cn/info"]
    # every request the stand-in got was the host's model API: no catalog, no hub call
    assert {e["http"]["path"] for e in model_requests(folder)} == {"/v1/messages"}


def test_continue_cli_hands_over_the_content_array_and_compacts_past_its_context(tmp_path):
    done, folder = run_cn(tmp_path)
    assert done.returncode in (0, 1), done.stderr
    rows, results = rows_of(folder)
    facts = json.loads((folder / "host-run.json").read_text())
    assert facts["version"] == PINNED[PACKAGE] == ADAPTERS["continue"].tested_version
    assert results["conditions"]["host_version"] == PINNED[PACKAGE]
    assert facts["host_exit"] == 0 and not facts["timed_out"]
    assert facts["api"] == "anthropic-messages"
    assert facts["tool_name_scheme"] == "{tool}"  # no server prefix: two servers' tools can clash
    assert facts["client_info"]["name"] == "continue-cli-client"
    assert results["conditions"]["protocol_version_on_wire"]
    assert_offline(folder, facts)

    # H01: each result reaches the model as the JSON of its content array; structuredContent
    # is dropped, the model reads the text twin
    forms = json.loads((folder / "rows" / "H01.json").read_text())["observed"]["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert {forms[f]["reached"] for f in ("text", "structured", "embedded")} == {"whole"}
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert forms["structured"]["structuredContent"] == "absent"
    assert json.loads(forms["text"]["quote"])[0]["type"] == "text"
    assert json.loads(forms["embedded"]["quote"])[0]["type"] == "resource"

    # H02: the link alone, as JSON; no tool reads a resource and the host never reads it itself
    h02 = json.loads((folder / "rows" / "H02.json").read_text())["observed"]
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    assert json.loads(h02["handed"])[0]["type"] == "resource_link"
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] is None and h02["host_reads"] == []

    # H03: whole up to 256 KiB; the 1 MiB result (past the default 200k-token context by the
    # host's own count) is never handed back: the host asks for a summary of the conversation
    # without it, and goes on from that summary
    sizes = {s["bytes"]: s["handling"] for s in
             json.loads((folder / "rows" / "H03.json").read_text())["observed"]["sizes"]}
    assert sizes == {1024: "whole", 8192: "whole", 32768: "whole", 65536: "whole", 262144: "whole",
                     1048576: "never handed to the model"}
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    requests = model_requests(folder)
    asked = [e for e in requests if COMPACTION_ASK in json.dumps(e["message"]["messages"][-1])]
    assert len(asked) == 1
    before = [e for e in requests if e["seq"] < asked[0]["seq"]][-1]  # the request that asked for 1 MiB
    assert len(asked[0]["message"]["messages"]) < len(before["message"]["messages"])  # results dropped
    largest = max(len(json.dumps(e["message"])) for e in requests)
    assert 262144 < largest < 1048576  # the 256 KiB result went to the model, the 1 MiB one never did
    after = [e for e in requests if e["seq"] > asked[0]["seq"]]
    assert after and all(block.get("type") != "tool_result" for e in after for m in e["message"]["messages"]
                         if isinstance(m["content"], list) for block in m["content"])
    # the proxy saw the 1 MiB result come back from the server: the host had it and kept it back
    assert len(json.dumps(server_result(folder / facts["proxy_folder"], {"bytes": 1048576}))) > 1048576

    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_continue_cli_over_streamable_http(tmp_path):
    done, folder = run_cn(tmp_path, "--transport", "http")
    assert done.returncode in (0, 1), done.stderr
    rows, results = rows_of(folder)
    facts = json.loads((folder / "host-run.json").read_text())
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert facts["host_exit"] == 0
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert_offline(folder, facts)
    assert not processes_mentioning(str(folder))
