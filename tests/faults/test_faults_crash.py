"""Honest exit codes: a fault of mcp-accept itself exits 70 (not 1 = a row FAILed, 2 = bad
input, 3 = server unreachable) with one line on stderr and a crash report holding the
traceback in the run folder; a fleet records 70 for that target. The fault is a real
exception raised inside the judging of a real run (the judge is replaced in the process
under test), as a bug there would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from faultkit import assert_no_traceback

BROKEN = """
import sys
import mcp_accept.running.execute as execute
def judge(*args, **kwargs):
    raise ZeroDivisionError("a fault inside judging")
execute.judge = judge
from mcp_accept.cli import main
sys.argv = ["mcp-accept", *sys.argv[1:]]
main()
"""


def broken_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BROKEN, *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"})


def test_internal_error_exits_70_with_a_crash_report(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    proc = broken_cli("run", "--out", str(folder), "--timeout", "5")
    assert proc.returncode == 70, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert_no_traceback(proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-accept: error: internal error of mcp-accept"), lines
    report = folder / "crash-report.txt"
    assert str(report) in lines[0]
    text = report.read_text()
    assert "Traceback (most recent call last)" in text and "ZeroDivisionError" in text
    assert (folder / "wire.jsonl").is_file()


def test_fleet_records_the_internal_error_code(tmp_path: Path) -> None:
    targets = tmp_path / "targets.yaml"
    targets.write_text(yaml.safe_dump({"targets": [{"name": "one"}]}))
    proc = broken_cli("run", "--targets", str(targets), "--out", str(tmp_path / "fleet"), "--timeout", "5")
    assert proc.returncode == 70, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert_no_traceback(proc.stdout, proc.stderr)
    index = json.loads((tmp_path / "fleet" / "fleet.json").read_text())
    assert [t["exit"] for t in index["targets"]] == [70], index["targets"]
    assert list((tmp_path / "fleet").rglob("crash-report.txt")), "the target's folder keeps its crash report"
