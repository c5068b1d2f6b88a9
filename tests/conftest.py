"""Shared test helpers: the schema folder, loopback ports, running the CLI; in CI, no skip but those
named in CI_MAY_SKIP."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "mcp_accept" / "fixture.py"


# The official schemas ship with the project (schemas/mcp); the tests read them from there,
# through the same lookup a user's run makes, unless MCP_ACCEPT_SCHEMA_DIR names another folder.
SCHEMA_DIR = Path(os.environ.get("MCP_ACCEPT_SCHEMA_DIR") or ROOT / "schemas" / "mcp").resolve()
os.environ.setdefault("MCP_ACCEPT_OFFLINE", "1")  # tests never download anything
# The sdk layer is off by default (it costs an SDK import per run); the tests of that layer
# switch it on themselves (--sdk), whatever MCP_ACCEPT_SDK says.
os.environ.pop("MCP_ACCEPT_SDK", None)


# In CI with every host installed (CI set, and MCP_ACCEPT_ALL_HOSTS=1 from .ci/run), a skipped
# test is a failure, unless its node id starts with an entry of this list, each of which says
# why the test may skip there. Everything else a test needs, .ci/run installs.
CI_MAY_SKIP = {
    "tests/faults/test_faults_proxy.py::test_loopback_listen_addresses_are_taken[[::1]:0]":
        "a CI machine (a container with IPv6 switched off) may have no IPv6 loopback; the test "
        "binds a plain socket to ::1 first and skips only when that fails",
}


def _ci_forbids_skips() -> bool:
    return bool(os.environ.get("CI")) and os.environ.get("MCP_ACCEPT_ALL_HOSTS") == "1"


def _fail_a_forbidden_skip(report):
    """A skip report (of a test, or of a module skipped whole) made a failure, in CI with
    every host, unless its node id is on CI_MAY_SKIP."""
    if (report.skipped and not hasattr(report, "wasxfail") and _ci_forbids_skips()
            and not any(report.nodeid.startswith(allowed) for allowed in CI_MAY_SKIP)):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = (f"skipped in CI ({reason}), and {report.nodeid} is not in CI_MAY_SKIP "
                           "(tests/conftest.py): in CI every test runs")
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    return _fail_a_forbidden_skip((yield))


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    return _fail_a_forbidden_skip((yield))


# The longest test files, longest first (`pytest -n auto --durations=120`, 6 December: each
# takes one to six minutes of a core, together half the suite's). They run before the rest:
# pytest-xdist hands tests out in collection order, and a long file collected late (these sort
# late by name) kept one core busy for minutes after the other had run out of tests.
RUN_FIRST = (
    "tests/test_host_versions.py", "tests/test_host_interrupts.py", "tests/test_host_matrix.py",
    "tests/test_host_framework_versions.py", "tests/test_host_kilo_code.py", "tests/test_host_parent_files.py",
    "tests/test_host_fast_agent.py", "tests/test_sdk.py", "tests/test_host_models.py",
    "tests/test_host_own_tools.py", "tests/test_host_run_bound.py", "tests/test_host_user_servers.py",
    "tests/test_host_forgery.py",
)


def pytest_collection_modifyitems(session, config, items):
    missing = [name for name in RUN_FIRST if not (ROOT / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py: RUN_FIRST names no such file: {', '.join(missing)}")
    rank = {name: index for index, name in enumerate(RUN_FIRST)}
    # a stable sort: each file's tests keep their order, and stay together for module fixtures
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(RUN_FIRST)))


@contextlib.contextmanager
def port_holder():
    """Give loopback ports for servers the runner starts itself (``--server`` with ``--url``,
    whose URL it must be told first), each held until the block ends: bound with SO_REUSEADDR
    and never listening, so the server, binding with SO_REUSEADDR as ``http.server`` does, takes
    it, and no other process can (unlike a port found free, let go and raced for under ``-n
    auto``). A server a test starts itself binds port 0 and says its URL
    (:func:`start_http_server`); a URL nothing answers on is :func:`refused_port`'s."""
    with contextlib.ExitStack() as held:
        def hold() -> int:
            sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]

        yield hold


@pytest.fixture
def held_port():
    """:func:`port_holder` for the length of a test: ``held_port()`` is a port."""
    with port_holder() as hold:
        yield hold


@contextlib.contextmanager
def refused_port():
    """A loopback port the test holds, bound and never listening: a connection to it is
    refused, and no other process can listen on it while the test holds it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@contextlib.contextmanager
def loopback_http(handler):
    """A real HTTP server on 127.0.0.1, a port of its own, serving HANDLER (a request handler
    class) from a thread until the block ends; yields its base URL, ``http://127.0.0.1:PORT/``."""
    import threading
    from http.server import ThreadingHTTPServer

    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that signs itself, and its key, made with the openssl command
    (.ci/run installs it) in ``folder``: trusted by nobody unless named as a trust anchor."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    return cert, key


def fixture_command(*args: str) -> str:
    import shlex

    return shlex.join([sys.executable, str(FIXTURE), *args])


def run_cli(*args: str, timeout: float = 120, env: dict | None = None, cwd=None,
            input: str | None = None, prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run ``mcp-accept`` as a real process, the way a user would (after the words of ``prefix``,
    such as :func:`unprivileged`'s)."""
    full_env = {**os.environ, **(env or {})}
    full_env.setdefault("COLUMNS", "200")
    return subprocess.run([*(prefix or []), sys.executable, "-m", "mcp_accept", *args], capture_output=True,
                          text=True, timeout=timeout, env=full_env, cwd=cwd, input=input)


def unprivileged() -> list[str]:
    """The words that start a process as a user whom file modes bind: none for a user who is
    not root; for root (CI runs as root, and root reads a file whatever its mode), ``setpriv``
    to nobody, with no supplementary groups."""
    if os.geteuid() != 0:
        return []
    import pwd

    nobody = pwd.getpwnam("nobody")
    return ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "--"]


@pytest.fixture
def open_tmp_path():
    """A folder every user may enter (mode 0755), for files an :func:`unprivileged` process
    must reach: pytest's own folders are its owner's alone. Removed at the end."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="mcp-accept-open-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load_results(folder: Path) -> dict:
    return json.loads((Path(folder) / "results.json").read_text(encoding="utf-8"))


def statuses(results: dict) -> dict[str, str]:
    return {row["id"]: row["status"] for row in results["rows"]}


@pytest.fixture
def schema_dir() -> Path:
    return SCHEMA_DIR


def host_session_stdio(log_dir: Path, tools: tuple = (), read_links: bool = False) -> dict:
    """Act as a host would over stdio: start the fixture in marker mode logging to
    ``log_dir``, call each tool of ``tools`` with q=MCP, read every resource_link they
    return when ``read_links``, stop. Returns the results, by tool name or link URI."""
    proc = subprocess.Popen([sys.executable, str(FIXTURE), "--markers", "--log", str(log_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
    answers: dict = {}
    try:
        def ask(n: int, method: str, params: dict) -> dict:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                                         "params": params}) + "\n")
            proc.stdin.flush()
            return json.loads(proc.stdout.readline())
        ask(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "test-host", "version": "1"}})
        for n, name in enumerate(tools, 1):
            answers[name] = ask(n, "tools/call", {"name": name, "arguments": {"q": "MCP"}})["result"]
        links = [item["uri"] for result in list(answers.values()) for item in result["content"]
                 if item.get("type") == "resource_link"] if read_links else []
        for n, uri in enumerate(links, 100):
            answers[uri] = ask(n, "resources/read", {"uri": uri})["result"]
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    return answers


@pytest.fixture(scope="session")
def verify_run(tmp_path_factory):
    """One ``mcp-accept verify`` as a real process, shared by the tests that read its folder."""
    folder = tmp_path_factory.mktemp("verify") / "out"
    done = run_cli("verify", "--out", str(folder), "--jobs", "2", "--timeout", "2", timeout=300)
    return done, folder


SERVERS = ROOT / "tests" / "servers"


def start_http_server(*argv: str, url: str | None = None, wait: float = 30.0, env: dict | None = None):
    """Start ``python ARGV...`` as an HTTP server; return (process, URL) once the URL answers.

    The URL is ``url``, or else the one the server prints first as ``listening on URL``; ``env``:
    variables the server gets beside this environment. Stop it with :func:`stop_http_server`.
    """
    import queue
    import threading
    import time

    import httpx

    proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True, env=dict(os.environ, **(env or {})))
    lines: queue.Queue = queue.Queue()

    def drain() -> None:
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + wait
    try:
        while url is None:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"{argv} printed no 'listening on URL' line") from None
            if line.startswith("listening on "):
                url = line.split()[-1]
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{argv} exited with code {proc.returncode}")
            try:
                httpx.get(url, timeout=1.0, headers={"Accept": "application/json"})
                return proc, url
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} did not answer within {wait}s") from None
                time.sleep(0.1)
    except BaseException:
        stop_http_server(proc)
        raise


def stop_http_server(proc: subprocess.Popen) -> None:
    import signal

    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
