"""The sdk layer's replay process kept warm between runs: later runs replay in it, it says
what any other replay says, a process that fails is replaced without a wrong verdict, it
leaves when its socket goes, and it is never kept where another user could reach it.

Every test here keeps its warm process in a folder of its own and ends it itself."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from conftest import fixture_command, run_cli
from mcp_accept.checks import sdk, sdk_warm
from mcp_accept.evidence.bounded import process_running

pytest.importorskip("mcp", reason="the sdk extra is not installed")

SDK_ROWS = ("T01", "S01", "E01", "L01", "L02", "L03")


@pytest.fixture
def warm_env(monkeypatch):
    """A runtime folder of this test's own, the layer on, processes kept warm; whatever is
    still listening there at the end is ended. (A short path: a Unix socket's path has a
    limit of 107 bytes.)"""
    import shutil
    import tempfile

    runtime = Path(tempfile.mkdtemp(prefix="mcpa-"))
    env = {"XDG_RUNTIME_DIR": str(runtime), "MCP_ACCEPT_SDK": "on", "MCP_ACCEPT_SDK_WARM": "120"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    sdk.sdk_info.cache_clear()
    try:
        yield env
    finally:
        end_warm(runtime / "mcp-accept")
        sdk.sdk_info.cache_clear()
        shutil.rmtree(runtime, ignore_errors=True)


def listener_pid(path: Path) -> int | None:
    return sdk_warm.listener_pid(str(path))


def alive(pid: int) -> bool:
    return process_running(pid)


def end_warm(folder: Path) -> None:
    """End every warm process in ``folder`` (by deleting its socket); kill any that stays."""
    left = sdk_warm.end_processes(str(folder))
    for pid in left:
        os.kill(pid, 9)
    assert not left, f"warm processes {left} did not leave when their socket was deleted"


def sdk_column(folder: Path) -> dict:
    out = {}
    for row in SDK_ROWS:
        evidence = json.loads((folder / "rows" / f"{row}.json").read_text(encoding="utf-8"))
        out[row] = [(c["status"], c["detail"]) for c in evidence["checks"] if c["layer"] == "sdk"]
    return out


def the_socket(env: dict) -> Path:
    """The socket the replay process of the last run listens on (it detaches, then binds:
    it may take a moment after the run has ended)."""
    folder = Path(env["XDG_RUNTIME_DIR"]) / "mcp-accept"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = list(folder.glob("*.sock"))
        if found and listener_pid(found[0]) is not None:
            break
        time.sleep(0.05)
    assert len(found) == 1, found
    return found[0]


def test_a_later_run_replays_in_the_process_the_first_one_left_warm(tmp_path, warm_env):
    first = run_cli("run", "--server", fixture_command("--break", "total-string"), "--out", str(tmp_path / "a"),
                    env=warm_env)
    assert first.returncode == 1, first.stderr
    path = the_socket(warm_env)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    pid = listener_pid(path)
    assert pid is not None and alive(pid) and pid != os.getpid()

    worker = sdk._spawn()  # what the next run gets: a connection, not a new process
    assert isinstance(worker, sdk.WarmWorker)
    worker.close()

    second = run_cli("run", "--server", fixture_command("--break", "total-string"), "--out", str(tmp_path / "b"),
                     env=warm_env)
    assert second.returncode == 1, second.stderr
    # the same process still listens: the second run did not start a replacement
    assert listener_pid(path) == pid
    assert sdk_column(tmp_path / "a") == sdk_column(tmp_path / "b")
    assert sdk_column(tmp_path / "b")["S01"][0][0] in ("PASS", "FAIL")

    end_warm(path.parent)
    assert not alive(pid) and not path.exists()


@pytest.mark.parametrize("args", [(), ("--break", "total-string"), ("--break", "content-missing")])
def test_the_warm_process_says_what_an_in_process_replay_says(tmp_path, warm_env, args):
    from mcp_accept.running.execute import RunOptions, run

    recording = run(RunOptions(server=fixture_command(*args), out=tmp_path / "run", timeout=5.0)).recording
    job = sdk.make_job(recording, 1.0)
    here = sdk.replay_job(job)
    for _ in range(2):  # the first replay leaves the process warm, the second is made in it
        worker = sdk._spawn()
        try:
            there = worker.replay(job)
        finally:
            worker.close()
        assert asdict(there) == asdict(here), args
        assert worker.peak_rss > 0
    assert isinstance(worker, sdk.WarmWorker)


def test_a_warm_process_that_drops_the_job_is_replaced_and_the_verdicts_hold(tmp_path, warm_env):
    from mcp_accept.running.execute import RunOptions, run

    recording = run(RunOptions(server=fixture_command(), out=tmp_path / "run", timeout=5.0)).recording
    job = sdk.make_job(recording, 1.0)
    here = sdk.replay_job(job)

    path = Path(sdk_warm.socket_path())
    end_warm(path.parent)  # the one the recording's run left
    impostor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # takes the job, answers nothing
    impostor.bind(str(path))
    impostor.listen(1)

    def drop() -> None:
        conn, _ = impostor.accept()
        conn.recv(1024)
        conn.close()

    dropping = threading.Thread(target=drop, daemon=True)
    dropping.start()
    worker = sdk._spawn()
    assert isinstance(worker, sdk.WarmWorker)
    there = worker.replay(job)
    dropping.join(5)
    impostor.close()
    assert asdict(there) == asdict(here)  # replayed by a new process instead
    # that new process took the socket over: the next run reaches it
    deadline = time.monotonic() + 10
    while listener_pid(path) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listener_pid(path) not in (None, os.getpid())


def test_a_stale_socket_is_not_a_failure(tmp_path, warm_env):
    """A socket left by a process that died: the run replays in a new process, which then
    takes the socket's place."""
    path = Path(sdk_warm.socket_path())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(path))  # bound, never listening: connections are refused
    done = run_cli("run", "--out", str(tmp_path / "o"), env=warm_env)
    assert done.returncode == 0, done.stderr
    assert all(status == "PASS" for row in sdk_column(tmp_path / "o").values() for status, _ in row)
    assert listener_pid(the_socket(warm_env)) not in (None, os.getpid())


def test_nothing_is_kept_warm_where_others_could_reach_it_or_when_switched_off(warm_env, monkeypatch):
    runtime = Path(warm_env["XDG_RUNTIME_DIR"])
    (runtime / "mcp-accept").mkdir(parents=True)
    os.chmod(runtime / "mcp-accept", 0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("MCP_ACCEPT_SDK_WARM", "120")
    assert sdk_warm.socket_path() is None  # a folder others may write in
    os.chmod(runtime / "mcp-accept", 0o700)
    assert sdk_warm.socket_path() is not None
    for off in ("0", "off"):
        monkeypatch.setenv("MCP_ACCEPT_SDK_WARM", off)
        assert sdk_warm.socket_path() is None
        worker = sdk._spawn()
        try:
            assert isinstance(worker, sdk.Worker) and worker.proc.args[-1] == "mcp_accept.checks.sdk_worker"
        finally:
            worker.close()
    assert not list((runtime / "mcp-accept").iterdir())


def test_a_warm_process_that_takes_the_job_and_never_answers_is_a_failed_replay(tmp_path, warm_env, monkeypatch):
    """No second wait in a new process: a replay that hangs would hang there too."""
    from mcp_accept.running.execute import RunOptions, run

    monkeypatch.setenv("MCP_ACCEPT_SDK_WARM", "0")  # the recording's own run keeps nothing warm
    recording = run(RunOptions(server=fixture_command(), out=tmp_path / "run", timeout=5.0)).recording
    monkeypatch.setenv("MCP_ACCEPT_SDK_WARM", "120")
    job = sdk.make_job(recording, 1.0)
    path = Path(sdk_warm.socket_path())
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # reads the job, then says nothing
    silent.bind(str(path))
    silent.listen(1)
    held = []

    def hold() -> None:
        conn, _ = silent.accept()
        held.append(conn)
        while conn.recv(1 << 16):
            pass

    threading.Thread(target=hold, daemon=True).start()
    monkeypatch.setattr(sdk, "replay_limit", lambda job: 1.0)
    spawned = []
    real_spawn = sdk._spawn
    monkeypatch.setattr(sdk, "_spawn", lambda warm=True: spawned.append(warm) or real_spawn(warm))
    worker = real_spawn()
    assert isinstance(worker, sdk.WarmWorker)
    there = worker.replay(job)
    silent.close()
    for conn in held:
        conn.close()
    assert there.connect.accepted is None and "did not finish in 1 s" in there.connect.detail
    assert spawned == []  # no new process was asked to try again


@pytest.mark.parametrize("env, seconds", [
    ({"MCP_ACCEPT_SDK_WARM": "", "CI": "", "PYTEST_CURRENT_TEST": ""}, 0.0),
    ({"MCP_ACCEPT_SDK_WARM": "", "CI": "false", "PYTEST_CURRENT_TEST": ""}, 0.0),
    ({"MCP_ACCEPT_SDK_WARM": "on", "CI": "", "PYTEST_CURRENT_TEST": ""}, sdk_warm.WARM_SECONDS),
    ({"MCP_ACCEPT_SDK_WARM": "45", "CI": "true", "PYTEST_CURRENT_TEST": "t.py::x (call)"}, 45.0),
    ({"MCP_ACCEPT_SDK_WARM": "off", "CI": "", "PYTEST_CURRENT_TEST": ""}, 0.0),
    ({"MCP_ACCEPT_SDK_WARM": "soon", "CI": "", "PYTEST_CURRENT_TEST": ""}, 0.0),
    ({"MCP_ACCEPT_SDK_WARM": "-5", "CI": "", "PYTEST_CURRENT_TEST": ""}, 0.0),
    ({"MCP_ACCEPT_SDK_WARM": "inf", "CI": "", "PYTEST_CURRENT_TEST": ""}, 0.0),
])
def test_nothing_is_kept_warm_unless_asked(monkeypatch, env, seconds):
    for key, value in env.items():
        if value:
            monkeypatch.setenv(key, value)
        else:
            monkeypatch.delenv(key, raising=False)
    assert sdk_warm.warm_seconds() == seconds


def _processes_with_env(key: str, value: str) -> list[tuple[int, str]]:
    """Every process of this user whose environment holds ``key=value``, with its command line."""
    wanted = f"{key}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if wanted in environ and alive(int(entry)):
            found.append((int(entry), cmdline))
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads the process table from /proc")
def test_a_default_run_leaves_no_process_behind(tmp_path):
    """A person's run (no CI, not under pytest, nothing asked) with the sdk layer on: when the
    command has returned, no replay process of it is left in the process table."""
    import shutil
    import tempfile

    runtime = Path(tempfile.mkdtemp(prefix="mcpa-"))
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_ACCEPT_SDK_WARM", "CI", "PYTEST_CURRENT_TEST")}
    env.update({"XDG_RUNTIME_DIR": str(runtime), "MCP_ACCEPT_SDK": "on"})
    try:
        done = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(tmp_path / "run")],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        sdk_rows = sdk_column(tmp_path / "run")
        assert any(status == "PASS" for checks in sdk_rows.values() for status, _ in checks), sdk_rows
        left = _processes_with_env("XDG_RUNTIME_DIR", str(runtime))
        assert left == [], f"still running after the command returned: {left}"
        assert not list(runtime.glob("mcp-accept/*.sock"))
    finally:
        end_warm(runtime / "mcp-accept")
        shutil.rmtree(runtime, ignore_errors=True)
