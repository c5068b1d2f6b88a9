"""`proxy --server CMD` starts its server before the command line is parsed
(mcp_accept.hosts.proxy.early), and prepares its end during the session.

Real processes throughout: the proxy as a host launches it, servers that write their pid,
and a check that none of them is left.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import fixture_command

from mcp_accept.hosts.proxy.early import server_command
from test_proxy_stdio import gone, only_folder, server_pid, wire


@pytest.mark.parametrize("args, found", [
    (["--server", "python s.py", "--out", "x"], "python s.py"),
    (["--out", "x", "--server=python s.py", "--allow-remote"], "python s.py"),
    (["--name", "--server", "--server", "a"], "a"),  # the first --server is --name's value
    (["--server", "a", "--server", "b"], None),  # twice: the parser decides
    (["--server", "a", "--url", "http://127.0.0.1:1/mcp"], None),
    (["--server", "a", "--help"], None),
    (["--server", "a", "--serve", "b"], None),  # not an option of proxy
    (["--server", "a", "extra"], None),
    (["--out"], None),
    ([], None),
])
def test_only_a_command_line_read_for_certain_starts_early(args, found):
    assert server_command(args) == found


def pid_writer(tmp_path: Path) -> tuple[str, Path]:
    """A server that writes its pid and then ignores its input: only a kill ends it."""
    pid_file = tmp_path / "server.pid"
    return f"sh -c 'echo $$ > {pid_file}; exec sleep 60'", pid_file


def test_a_server_started_for_a_refused_command_line_is_stopped(tmp_path):
    command, pid_file = pid_writer(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--server", command,
                           "--out", str(tmp_path / "runs"), "--max-bytes", "1"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--max-bytes" in done.stderr
    assert not (tmp_path / "runs").exists()  # refused before anything was written
    # started by python -m mcp_accept before the parser refused the line, and gone with it
    pid = int(pid_file.read_text().strip())
    assert gone(pid)


def test_a_signal_during_the_start_ends_the_session_with_a_complete_folder(tmp_path):
    """SIGTERM after the early start and before the proxy has its own handlers: held, then the
    session it ends is recorded as ended by it, and the server started early is the session's."""
    out = tmp_path / "runs"
    script = textwrap.dedent(f"""
        import os, signal, sys
        from mcp_accept.hosts.proxy import early
        args = ["--server", {fixture_command()!r}, "--out", {str(out)!r}]
        early.prestart(args)
        print(early._started.proc.pid, file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGTERM)
        sys.argv = ["mcp-accept", "proxy", *args]
        from mcp_accept.cli import main
        main()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    early_pid = int(err.decode().split()[0])
    folder = only_folder(out)
    ended = [e for e in wire(folder) if e.get("event") == "proxy-end"]
    assert ended[0]["detail"] == "signal SIGTERM"
    assert server_pid(folder) == early_pid and gone(early_pid)
    assert (folder / "results.json").is_file()


def test_preparing_the_end_writes_nothing(tmp_path):
    script = "from mcp_accept.hosts.proxy.folder import prepare_end; prepare_end('stdio')"
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and not done.stderr
    assert os.listdir(tmp_path) == []


def test_host_test_waits_for_a_proxy_to_be_gone_not_for_its_results_json(tmp_path):
    """results.json is written before sheet.md: a folder is read once its proxy has ended."""
    from mcp_accept.hosts.harness import wait_for_proxies

    base = tmp_path / "proxy"
    script = textwrap.dedent("""
        import os, sys, time
        folder = os.path.join(sys.argv[1], f"mcpaccept-20260101T000000Z-{os.getpid()}")
        os.makedirs(folder)
        open(os.path.join(folder, "results.json"), "w").write("{}")
        print("ready", flush=True)
        time.sleep(0.5)
        open(os.path.join(folder, "sheet.md"), "w").write("done")
    """)
    proc = subprocess.Popen([sys.executable, "-c", script, str(base)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "ready\n"
        wait_for_proxies(base, 20)  # the process is left unreaped: a zombie counts as gone
        assert (only_folder(base) / "sheet.md").read_text() == "done"
    finally:
        proc.kill()
        proc.wait()
