"""`mcp-accept diff BASE_RUN CURRENT_RUN`: row by row, exit 1 on a regression."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import fixture_command, run_cli, statuses


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("diff")
    folders = {}
    for name, args in (("good", ()), ("good-again", ()), ("broken", ("--break", "total-999"))):
        folders[name] = base / name
        done = run_cli("run", "--server", fixture_command(*args), "--out", str(folders[name]))
        assert done.returncode in (0, 1), done.stderr
    return folders


def table_rows(stdout: str) -> dict[str, list[str]]:
    """The rows of the piped table: plain columns, two spaces or more apart."""
    rows = {}
    for line in stdout.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=4)
        if len(cells) == 4:
            cells.append("")
        if len(cells) == 5 and len(cells[0]) == 3 and cells[0][0].isalpha() and cells[0][1:].isdigit():
            rows[cells[0]] = cells
    return rows


def test_a_regression_exits_1_and_names_the_rows(pair):
    done = run_cli("diff", str(pair["good"]), str(pair["broken"]))
    assert done.returncode == 1, done.stderr
    rows = table_rows(done.stdout)
    good = json.loads((pair["good"] / "results.json").read_text(encoding="utf-8"))
    broken = json.loads((pair["broken"] / "results.json").read_text(encoding="utf-8"))
    before, after = statuses(good), statuses(broken)
    regressed = sorted(rid for rid in before if before[rid] == "PASS" and after.get(rid) != "PASS")
    assert "S03" in regressed and "X01" in regressed
    assert sorted(rid for rid, cells in rows.items() if cells[3] == "regression") == regressed
    assert rows["S03"][1:4] == ["PASS", "FAIL", "regression"]
    assert "regressions: " in done.stdout and "S03" in done.stdout.splitlines()[-1]


def test_no_regression_exits_0_and_a_fix_is_shown(pair):
    done = run_cli("diff", str(pair["good"]), str(pair["good-again"]))
    assert done.returncode == 0, done.stderr
    assert "no regression" in done.stdout
    done = run_cli("diff", str(pair["broken"]), str(pair["good"]))  # the defect went away
    assert done.returncode == 0, done.stderr
    assert table_rows(done.stdout)["S03"][1:4] == ["FAIL", "PASS", "fixed"]


def test_a_row_gone_from_the_current_run_is_a_regression(pair, tmp_path):
    trimmed = tmp_path / "trimmed"
    shutil.copytree(pair["good"], trimmed)
    results = json.loads((trimmed / "results.json").read_text(encoding="utf-8"))
    results["rows"] = [row for row in results["rows"] if row["id"] != "L02"]
    results["summary"]["PASS"] -= 1  # the file is validated: its counts must agree with its rows
    (trimmed / "results.json").write_text(json.dumps(results), encoding="utf-8")
    done = run_cli("diff", str(pair["good"]), str(trimmed))
    assert done.returncode == 1
    assert table_rows(done.stdout)["L02"][1:4] == ["PASS", "—", "regression"]


def test_a_missing_run_folder_is_one_line(tmp_path, pair):
    done = run_cli("diff", str(tmp_path / "nowhere"), str(pair["good"]))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "nowhere" in done.stderr


def test_runs_of_different_servers_or_inputs_are_warned_about(pair, tmp_path):
    done = run_cli("diff", str(pair["good"]), str(pair["good-again"]))
    assert "different servers or inputs" not in done.stdout + done.stderr  # the same invocation
    done = run_cli("diff", str(pair["good"]), str(pair["broken"]))
    lines = done.stdout.splitlines()
    warning = next(i for i, line in enumerate(lines) if "different servers or inputs" in line)
    table = next(i for i, line in enumerate(lines) if line.startswith("mcp-accept diff: "))
    assert warning < table and "server command" in lines[warning]  # said once, above the table
    assert sum("different servers or inputs" in line for line in lines) == 1
    # the same server with another profile and another --fail-on: each difference is named
    edited = tmp_path / "edited"
    shutil.copytree(pair["good-again"], edited)
    results = json.loads((edited / "results.json").read_text(encoding="utf-8"))
    results["invocation"]["profile"]["sha256"] = "0" * 64
    results["invocation"]["options"]["fail_on"] = "must"
    (edited / "results.json").write_text(json.dumps(results), encoding="utf-8")
    done = run_cli("diff", str(pair["good"]), str(edited))
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "different servers or inputs" in line]
    assert "profile (SHA-256)" in line and "--fail-on" in line and "server command" not in line
