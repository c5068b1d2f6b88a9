"""Server faults over Streamable HTTP: the misbehaving server serves HTTP on a free
loopback port, started by mcp-accept itself (``--url`` with ``--server``); each case
asserts the verdict, a complete run folder, and no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from faultkit import (AUTOMATED, assert_complete, events, process_gone, read_pids, reason, rows_by_id,
                      run_measured, server, status, wire)

FAST = ("--timeout", "0.5")
MIB = 1024 * 1024
HTTP = "Streamable HTTP"  # the transport named in the evidence


def http_args(port: int, *server_args: str) -> list[str]:
    return ["--url", f"http://127.0.0.1:{port}/mcp", "--server", server("--http", port, *server_args)]


CASES = {
    # name: (server options, exit code, {row: (status, text in its reason)}, violation text, rows still PASS)
    "exits-before-answering": (("--mode", "exit-at-start"), 3,
                               {row: ("UNOBTAINABLE", "could not be spoken to") for row in AUTOMATED}, None, ()),
    "exits-mid-sheet": (("--mode", "exit", "--on", "tools/call:search_structured"), 1,
                        {"S01": ("FAIL", "HTTP exchange failed"), "L03": ("FAIL", "HTTP exchange failed")},
                        None, ("T01", "W01")),
    "drops-connection-mid-body": (("--mode", "drop"), 1,
                                  {"T01": ("FAIL", "without sending the complete message body")},
                                  None, ("S01", "E01", "L02", "L03")),
    "hangs-on-one-request": (("--mode", "hang"), 1, {"T01": ("FAIL", "no answer within 0.5s")},
                             None, ("W01", "S01", "E01", "L03")),
    "drips-one-byte-a-second": (("--mode", "drip", "--on", "resources/read:search://results/does-not-exist"), 1,
                                {"L03": ("FAIL", "no answer within 0.5s")}, None, ("T01", "S01")),
    "answers-with-the-wrong-id": (("--mode", "wrong-id"), 1,
                                  {"W01": ("FAIL", "an answer for id 1004 while waiting for id 4"),
                                   "T01": ("FAIL", "held no response to id 4")},
                                  "an answer for id 1004", ("S01",)),
    "answers-twice": (("--mode", "twice"), 1, {"W01": ("FAIL", "a second answer for id 4")},
                      "a second answer for id 4", ("T01", "S01", "X01")),
    # log messages from a server that declares no logging capability: only W01 says so
    "notifications-between-answers": (("--mode", "notify"), 1,
                                      {**{row: ("PASS", "") for row in AUTOMATED if row != "W01"},
                                       "W01": ("FAIL", "declares no logging capability")},
                                      None, ()),
    "sends-a-request-in-2026-07-28": (("--mode", "server-request"), 1,
                                      {"W01": ("FAIL", "which 2026-07-28 forbids; not answered")},
                                      "server sent a JSON-RPC request", ("T01",)),
    "invalid-utf8": (("--mode", "bad-utf8"), 1, {"W01": ("FAIL", "not valid UTF-8")}, "not valid UTF-8", ("S01",)),
    "json-nested-100000-deep": (("--mode", "deep"), 1, {"W01": ("FAIL", "nested too deeply")},
                                "nested too deeply", ("S01",)),
    "huge-answer-over-max-bytes": (("--mode", "huge", "--size", 8 * MIB), 1,
                                   {"W01": ("FAIL", "exceeds --max-bytes 1048576"),
                                    "T01": ("FAIL", "the answer exceeds --max-bytes 1048576")},
                                   "exceeds --max-bytes 1048576", ("S01",)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_http_fault(name: str, tmp_path: Path, held_port) -> None:
    server_args, code, rows, violation, still_pass = CASES[name]
    folder, pidfile = tmp_path / "run", tmp_path / "pids"
    proc = run_cli("run", *http_args(held_port(), *server_args, "--pidfile", pidfile), "--out", str(folder),
                   *FAST, "--max-bytes", str(MIB), "--fail-on", "app", timeout=120)  # every FAIL makes exit 1
    assert proc.returncode == code, (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    results = assert_complete(folder, proc, transport=HTTP)
    for row_id, (want, text) in rows.items():
        assert status(results, row_id) == want, (row_id, rows_by_id(results)[row_id])
        assert text in reason(results, row_id), (row_id, reason(results, row_id))
    for row_id in still_pass:
        assert status(results, row_id) == "PASS", (row_id, rows_by_id(results)[row_id])
    if violation:
        found = [e for e in events(folder, "violation") if violation in e.get("detail", "")]
        assert found, events(folder, "violation")
        w01 = json.loads((folder / "rows" / "W01.json").read_text())
        assert {e["seq"] for e in found} <= {m["seq"] for m in w01["messages"]}
    if name == "sends-a-request-in-2026-07-28":
        answered = [e for e in wire(folder) if e["dir"] == "out"
                    and e.get("message", {}).get("id") == "server-asks-1"]
        assert answered == [], "a forbidden server request is never answered"
    if name == "notifications-between-answers":
        assert events(folder, "violation") == []
        notes = [e for e in wire(folder) if e.get("message", {}).get("method") == "notifications/message"]
        assert len(notes) >= 8
    for pid in read_pids(pidfile):
        assert process_gone(pid), f"the server process {pid} is still running"
    assert "Traceback" not in (folder / "stderr.log").read_text(errors="replace")


def test_http_huge_answer_memory_stays_bounded(tmp_path: Path, held_port) -> None:
    """100 MiB in one HTTP answer with --max-bytes 1 MiB: a FAIL, and the runner's peak
    memory stays near that of a normal HTTP run."""
    base = run_measured(["run", *http_args(held_port(), "--mode", "ok"), "--out", str(tmp_path / "base"),
                         *FAST, "--max-bytes", str(MIB)], tmp_path / "base-io")
    assert base[0] == 0, base[1][-2000:] + base[2][-2000:]
    size = 100 * MIB
    code, out, err, peak = run_measured(
        ["run", *http_args(held_port(), "--mode", "huge", "--size", size), "--out", str(tmp_path / "huge"),
         *FAST, "--max-bytes", str(MIB)], tmp_path / "huge-io")
    assert code == 1, out[-2000:] + err[-2000:]
    results = assert_complete(tmp_path / "huge", transport=HTTP)
    assert "exceeds --max-bytes 1048576" in reason(results, "W01")
    grown_mib = (peak - base[3]) / 1024
    assert grown_mib < 32, f"peak RSS grew by {grown_mib:.0f} MiB over a normal run ({base[3] // 1024} MiB)"
