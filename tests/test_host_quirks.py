"""Host quirks the recording proxy has to survive, each shown by the real host that does it
(found by reading the wire.jsonl of `host test` runs of the seven hosts):

* Codex CLI kills its server's process when it exits, with no time to close anything: the
  proxy dies before it can record its end, and its folder must still be whole (completed from
  wire.jsonl).
* opencode (and Kilo Code CLI, built on it) sends ``notifications/cancelled`` for every tool call it has already been answered
  (an AbortController fired after the fact): the calls stand, and the cancellations are the
  host's quirk, not the server's fault.
* Claude Code (like Gemini CLI, with SIGTERM) ends its server with SIGINT before closing its
  input; the session is whole, and the proxy's run says it was interrupted.
* Claude Code probes ``server/discover`` (2026-07-28) first; a server of the older era refuses
  it, and Claude Code falls back to ``initialize``: the version asked for and refused, and the
  one spoken, are both recorded and shown in the table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hostkit import facts_of, rows_of, run_host

from mcp_accept.output.host_matrix import cells, row_of
from mcp_accept.output.host_run import host_quirks

FIXTURE = Path(__file__).resolve().parent.parent / "mcp_accept" / "fixture.py"


def proxy_run(folder: Path) -> Path:
    runs = sorted((folder / "proxy").glob("*/wire.jsonl"))
    assert runs, "the proxy left no run folder"
    return runs[-1].parent


def wire_entries(run: Path) -> list[dict]:
    lines = (run / "wire.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]  # every line whole: a cut line fails here


def test_codex_kills_its_server_and_the_proxy_folder_is_still_whole(tmp_path):
    folder = run_host(tmp_path, "codex")
    run = proxy_run(folder)
    entries = wire_entries(run)
    events = [e.get("event") for e in entries if e.get("dir") == "event"]
    # Codex signals its server and kills it a moment later: nearly always the proxy is gone
    # before it records its end; on a loaded machine it sometimes gets to record the signal.
    # Either way the folder must be whole and the host's stopping recorded as its quirk.
    killed = "proxy-end" not in events
    for name in ("results.json", "host.json", "sheet.md"):
        assert (run / name).is_file(), name
    proxy_results = json.loads((run / "results.json").read_text())
    assert proxy_results["interrupted"] is True  # said plainly: the recording did not end by itself
    # the derived facts are those of the whole session all the same
    calls = [e["message"]["params"]["name"] for e in entries
             if e.get("dir") == "out" and (e.get("message") or {}).get("method") == "tools/call"]
    facts = json.loads((run / "host.json").read_text())["facts"]
    assert [c["tool"] for c in facts["tool_calls"]] == calls and len(calls) >= 5
    assert all(c["outcome"] == "result" for c in facts["tool_calls"])
    assert facts["client_info"]["value"]["name"] == "codex-mcp-client"
    host = facts_of(folder)
    shutdown = host["server_shutdown"]
    assert shutdown["how"].startswith("killed" if killed else "signal"), shutdown
    assert shutdown["interrupted"] and shutdown["calls_unanswered"] == 0
    assert any(q["quirk"].startswith("stopped its server") for q in host["host_quirks"])
    rows, _ = rows_of(folder)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]


@pytest.mark.parametrize("host", ["opencode", "kilo-code"])
def test_opencode_cancels_calls_already_answered_and_the_facts_stand(tmp_path, host):
    folder = run_host(tmp_path, host)
    run = proxy_run(folder)
    entries = wire_entries(run)
    cancelled = [e for e in entries if (e.get("message") or {}).get("method") == "notifications/cancelled"]
    assert cancelled and all(e["dir"] == "out" for e in cancelled)  # the host cancels
    facts = json.loads((run / "host.json").read_text())["facts"]
    answered = {c["request_seq"]: c.get("answer_seq") for c in facts["tool_calls"]}
    late = [c for c in facts["cancellations"] if "after_answer_seq" in c]
    # nearly every cancellation comes after the answer; on a loaded machine one may overtake it
    assert late and all(c["by"] == "host" for c in facts["cancellations"])
    assert any(c["method"] == "tools/call" for c in late)
    for item in late:
        assert item["after_answer_seq"] < item["seq"]
        if item["method"] == "tools/call":
            assert item["after_answer_seq"] == answered[item["request_seq"]]
    in_flight = {c["request_seq"] for c in facts["cancellations"] if "after_answer_seq" not in c}
    # every call not cancelled in flight counts as answered with its result; nothing is put on the server
    assert all(c["outcome"] == "result" for c in facts["tool_calls"] if c["request_seq"] not in in_flight)
    assert not [e for e in facts["errors"] if e["by"] == "server" and e["method"] == "tools/call"]
    quirk = next(q for q in facts["quirks"] if q["quirk"] == "cancelled requests already answered")
    assert quirk["by"] == "host" and quirk["count"] == len(late)
    host = facts_of(folder)
    assert any(q["quirk"] == "cancelled requests already answered" for q in host["host_quirks"])
    rows, _ = rows_of(folder)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]


def test_claude_code_probes_a_version_the_server_refuses_and_both_are_recorded(tmp_path):
    legacy = f"{sys.executable} {FIXTURE} --protocol 2025-06-18"
    folder = run_host(tmp_path, "claude-code", "--server", legacy)
    host = facts_of(folder)
    first, second = host["protocol_attempts"][:2]
    assert (first["method"], first["version"], first["outcome"]) == ("server/discover", "2026-07-28", "error -32601")
    assert (second["method"], second["outcome"], second["server_answered"]) == ("initialize", "result", "2025-06-18")
    assert host["protocol_version"] == "2025-06-18"
    assert any("2026-07-28" in q["quirk"] and "spoke 2025-06-18" in q["quirk"] for q in host["host_quirks"])
    # and it ends its server with SIGINT, not by closing its input: a complete session all the same
    assert host["server_shutdown"]["how"] == "signal SIGINT" and host["server_shutdown"]["calls_unanswered"] == 0
    assert any(q["detail"] == "signal SIGINT" for q in host["host_quirks"] if "detail" in q)
    said = host_quirks(folder)  # the line `host test` prints under its rows
    assert any("asked for 2026-07-28 with server/discover, was refused" in q for q in said), said
    row = row_of("claude-code", folder)
    assert row["refused_versions"] == ["2026-07-28"]
    assert cells(row, "en")["protocol"] == "2025-06-18; refused 2026-07-28"
    assert "2026-07-28" in cells(row, "ja")["protocol"] and "拒否" in cells(row, "ja")["protocol"]
    assert cells(row, "en")["client"] == "claude-code 2.1.332"
