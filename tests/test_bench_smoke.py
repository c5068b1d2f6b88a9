"""The benchmark script runs end to end and produces every row of its table.

One round of each measurement with tiny sizes: this checks that the script and its
helper servers and clients work, not how fast anything is (no timing is asserted).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

BENCH = ROOT / "benchmarks" / "bench.py"


def test_benchmark_produces_every_row(tmp_path):
    out = tmp_path / "bench.json"
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run([sys.executable, str(BENCH), "--repeat", "1", "--large-mib", "0.05", "--fleet", "2",
                           "--jobs", "2", "--proxy-n", "60", "--only", "abcdef", "--json", str(out)],
                          capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    rows = {row["key"]: row for row in report["rows"]}
    expected = ["a1", "a2", "b1", "b2", "b3", "b4", "b5", "c1", "c2", "c3", "c4", "c5", "d1", "d2", "d3", "d4",
                "e1", "e2", "f1"]
    assert sorted(rows) == sorted(expected)
    assert not report["failures"], report["failures"]  # every measured command ended as it should
    for key, row in rows.items():
        if key == "f1" or row["note"].startswith("the SDK is not installed"):
            continue
        assert row["median"] and row["median"] > 0, key
        assert row["baseline_median"] and row["baseline_median"] > 0, key
        assert row["ratio"] == row["median"] / row["baseline_median"]
        if row["target"] == "(for reference)":
            assert row["met"] == "", key
        else:
            assert row["met"] in ("yes", "no"), key
    assert rows["a1"]["target"] == "≤ 5x"
    # the default run (sdk layer off) against the official SDK client; --sdk only for reference
    assert rows["b2"]["target"] == rows["c2"]["target"] == "≤ 0.5x"
    assert rows["b1"]["target"] == rows["c1"]["target"] == "(for reference)"
    assert rows["b1"]["what"].endswith("with --sdk, against the default run (sdk layer off)")
    assert rows["d2"]["unit"] == "MiB" and "json.loads alone peaks" in rows["d2"]["note"]
    # the proxy row: measured when its script exists, else it says why not
    proxy = rows["f1"]
    assert proxy["median"] or proxy["note"].startswith("not measured: no proxy")
    # the Markdown table on stdout has a line per row, and says how to reproduce it
    lines = done.stdout.splitlines()
    assert "| | measurement | mcp-accept | baseline | ratio | target | met |" in lines
    for key in expected:
        assert any(line.startswith(f"| {key} |") for line in lines), key
    assert any(line.startswith("Reproduce with: `python benchmarks/bench.py") for line in lines)
    assert not list(Path(tmp_path).glob("mcp-accept-runs"))  # the run folders were temporary


def installed_host() -> bool:
    """Whether a host bench.py measures (Claude Code or Codex) is installed, as bench.py looks for it."""
    return any(os.access(ROOT / "tests" / "hosts" / "node_modules" / ".bin" / name, os.X_OK)
               for name in ("claude", "codex"))


@pytest.mark.skipif(not installed_host(), reason="neither Claude Code nor Codex is installed in tests/hosts")
def test_the_host_row_measures_a_real_host_with_and_without_the_proxy(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, str(BENCH), "--repeat", "1", "--only", "g", "--json", str(out), "--keep"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert not report["failures"], report["failures"]
    (row,) = report["rows"]
    assert row["key"] == "g1" and row["target"] == "≤ 1.2x" and row["met"] in ("yes", "no")
    assert row["median"] > 0 and row["baseline_median"] > 0
    # each side ran the host to its end: it asked the stand-in model, and only the measured
    # side's MCP server was reached through the proxy (its recording is there)
    folders = Path(done.stdout.rsplit("Run folders: ", 1)[1].strip())
    try:
        (proxied,), (direct,) = folders.glob("g-proxy-*"), folders.glob("g-direct-*")
        for folder in (proxied, direct):
            assert (folder / "model.jsonl").stat().st_size > 0
            assert json.loads((folder / "results.json").read_text(encoding="utf-8"))["rows"]
        assert any((proxied / "proxy").iterdir())
        assert not (direct / "proxy").exists() or not any((direct / "proxy").iterdir())
    finally:
        shutil.rmtree(folders, ignore_errors=True)  # kept by --keep for the lines above


def test_the_hostile_benchmark_measures_its_rows(tmp_path):
    """benchmarks/hostile.py, the times the tests of tests/faults/ leave out: its two cheap groups
    once each (whether a target is met is the machine's business, not the test's)."""
    out = tmp_path / "hostile.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hostile.py"), "--repeat", "1",
                           "--only", "splitter,timeout", "--json", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert not report["failures"], report["failures"]  # the hung run ended with exit 3, as it should
    rows = {row["key"]: row for row in report["rows"]}
    assert sorted(rows) == ["h1", "h2"]
    for row in rows.values():
        assert row["median"] > 0 and row["baseline_median"] > 0 and row["target"] == "≤ 2x"
        assert row["met"] in ("yes", "no")
    assert any(line.startswith("| h2 |") for line in done.stdout.splitlines())
