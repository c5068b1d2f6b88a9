"""Helpers shared by the fault tests: the misbehaving server, running mcp-accept against
it, and the checks every case makes (a complete run folder, no traceback)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import load_results

from mcp_accept.evidence.files import FolderLock
from mcp_accept.inputs.sheet import load_sheet
from mcp_accept.inputs.results import validate_results

SERVERS = Path(__file__).resolve().parent / "servers"
MISBEHAVE = SERVERS / "misbehave.py"
AUTOMATED = tuple(row.id for row in load_sheet().rows if row.automated)
MANUAL = tuple(row.id for row in load_sheet().rows if not row.automated)


def server(*args: str) -> str:
    """The --server command line of the misbehaving server with these options."""
    return shlex.join([sys.executable, str(MISBEHAVE), *map(str, args)])


def assert_no_traceback(*texts: str | None) -> None:
    for text in texts:
        assert "Traceback (most recent call last)" not in (text or ""), text


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr holding every needle."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert_no_traceback(proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("mcp-accept: error: "), line
    for needle in needles:
        assert needle in line, (needle, line)
    return line


def wire(folder: Path) -> list[dict]:
    """wire.jsonl, every line parsed (a line that is not JSON fails the test)."""
    entries = []
    for number, line in enumerate((Path(folder) / "wire.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        try:
            entries.append(json.loads(line))
        except ValueError as exc:  # pragma: no cover - shown on failure
            raise AssertionError(f"wire.jsonl line {number} is not JSON: {exc}: {line[:200]}") from None
    return entries


def events(folder: Path, kind: str) -> list[dict]:
    return [e for e in wire(folder) if e.get("event") == kind]


def rows_by_id(results: dict) -> dict[str, dict]:
    return {row["id"]: row for row in results["rows"]}


def assert_complete(folder: Path, proc: subprocess.CompletedProcess | None = None, *,
                    transport: str = "stdio") -> dict:
    """The run folder is whole: results.json valid with every row of the sheet, each
    judged row's evidence file present and matching, wire.jsonl readable line by line,
    sheet.md and stderr.log present, no temporary file and no lock file left; and no traceback."""
    folder = Path(folder)
    if proc is not None:
        assert_no_traceback(proc.stdout, proc.stderr)
    results = validate_results(folder / "results.json")
    rows = rows_by_id(results)
    assert set(rows) == set(AUTOMATED + MANUAL), list(rows)
    for row_id in AUTOMATED:
        row = rows[row_id]
        assert row["status"] in ("PASS", "FAIL", "UNOBTAINABLE"), row
        if row["status"] != "PASS":
            assert row["reason"], row
        evidence = folder / row["evidence"]
        assert evidence.is_file(), evidence
        data = json.loads(evidence.read_text(encoding="utf-8"))
        assert data["id"] == row_id and data["status"] == row["status"], data
    for row_id in MANUAL:
        assert rows[row_id]["status"] == "PENDING", rows[row_id]
    entries = wire(folder)
    assert entries, "wire.jsonl is empty"
    seqs = [e["seq"] for e in entries]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
    assert {e["transport"] for e in entries} == {transport}, "every entry names the transport"
    sheet = (folder / "sheet.md").read_text(encoding="utf-8")
    for row_id in AUTOMATED:
        assert row_id in sheet, f"sheet.md does not show {row_id}"
    assert (folder / "stderr.log").is_file()
    leftovers = [p.name for p in folder.rglob("*") if p.name.endswith(".tmp") or p.name == FolderLock.NAME]
    assert not leftovers, leftovers
    return results


def reason(results: dict, row_id: str) -> str:
    return rows_by_id(results)[row_id]["reason"] or ""


def status(results: dict, row_id: str) -> str:
    return rows_by_id(results)[row_id]["status"]


def run_measured(args: list[str], out_dir: Path, timeout: float = 120) -> tuple[int, str, str, int]:
    """Run ``mcp-accept`` and give (exit code, stdout, stderr, peak RSS in KiB).

    The peak comes from wait4() on the runner itself: the largest resident set of the
    runner and of the children it waited for (the server, which streams its answer in
    small chunks and stays small)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "COLUMNS": "200"}
    with open(out_dir / "stdout.txt", "wb") as out, open(out_dir / "stderr.txt", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "mcp_accept", *args], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + timeout
        while True:
            pid, status_word, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status_word, usage = os.wait4(proc.pid, 0)
                raise AssertionError("mcp-accept did not finish in time")
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status_word)
    return (proc.returncode, (out_dir / "stdout.txt").read_text(errors="replace"),
            (out_dir / "stderr.txt").read_text(errors="replace"), usage.ru_maxrss)


def process_gone(pid: int, wait: float = 5.0) -> bool:
    """True once ``pid`` has exited (gone, or a zombie nobody has reaped yet)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            state = [line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                     if line.startswith("State:")]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state and state[0].split()[1] in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def kill_quietly(pids: list[int]) -> None:
    """Clean-up after a failed test: stop processes this test started, by pid."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def read_pids(path: Path, wait: float = 10.0) -> list[int]:
    deadline = time.monotonic() + wait
    while not path.is_file():
        if time.monotonic() > deadline:
            raise AssertionError(f"the server wrote no {path.name}")
        time.sleep(0.05)
    return [int(p) for p in path.read_text().split()]


def tree_text(folder: Path) -> str:
    """Every file under ``folder``, as text, for searching (binary bytes kept as escapes)."""
    parts = []
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file():
            parts.append(path.read_bytes().decode("utf-8", "backslashreplace"))
    return "\n".join(parts)


__all__ = ["AUTOMATED", "MANUAL", "MISBEHAVE", "assert_complete", "assert_no_traceback",
           "assert_one_line_error", "events", "kill_quietly", "load_results", "process_gone",
           "read_pids", "reason", "rows_by_id", "run_measured", "server", "status", "tree_text", "wire"]


HOSTILE = SERVERS / "hostile.py"


def hostile(*args: str) -> str:
    """The --server command line of the hostile server (servers/hostile.py)."""
    return shlex.join([sys.executable, str(HOSTILE), *map(str, args)])


def secret_forms(secret: str) -> list[str]:
    """``secret`` as given, URL-encoded and base64-encoded (at each alignment inside a longer
    base64 text: the characters that depend on the secret alone)."""
    import base64
    from urllib.parse import quote

    forms = {secret, quote(secret, safe=""), quote(secret)}
    for lead in range(3):
        data = b"\0" * lead + secret.encode()
        core = base64.b64encode(data).decode()[-(-lead * 4 // 3):(len(data) * 8) // 6]
        forms.add(core)
    return sorted(f for f in forms if len(f) >= 8)


def assert_no_secret(secrets, folder: Path | None, *texts: str) -> None:
    """No byte of the run folder (every file) nor of the console holds any form of a secret."""
    haystack = "\n".join(texts) + ("\n" + tree_text(folder) if folder and Path(folder).exists() else "")
    for secret in secrets:
        for form in secret_forms(secret):
            assert form not in haystack, f"a form of the secret {secret[:4]}... ({form[:6]}...) leaked"


def measured(args: list[str], out_dir: Path, timeout: float = 180) -> dict:
    """``run_measured`` with its figures named: code, stdout, stderr, rss_mib (how long it takes
    is no test's business: benchmarks/hostile.py measures it)."""
    code, out, err, rss = run_measured(args, out_dir, timeout=timeout)
    return {"code": code, "stdout": out, "stderr": err, "rss_mib": rss / 1024}


def wait_until(found, proc, what: str, wait: float = 60):
    """Poll ``found()`` until it gives something (while the run still goes on); that."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the run ended before {what}"
        value = found()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"never saw {what}")


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def wait_for_text(path: Path, text: str, proc, wait: float = 60) -> None:
    """Until the file at ``path`` holds ``text`` (while the run still goes on)."""
    wait_until(lambda: text in _text_of(path), proc, f"{path.name} saying {text!r}", wait)


def wait_for_child(pid: int, proc, wait: float = 60) -> int:
    """Until process ``pid`` has a child process (while the run still goes on); its pid."""
    def child() -> int | None:
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            children = _text_of(task).split()
            if children:
                return int(children[0])
        return None

    return wait_until(child, proc, f"a child process of {pid}", wait)


def wait_for_entry(folder: Path, proc, test, what: str, wait: float = 60) -> None:
    """Until a line of the run's wire.jsonl passes ``test`` (while the run still goes on)."""
    def entry_seen() -> bool:
        for line in _text_of(folder / "wire.jsonl").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line being written
            if test(entry):
                return True
        return False

    wait_until(entry_seen, proc, what, wait)
