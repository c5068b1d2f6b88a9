"""`mcp-accept report --format hosts | hosts-html` over `host test` folders: the per-host table
(one row per host and version, one column per form and fact) in Markdown and HTML, English and
Japanese; a folder that is not a host test is refused with one line."""

from __future__ import annotations

import html.parser
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLAUDE = ROOT / "tests" / "hosts" / "node_modules" / ".bin" / "claude"


@pytest.fixture(scope="module")
def host_folder(tmp_path_factory) -> Path:
    if not CLAUDE.exists() and not shutil.which("claude"):
        pytest.skip("Claude Code is not installed: npm install --prefix tests/hosts (see .ci/run)")
    out = tmp_path_factory.mktemp("hosts") / "claude-code"
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code", "--host-bin",
                           str(CLAUDE if CLAUDE.exists() else shutil.which("claude")), "--out", str(out)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode in (0, 1), done.stderr
    return out


def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_accept", "report", *args], capture_output=True,
                          text=True, timeout=120)


def test_the_host_table_in_markdown_and_html(host_folder, tmp_path):
    done = report(str(host_folder), "--format", "hosts")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert len(lines) == 3 and lines[2].startswith("| Claude Code (claude-code) | 2.1.332 |")
    shown = lines[2].replace("\\_", "_")  # Markdown may escape an underscore; it renders as one
    assert "mcp__mcpaccept__{tool}" in shown and "ReadMcpResourceTool" in shown
    japanese = report(str(host_folder), "--format", "hosts", "--lang", "ja")
    assert "各ホストがモデルに渡すもの" in japanese.stdout and "ホスト" in japanese.stdout
    page = tmp_path / "hosts.html"
    assert report(str(host_folder), "--format", "hosts-html", "--out", str(page)).returncode == 0
    parser = html.parser.HTMLParser()
    parser.feed(page.read_text())
    assert "<table>" in page.read_text() and "Claude Code (claude-code)" in page.read_text()


def test_the_run_records_protocol_attempts_and_the_setting_that_moves_h03(host_folder):
    facts = json.loads((host_folder / "host-run.json").read_text())
    assert facts["protocol_attempts"] and facts["protocol_attempts"][0]["method"] in ("server/discover", "initialize")
    assert all(a.get("outcome") for a in facts["protocol_attempts"])
    h03 = json.loads((host_folder / "rows" / "H03.json").read_text())
    if h03["status"] == "FAIL":
        assert "MAX_MCP_OUTPUT_TOKENS" in h03["reason"]


def test_a_folder_that_is_not_a_host_test_is_refused(tmp_path):
    run = tmp_path / "run"
    assert subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(run), "-q"],
                          capture_output=True, timeout=120).returncode == 0
    done = report(str(run), "--format", "hosts")
    assert done.returncode == 2 and "host test" in done.stderr and done.stderr.count("\n") == 1
