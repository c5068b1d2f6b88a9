"""However a host run ends (normally, SIGINT to its process group as Ctrl-C sends it, SIGTERM,
SIGHUP; as its folder is opened, while the host's version is checked, as the harness starts, while
the host talks to its model), every process it started is gone when the command returns, a server
that escaped its process group included, and the folder is written and marked interrupted, with
exit status 128 + the signal's number. ``host matrix`` stops the same way at the host it runs."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hostkit import ROOT, host_bin, processes_mentioning

HOST = "gemini-cli"  # the quickest of the hosts to start


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, Path]:
    out = tmp_path / "run"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    proc = subprocess.Popen([sys.executable, "-m", "mcp_accept", "host", "test", HOST, "--host-bin", host_bin(HOST),
                             "--out", str(out), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True)
    return proc, out


def wait_for(check, proc: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert proc.poll() is None, "the run ended before the moment the test waits for"
        assert time.monotonic() < deadline, "the moment never came"
        time.sleep(0.02)


def stop(proc: subprocess.Popen, sig: int) -> str:
    """Send SIG as a user would (SIGINT to the whole process group, as a terminal's Ctrl-C) and
    check the command ended with 128 + its number, saying so in one line. Returns its stderr."""
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, err
    assert f"interrupted by {sig.name}" in err and "Traceback" not in err
    return err


def model_requests(out: Path) -> int:
    log = out / "model.jsonl"
    return log.read_text().count('"dir":"in"') if log.is_file() else 0


def argv_of(pid: str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return []


def children_of(proc: subprocess.Popen) -> list[list[str]]:
    """The command lines of the processes PROC started that are still running."""
    try:
        pids = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    except OSError:
        return []
    return [argv_of(pid) for pid in pids]


def harness_started(out: Path) -> bool:
    """The harness has been started in its namespaces (``unshare`` forked it): it may not yet
    listen for any signal, and nothing of the host has started."""
    job = str(out / "job.json")
    return any(argv[1:3] == ["-m", "mcp_accept.hosts.harness"] and job in argv
               for argv in map(argv_of, filter(str.isdigit, os.listdir("/proc"))))


# Each moment is seen from outside as it begins, and the signal is sent at once. The set-up
# moments come before the host starts: the folder is then written by the command itself.
MOMENTS = {
    "as its run folder appears": lambda out, proc: out.is_dir(),
    "while the host's version is checked": lambda out, proc: any("--version" in a for a in children_of(proc)),
    "as the harness starts": lambda out, proc: harness_started(out),
    "while the host talks to its model": lambda out, proc: model_requests(out) >= 2,
}
SET_UP = ("as its run folder appears", "while the host's version is checked")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
@pytest.mark.parametrize("moment", sorted(MOMENTS))
def test_a_signal_stops_everything_and_marks_the_folder(tmp_path, sig, moment):
    proc, out = start(tmp_path)
    wait_for(lambda: MOMENTS[moment](out, proc), proc)
    err = stop(proc, sig)
    results = json.loads((out / "results.json").read_text())
    if moment in SET_UP:  # the host never started: the command wrote the rows, each saying so
        assert all("started" in row["reason"] for row in results["rows"])
    if results["interrupted"]:
        assert all(f"interrupted by {sig.name}" in row["reason"] for row in results["rows"])
    else:  # the signal came after the host had finished: the folder is complete, and says so
        assert moment == "while the host talks to its model" and "the folder is complete" in err
    assert not processes_mentioning(str(out))


def test_a_server_that_escapes_its_process_group_is_not_left_running(tmp_path):
    mark = "mcp-accept-escaped-" + secrets.token_hex(4)
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'escaping_server.py'} {mark}"
    proc, out = start(tmp_path, "--server", server)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode in (0, 1), err
    assert not processes_mentioning(mark), "the escaped process outlived the host run"
    assert not processes_mentioning(str(out))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_stops_host_matrix_at_the_host_it_runs(tmp_path, sig):
    """The host running is stopped at once (its folder marked interrupted), the next is not
    started, and the matrix of what was done is written, marked interrupted too."""
    out = tmp_path / "matrix"
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(host_bin(HOST)).parent), os.environ["PATH"]]))
    proc = subprocess.Popen([sys.executable, "-m", "mcp_accept", "host", "matrix", "--hosts", f"{HOST},codex",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    wait_for(lambda: model_requests(out / HOST) >= 2, proc)
    stop(proc, sig)
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["interrupted"] == sig.name
    rows = {row["host"]: row for row in matrix["rows"]}
    assert rows[HOST]["error"] == f"interrupted by {sig.name}"
    assert rows["codex"]["error"] == f"not run: interrupted by {sig.name}" and not (out / "codex").exists()
    assert json.loads((out / HOST / "results.json").read_text())["interrupted"]
    assert f"Interrupted by {sig.name}" in (out / "matrix.md").read_text()
    assert not processes_mentioning(str(out))


def test_a_stop_signal_raises_nothing_where_it_lands_and_is_seen_where_the_run_waits():
    """The handler only records the signal: an exception raised where it landed could leave a
    lock of the interrupted code held (subprocess's wait lock), and the next wait on it blocks
    for ever."""
    from mcp_accept.hosts import stop_signals

    before = signal.getsignal(signal.SIGTERM)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with stop_signals.stopping_on_signals():
            os.kill(os.getpid(), signal.SIGTERM)
            landed = sum(range(1000))  # the handler has run by now, and raised nothing here
            assert landed and stop_signals.requested() == signal.SIGTERM
            with pytest.raises(stop_signals.HostInterrupted):
                stop_signals.wait(child, 60)
    finally:
        child.kill()
        child.wait()
    assert signal.getsignal(signal.SIGTERM) is before
