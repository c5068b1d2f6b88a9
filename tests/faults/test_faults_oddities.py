"""Unicode and JSON oddities: a byte order mark before a message, an answer that arrives
before its request, a string id for a numeric one, lone surrogates in text and in a link's
URI (which then travels back in a request and in an Mcp-Name header), session-id bytes
outside visible ASCII, a run folder whose name is not UTF-8. Each is a FAIL with evidence
where the spec is broken, never a traceback; report, profile init, observe and the fleet
summary read such run folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import run_cli
from faultkit import (assert_complete, assert_no_traceback, events, hostile, measured, process_gone,
                      read_pids, rows_by_id)

HTTP = "Streamable HTTP"

# mode -> (target, a row that must FAIL or None, words of a violation in the wire log or None)
CASES = {
    "bom": ("tools/call:search_text", "T01", "not JSON"),
    "early": ("tools/call:search_text", None, "while waiting for id"),
    "string-id": ("tools/call:search_text", "T01", "while waiting for id"),
    "surrogates": ("tools/call:search_link", None, None),
}


def target(transport: str, tmp_path: Path, hold, *server_args: str) -> tuple[list[str], Path]:
    pidfile = tmp_path / "pid"
    if transport == "http":
        port = hold()
        return ["--url", f"http://127.0.0.1:{port}/mcp",
                "--server", hostile("--http", port, "--pidfile", pidfile, *server_args)], pidfile
    return ["--server", hostile("--pidfile", pidfile, *server_args)], pidfile


def cli(*args: str) -> subprocess.CompletedProcess:
    """run_cli, reading output that may name a folder whose name is not UTF-8."""
    return subprocess.run([sys.executable, "-m", "mcp_accept", *args], capture_output=True, timeout=120,
                          text=True, errors="backslashreplace", env={**os.environ, "COLUMNS": "200"})


def readers_cope(folder: Path, tmp_path: Path) -> None:
    """report and observe take the folder without a traceback."""
    done = cli("report", str(folder))
    assert done.returncode == 0, done.stderr[-2000:]
    assert_no_traceback(done.stdout, done.stderr)
    note = tmp_path / "note.txt"
    note.write_text("host showed the result whole\n")
    done = cli("observe", str(folder), "H03", "--status", "PASS", "--evidence", str(note),
                   "--note", "seen whole")
    assert done.returncode == 0, done.stderr[-2000:]
    assert_no_traceback(done.stdout, done.stderr)
    assert rows_by_id(json.loads((folder / "results.json").read_text()))["H03"]["status"] == "PASS"


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", list(CASES))
def test_oddity_is_a_verdict_not_a_crash(mode: str, transport: str, tmp_path: Path, held_port) -> None:
    on, failing, violation = CASES[mode]
    args, pidfile = target(transport, tmp_path, held_port, "--mode", mode, "--on", on)
    folder = tmp_path / "run"
    got = measured(["run", *args, "--out", str(folder), "--timeout", "5"], tmp_path / "console")
    assert got["code"] in (0, 1), got["stderr"][-2000:]
    assert_no_traceback(got["stdout"], got["stderr"])
    results = assert_complete(folder, transport=HTTP if transport == "http" else "stdio")
    rows = rows_by_id(results)
    if failing:
        assert rows[failing]["status"] == "FAIL", rows[failing]
    if violation:
        details = [e.get("detail", "") for e in events(folder, "violation")]
        assert any(violation in d for d in details), details
    if mode == "surrogates":  # the odd URI went back out in resources/read (and Mcp-Name over HTTP)
        reads = [e for e in (json.loads(l) for l in (folder / "wire.jsonl").read_text().splitlines())
                 if e.get("dir") == "out" and (e.get("message") or {}).get("method") == "resources/read"]
        assert any("\ud800" in str(e["message"]["params"].get("uri")) for e in reads), reads
    readers_cope(folder, tmp_path)
    for pid in read_pids(pidfile):
        assert process_gone(pid)


def test_session_id_outside_visible_ascii_is_a_violation(tmp_path: Path, held_port) -> None:
    args, pidfile = target("http", tmp_path, held_port, "--mode", "session-bytes", "--on", "initialize")
    folder = tmp_path / "run"
    got = measured(["run", *args, "--protocol", "2025-11-25", "--out", str(folder), "--timeout", "5"],
                   tmp_path / "console")
    assert got["code"] == 1, got["stderr"][-2000:]
    assert_no_traceback(got["stdout"], got["stderr"])
    results = assert_complete(folder, transport=HTTP)
    details = [e.get("detail", "") for e in events(folder, "violation")]
    assert any("Mcp-Session-Id" in d and "visible ASCII" in d for d in details), details
    assert rows_by_id(results)["W01"]["status"] == "FAIL"
    readers_cope(folder, tmp_path)


def test_profile_init_and_fleet_take_lone_surrogates(tmp_path: Path) -> None:
    server = hostile("--mode", "surrogates", "--on", "tools/call:search_link",
                     "--server-name", "odd\\ud800name")  # JSON escapes: argv cannot carry a surrogate
    done = run_cli("profile", "init", "--server", server)
    assert done.returncode == 0, done.stderr[-2000:]
    assert isinstance(yaml.safe_load(done.stdout), dict)
    targets = tmp_path / "targets.yaml"
    targets.write_text(yaml.safe_dump({"targets": [{"name": "odd", "server": server}]}))
    done = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "fleet"), "--timeout", "5")
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert_no_traceback(done.stdout, done.stderr)
    index = json.loads((tmp_path / "fleet" / "fleet.json").read_text())
    assert [t["exit"] for t in index["targets"]] == [done.returncode]


def test_run_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path) + b"/run-\xff\xfe"
    got = measured(["run", "--out", os.fsdecode(folder), "--timeout", "5"], tmp_path / "console")
    assert got["code"] in (0, 1), got["stderr"][-2000:]
    assert_no_traceback(got["stdout"], got["stderr"])
    path = Path(os.fsdecode(folder))
    assert_complete(path)
    readers_cope(path, tmp_path)
