"""`mcp-accept host test` with real installed hosts (Claude Code, Codex CLI, Gemini CLI at the
versions of tests/hosts/package.json, installed by .ci/run), the fixture in marker mode behind
the recording proxy, and the stand-in model on 127.0.0.1.

Each test asserts what the run recorded: the host's version and tool-name scheme, what its
model was handed for each form, that every connection the host tried was to loopback
(strace), that the run stayed in its folder (a decoy HOME for mcp-accept itself stays empty)
and that no process of the run outlives it. A host that is not installed skips its tests and
says how to install it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOSTS_BIN = ROOT / "tests" / "hosts" / "node_modules" / ".bin"
PINNED = json.loads((ROOT / "tests" / "hosts" / "package.json").read_text())["dependencies"]

# host -> (binary, npm package, tool-name scheme, what its model sees of the structured tool,
#          whether the model can read the link's body through a host tool)
EXPECTED = {
    "claude-code": ("claude", "@anthropic-ai/claude-code", "mcp__mcpaccept__{tool}", ["structuredContent"], True),
    "codex": ("codex", "@openai/codex", "mcp__mcpaccept/{tool}", ["structuredContent"], True),
    "gemini-cli": ("gemini", "@google/gemini-cli", "mcp_mcpaccept_{tool}", ["text twin"], False),
}


def host_bin(name: str) -> str:
    binary = EXPECTED[name][0]
    local = HOSTS_BIN / binary
    found = str(local) if local.exists() else shutil.which(binary)
    if not found:
        pytest.skip(f"{name} is not installed: npm install --prefix tests/hosts (see .ci/run)")
    return found


def run_host(tmp_path: Path, name: str, *args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "run"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", name, "--host-bin", host_bin(name),
                           "--out", str(out), *args], capture_output=True, text=True, timeout=timeout, env=env)
    # the host never touches the user's HOME: all that may appear there is mcp-accept's own cache
    # of compiled templates, which every command of it keeps
    written = sorted(str(p.relative_to(decoy)) for p in decoy.rglob("*"))
    assert all(w == ".cache" or w.startswith(".cache/mcp-accept") for w in written), written
    return done, out


def processes_mentioning(text: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{pid}: {cmdline[:200]}")
    return found


def rows_of(folder: Path) -> dict:
    results = json.loads((folder / "results.json").read_text())
    return {row["id"]: row for row in results["rows"]}, results


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_host_test_fills_the_host_rows_offline(tmp_path, name):
    done, folder = run_host(tmp_path, name)
    assert done.returncode in (0, 1), done.stderr
    rows, results = rows_of(folder)
    facts = json.loads((folder / "host-run.json").read_text())
    _, package, scheme, saw, readable = EXPECTED[name]
    # who and what
    assert facts["version"] == PINNED[package]
    assert results["conditions"]["host_version"] == PINNED[package]
    assert facts["tool_name_scheme"] == scheme
    assert facts["host_exit"] == 0 and not facts["timed_out"]
    assert facts["client_info"]["name"]  # the host's clientInfo, from the MCP wire
    assert results["conditions"]["protocol_version_on_wire"]
    # nothing beyond loopback: the namespace held, and the host tried nothing else
    assert facts["network_guard"].startswith("network namespace")
    if shutil.which("strace"):
        assert facts["connects"]["other"] == {}, facts["connects"]
        assert facts["connects"]["loopback"], "the host reached its stand-in model on 127.0.0.1"
    # H01: every form reached the model whole; which of structuredContent / twin is per host
    forms = json.loads((folder / "rows" / "H01.json").read_text())["observed"]["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert {forms[f]["reached"] for f in ("text", "structured", "embedded")} == {"whole"}
    assert forms["structured"]["model_saw"] == saw
    # H02: the link alone never carries the body; the host's read tool does, where it has one
    h02 = json.loads((folder / "rows" / "H02.json").read_text())["observed"]
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert rows["H02"]["status"] == ("PASS" if readable else "FAIL"), rows["H02"]["reason"]
    assert (h02["body_via_read_tool"] == "whole") is readable
    # the evidence: the model's side and the MCP wire, both recorded
    model_lines = (folder / "model.jsonl").read_text().splitlines()
    assert len(model_lines) >= 10 and all(json.loads(line) for line in model_lines)
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert "stand-in" in (folder / "sheet.md").read_text()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_host_over_streamable_http(tmp_path):
    done, folder = run_host(tmp_path, "claude-code", "--transport", "http")
    assert done.returncode in (0, 1), done.stderr
    rows, results = rows_of(folder)
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert not processes_mentioning(str(folder))


def test_a_host_that_is_not_installed_is_one_line_and_exit_3(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "codex", "--host-bin",
                           str(tmp_path / "no-such-codex"), "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert done.stderr.count("\n") == 1 and "Codex CLI is not installed" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_host_is_bad_input(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "notepad", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "HOST" in done.stderr and "claude-code" in done.stderr
