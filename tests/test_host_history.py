"""`host history --range A..B` and `--bisect CELL` without the public registries: the versions
of a range are read by the real npm from a registry on 127.0.0.1 that publishes a made-up list
(semver order is not the order of the strings, pre-releases among them); a registry that does
not answer is one line and exit 3 (npm and PyPI); bad ranges and cells are one line and exit 2
before anything runs; history.html is the matrix's page of the history's table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from conftest import loopback_http

from mcp_accept.output.host_diff import render_history_html

PUBLISHED = ["1.9.0", "1.10.0-beta.1", "1.10.0", "1.10.1", "1.11.0-rc.1", "1.11.0", "2.0.0", "10.0.0"]


class Packument(BaseHTTPRequestHandler):
    """A registry's answer for any package: PUBLISHED, listed out of order as registries may."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        name = self.path.lstrip("/").replace("%2f", "/").replace("%2F", "/")
        versions = {v: {"name": name, "version": v, "dist": {"tarball": f"http://127.0.0.1/{v}.tgz"}}
                    for v in reversed(PUBLISHED)}
        body = json.dumps({"name": name, "dist-tags": {"latest": "10.0.0"}, "versions": versions,
                           "time": {v: "2025-01-01T00:00:00.000Z" for v in PUBLISHED}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def registry():
    with loopback_http(Packument) as url:
        yield url


def closed_port() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"


def history(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    decoy = tmp_path / "home"
    decoy.mkdir(exist_ok=True)
    full = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"), **(env or {}))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "history", *args, "--host-cache",
                           str(tmp_path / "cache")], capture_output=True, text=True, timeout=120, env=full)
    assert not any(decoy.iterdir()), list(decoy.iterdir())  # npm's cache and logs went to the host cache
    return done


def in_range(text: str, cache: Path, limit: int | None = 12) -> list[str]:
    from mcp_accept.hosts.registry import ADAPTERS
    from mcp_accept.hosts.versions import versions_in_range

    return versions_in_range(ADAPTERS["claude-code"], text, cache, limit)


def test_a_range_is_the_registrys_versions_in_semver_order_stable_unless_a_bound_is_not(registry, tmp_path,
                                                                                        monkeypatch) -> None:
    monkeypatch.setenv("npm_config_registry", registry)
    cache = tmp_path / "cache"
    # 10.0.0 sorts after 2.0.0 (semver), though not as strings; pre-releases left out
    assert in_range("1.9.0..10.0.0", cache) == ["1.9.0", "1.10.0", "1.10.1", "1.11.0", "2.0.0", "10.0.0"]
    # a bound that is a pre-release takes the pre-releases in
    assert in_range("1.10.0-beta.1..1.11.0", cache) == ["1.10.0-beta.1", "1.10.0", "1.10.1", "1.11.0-rc.1",
                                                           "1.11.0"]
    assert in_range("1.10.1..1.11.0", cache) == ["1.10.1", "1.11.0"]
    from mcp_accept.errors import InputError

    with pytest.raises(InputError, match="holds 6 published versions, more than --max-versions 3"):
        in_range("1.9.0..10.0.0", cache, limit=3)
    assert len(in_range("1.9.0..10.0.0", cache, limit=None)) == 6  # --bisect: no bound


def test_bad_ranges_are_one_line_and_exit_2(registry, tmp_path) -> None:
    env = {"npm_config_registry": registry}
    cases = {
        ("--range", "1.9.0..10.0.0", "--max-versions", "4"): "holds 6 published versions, more than --max-versions 4",
        ("--range", "2.0.0..1.9.0"): "2.0.0 comes after 1.9.0 in npm's order",
        ("--range", "1.9.0..3.0.0"): "has no version 3.0.0 published on npm",
        ("--range", "1.9.0"): "must be two published versions A..B",
        ("--range", "1.9.0..2.0.0", "--versions", "1.9.0,2.0.0"): "give --versions V1,V2,... or --range A..B",
        ("--versions", "1.9.0,2.0.0", "--bisect", "structured_seen"): "--bisect needs --range",
        ("--range", "1.9.0..2.0.0", "--bisect", "structured_sen"): "must be a cell of history.json",
    }
    for args, said in cases.items():
        done = history(tmp_path, "claude-code", *args, "--out", str(tmp_path / "out"), env=env)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and said in lines[0], (args, done.stderr)
        assert not (tmp_path / "out").exists()
    # --bisect lifts --max-versions: the range is read, and the too-long error is not given
    done = history(tmp_path, "claude-code", "--range", "1.9.0..10.0.0", "--max-versions", "2", "--bisect",
                   "nope", env=env)
    assert done.returncode == 2 and "must be a cell" in done.stderr


def test_a_registry_that_does_not_answer_is_one_line_and_exit_3(tmp_path) -> None:
    done = history(tmp_path, "claude-code", "--range", "2.0.19..2.0.22", "--out", str(tmp_path / "out"),
                   env={"npm_config_registry": closed_port()})
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot list @anthropic-ai/claude-code's versions from npm: ECONNREFUSED" in lines[0]
    # PyPI's JSON API, through a proxy that refuses (httpx reads the proxy from the environment)
    done = history(tmp_path, "fast-agent", "--range", "0.3.0..0.3.2", "--out", str(tmp_path / "out"),
                   env={"HTTPS_PROXY": closed_port(), "NO_PROXY": ""})
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot list fast-agent-mcp's versions from PyPI" in lines[0], done.stderr
    assert not (tmp_path / "out").exists()


def test_history_html_is_the_matrixs_page_with_changed_rows_marked_and_text_inert() -> None:
    table = {"host": "claude-code", "versions": ["2.0.20", "2.0.21"], "measured_at": "2026-01-01T00:00:00Z",
             "interrupted": None,
             "cells": [{"cell": "structured_seen", "values": {"2.0.20": "text twin", "2.0.21": "structuredContent"},
                        "changed": True},
                       {"cell": "client", "values": {"2.0.20": "<script>x</script>", "2.0.21": "<script>x</script>"},
                        "changed": False}],
             "bisect": {"cell": "structured_seen", "range": ["2.0.20", "2.0.21"], "versions_in_range": 2,
                        "ran": [{"version": "2.0.20", "value": "text twin"},
                                {"version": "2.0.21", "value": "structuredContent"}],
                        "runs": 2, "seconds": 10.0, "first_with_b_value": "2.0.21", "last_before": "2.0.20",
                        "b_value": "structuredContent"}}
    page = render_history_html(table)
    assert page.startswith("<!doctype html>") and "<script>" not in page and "&lt;script&gt;" in page
    assert '<tr class="changed"><td>structured_seen</td><td>text twin</td><td>structuredContent</td></tr>' in page
    assert "<tr><td>client</td>" in page
    assert "<th>2.0.20</th><th>2.0.21</th>" in page
    assert "<li>first version with 2.0.21&#x27;s value (structuredContent): 2.0.21" in page
