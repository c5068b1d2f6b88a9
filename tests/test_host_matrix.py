"""`mcp-accept host matrix`: every installed host side by side against the fixture, one table
(matrix.json, Markdown and HTML in English and Japanese) with a row per host; a host that is
not installed is a row that says so, not an error."""

from __future__ import annotations

import html.parser
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_accept.hosts.adapters import ADAPTERS
from hostkit import HOSTS_BIN, PINNED, ROOT, processes_mentioning

# the npm hosts, and fast-agent's venv (.ci/run makes both)
BINS = [HOSTS_BIN, ROOT / "tests" / "hosts" / "fast-agent-venv" / "bin"]


def matrix(tmp_path: Path, *args: str, path: str | None = None) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "matrix"
    env = dict(os.environ, PATH=path if path is not None else os.pathsep.join([*map(str, BINS), os.environ["PATH"]]))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=900, env=env)
    return done, out


def installed() -> list[str]:
    return [name for name, adapter in ADAPTERS.items() if any((b / adapter.binary).exists() for b in BINS)]


def test_matrix_of_every_installed_host(tmp_path):
    hosts = installed()
    if len(hosts) < 2:
        pytest.skip("fewer than two hosts installed: npm ci --prefix tests/hosts (see .ci/run)")
    done, out = matrix(tmp_path, "--hosts", ",".join(hosts), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "matrix.json").read_text())
    rows = {row["host"]: row for row in data["rows"]}
    assert sorted(rows) == sorted(hosts)
    for name, row in rows.items():
        assert not row.get("error"), (name, row.get("error"))
        package = ADAPTERS[name].npm_package
        # the npm hosts at the versions of package.json; fast-agent at the constraints' version
        assert row["version"] == (PINNED[package] if package in PINNED else ADAPTERS[name].tested_version)
        assert row["text"] == "whole" and row["embedded"] == "whole", (name, row)
        assert row["other_connects"] == [], (name, row["other_connects"])
        assert row["tool_names"] and "{tool}" in row["tool_names"]
        assert row["H01"] == "PASS" and row["H02"] in ("PASS", "FAIL") and row["H03"] in ("PASS", "FAIL")
    table = (out / "matrix.md").read_text()
    assert table.count("\n| ") == len(hosts) + 2  # a header, its rule and one line per host
    assert "モデル" in (out / "matrix.ja.md").read_text()
    page = html.parser.HTMLParser()
    page.feed((out / "matrix.html").read_text())
    assert (out / "matrix.ja.html").is_file()
    assert table.strip() in done.stdout.strip() or done.stdout.count("| ") >= len(hosts)
    assert not processes_mentioning(str(out))


def test_a_host_that_is_not_installed_is_a_row(tmp_path):
    done, out = matrix(tmp_path, "--hosts", "codex", path=str(tmp_path / "empty-path"))
    assert done.returncode == 3
    row = json.loads((out / "matrix.json").read_text())["rows"][0]
    assert row["host"] == "codex" and row["error"].startswith("not installed")
    assert "not installed" in (out / "matrix.md").read_text()


def test_unknown_hosts_are_bad_input(tmp_path):
    done, _ = matrix(tmp_path, "--hosts", "codex,notepad")
    assert done.returncode == 2 and "--hosts" in done.stderr and "notepad" in done.stderr
