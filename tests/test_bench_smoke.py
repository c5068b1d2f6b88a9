"""The benchmark script runs end to end and produces every row of its table.

One round of each measurement with tiny sizes: this checks that the script and its
helper servers and clients work, not how fast anything is (no timing is asserted).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

BENCH = ROOT / "benchmarks" / "bench.py"


def test_benchmark_produces_every_row(tmp_path):
    out = tmp_path / "bench.json"
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run([sys.executable, str(BENCH), "--repeat", "1", "--large-mib", "0.05", "--fleet", "2",
                           "--jobs", "2", "--proxy-n", "60", "--json", str(out)], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    rows = {row["key"]: row for row in report["rows"]}
    expected = ["a1", "a2", "b1", "b2", "b3", "b4", "c1", "c2", "c3", "c4", "d1", "d2", "d3", "d4", "e1", "e2",
                "f1"]
    if importlib.util.find_spec("mcp") is not None:  # with the SDK: the runs without a warm replay process too
        expected += ["b5", "c5"]
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
    assert rows["b1"]["target"] == "≤ 1.3x" and rows["a1"]["target"] == "≤ 5x"
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
