"""A server that exits at once is started once: the era probe, `--protocol all` and
`profile init` do not start it again when it ended without reading a request. One that read
the probe and then ended is still given a fresh start (a legacy server may end on a first
request other than `initialize`)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conftest import run_cli

# Appends one line per start to the file it is given, then ends without reading its stdin.
EXITS_AT_ONCE = """\
import sys
with open(sys.argv[1], "a") as log:
    log.write("start\\n")
sys.stderr.write("boom\\n")
sys.exit(1)
"""

# Appends one line per start, reads one request, then ends (as a server that only accepts
# initialize first might).
ENDS_AFTER_ONE = """\
import sys
with open(sys.argv[1], "a") as log:
    log.write("start\\n")
sys.stdin.readline()
sys.exit(1)
"""


def server(tmp_path: Path, body: str) -> tuple[str, Path]:
    script, starts = tmp_path / "server.py", tmp_path / "starts.txt"
    script.write_text(body, encoding="utf-8")
    return shlex.join([sys.executable, str(script), str(starts)]), starts


@pytest.mark.parametrize("args", [["run"], ["run", "--protocol", "all"], ["profile", "init"]],
                         ids=["run", "protocol-all", "profile-init"])
def test_a_server_that_exits_at_once_is_started_once(tmp_path, args):
    command, starts = server(tmp_path, EXITS_AT_ONCE)
    done = run_cli(*args, "--server", command, "--out", str(tmp_path / "out"), timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert starts.read_text(encoding="utf-8").splitlines() == ["start"]
    if args == ["run"]:
        [line] = done.stderr.strip().splitlines()
        assert line.count("boom") == 1, line  # one start, so its stderr is told once


def test_a_server_that_read_the_probe_is_started_afresh(tmp_path):
    command, starts = server(tmp_path, ENDS_AFTER_ONE)
    done = run_cli("run", "--server", command, "--out", str(tmp_path / "out"), timeout=60)
    assert done.returncode == 3, done.stdout + done.stderr
    assert len(starts.read_text(encoding="utf-8").splitlines()) == 2


def test_a_line_the_server_repeats_is_told_once_and_no_word_is_cut(tmp_path):
    """Each start of a server that read the probe prints the same line: the cause quotes it
    once; a long stderr is cut at a space, not inside a word."""
    from mcp_accept.running.execute import stderr_tail

    body = ENDS_AFTER_ONE.replace("sys.stdin.readline()", "sys.stderr.write('boom\\\\n'); sys.stdin.readline()")
    command, starts = server(tmp_path, body)
    done = run_cli("run", "--server", command, "--out", str(tmp_path / "out"), timeout=60)
    assert done.returncode == 3 and len(starts.read_text().splitlines()) == 2
    [line] = done.stderr.strip().splitlines()
    assert "stderr ends: boom" in line and "boom | boom" not in line, line
    folder = tmp_path / "long"
    folder.mkdir()
    (folder / "stderr.log").write_text(" ".join(f"word{n:03d}" for n in range(200)) + "\n", encoding="utf-8")
    tail = stderr_tail(folder, limit=100)
    assert tail.startswith("...word") and tail.endswith("word199") and len(tail) <= 103
