"""The run folder is the tool's own: symbolic links planted where a run writes are refused
(exit 2, nothing written through them), a second run into a folder in use is refused (exit
2), and an interrupt at any moment (the HTTP readiness wait, judging) leaves results.json
marked interrupted, a line-valid wire.jsonl and exit 130."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import refused_port, run_cli
from faultkit import (wait_for_child, wait_for_entry, assert_no_traceback, assert_one_line_error, events, hostile, kill_quietly, process_gone,
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
    """The server never answers: its port is the test's, which takes the runner's readiness
    probe and says nothing; Ctrl-C once the probe has come."""
    folder = tmp_path / "run"
    silent = f"{sys.executable} -c 'import time; time.sleep(120)'"
    with socket.create_server(("127.0.0.1", 0)) as port_of_the_test:
        port = port_of_the_test.getsockname()[1]
        proc = start(["--url", f"http://127.0.0.1:{port}/mcp", "--server", silent, "--out", str(folder)])
        try:
            port_of_the_test.settimeout(60)
            probe, _ = port_of_the_test.accept()  # the runner is waiting for the server to answer
            with probe:
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
        wait_for_child(proc.pid, proc)  # the costly check runs, in a child process (evidence/bounded.py)
        os.killpg(proc.pid, signal.SIGINT)
        assert_interrupted(proc, folder, "interrupted while judging")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("planted", ["wire.jsonl", "stderr.log"])
def test_planted_fifo_or_hard_link_is_refused(planted: str, tmp_path: Path) -> None:
    """A FIFO where a run writes would hold it for ever; a hard link would carry the write to
    the file it shares with, outside the folder. Both are refused by name, nothing written."""
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    fifo, linked = tmp_path / "fifo", tmp_path / "linked"
    fifo.mkdir()
    linked.mkdir()
    os.mkfifo(fifo / planted)
    os.link(outside, linked / planted)
    proc = run_cli("run", "--out", str(fifo), "--timeout", "5", timeout=60)
    assert_one_line_error(proc, f"{planted} is a FIFO")
    proc = run_cli("run", "--out", str(linked), "--timeout", "5", timeout=60)
    assert_one_line_error(proc, f"{planted} is a hard link")
    assert outside.read_text() == "untouched\n"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("done") / "run"
    proc = run_cli("run", "--out", str(folder), "--timeout", "5", "--server",
                   hostile("--mode", "ok", "--server-name", "password=hunter2abcdefXYZ123 api_key: sk-abcdefghijklmnopqrstu"))
    assert proc.returncode == 0, proc.stderr
    return folder


def _readers(folder: Path, other: Path) -> dict[str, tuple[str, ...]]:
    note = other.parent / "seen.txt"
    note.write_text("the host showed the text\n")
    return {"report": ("report", str(folder)), "diff": ("diff", str(folder), str(other)),
            "rerun": ("rerun", str(folder), "--out", str(other.parent / "rerun")),
            "observe": ("observe", str(folder), "H01", "--status", "PASS", "--evidence", str(note))}


def test_a_folder_the_tool_wrote_is_read_back(finished_run: Path, tmp_path: Path) -> None:
    """A server whose name looks like a password assignment and an API key: the run records the
    name (masked as the wire log is), and report, diff, observe and rerun read the folder."""
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    other = tmp_path / "other"
    shutil.copytree(finished_run, other)
    results = validate_results(folder / "results.json")
    assert results["conditions"]["server_name"].startswith("password=")
    for name, args in _readers(folder, other).items():
        proc = run_cli(*args, timeout=120)
        assert proc.returncode in (0, 1), (name, proc.returncode, proc.stderr[-1500:])
        assert_no_traceback(proc.stdout, proc.stderr)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "hard link"])
def test_readers_refuse_what_is_planted_in_a_run_folder(kind: str, finished_run: Path, tmp_path: Path) -> None:
    """report, diff, observe and rerun open results.json only as a plain file with one name:
    a link (here to /dev/zero, which never ends), a FIFO (which never opens) or a hard link is
    named and refused, exit 2, at once."""
    import shutil

    folder, other = tmp_path / "run", tmp_path / "other"
    shutil.copytree(finished_run, folder)
    shutil.copytree(finished_run, other)
    target = folder / "results.json"
    if kind == "symlink":
        target.unlink()
        target.symlink_to("/dev/zero")
    elif kind == "fifo":
        target.unlink()
        os.mkfifo(target)
    else:
        os.link(target, tmp_path / "second-name.json")
    shown = {"symlink": "is a symbolic link", "fifo": "is a FIFO", "hard link": "is a hard link"}[kind]
    for name, args in _readers(folder, other).items():
        proc = run_cli(*args, timeout=60)
        assert_one_line_error(proc, "results.json", shown)


def test_observe_writes_nothing_through_a_planted_evidence_link(finished_run: Path, tmp_path: Path) -> None:
    import shutil

    folder, outside = tmp_path / "run", tmp_path / "outside"
    shutil.copytree(finished_run, folder)
    outside.mkdir()
    shutil.rmtree(folder / "evidence", ignore_errors=True)
    (folder / "evidence").symlink_to(outside)
    note = tmp_path / "seen.txt"
    note.write_text("the host showed the text\n")
    proc = run_cli("observe", str(folder), "H01", "--status", "PASS", "--evidence", str(note), timeout=60)
    assert_one_line_error(proc, "evidence is a symbolic link")
    assert list(outside.iterdir()) == []


def test_the_readiness_wait_is_within_the_run_timeout(tmp_path: Path) -> None:
    """--server with --url: a server that never answers on its URL is given --run-timeout
    (here 3 s), not the 30 s readiness wait, and the message says so."""
    folder = tmp_path / "run"
    with refused_port() as port:
        proc = run_cli("run", "--server", f"{sys.executable} -c 'import time; time.sleep(100)'",
                       "--url", f"http://127.0.0.1:{port}/mcp", "--run-timeout", "3", "--out", str(folder),
                       timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert "did not answer within 3s" in proc.stderr, proc.stderr


@pytest.mark.parametrize("planted", ["rows/T01.json", "wire.jsonl"])
def test_report_refuses_a_planted_row_file_or_wire_log(planted: str, finished_run: Path, tmp_path: Path) -> None:
    """A row's evidence file or wire.jsonl linked to /dev/zero (endless) is named and refused,
    not read, by every report format that opens it."""
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    (folder / planted).unlink()
    (folder / planted).symlink_to("/dev/zero")
    proc = run_cli("report", str(folder), "--format", "html", "--out", str(tmp_path / "r.html"), timeout=60)
    assert_one_line_error(proc, planted, "is a symbolic link")


def test_the_write_probe_replaces_a_planted_link(tmp_path: Path) -> None:
    """Before a run, mcp-accept checks that it may write the folder with a probe file; a link
    planted under the probe's name is replaced, never written through."""
    folder, victim = tmp_path / "run", tmp_path / "victim.txt"
    folder.mkdir()
    victim.write_text("untouched\n")
    (folder / ".mcp-accept-write-test").symlink_to(victim)
    proc = run_cli("run", "--out", str(folder), "--timeout", "5")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "untouched\n"
    assert not (folder / ".mcp-accept-write-test").exists()


def test_a_lock_on_a_file_the_last_run_removed_does_not_count(tmp_path: Path, monkeypatch) -> None:
    """A run ends and removes its lock file just as the next one, having opened that file, is
    about to lock it, and a third run takes the folder with a new lock file: the second must
    not hold a lock on the removed file and write beside the third."""
    import fcntl

    from mcp_accept.evidence.files import FolderLock

    first, second, third = FolderLock(tmp_path), FolderLock(tmp_path), FolderLock(tmp_path)
    assert first.acquire()
    real_flock = fcntl.flock

    def flock(fd, operation):
        if first._fd is not None:  # between the second run's open and its lock
            first.release()
            assert third.acquire()
        return real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    try:
        assert not second.acquire()
    finally:
        monkeypatch.undo()
        third.release()
    assert not (tmp_path / FolderLock.NAME).exists()
    assert second.acquire()  # free again
    second.release()
