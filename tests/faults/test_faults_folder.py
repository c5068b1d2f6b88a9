"""The run folder is the tool's own: symbolic links planted where a run writes are refused
(exit 2, nothing written through them), a second run into a folder in use is refused (exit
2), and an interrupt at any moment (the HTTP readiness wait, judging) leaves results.json
marked interrupted, a line-valid wire.jsonl and exit 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import free_port, run_cli
from faultkit import (wait_for_entry, assert_no_traceback, assert_one_line_error, events, hostile, kill_quietly, process_gone,
                      read_pids, server, wire)

from mcp_accept.inputs.results import validate_results


@pytest.mark.parametrize("planted", ["wire.jsonl", "stderr.log", "results.json", "rows"])
def test_planted_symlink_is_refused(planted: str, tmp_path: Path) -> None:
    folder, outside = tmp_path / "run", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("untouched\n")
    (folder / planted).symlink_to(outside if planted == "rows" else victim)
    proc = run_cli("run", "--out", str(folder), "--timeout", "5")
    assert_one_line_error(proc, "symbolic link", planted)
    assert victim.read_text() == "untouched\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]


def wait_for(folder: Path, proc: subprocess.Popen, test) -> None:
    wait_for_entry(folder, proc, test, "the awaited moment")


def start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mcp_accept", "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            env={**os.environ, "COLUMNS": "200"}, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def assert_interrupted(proc: subprocess.Popen, folder: Path, reason_start: str) -> dict:
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, out[-2000:], err[-2000:])
    assert_no_traceback(out, err)
    results = validate_results(folder / "results.json")
    assert results["interrupted"] is True
    wire(folder)  # every line is JSON
    assert events(folder, "interrupted")
    unfinished = [r for r in results["rows"] if r["status"] == "UNOBTAINABLE"]
    assert unfinished and all(r["reason"].startswith(reason_start) for r in unfinished), unfinished
    return results


def test_second_run_into_a_folder_in_use_is_refused(tmp_path: Path) -> None:
    folder, pidfile = tmp_path / "run", tmp_path / "pids"
    first = start(["--server", server("--mode", "hang", "--on", "tools/call:search_embedded", "--pidfile", pidfile),
                   "--out", str(folder), "--timeout", "60"])
    pids: list[int] = []
    try:
        wait_for(folder, first, lambda e: e.get("step") == "call:embedded" and e.get("dir") == "out")
        pids = read_pids(pidfile)
        second = run_cli("run", "--out", str(folder), "--timeout", "5")
        assert_one_line_error(second, "another mcp-accept run is writing this folder")
        os.killpg(first.pid, signal.SIGINT)
        assert_interrupted(first, folder, "interrupted")
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
        kill_quietly(pids)
    for pid in pids:
        assert process_gone(pid)
    again = run_cli("run", "--out", str(folder), "--timeout", "5")  # the lock went with the first run
    assert again.returncode in (0, 1), again.stderr[-2000:]


def test_interrupt_during_the_http_readiness_wait(tmp_path: Path) -> None:
    folder, port = tmp_path / "run", free_port()
    silent = f"{sys.executable} -c 'import time; time.sleep(120)'"
    proc = start(["--url", f"http://127.0.0.1:{port}/mcp", "--server", silent, "--out", str(folder)])
    try:
        wait_for(folder, proc, lambda e: e.get("event") == "spawn")
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        results = assert_interrupted(proc, folder, "interrupted while the server started")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert all(r["status"] in ("UNOBTAINABLE", "PENDING") for r in results["rows"])
    spawn = events(folder, "spawn")[0]["detail"]
    assert process_gone(int(spawn.split()[1].rstrip(",")))


def test_interrupt_while_judging(tmp_path: Path) -> None:
    """A schema that takes seconds to check keeps the run judging; Ctrl-C then."""
    hits = [{"id": f"d{i}", "n": [i]} for i in range(60_000)]
    schema = {"type": "object", "properties": {"hits": {"type": "array", "uniqueItems": True,
              "items": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^d"}}}}}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "structured.json").write_text(json.dumps({"query": "MCP", "total": 2, "hits": hits}))
    folder = tmp_path / "run"
    proc = start(["--server", hostile("--output-schema", tmp_path / "schema.json",
                                      "--structured", tmp_path / "structured.json"),
                  "--out", str(folder), "--timeout", "10"])
    try:
        wait_for(folder, proc, lambda e: e.get("event") == "exit")  # the server is stopped: judging
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        assert_interrupted(proc, folder, "interrupted while judging")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
