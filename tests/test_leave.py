"""``mcp-accept run`` ends its process without the interpreter's teardown: what teardown
does that a user can see must still happen (exit code, flushed output, atexit work,
threads that are not daemons)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _leave(tmp_path, code: str, body: str = "") -> subprocess.CompletedProcess:
    script = textwrap.dedent(f"""
        import atexit, sys, threading, time
        from pathlib import Path
        from mcp_accept.__main__ import leave
        atexit.register(lambda: Path({str(tmp_path / 'atexit')!r}).write_text('ran'))
        {body}
        sys.stdout.write('buffered, not flushed')
        sys.stderr.write('to stderr')
        leave({code})
        print('never printed')
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_leave_keeps_the_exit_code_the_output_and_atexit(tmp_path):
    done = _leave(tmp_path, "3")
    assert done.returncode == 3
    assert done.stdout == "buffered, not flushed" and done.stderr == "to stderr"
    assert (tmp_path / "atexit").read_text() == "ran"


def test_leave_reads_exit_codes_as_sys_exit_does(tmp_path):
    assert _leave(tmp_path, "None").returncode == 0
    done = _leave(tmp_path, "'a message'")
    assert done.returncode == 1 and done.stderr.endswith("a message\n")


def test_leave_waits_for_threads_that_are_not_daemons(tmp_path):
    body = (f"threading.Thread(target=lambda: (time.sleep(0.3), "
            f"Path({str(tmp_path / 'thread')!r}).write_text('done'))).start()")
    assert _leave(tmp_path, "0", body).returncode == 0
    assert (tmp_path / "thread").read_text() == "done"
