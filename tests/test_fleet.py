"""`mcp-accept run --targets FILE`: many servers at once, each in its own folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import fixture_command, load_results, port_holder, run_cli, statuses
from mcp_accept.errors import ExitStatus
from mcp_accept.running.execute import RunOptions
from mcp_accept.running.fleet import TargetResult, default_name, fleet_status, load_targets


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def quoted(command: str) -> str:
    return json.dumps(command)  # a YAML double-quoted scalar


def error_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def mixed_fleet(tmp_path_factory):
    """One fleet of four: a good server over stdio, one with a defect, one that cannot be
    started, and the fixture over Streamable HTTP; two at a time."""
    base = tmp_path_factory.mktemp("fleet")
    (base / "profiles").mkdir()
    write(base / "profiles" / "commit.yaml", "server_commit: abc123\n")
    with port_holder() as hold:
        return _run_mixed_fleet(base, hold())


def _run_mixed_fleet(base, port: int):
    targets = write(base / "targets.yaml", f"""
defaults:
  timeout: 5
  set: ["host_product=fleet-test"]
targets:
  - name: good
    server: {quoted(fixture_command())}
    conditions: profiles/commit.yaml
  - name: broken
    server: {quoted(fixture_command("--break", "total-999"))}
    protocol: "2025-11-25"
  - server: {quoted(sys.executable + " /nonexistent/folder/server.py")}
  - name: over-http
    url: http://127.0.0.1:{port}/mcp
    server: {quoted(fixture_command("--http", str(port)))}
""")
    out = base / "out"
    proc = run_cli("run", "--targets", str(targets), "--out", str(out), "--jobs", "2", timeout=300)
    return proc, out


def test_fleet_runs_every_target_into_its_own_folder(mixed_fleet):
    proc, out = mixed_fleet
    # the server that could not be started makes the fleet's status 3; the others still ran
    assert proc.returncode == ExitStatus.SERVER, proc.stderr
    good = load_results(out / "good")
    assert good["conditions"]["server_commit"] == "abc123"  # conditions path read from the file's folder
    assert good["conditions"]["host_product"] == "fleet-test"  # defaults.set reached the run
    assert set(statuses(good).values()) <= {"PASS", "PENDING"}
    broken = load_results(out / "broken")
    assert broken["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert {rid for rid, s in statuses(broken).items() if s == "FAIL"} == {"S03", "X01"}
    unreachable = load_results(out / "server")  # named after the command's script
    assert "UNOBTAINABLE" in statuses(unreachable).values()
    http = load_results(out / "over-http")
    assert http["conditions"]["transport"] == "Streamable HTTP"
    assert set(statuses(http).values()) <= {"PASS", "PENDING"}


def test_fleet_index_and_summary_name_every_target(mixed_fleet):
    proc, out = mixed_fleet
    index = json.loads((out / "fleet.json").read_text(encoding="utf-8"))
    assert index["format"] == "mcp-accept/fleet/1"
    assert index["exit"] == ExitStatus.SERVER and index["jobs"] == 2
    by_name = {t["name"]: t for t in index["targets"]}
    assert list(by_name) == ["good", "broken", "server", "over-http"]  # the file's order
    assert by_name["good"]["exit"] == 0 and by_name["broken"]["exit"] == 1
    assert by_name["broken"]["summary"]["FAIL"] == 2
    # the run's one-line cause: the command, its exit code, the end of its stderr
    assert by_name["server"]["exit"] == 3 and "exited with code 2" in by_name["server"]["error"]
    assert "/nonexistent/folder/server.py" in by_name["server"]["error"]
    assert by_name["good"]["folder"] == "good"
    for name in by_name:
        assert name in proc.stdout  # the one summary table
    assert "4 targets: 2 passed, 1 with failing rows, 1 not tested" in proc.stdout.replace("\n", " ")
    assert proc.stderr.count("] ") >= 4  # a progress line per target


def test_targets_conflicts_with_server_and_jobs_needs_targets(tmp_path):
    targets = write(tmp_path / "t.yaml", "targets:\n  - name: a\n")
    proc = run_cli("run", "--targets", str(targets), "--server", fixture_command())
    assert proc.returncode == 2
    assert "--targets" in error_line(proc)
    proc = run_cli("run", "--targets", str(targets), "--url", "http://127.0.0.1:9/mcp")
    assert proc.returncode == 2 and "--targets" in error_line(proc)
    proc = run_cli("run", "--jobs", "2", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "--jobs" in error_line(proc)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("text, where", [
    ("targets:\n  - name: a\n    sever: x\n", ":3: targets[0].sever: unknown field"),
    ("targets:\n  - name: a\n  - protocol: 2024-01-01\n", ":3: targets[1].protocol: must be one of"),
    ("targets: []\n", ":1: targets: must not be empty"),
    ("defaults:\n  timeout: 0\ntargets:\n  - {}\n", ":2: defaults.timeout: must be a number of seconds above 0"),
    ("targets:\n  - name: ../up\n", ":2: targets[0].name: must be a name"),
    ("targets:\n  - url: ftp://x/mcp\n", ":2: targets[0].url: must be an http:// or https:// URL"),
])
def test_bad_targets_file_is_one_line_naming_file_line_field(tmp_path, text, where):
    targets = write(tmp_path / "t.yaml", text)
    proc = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    line = error_line(proc)
    assert f"t.yaml{where}" in line
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


def test_a_target_whose_profile_is_missing_stops_the_fleet_before_any_run(tmp_path):
    targets = write(tmp_path / "t.yaml", "targets:\n  - name: ok\n  - name: bad\n    profile: nope.yaml\n")
    proc = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "nope.yaml: no such file" in error_line(proc)
    assert not (tmp_path / "out").exists()


def test_bad_set_item_and_literal_credential_name_the_entry(tmp_path):
    targets = write(tmp_path / "t.yaml", "targets:\n  - name: a\n  - name: b\n    set: [nonsense]\n")
    proc = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "t.yaml: targets[1]" in error_line(proc) and "KEY=VALUE" in error_line(proc)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    targets = write(tmp_path / "t2.yaml", f"targets:\n  - url: http://127.0.0.1:9/mcp\n"
                                          f"    headers: ['Authorization: Bearer {token}']\n")
    proc = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "out2"))
    assert proc.returncode == 2
    line = error_line(proc)
    assert "env:VAR" in line and "targets[0]" in line and token not in line
    assert not (tmp_path / "out2").exists()


def test_targets_overlay_and_names(tmp_path):
    write(tmp_path / "p.yaml", "x")
    targets = write(tmp_path / "t.yaml", """
defaults: {profile: p.yaml, timeout: 3, protocol: "2025-06-18"}
targets:
  - server: "python servers/search.py --port 1"
  - server: "node dist/index.js"
  - url: https://mcp.example.com:8443/mcp
  - {}
  - {}
  - {name: own, protocol: auto, timeout: 7}
""")
    base = RunOptions(sets=["S02.mode=exact"], timeout=10.0)
    found = load_targets(targets, base, tmp_path / "out")
    assert [t.name for t in found] == ["search", "index", "mcp.example.com-8443", "fixture", "fixture-2", "own"]
    assert found[0].options.profile == tmp_path / "p.yaml"
    assert found[0].options.out == tmp_path / "out" / "search"
    assert (found[0].options.timeout, found[0].options.protocol) == (3, "2025-06-18")
    assert (found[5].options.timeout, found[5].options.protocol) == (7, "auto")
    assert found[2].options.url == "https://mcp.example.com:8443/mcp" and found[2].options.server is None
    assert all(t.options.sets == ["S02.mode=exact"] for t in found)
    assert default_name({"server": "npx -y @scope/pkg"}) == "pkg"


def test_fleet_status_is_the_worst_target():
    def r(code):
        return TargetResult(0, "t", "f", code)

    assert fleet_status([r(0), r(0)]) == ExitStatus.OK
    assert fleet_status([r(0), r(1)]) == ExitStatus.FAILED
    assert fleet_status([r(1), r(3), r(0)]) == ExitStatus.SERVER
    assert fleet_status([r(1), r(130)]) == ExitStatus.INTERRUPTED
    assert fleet_status([r(0)], interrupted=True) == ExitStatus.INTERRUPTED


def test_interrupting_a_fleet_keeps_the_folders_of_runs_under_way(tmp_path):
    hang = quoted(fixture_command("--break", "hang"))
    targets = write(tmp_path / "t.yaml", f"defaults: {{timeout: 60}}\ntargets:\n"
                                         f"  - {{name: one, server: {hang}}}\n"
                                         f"  - {{name: two, server: {hang}}}\n"
                                         f"  - {{name: three, server: {hang}}}\n")
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "mcp_accept", "run", "--targets", str(targets),
                             "--out", str(out), "--jobs", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        # wait until both running servers have been asked for the call that never answers
        while time.monotonic() < deadline:
            logs = [out / name / "wire.jsonl" for name in ("one", "two")]
            if all(p.is_file() and "search_embedded" in p.read_text(encoding="utf-8") for p in logs):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the runs never reached the hanging call")
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == ExitStatus.INTERRUPTED, stderr
    assert "Traceback" not in stderr
    for name in ("one", "two"):
        results = load_results(out / name)
        assert results["interrupted"] is True
    index = json.loads((out / "fleet.json").read_text(encoding="utf-8"))
    assert index["interrupted"] is True
    assert {t["name"]: t["exit"] for t in index["targets"]}["three"] == ExitStatus.INTERRUPTED
    assert "(interrupted)" in stdout


def test_one_job_runs_the_targets_in_turn_in_this_process(tmp_path):
    from mcp_accept.running.fleet import run_fleet

    targets = write(tmp_path / "t.yaml", f"targets:\n  - name: a\n"
                                         f"  - {{name: b, server: {quoted(fixture_command('--break', 'total-999'))}}}\n")
    seen = []
    fleet = run_fleet(targets, RunOptions(out=tmp_path / "out", timeout=5), jobs=1,
                      on_result=lambda result, done, total: seen.append((result.name, done, total)))
    assert seen == [("a", 1, 2), ("b", 2, 2)]
    assert fleet.jobs == 1 and fleet.status == ExitStatus.FAILED
    assert [r.exit for r in fleet.results] == [0, 1]
    assert statuses(load_results(tmp_path / "out" / "b"))["S03"] == "FAIL"
    assert json.loads((tmp_path / "out" / "fleet.json").read_text(encoding="utf-8"))["exit"] == 1
