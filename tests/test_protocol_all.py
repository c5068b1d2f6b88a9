"""``run --protocol all``: one run per version the server speaks, one summary, one exit code."""

from __future__ import annotations

import json
import shlex
import sys

from conftest import FIXTURE, SERVERS, run_cli, start_http_server, stop_http_server

ERAS = ["2026-07-28", "2025-11-25", "2025-06-18"]


def test_every_version_of_the_fixture_in_its_own_folder(tmp_path):
    out = tmp_path / "all"
    done = run_cli("run", "--protocol", "all", "--out", str(out), "--timeout", "10")
    summary = json.loads((out / "all.json").read_text())
    assert summary["versions"] == ERAS and summary["not_spoken"] == {}
    for version in ERAS:
        results = json.loads((out / version / "results.json").read_text())
        assert results["conditions"]["protocol_version_on_wire"] == version
        assert (out / version / "wire.jsonl").stat().st_size > 0
    assert (out / "versions" / "wire.jsonl").exists()  # the evidence of the look at the versions
    exits = [run["exit"] for run in summary["runs"]]
    assert done.returncode == summary["exit"] == max(exits), done.stdout + done.stderr
    assert summary["differences"] == [] and summary["warnings"] == []
    assert "3 versions run" in done.stdout and "all.json" in done.stdout


def test_only_the_versions_the_server_answers_with(tmp_path):
    out = tmp_path / "all"
    server = shlex.join([sys.executable, str(FIXTURE), "--protocol", "2025-11-25"])
    done = run_cli("run", "--protocol", "all", "--server", server, "--out", str(out), "--timeout", "10")
    summary = json.loads((out / "all.json").read_text())
    assert summary["versions"] == ["2025-11-25"]
    # asked for 2025-06-18, it answers 2025-11-25: a version it does not speak
    assert "the server chose '2025-11-25'" in summary["not_spoken"]["2025-06-18"]
    assert "2026-07-28" in summary["not_spoken"]
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["2025-11-25", "versions"]
    assert done.returncode == summary["exit"]


def test_cross_era_differences_are_named(tmp_path):
    # 2026-07-28: an array outputSchema and array structuredContent; 2025-11-25: the fixture's object.
    out = tmp_path / "all"
    server = shlex.join([sys.executable, str(SERVERS / "variant_server.py"), "--mode", "array-structured",
                         "--mode", "strict-cursor"])
    done = run_cli("run", "--protocol", "all", "--server", server, "--out", str(out), "--timeout", "10")
    summary = json.loads((out / "all.json").read_text())
    assert done.returncode == 1 == summary["exit"]
    differing = {d["row"]: d for d in summary["differences"]}
    assert differing["S03"]["FAIL"] == ["2026-07-28"]  # total == length(hits) has no object to read
    assert set(differing["S03"]["PASS"]) == {"2025-11-25", "2025-06-18"}
    kinds = {w["kind"]: w["text"] for w in summary["warnings"]}
    assert "structuredContent is an array" in kinds["structuredContent"]
    assert "2025-11-25 requires an object" in kinds["structuredContent"]
    assert "outputSchema's root is not an object (array)" in kinds["outputSchema"]
    assert "warning: call:structured (search_structured): structuredContent is an array" in done.stdout
    assert "differs: S03 passes in" in done.stdout


def test_protocol_all_is_not_for_fleets(tmp_path):
    targets = tmp_path / "targets.yaml"
    targets.write_text("targets: []\n")
    done = run_cli("run", "--protocol", "all", "--targets", str(targets))
    assert done.returncode == 2 and "--protocol" in done.stderr and "Traceback" not in done.stderr


def test_every_version_over_streamable_http(tmp_path):
    proc, url = start_http_server(str(FIXTURE), "--http", "0")
    try:
        out = tmp_path / "all"
        done = run_cli("run", "--protocol", "all", "--url", url, "--out", str(out), "--timeout", "10")
    finally:
        stop_http_server(proc)
    summary = json.loads((out / "all.json").read_text())
    assert summary["versions"] == ERAS
    for version in ERAS:
        results = json.loads((out / version / "results.json").read_text())
        assert results["conditions"]["transport"] == "Streamable HTTP"
        assert results["conditions"]["protocol_version_on_wire"] == version
    assert done.returncode == summary["exit"]
