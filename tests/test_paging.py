"""An empty string is a cursor like any other (server/utilities/pagination.mdx): every command
that reads a paged tools/list follows it. The fixture's break mode empty-cursor lists two tools
on page 1 and hands out the cursor ""; page 2 holds the other two."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import fixture_command, load_results, run_cli, statuses

from mcp_accept.inputs.profile import load_profile

AUTOMATED = ("W01", "W02", "W03", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01")
FOUR = {"text": "search_text", "structured": "search_structured", "embedded": "search_embedded",
        "link": "search_link"}


def cursors_sent(folder) -> list:
    out = []
    for line in (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        message = entry.get("message")
        if entry["dir"] == "out" and isinstance(message, dict) and message.get("method") == "tools/list" \
                and not str(entry.get("step") or "").startswith("probe:"):
            out.append((message.get("params") or {}).get("cursor"))
    return out


def test_profile_init_and_run_follow_an_empty_cursor(tmp_path):
    server = fixture_command("--break", "empty-cursor")
    out = tmp_path / "profile.yaml"
    done = run_cli("profile", "init", "--server", server, "--out", str(out), "--timeout", "5")
    assert done.returncode == 0, done.stderr
    profile = load_profile(out)
    # The tools of page 2 (search_embedded, search_link) are mapped too.
    assert {form: ref.name for form, ref in profile.tools.items()} == FOUR

    done = run_cli("run", "--server", server, "--profile", str(out), "--out", str(tmp_path / "run"),
                   "--timeout", "5", "--protocol", "2025-11-25")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = load_results(tmp_path / "run")
    assert {k: v for k, v in statuses(results).items() if k in AUTOMATED} == \
        {k: ("UNOBTAINABLE" if k in ("W02", "X01") else "PASS") for k in AUTOMATED}  # X01: no one document declared
    assert cursors_sent(tmp_path / "run") == [None, ""]


def test_the_proxy_merges_the_tools_of_both_pages(tmp_path):
    host_says = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "paging-host", "version": "1.0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": ""}},
    ]
    argv = [sys.executable, "-m", "mcp_accept", "proxy", "--server", fixture_command("--break", "empty-cursor"),
            "--out", str(tmp_path / "runs")]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers = []
    try:
        for message in host_says:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
            if "id" in message:
                answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert answers[1]["result"]["nextCursor"] == ""
    assert [t["name"] for t in answers[2]["result"]["tools"]] == ["search_embedded", "search_link"]
    [folder] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    host = json.loads((folder / "host.json").read_text(encoding="utf-8"))
    assert host["facts"]["tools_listed"]["value"] == sorted(FOUR.values())


def test_host_test_over_a_paged_server(tmp_path):
    """A real host (Claude Code, pinned) through `host test`: its tools/list requests are recorded
    as they were, both pages' tools count as listed, and a tool of page 2 reaches the model."""
    from hostkit import facts_of, rows_of, run_host

    folder = run_host(tmp_path, "claude-code", "--server", fixture_command("--break", "empty-cursor"))
    facts = facts_of(folder)
    proxy = folder / facts["proxy_folder"]
    sent = [(json.loads(line).get("message") or {}) for line in (proxy / "wire.jsonl").read_text().splitlines()]
    cursors = [(m.get("params") or {}).get("cursor") for m in sent if m.get("method") == "tools/list"
               and "id" in m]
    assert cursors == [None, ""]  # this host follows an empty-string cursor too
    host = json.loads((proxy / "host.json").read_text(encoding="utf-8"))
    assert host["facts"]["tools_listed"]["value"] == sorted(FOUR.values())
    assert "mcp__mcpaccept__search_link" in facts["offered_tools"]
    rows, _ = rows_of(folder)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]  # search_embedded is on page 2
