"""Interrupted runs: Ctrl-C (SIGINT to the runner's process group, as a terminal sends
it) or SIGTERM while a request hangs. The evidence written so far is kept, results.json
marks the unfinished rows UNOBTAINABLE with the reason "interrupted", the exit code is
130 after Ctrl-C and 143 after SIGTERM (as a shell reports a process each signal ended), no
lock file is left in the folder, and the server's whole process group is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from faultkit import (wait_for_entry, wait_for_text, assert_complete, assert_no_traceback, events, kill_quietly, process_gone, read_pids,
                      rows_by_id, server)

HTTP = "Streamable HTTP"
DONE = ("T01", "S01", "S02", "S03")  # rows whose steps all ran before the hang
UNFINISHED = ("E01", "L01", "L02", "L03", "X01")


def _default_sigint() -> None:
    # A shell may start background jobs with SIGINT ignored; a terminal's Ctrl-C is not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_request(folder: Path, step: str, proc: subprocess.Popen) -> None:
    """Until wire.jsonl shows the request of ``step`` sent."""
    wait_for_entry(folder, proc, lambda e: e.get("step") == step and e.get("dir") == "out",
                   f"the {step} request was sent")


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_interrupted_run_keeps_its_evidence(how: str, transport: str, tmp_path: Path, held_port) -> None:
    folder, pidfile = tmp_path / "run", tmp_path / "pids"
    hang = ("--mode", "hang", "--on", "tools/call:search_embedded", "--pidfile", pidfile, "--spawn-child")
    if transport == "http":
        port = held_port()
        target = ["--url", f"http://127.0.0.1:{port}/mcp", "--server", server("--http", port, *hang)]
    else:
        target = ["--server", server(*hang)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_accept", "run", *target, "--out", str(folder), "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env={**os.environ, "COLUMNS": "200"}, start_new_session=True, preexec_fn=_default_sigint)
    pids: list[int] = []
    try:
        wait_for_request(folder, "call:embedded", proc)
        pids = read_pids(pidfile)
        # the server holds the request: the runner is waiting for the answer
        wait_for_text(folder / "stderr.log", "leaving the request unanswered", proc)
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
            kill_quietly(pids)
    assert proc.returncode == (130 if how == "ctrl-c" else 143), (proc.returncode, out[-2000:], err[-2000:])
    assert_no_traceback(out, err)
    assert "interrupted" in out
    results = assert_complete(folder, transport=HTTP if transport == "http" else "stdio")
    assert results["interrupted"] is True and results["finished_at"] is None
    rows = rows_by_id(results)
    for row_id in DONE:
        assert rows[row_id]["status"] == "PASS", rows[row_id]
    for row_id in ("W01", "W02"):  # judged over the messages seen: nothing wrong among them
        assert rows[row_id]["status"] in ("PASS", "UNOBTAINABLE"), rows[row_id]
    for row_id in UNFINISHED:
        assert rows[row_id]["status"] == "UNOBTAINABLE", rows[row_id]
        assert rows[row_id]["reason"].startswith("interrupted"), rows[row_id]
    assert events(folder, "interrupted"), "the interruption is in the wire log"
    for pid in pids:
        assert process_gone(pid), f"process {pid} of the server's group is still running"
