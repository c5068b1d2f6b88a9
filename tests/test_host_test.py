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
from pathlib import Path
import subprocess
import sys

import pytest

from hostkit import (PINNED, assert_forms_whole, assert_offline, assert_pinned_run, facts_of, model_log, observed,
                     processes_mentioning, rows_of, run_host, run_over_http)

# host -> (npm package, tool-name scheme, what its model sees of the structured tool,
#          whether the model can read the link's body through a host tool)
EXPECTED = {
    "claude-code": ("@anthropic-ai/claude-code", "mcp__mcpaccept__{tool}", ["structuredContent"], True),
    "codex": ("@openai/codex", "mcp__mcpaccept/{tool}", ["structuredContent"], True),
    "gemini-cli": ("@google/gemini-cli", "mcp_mcpaccept_{tool}", ["text twin"], False),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_host_test_fills_the_host_rows_offline(tmp_path, name):
    folder = run_host(tmp_path, name)
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    package, scheme, saw, readable = EXPECTED[name]
    # who and what
    assert_pinned_run(facts, results, PINNED[package])
    assert facts["tool_name_scheme"] == scheme
    assert facts["client_info"]["name"]  # the host's clientInfo, from the MCP wire
    assert results["conditions"]["protocol_version_on_wire"]
    # nothing beyond loopback: the namespace held, and the host tried nothing else
    assert_offline(facts)
    # H01: every form reached the model whole; which of structuredContent / twin is per host
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == saw
    # the exact result block the model was handed, and where model.jsonl holds it
    by_seq = {entry["seq"]: entry for entry in model_log(folder)}
    for form in ("text", "structured", "embedded"):
        exact = forms[form]["exact"]
        assert json.dumps(exact["block"], ensure_ascii=False) in json.dumps(
            by_seq[exact["model_jsonl_seq"]]["message"], ensure_ascii=False)
    # H02: the link alone never carries the body; the host's read tool does, where it has one
    h02 = observed(folder, "H02")
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert rows["H02"]["status"] == ("PASS" if readable else "FAIL"), rows["H02"]["reason"]
    assert (h02["body_via_read_tool"] == "whole") is readable
    # the evidence: the model's side and the MCP wire, both recorded
    model_entries = model_log(folder)
    assert len(model_entries) >= 10 and all(model_entries)
    assert (folder / facts["proxy_folder"] / "wire.jsonl").is_file()
    assert "stand-in" in (folder / "sheet.md").read_text()
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_host_over_streamable_http_and_a_person_adds_to_its_rows(tmp_path):
    folder, rows, _ = run_over_http(tmp_path, "claude-code")
    assert not processes_mentioning(str(folder))
    # the rows `host test` filled are observations: a person may still add what they saw
    before = rows["H03"]
    note = tmp_path / "seen.txt"
    note.write_text("the 4 MB result was shown in the terminal as a file path\n")
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "observe", str(folder), "H03", "--status", "FAIL",
                           "--evidence", str(note), "--note", "saved to a file in the UI too"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    after, _ = rows_of(folder)
    h03 = after["H03"]
    assert (h03["status"], h03["filled_by"], h03["reason"]) == ("FAIL", "observe", "saved to a file in the UI too")
    kept = h03["observed"]["host_test"]  # what the stand-in model was handed is not dropped
    assert (kept["mode"], kept["status"], kept["evidence"]) == ("host test", before["status"], "rows/H03.json")
    assert (folder / "rows" / "H03.json").is_file()
    assert after["H01"] == rows["H01"]  # the other rows are untouched


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


def test_without_the_proxy_the_rows_still_come_from_the_model_log(tmp_path):
    # --no-proxy exists to measure what the proxy costs; the model's side is the evidence still
    folder = run_host(tmp_path, "claude-code", "--no-proxy")
    rows, _ = rows_of(folder)
    facts = facts_of(folder)
    assert facts["proxy"] is False and not (folder / "proxy").exists()
    assert facts["protocol_version"] is None  # no wire recorded: unknown, not guessed
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert not processes_mentioning(str(folder))


def test_a_server_command_relative_to_where_the_user_runs_reaches_the_host(tmp_path):
    # `--server ".venv/bin/python server.py"` from the folder holding the virtual environment:
    # the words are made absolute with links kept, since a venv's python is a link whose target
    # is an interpreter without the environment's packages.
    import os

    from hostkit import host_bin

    (tmp_path / "server.py").write_text("import sys\nfrom mcp_accept.fixture import main\nsys.exit(main())\n")
    where = Path(sys.prefix).parent
    python = os.path.relpath(Path(sys.prefix) / "bin" / Path(sys.executable).name, where)
    server = os.path.relpath(tmp_path / "server.py", where)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "gemini-cli", "--host-bin",
                           host_bin("gemini-cli"), "--server", f"{python} {server}", "--out", str(out)],
                          capture_output=True, text=True, timeout=240, cwd=where)
    assert done.returncode in (0, 1), done.stderr
    rows, _ = rows_of(out)
    assert facts_of(out)["client_info"]["name"]  # the host spoke to the server
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
