"""`host test --url` on a server the run does not start: the host's network namespace has loopback
only, so the recording proxy reaches the server through a Unix socket that `host test` relays
from outside (mcp_accept/hosts/upstream_relay.py), and that socket serves the proxy alone.

Real processes only: the relay against a real HTTP server on 127.0.0.1, clients in subprocesses
of their own (each is a process the relay tells apart by its credentials), and Claude Code run
against servers started here, outside the run's namespace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from conftest import loopback_http, refused_port, self_signed_certificate, start_http_server, stop_http_server
from hostkit import assert_offline, facts_of, host_bin, processes_mentioning, rows_of, run_host
from mcp_accept.hosts.upstream_relay import UpstreamRelay

ROOT = Path(__file__).resolve().parent.parent
SDK_SERVER = ROOT / "tests" / "servers" / "sdk_server.py"
SDK_PROFILE = ROOT / "tests" / "servers" / "sdk-profile.yaml"

# A client in a process of its own: with "register" it first says it is the proxy, as the proxy does
# (and waits for the answer), then sends one HTTP request through the socket and prints what came back.
CLIENT = r"""
import socket, sys
path, register = sys.argv[1], sys.argv[2] == "register"
if register:  # as the proxy says it: the relay answers once it has taken this process
    with socket.socket(socket.AF_UNIX) as hello:
        hello.settimeout(10)
        hello.connect(path)
        hello.recv(1)
with socket.socket(socket.AF_UNIX) as sock:
    sock.settimeout(10)
    sock.connect(path)
    got = b""
    try:
        sock.sendall(b"GET /hello HTTP/1.1\r\nHost: upstream\r\nConnection: close\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):  # refused: closed before the request was taken
        sys.exit(0)
    while True:
        try:
            part = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not part:
            break
        got += part
sys.stdout.write(got.decode("latin-1"))
"""


class Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"hello from the upstream: {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def upstream():
    with loopback_http(Hello) as url:
        yield url + "mcp"


def client(path: str, register: bool) -> str:
    done = subprocess.run([sys.executable, "-c", CLIENT, path, "register" if register else "use"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_relay_serves_the_process_that_registered_and_refuses_any_other(upstream):
    relay = UpstreamRelay(upstream).start()
    try:
        relay.expect_from(os.getpid())  # the clients are this test's children, as the proxy is the harness's
        answer = client(relay.path, register=True)
        assert "200 OK" in answer and "hello from the upstream: /hello" in answer
        pinned = relay.proxy_pid
        assert pinned is not None and pinned != os.getpid()
        # another process, though a child of the same parent: nothing goes through for it
        assert client(relay.path, register=True) == ""
        assert client(relay.path, register=False) == ""
        record = relay.record()
        assert record["proxy_pid"] == pinned and record["connections"] == 1
        assert len(record["refused"]) == 3 and all(r["why"] == "not the recording proxy" for r in record["refused"])
        assert record["bytes_from_server"] >= len("hello from the upstream: /hello")
    finally:
        folder = os.path.dirname(relay.path)
        record = relay.stop()
    assert not os.path.exists(folder)  # the socket's private folder goes with the relay
    assert not [t for t in threading.enumerate() if t.name == "relay-socket"]


def test_a_process_outside_the_run_cannot_say_it_is_the_proxy(upstream):
    relay = UpstreamRelay(upstream).start()
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        relay.expect_from(bystander.pid)  # only its descendants may register: the clients are not
        assert client(relay.path, register=True) == ""
        record = relay.record()
        assert record["proxy_pid"] is None and record["connections"] == 0
        assert any("is not of this run" in r["why"] for r in record["refused"])
    finally:
        bystander.kill()
        bystander.wait()
        relay.stop()


def test_a_server_that_refuses_the_connection_is_recorded_as_failed():
    with refused_port() as port:
        relay = UpstreamRelay(f"http://127.0.0.1:{port}/mcp").start()
        try:
            relay.expect_from(os.getpid())
            assert client(relay.path, register=True) == ""
            assert relay.record()["failed"][0]["error"].startswith("ConnectionRefusedError")
        finally:
            relay.stop()


def sdk_server(*extra: str, env: dict | None = None):
    """The official-SDK server on 127.0.0.1, started by the test: outside any run's namespace."""
    return start_http_server(str(SDK_SERVER), "--http", "0", *extra, env=env)


def test_a_server_outside_the_run_is_measured_through_the_proxy_with_its_header(tmp_path):
    token = "relay-token-" + os.urandom(8).hex()
    proc, url = sdk_server("--bearer", "RELAY_TEST_TOKEN", env={"RELAY_TEST_TOKEN": token})
    try:
        out = run_host(tmp_path, "claude-code", "--url", url, "--profile", str(SDK_PROFILE),
                       "--header", f"Authorization: Bearer {token}")
    finally:
        stop_http_server(proc)
    rows, results = rows_of(out)
    facts = facts_of(out)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert results["conditions"]["transport"] == "Streamable HTTP"
    relay = json.loads((out / "upstream-relay.json").read_text())
    assert relay["upstream"] == url.split("/")[2] and relay["connections"] >= 1
    assert relay["refused"] == [] and relay["failed"] == [] and relay["proxy_pid"]
    assert facts["server_isolation"].startswith("none: the server at --url")
    assert_offline(facts)  # the host itself reached loopback only: the relay is mcp-accept's, outside
    # the header's value is in no file of the run: job.json names the variable that held it
    for path in out.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
    job = json.loads((out / "job.json").read_text())
    assert job["options"]["headers"] == ["Authorization: env:MCP_ACCEPT_HEADER_1"]
    assert not processes_mentioning(str(out))


def test_without_its_header_the_server_refuses_and_the_run_says_the_proxy_was_turned_away(tmp_path):
    proc, url = sdk_server("--bearer", "RELAY_TEST_TOKEN", env={"RELAY_TEST_TOKEN": "t" * 24})
    try:
        out = run_host(tmp_path, "claude-code", "--url", url, "--profile", str(SDK_PROFILE), codes=(3,))
    finally:
        stop_http_server(proc)
    # not "never started a session": the evidence says why, and what to do
    said = facts_of(out)["outcome"]["not_measured"]
    assert said.startswith("the server answered HTTP 401 to ") and "give them with --header" in said
    rows, _ = rows_of(out)
    assert all(row["status"] == "UNOBTAINABLE" and said in row["reason"] for row in rows.values())


def test_a_url_nothing_answers_is_one_line_and_exit_3_before_any_folder(tmp_path):
    out = tmp_path / "run"
    with refused_port() as port:
        done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code",
                               "--host-bin", host_bin("claude-code"), "--out", str(out),
                               "--url", f"http://127.0.0.1:{port}/mcp"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert done.stderr.strip().count("\n") == 0 and "cannot reach the server at --url" in done.stderr
    assert "ConnectionRefusedError" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("args, field", [
    (["--header", "Authorization: Bearer x"], "--header"),
    (["--url", "http://127.0.0.1:9/mcp", "--header", "no colon here"], "--header #1"),
    (["--url", "http://127.0.0.1:9/mcp", "--no-proxy"], "--no-proxy"),
])
def test_bad_header_and_proxy_options_are_said_before_anything_starts(tmp_path, args, field):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code",
                           "--host-bin", sys.executable, "--out", str(tmp_path / "run"), *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert field in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


def test_https_runs_from_the_proxy_to_the_server_through_the_relay(tmp_path, monkeypatch):
    cert, key = self_signed_certificate(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # this test's trust: the readiness probe's and the proxy's
    proc, url = start_http_server(str(SDK_SERVER), "--http", "0", "--tls", str(cert), str(key))
    try:
        assert url.startswith("https://")
        out = run_host(tmp_path, "claude-code", "--url", url, "--profile", str(SDK_PROFILE))
        monkeypatch.delenv("SSL_CERT_FILE")  # now trusted by nobody: the proxy refuses the server
        (tmp_path / "untrusted").mkdir()
        refused = run_host(tmp_path / "untrusted", "claude-code", "--url", url, "--profile", str(SDK_PROFILE),
                           codes=(3,))
    finally:
        stop_http_server(proc)
    rows, _ = rows_of(out)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    relay = json.loads((out / "upstream-relay.json").read_text())
    assert relay["connections"] >= 1 and relay["bytes_from_server"] > 0
    said = facts_of(refused)["outcome"]["not_measured"]
    assert said.startswith("the recording proxy could not reach the server: upstream unreachable: ConnectError")
    assert "CERTIFICATE_VERIFY_FAILED" in said
