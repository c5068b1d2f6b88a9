"""Server faults over stdio: each case runs the misbehaving server (servers/misbehave.py)
as a real process and asserts the verdict, that the run folder is complete, and that
no traceback appears."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import run_cli
from faultkit import (AUTOMATED, assert_complete, events, process_gone, read_pids, reason, rows_by_id,
                      run_measured, server, status, wire)

FAST = ("--timeout", "0.5")


@dataclass
class Case:
    id: str
    server: tuple[str, ...]
    exit: int
    rows: dict[str, tuple[str, str]]  # row id -> (status, text its reason holds)
    violation: str | None = None  # text of the violation recorded in wire.jsonl
    run: tuple[str, ...] = FAST
    more: Callable[[Path, dict], None] | None = None
    others_pass: tuple[str, ...] = ()  # rows that must still PASS: the run went on


def _no_violation(folder: Path, results: dict) -> None:
    assert events(folder, "violation") == []
    notes = [e for e in wire(folder) if e["dir"] == "in"
             and e.get("message", {}).get("method") == "notifications/message"]
    assert len(notes) >= 8, "every answer was preceded by a notification, each recorded"


def _cancelled_after_timeout(folder: Path, results: dict) -> None:
    assert any("no answer within 0.5s" in e.get("detail", "") for e in events(folder, "timeout"))
    sent = [e["message"].get("method") for e in wire(folder) if e["dir"] == "out"]
    assert "notifications/cancelled" in sent


def _request_not_answered(folder: Path, results: dict) -> None:
    asked = [e for e in wire(folder) if e["dir"] == "in" and e.get("message", {}).get("id") == "server-asks-1"]
    assert len(asked) == 1, "the server's request is in the evidence"
    answers = [e for e in wire(folder) if e["dir"] == "out" and e.get("message", {}).get("id") == "server-asks-1"]
    assert answers == [], "a forbidden server request is recorded, never answered"


def _two_starts(folder: Path, results: dict) -> None:
    assert len(events(folder, "spawn")) == 2, "auto falls back to initialize on a fresh process"
    assert "misbehave: exiting with status 1" in (folder / "stderr.log").read_text()


def _exit_code_recorded(folder: Path, results: dict) -> None:
    assert "misbehave: exiting with status 4" in (folder / "stderr.log").read_text()


def _raw_kept_short(folder: Path, results: dict) -> None:
    found = events(folder, "violation")
    assert found and all(len(e.get("raw", "")) <= 4096 for e in found)


CASES = [
    # -- process and connection failures
    Case("exits-before-answering", ("--mode", "exit-at-start"), 3,
         {row: ("UNOBTAINABLE", "could not be spoken to") for row in AUTOMATED}, more=_two_starts),
    Case("exits-mid-sheet", ("--mode", "exit", "--on", "tools/call:search_structured"), 1,
         {"S01": ("FAIL", "server exited with code 4"), "E01": ("FAIL", "server exited with code 4"),
          "L03": ("FAIL", "server exited with code 4")},
         others_pass=("T01", "W01"), more=_exit_code_recorded),
    Case("closes-stdout-keeps-running",
         ("--mode", "close-stdout", "--pidfile", "{tmp}/pids", "--spawn-child"), 1,
         {"T01": ("FAIL", "closed its stdout"), "L03": ("FAIL", "closed its stdout")},
         others_pass=("W01",)),
    # -- slow answers
    Case("hangs-on-one-request", ("--mode", "hang"), 1,
         # X01 compares forms; one never arrived, so there is nothing to compare it with
         {"T01": ("FAIL", "no answer within 0.5s"), "X01": ("UNOBTAINABLE", "no answer within 0.5s")},
         others_pass=("W01", "S01", "E01", "L01", "L02", "L03"), more=_cancelled_after_timeout),
    Case("drips-one-byte-a-second", ("--mode", "drip", "--drip", "1",
                                     "--on", "resources/read:search://results/does-not-exist"), 1,
         {"L03": ("FAIL", "no answer within 0.5s")}, others_pass=("T01", "S01", "E01", "L02")),
    Case("run-timeout-bounds-a-slow-server", ("--mode", "drip", "--on", "tools/call:search_text"), 1,
         {"T01": ("FAIL", "no answer within"),
          "S01": ("UNOBTAINABLE", "the run's time limit was reached"),
          "L03": ("UNOBTAINABLE", "the run's time limit was reached")},
         run=("--timeout", "30", "--run-timeout", "2")),
    # -- wrong or unexpected messages
    Case("answers-with-the-wrong-id", ("--mode", "wrong-id"), 1,
         {"W01": ("FAIL", "an answer for id 1004 while waiting for id 4"),
          "T01": ("FAIL", "no answer within 0.5s")},
         violation="an answer for id 1004", others_pass=("S01", "E01")),
    Case("answers-twice", ("--mode", "twice"), 1,
         {"W01": ("FAIL", "a second answer for id 4")},
         violation="a second answer for id 4", others_pass=("T01", "S01", "X01")),
    # the log messages come from a server that declares no logging capability: W01 says so
    # (a MUST of the logging page), every other row is judged as if they were not there
    Case("notifications-between-answers", ("--mode", "notify"), 1,
         {**{row: ("PASS", "") for row in AUTOMATED if row != "W01"},
          "W01": ("FAIL", "notifications/message from a server that declares no logging capability")},
         more=_no_violation),
    Case("sends-a-request-in-2026-07-28", ("--mode", "server-request"), 1,
         {"W01": ("FAIL", "server sent a JSON-RPC request ('roots/list'), which 2026-07-28 forbids")},
         violation="which 2026-07-28 forbids; not answered", others_pass=("T01", "S01"),
         more=_request_not_answered),
    # -- malformed payloads
    Case("invalid-utf8", ("--mode", "bad-utf8"), 1,
         {"W01": ("FAIL", "not valid UTF-8"), "T01": ("FAIL", "no answer within 0.5s")},
         violation="not valid UTF-8", others_pass=("S01",), more=_raw_kept_short),
    Case("json-nested-100000-deep", ("--mode", "deep", "--depth", "100000"), 1,
         {"W01": ("FAIL", "JSON nested too deeply to read"), "T01": ("FAIL", "no answer within 0.5s")},
         violation="nested too deeply", others_pass=("S01",), more=_raw_kept_short),
    Case("structured-content-nested-200-deep",
         ("--mode", "deep-structured", "--depth", "200", "--on", "tools/call:search_structured"), 1,
         {"W01": ("FAIL", "nested more than 128 levels deep"), "S01": ("FAIL", "no answer within 0.5s")},
         violation="nested more than 128 levels deep", others_pass=("T01",)),
    Case("huge-answer-over-max-bytes", ("--mode", "huge", "--size", str(8 * 1024 * 1024)), 1,
         {"W01": ("FAIL", f"a message of at least {8 * 1024 * 1024} bytes exceeds --max-bytes 1048576"),
          "T01": ("FAIL", "no answer within 0.5s")},
         violation="exceeds --max-bytes", run=FAST + ("--max-bytes", "1048576"), others_pass=("S01",),
         more=_raw_kept_short),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_stdio_fault(case: Case, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    args = [arg.format(tmp=tmp_path) for arg in case.server]
    proc = run_cli("run", "--server", server(*args), "--out", str(folder), *case.run, timeout=120)
    assert proc.returncode == case.exit, (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    results = assert_complete(folder, proc)
    for row_id, (want, text) in case.rows.items():
        assert status(results, row_id) == want, (row_id, rows_by_id(results)[row_id])
        assert text in reason(results, row_id), (row_id, reason(results, row_id))
    for row_id in case.others_pass:
        assert status(results, row_id) == "PASS", (row_id, rows_by_id(results)[row_id])
    if case.violation:
        found = [e for e in events(folder, "violation") if case.violation in e.get("detail", "")]
        assert found, events(folder, "violation")
        w01 = json.loads((folder / "rows" / "W01.json").read_text())
        assert {e["seq"] for e in found} <= {m["seq"] for m in w01["messages"]}, \
            "W01's evidence holds the violation it failed on"
    if case.more:
        case.more(folder, results)
    pidfile = tmp_path / "pids"
    if pidfile.exists():
        for pid in read_pids(pidfile):
            assert process_gone(pid), f"process {pid} of the server's group is still running"


def test_deep_json_in_text_bodies_is_not_compared(tmp_path: Path) -> None:
    """Text bodies are strings on the wire, so the message limit does not cover them:
    JSON nested 900 deep inside them is refused by the meaning layer, not a crash."""
    profile = tmp_path / "no-structured.yaml"
    profile.write_text(
        "profile: forms-among-themselves\n"
        "tools:\n"
        "  text: {name: search_text, arguments: {q: MCP}}\n"
        "  embedded: {name: search_embedded, arguments: {q: MCP}}\n"
        "  link: {name: search_link, arguments: {q: MCP}}\n"
        "reference: null\n"
        "same_document: true\n", encoding="utf-8")
    folder = tmp_path / "run"
    targets = "tools/call:search_text,tools/call:search_embedded,resources/read:search://results/demo-v1"
    proc = run_cli("run", "--server", server("--mode", "deep-text", "--depth", "900", "--on", targets),
                   "--profile", str(profile), "--out", str(folder), *FAST, "--fail-on", "app")
    assert proc.returncode == 1, proc.stderr[-3000:]
    results = assert_complete(folder, proc)
    for row_id in ("T01", "E01", "L02", "X01"):
        # X01 has no body it could compare: UNOBTAINABLE, for the same reason the others FAIL
        assert status(results, row_id) == ("UNOBTAINABLE" if row_id == "X01" else "FAIL")
        assert "nested more than 128 levels deep" in reason(results, row_id), reason(results, row_id)
    assert status(results, "W01") == "PASS", "the messages themselves are fine"


def test_server_request_in_the_legacy_era_is_answered(tmp_path: Path) -> None:
    """The contrast to the 2026-07-28 case: a legacy server may send requests, and the runner
    declines them with an error (it declares no capabilities), recording no protocol violation.
    Asking for roots the client never declared breaks the lifecycle's MUST to use only what was
    negotiated, so W01 says that, and only that."""
    folder = tmp_path / "run"
    proc = run_cli("run", "--server", server("--mode", "server-request"), "--protocol", "2025-11-25",
                   "--out", str(folder), *FAST)
    assert proc.returncode == 1, proc.stdout[-3000:]
    results = assert_complete(folder, proc)
    assert status(results, "W01") == "FAIL", reason(results, "W01")
    assert "roots/list, which uses the client capability 'roots' the client did not declare" in reason(results, "W01")
    assert events(folder, "violation") == []
    assert all(status(results, row) == "PASS" for row in ("T01", "S01", "E01", "L02"))
    answers = [e["message"] for e in wire(folder)
               if e["dir"] == "out" and e.get("message", {}).get("id") == "server-asks-1"]
    assert len(answers) == 1 and answers[0]["error"]["code"] == -32601


def test_huge_answer_memory_stays_bounded(tmp_path: Path) -> None:
    """A 100 MiB answer with --max-bytes 1 MiB: a FAIL, and the runner's peak memory stays
    near that of a normal run (it never holds the answer)."""
    base_code, base_out, base_err, base_peak = run_measured(
        ["run", "--server", server("--mode", "ok"), "--out", str(tmp_path / "base"), *FAST,
         "--max-bytes", "1048576"], tmp_path / "base-io")
    assert base_code == 0, base_out[-2000:] + base_err[-2000:]
    size = 100 * 1024 * 1024
    code, out, err, peak = run_measured(
        ["run", "--server", server("--mode", "huge", "--size", str(size)), "--out", str(tmp_path / "huge"),
         *FAST, "--max-bytes", "1048576"], tmp_path / "huge-io")
    assert code == 1, out[-2000:] + err[-2000:]
    results = assert_complete(tmp_path / "huge")
    assert f"a message of at least {size} bytes exceeds --max-bytes 1048576" in reason(results, "W01")
    assert (tmp_path / "huge" / "wire.jsonl").stat().st_size < 1024 * 1024, "the answer is not copied"
    grown_mib = (peak - base_peak) / 1024
    assert grown_mib < 32, f"peak RSS grew by {grown_mib:.0f} MiB over a normal run ({base_peak // 1024} MiB)"


def test_a_server_that_stops_reading_cannot_hold_a_write(tmp_path: Path) -> None:
    """At the first tool call the server stops reading its stdin; the next request carries a
    4 MiB argument, more than the pipe holds. The write waits no longer than the request's
    --timeout (within --run-timeout): the run ends with its folder whole and says the server
    stopped reading, instead of waiting on the pipe for ever."""
    import shlex
    import sys

    from faultkit import HOSTILE

    profile = tmp_path / "big-argument.yaml"
    text = (Path(__file__).resolve().parents[2] / "sheets" / "profile-fixture.yaml").read_text()
    pad = "x" * (4 * 1024 * 1024)
    text = text.replace("arguments: {q: MCP}}", f'arguments: {{q: MCP, pad: "{pad}"}}}}')
    profile.write_text(text)
    folder, pidfile = tmp_path / "run", tmp_path / "pid"
    command = shlex.join([sys.executable, str(HOSTILE), "--mode", "stop-reading", "--pidfile", str(pidfile),
                          "--on", "tools/call:search_text"])
    proc = run_cli("run", "--server", command, "--profile", str(profile), "--out", str(folder),
                   "--timeout", "2", "--run-timeout", "8", timeout=90)
    assert proc.returncode in (1, 3), proc.stderr[-2000:]
    stalled = [e for e in events(folder, "timeout") if "stopped reading its stdin" in e.get("detail", "")]
    assert stalled, [e.get("detail") for e in events(folder, "timeout")]
    assert (folder / "results.json").is_file()
    wire(folder)  # every line JSON
    for pid in read_pids(pidfile):
        assert process_gone(pid)
