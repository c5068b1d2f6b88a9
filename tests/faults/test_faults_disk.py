"""A full disk while a run writes its folder: one line, exit NO_SPACE (74), no traceback and
no crash report; wire.jsonl keeps complete lines only; a second run with room completes.

The disk is made "full" for the run alone by a file size limit (RLIMIT_FSIZE, set in the
child before it starts): a write past it fails with EFBIG as a full disk fails with ENOSPC,
and both end the run the same way. It needs no mount and no root."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from faultkit import assert_complete, assert_no_traceback, hostile

from mcp_accept.errors import ExitStatus


def _run_limited(folder: Path, limit: int, *extra: str) -> subprocess.CompletedProcess:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(folder), "--timeout", "10",
                           *extra], capture_output=True, text=True, timeout=120, preexec_fn=limited,
                          env={**os.environ, "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"})


def _line_valid(path: Path) -> int:
    data = path.read_bytes()
    assert not data or data.endswith(b"\n"), "wire.jsonl ends inside a line"
    lines = data.decode("utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            json.loads(line)
        except ValueError:
            raise AssertionError(f"wire.jsonl line {number} is not JSON: {line[:120]}") from None
    return len(lines)


# 4 000 bytes: wire.jsonl fills up during the exchanges; 30 000: the exchanges are written
# whole and results.json (33 KB for the reference fixture) is what finds no room.
@pytest.mark.parametrize("limit", [4_000, 30_000])
def test_full_disk_ends_the_run_with_one_line(limit: int, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    proc = _run_limited(folder, limit, "--server", hostile("--mode", "ok"))
    assert proc.returncode == ExitStatus.NO_SPACE == 74, (proc.returncode, proc.stderr[-2000:])
    assert_no_traceback(proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-accept: error: "), proc.stderr
    assert "no space left" in lines[0] and "File too large" in lines[0], lines[0]
    assert not (folder / "results.json").exists()
    assert not (folder / "crash-report.txt").exists()
    assert _line_valid(folder / "wire.jsonl") > 0
    assert not [p.name for p in folder.rglob("*.tmp")]
    # with room again, the same folder takes a whole run
    again = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(folder), "--timeout", "10",
                            "--server", hostile("--mode", "ok")], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "COLUMNS": "200"})
    assert again.returncode in (0, 1), again.stderr[-2000:]
    assert_complete(folder, again)


# Every other command that writes: the same one line and status, the file it was writing
# named, nothing half-written left beside it (each file is written under a temporary name
# and renamed into place), the earlier version untouched.

def _command_limited(limit: int, *args: str) -> subprocess.CompletedProcess:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "mcp_accept", *args], capture_output=True, text=True,
                          timeout=120, preexec_fn=limited,
                          env={**os.environ, "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"})


def _says_no_space(proc: subprocess.CompletedProcess, path: Path) -> None:
    assert proc.returncode == ExitStatus.NO_SPACE, (proc.returncode, proc.stderr[-2000:])
    assert_no_traceback(proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-accept: error: "), proc.stderr
    assert "no space left" in lines[0] and "File too large" in lines[0], lines[0]
    assert str(path) in lines[0], lines[0]
    assert "internal error" not in lines[0] and "crash report" not in lines[0], lines[0]
    assert not [p.name for p in path.parent.rglob("*.tmp")]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("disk") / "run"
    proc = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(folder), "--timeout", "10",
                           "--server", hostile("--mode", "ok")], capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return folder


def test_full_disk_in_observe(finished_run: Path, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    before = (folder / "results.json").read_bytes()
    note = tmp_path / "seen.txt"
    note.write_text("the host showed the image\n", encoding="utf-8")
    proc = _command_limited(1_000, "observe", str(folder), "H03", "--status", "PASS", "--note", "seen",
                            "--evidence", str(note))
    _says_no_space(proc, folder / "results.json")
    assert (folder / "results.json").read_bytes() == before
    # with room, the same command fills the row
    again = subprocess.run([sys.executable, "-m", "mcp_accept", "observe", str(folder), "H03", "--status", "PASS",
                            "--note", "seen", "--evidence", str(note)], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((folder / "results.json").read_text(encoding="utf-8")) != json.loads(before)


def test_full_disk_in_report_out(finished_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("an earlier report\n", encoding="utf-8")
    proc = _command_limited(1_000, "report", str(finished_run), "--format", "html", "--out", str(out))
    _says_no_space(proc, out)
    assert out.read_text(encoding="utf-8") == "an earlier report\n"


def test_full_disk_in_profile_init_out(tmp_path: Path) -> None:
    out = tmp_path / "profile.yaml"
    proc = _command_limited(200, "profile", "init", "--server", hostile("--mode", "ok"), "--out", str(out))
    _says_no_space(proc, out)
    assert not out.exists()


def test_full_disk_in_the_stdio_proxy(tmp_path: Path) -> None:
    out = tmp_path / "proxy"
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "disk-host", "version": "1"}}}
    lines = [hello, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             *({"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(1, 6))]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (3_000, 3_000))

    proc = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--server", hostile("--mode", "ok"),
                           "--out", str(out)], input=b"".join(json.dumps(m).encode() + b"\n" for m in lines),
                          capture_output=True, timeout=120, preexec_fn=limited)
    # the host got every answer: a full record does not stop the forwarding
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == [0, 1, 2, 3, 4, 5]
    [folder] = list(out.iterdir())
    _says_no_space(subprocess.CompletedProcess(proc.args, proc.returncode, "", proc.stderr.decode()),
                   folder / "results.json")
    assert _line_valid(folder / "wire.jsonl") > 0
