"""The recording proxy as a security boundary: a hostile host (raw sockets, httpx) on
127.0.0.1 against the real `mcp-accept proxy` command and a real upstream that writes
down everything it receives (servers/recording_upstream.py), or the fixture and the
misbehaving server over stdio.

Each guarantee of docs/misbehaving-servers.md, "The recording proxy's guarantees":
it forwards only to its upstream, listens on loopback unless told otherwise, checks Host
and Origin, keeps every credential the host sends out of the folder and the console, and
stays bounded in memory without ever cutting what it forwards, and gives up on a peer that
stops reading (or a request body that stops arriving) after --write-timeout, never hanging.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from httpx_sse import EventSource

from conftest import ROOT, fixture_command, load_results, start_http_server, stop_http_server
from faultkit import assert_no_traceback, assert_one_line_error, events, hostile, server as misbehave, wire

UPSTREAM = Path(__file__).resolve().parent / "servers" / "recording_upstream.py"
MIB = 1024 * 1024
BEARER = "Bearer host-bearer-0123456789abcdef"
EXTRA = "proxy-header-secret-4242"  # a --header value, read from the environment


# --------------------------------------------------------------------------- helpers

class Upstream:
    """The recording upstream on the loopback port it got (port 0) and said."""

    def __init__(self, tmp_path: Path):
        self.log = tmp_path / "upstream.jsonl"
        self.proc, self.url = start_http_server(str(UPSTREAM), "--http", "0", "--log", str(self.log))
        self.port = int(self.url.split("/")[2].rsplit(":", 1)[1])

    def received(self, method: str | None = None) -> list[dict]:
        if not self.log.is_file():
            return []
        found = [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]
        return [r for r in found if method is None or r["method"] == method]

    def stop(self) -> None:
        stop_http_server(self.proc)


@pytest.fixture
def upstream(tmp_path):
    up = Upstream(tmp_path)
    yield up
    up.stop()


class Canary:
    """A second listening socket: anything that connects to it is written down."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.hits.append(conn.recv(65536) or b"(connected, sent nothing)")
            except OSError:
                self.hits.append(b"(connected)")
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def canary():
    c = Canary()
    yield c
    c.close()


class Proxy:
    """`mcp-accept proxy --url UPSTREAM` as a real process; its console kept whole."""

    def __init__(self, upstream_url: str, out: Path, *extra: str, listen: str = "127.0.0.1:0"):
        env = {**os.environ, "EXTRA_KEY": EXTRA}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_accept", "proxy", "--url", upstream_url, "--listen", listen,
             "--out", str(out), "--header", "X-Api-Key: env:EXTRA_KEY", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue = queue.Queue()
        self.stdout: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        line = self.lines.get(timeout=30)
        assert line.startswith("mcp-accept proxy: listening on "), line
        self.url = line.split()[4]
        self.port = int(self.url.split("/")[2].rsplit(":", 1)[1])
        self.folder = Path(line.rsplit("recording into ", 1)[1].rstrip(")\n"))

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.stdout.append(line)
            self.lines.put(line)

    def stop(self) -> tuple[dict, str, str]:
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0
        err = self.proc.stderr.read()
        assert_no_traceback(err, "".join(self.stdout))
        return load_results(self.folder), "".join(self.stdout), err


def raw(port: int, data: bytes, timeout: float = 20) -> tuple[int, bytes]:
    """Send bytes as they are on a new connection; give the status and the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(data)
        got = b""
        while True:
            try:
                piece = conn.recv(65536)
            except ConnectionResetError:
                break
            if not piece:
                break
            got += piece
            if b"\r\n\r\n" in got:  # one answer: the head, then Content-Length bytes
                head, _, rest = got.partition(b"\r\n\r\n")
                length = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
                if length and len(rest) >= int(length[0].split(b":")[1]):
                    break
    status = int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/") else 0
    return status, got


def post_line(target: str, port: int, body: bytes = b'{"jsonrpc":"2.0","id":1,"method":"ping"}', *,
              method: str = "POST", host: str | None = None, headers: tuple[str, ...] = ()) -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}",
             "Content-Type: application/json", "Accept: application/json, text/event-stream",
             f"Authorization: {BEARER}", f"Content-Length: {len(body)}", "Connection: close", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def folder_text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file())


def refused(folder: Path) -> list[dict]:
    return events(folder, "refused")


# --------------------------------------------------------------------------- 1. only its upstream

def test_crafted_targets_are_refused_and_reach_no_other_socket(tmp_path, upstream, canary):
    proxy = Proxy(upstream.url, tmp_path / "runs")
    other = f"127.0.0.1:{canary.port}"
    crafted = [
        ("POST", f"http://{other}/x"),             # absolute-form
        ("GET", f"http://{other}/x"),
        ("POST", f"//{other}/x"),                  # a network-path reference
        ("POST", f"@{other}/x"),                   # appended to the origin: userinfo, then another host
        ("POST", f":{canary.port}/x"),             # appended to the origin: another port
        ("POST", f".{other}/x"),
        ("POST", f"\\\\{other}/x"),
        ("POST", "/mcp#frag"),
        ("POST", "/mcp%zz"),
        ("CONNECT", other),                        # authority-form
        ("OPTIONS", "*"),                          # asterisk-form
    ]
    try:
        answers = [raw(proxy.port, post_line(target, proxy.port, method=method)) for method, target in crafted]
        # The control: an origin-form target is forwarded, and stays on the upstream's origin
        # even when it names a host or port in its path.
        tricky = f"/@{other}/x?next=//{other}"
        ok = [raw(proxy.port, post_line(t, proxy.port)) for t in ("/mcp", tricky)]
    finally:
        _, console, err = proxy.stop()
    assert [status for status, _ in answers] == [400] * len(crafted), [a[1][:120] for a in answers]
    assert [status for status, _ in ok] == [200, 200]
    assert canary.hits == [], canary.hits  # nothing, not even a connection, went elsewhere
    posted = upstream.received("POST")
    assert [r["target"] for r in posted] == ["/mcp", tricky]
    for r in posted:  # forwarded with the --header and the host's credential, to the upstream's Host
        headers = {k.lower(): v for k, v in r["headers"]}
        assert headers["host"] == f"127.0.0.1:{upstream.port}"
        assert headers["x-api-key"] == EXTRA and headers["authorization"] == BEARER
    assert not upstream.received("CONNECT") and not upstream.received("OPTIONS")
    seen = refused(proxy.folder)
    assert len(seen) == len(crafted)
    for (method, target), entry in zip(crafted, seen):
        assert entry["http"]["path"] == target and entry["http"]["method"] == method
        assert "HTTP 400" in entry["detail"] and "not forwarded" in entry["detail"]
    assert "origin-form" in seen[0]["detail"]
    text = folder_text(proxy.folder) + console + err
    assert "host-bearer-0123456789abcdef" not in text and EXTRA not in text


def test_other_methods_are_refused_and_recorded(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs")
    try:
        answers = {m: raw(proxy.port, post_line("/mcp", proxy.port, method=m)) for m in ("PUT", "TRACE", "PATCH")}
        too_long = raw(proxy.port, b"POST /mcp?" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        proxy.stop()
    assert {m: a[0] for m, a in answers.items()} == {"PUT": 405, "TRACE": 405, "PATCH": 405}
    assert b"Allow: POST, GET, DELETE" in answers["PUT"][1]
    assert too_long[0] == 414  # the standard library's own refusal, recorded too
    assert upstream.received("POST") == [] and not upstream.received("PUT") and not upstream.received("TRACE")
    details = [e["detail"] for e in refused(proxy.folder)]
    assert len(details) == 4 and sum("HTTP 405" in d for d in details) == 3
    assert any("HTTP 414" in d for d in details)


# --------------------------------------------------------------------------- 2. loopback only

@pytest.mark.parametrize("listen", ["0.0.0.0:0", "[::]:0", "192.0.2.10:8800", "example.com:8800"])
def test_a_non_loopback_listen_address_is_refused(tmp_path, listen):
    out = tmp_path / "runs"
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--url", "http://127.0.0.1:9/mcp",
                           "--listen", listen, "--out", str(out)], capture_output=True, text=True, timeout=60)
    line = assert_one_line_error(done, "--listen", "not a loopback address", "--allow-remote")
    assert listen.rsplit(":", 1)[0].strip("[]") in line
    assert not out.exists() or not any(out.iterdir())  # refused before any folder


def ipv6_loopback() -> bool:
    """Whether a plain socket can listen on ::1 here, asked apart from the proxy under test."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
            sock.listen(1)
    except OSError:
        return False
    return True


@pytest.mark.parametrize("listen", ["127.0.0.1:0", "localhost:0", "[::1]:0"])
def test_loopback_listen_addresses_are_taken(tmp_path, upstream, listen):
    if listen.startswith("[::1]") and not ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback: a plain socket cannot listen on ::1")
    proxy = Proxy(upstream.url, tmp_path / "runs", listen=listen)
    try:
        host = proxy.url.split("/")[2]
        answer = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
    finally:
        _, _, err = proxy.stop()
    assert answer.status_code == 200 and err == ""
    assert host.rsplit(":", 1)[0] in ("127.0.0.1", "localhost", "[::1]")


def test_allow_remote_listens_with_a_warning(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs", "--allow-remote", listen="0.0.0.0:0")
    try:
        assert proxy.url.startswith("http://127.0.0.1:")  # the printed URL is one that connects
        answer = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
        wrong = raw(proxy.port, post_line("/mcp", proxy.port, host=f"rebound.example:{proxy.port}"))
    finally:
        _, _, err = proxy.stop()
    assert answer.status_code == 200 and wrong[0] == 421
    [warning] = err.strip().splitlines()
    assert warning.startswith("mcp-accept proxy: warning: listening on 0.0.0.0") and "--allow-remote" in warning


# --------------------------------------------------------------------------- 3. Host and Origin

def test_host_and_origin_are_checked(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs")
    p = proxy.port
    cases = {
        # name: (Host, extra headers, status)
        "ip": (f"127.0.0.1:{p}", (), 200),
        "localhost": (f"localhost:{p}", (), 200),
        "ipv6": (f"[::1]:{p}", (), 200),
        "loopback-origin": (f"127.0.0.1:{p}", ("Origin: http://localhost:5173",), 200),
        "own-origin": (f"127.0.0.1:{p}", (f"Origin: http://127.0.0.1:{p}",), 200),
        "rebinding": (f"attacker.example:{p}", (), 421),
        "other-port": (f"127.0.0.1:{p - 1 if p == 65535 else p + 1}", (), 421),
        "no-port": ("127.0.0.1", (), 421),
        "userinfo": (f"me@127.0.0.1:{p}", (), 421),
        "foreign-origin": (f"127.0.0.1:{p}", ("Origin: https://attacker.example",), 403),
        "null-origin": (f"127.0.0.1:{p}", ("Origin: null",), 403),
        "lookalike-origin": (f"127.0.0.1:{p}", ("Origin: http://localhost.attacker.example",), 403),
    }
    try:
        got = {name: raw(p, post_line(f"/mcp?case={name}", p, host=host, headers=extra))[0]
               for name, (host, extra, _) in cases.items()}
        two_hosts = raw(p, post_line("/mcp?case=two", p, headers=(f"Host: 127.0.0.1:{p}",)))[0]
        no_host = raw(p, b"POST /mcp?case=none HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}")[0]
    finally:
        proxy.stop()
    assert got == {name: status for name, (_, _, status) in cases.items()}
    assert (two_hosts, no_host) == (400, 400)
    reached = sorted(r["target"].split("=")[1] for r in upstream.received("POST"))
    assert reached == sorted(name for name, (_, _, status) in cases.items() if status == 200)
    details = {e["http"]["path"].split("=")[1]: e["detail"] for e in refused(proxy.folder)}
    assert set(details) == {name for name, (_, _, s) in cases.items() if s != 200} | {"two", "none"}
    assert "HTTP 421" in details["rebinding"] and "HTTP 403" in details["foreign-origin"]
    assert "MUST be answered 403" in details["null-origin"]


# --------------------------------------------------------------------------- 4. secrets

def test_credentials_the_host_sends_are_forwarded_and_never_recorded_or_printed(tmp_path, upstream):
    upstream_token = "upstream-query-secret-77aa"
    basic = base64.b64encode(b"proxyuser:proxy-pass-5511").decode()
    secrets = {
        "Authorization": BEARER,
        "Proxy-Authorization": f"Basic {basic}",
        "Cookie": "sid=cookie-value-31337; theme=dark-cookie-2",
        "X-Api-Key": "host-api-key-998877",
        "api-key": "plain-api-key-665544",
        "X-Session-Token": "session-token-abcabc",
        "X-Client-Secret": "client-secret-defdef",
        "X-Password": "hunter2-password-xyz",
        "Mcp-Param-AuthCode": "param-auth-code-123",
        "X-Note": "sk-notnamedbutlookslikeakey1234567890",  # a name that says nothing, a value that does
    }
    query = {"token": "query-token-aaa111", "key": "query-key-bbb222", "api_key": "query-apikey-ccc333",
             "access_token": "query-access-ddd444", "sig": "query-sig-eee555"}
    proxy = Proxy(f"{upstream.url}?token={upstream_token}", tmp_path / "runs")
    target = proxy.url + "?" + "&".join(f"{k}={quote(v)}" for k, v in query.items())
    try:
        answer = httpx.post(target, json={"jsonrpc": "2.0", "id": 1, "method": "echo"}, headers=secrets, timeout=30)
        plain = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 2, "method": "echo"}, timeout=30)
    finally:
        results, console, err = proxy.stop()
    # Forwarded: the upstream received each value (the --header value replaces the host's X-Api-Key).
    echoed = {k.lower(): v for k, v in answer.json()["result"]["headers"]}
    for name, value in secrets.items():
        if name != "X-Api-Key":
            assert echoed[name.lower()] == value, name
    assert echoed["x-api-key"] == EXTRA
    for value in query.values():
        assert value in answer.json()["result"]["target"]
    # The upstream URL's own token: added to the requests that lack it, and never printed.
    assert plain.json()["result"]["target"] == f"/mcp?token={upstream_token}"
    assert upstream_token not in console + err and "?token" not in proxy.url
    values = [*secrets.values(), *query.values(), upstream_token, EXTRA, "proxy-pass-5511", "proxyuser:proxy-pass-5511",
              "host-bearer-0123456789abcdef", "cookie-value-31337", "dark-cookie-2", basic]
    text = folder_text(proxy.folder) + console + err + json.dumps(results)
    for value in values:
        for form in {value, quote(value, safe="")}:
            assert form not in text, form
    out = [e for e in wire(proxy.folder) if e["dir"] == "out"][0]
    shown = {k.lower(): v for k, v in out["http"]["headers"]}
    for name in secrets:
        assert shown[name.lower()] == "[REDACTED]" or "[REDACTED]" in shown[name.lower()], name
    assert shown["content-type"] == "application/json"  # what is not a credential stays readable


# --------------------------------------------------------------------------- 5. bounds, honest forwarding

@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_large_answer_streams_through_whole_and_the_record_says_so(tmp_path, upstream, chunked):
    gate = tmp_path / "go"
    proxy = Proxy(upstream.url, tmp_path / "runs", "--max-bytes", str(1 * MIB))
    size = 3 * MIB
    try:
        body = {"jsonrpc": "2.0", "id": 7, "method": "big", "params": {"bytes": size, "chunked": chunked,
                                                                         "gate": str(gate)}}
        with httpx.Client(timeout=30) as client, client.stream("POST", proxy.url, json=body) as answer:
            pieces = answer.iter_raw()
            first = next(pieces)  # arrives while the upstream still holds the rest back: streamed
            gate.touch()
            data = first + b"".join(pieces)
            framing = answer.headers.get("content-length"), answer.headers.get("transfer-encoding")
        small = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 8, "method": "big", "params": {"bytes": 1000}},
                           timeout=30).json()
    finally:
        proxy.stop()
    message = json.loads(data)  # whole, valid JSON: nothing cut
    assert message["id"] == 7 and message["result"]["text"] == "x" * size
    assert framing == ((None, "chunked") if chunked else (str(len(data)), None))
    [large] = events(proxy.folder, "too-large")
    assert "forwarded whole" in large["detail"] and f"--max-bytes {MIB}" in large["detail"]
    answers = [e["message"] for e in wire(proxy.folder) if e["dir"] == "in"]
    assert answers == [small]  # the small answer is recorded as a message, the large one is not


def test_a_request_body_over_the_limit_gets_a_json_rpc_error_and_is_not_forwarded(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs", "--max-bytes", str(1 * MIB))
    filler = "z" * (2 * MIB)
    try:
        answer = httpx.post(proxy.url, timeout=30, content=json.dumps(
            {"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "x", "arguments": {"f": filler}}}),
            headers={"Content-Type": "application/json"})
        later = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 78, "method": "ping"}, timeout=30)
    finally:
        proxy.stop()
    assert answer.status_code == 413
    error = answer.json()
    assert error["id"] == 77 and error["error"]["code"] == -32603
    assert "--max-bytes" in error["error"]["message"] and error["error"]["message"].startswith("mcp-accept proxy:")
    assert later.status_code == 200
    assert [r["body_len"] < MIB for r in upstream.received("POST")] == [True]  # only the ping went on
    [large] = events(proxy.folder, "too-large")
    assert "id 77" in large["detail"] and "not forwarded" in large["detail"]


def test_an_event_stream_is_split_in_linear_time_and_a_huge_event_is_not_recorded(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs", "--max-bytes", str(64 * 1024))
    try:
        answer = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 3, "method": "sse",
                                             "params": {"events": 2000, "huge": 256 * 1024}}, timeout=60)
    finally:
        proxy.stop()
    got = [json.loads(e.data) for e in EventSource(answer).iter_sse()]
    assert len(got) == 2002 and got[-1] == {"jsonrpc": "2.0", "id": 3, "result": {"events": 2000}}
    assert len(got[1001]["params"]["data"]) == 256 * 1024  # forwarded whole
    recorded = [e for e in wire(proxy.folder) if e["dir"] == "in"]
    assert len(recorded) == 2001 and recorded[-1]["message"]["id"] == 3
    [large] = events(proxy.folder, "too-large")
    assert "forwarded whole, not recorded" in large["detail"]


def test_the_event_reader_is_linear_and_holds_no_event_past_the_limit():
    from mcp_accept.transport.sse import Oversized, read_events

    many = b"".join(b"data: {\"n\":%d}\r\n\r\n" % n for n in range(200_000))  # one chunk, 200,000 events
    events_seen = list(read_events([many], limit=MIB))
    assert len(events_seen) == 200_000 and events_seen[-1].data == '{"n":199999}'
    # that it is linear: benchmarks/hostile.py (h1)
    held = []

    def endless_line():  # a line that never ends is not held
        for _ in range(2000):
            yield b"data: " + b"q" * 4096
        held.append(tracemalloc.get_traced_memory()[1])
        yield b"\n\ndata: ok\n\n"

    tracemalloc.start()
    try:
        [dropped, ok] = list(read_events(endless_line(), limit=1024))
    finally:
        tracemalloc.stop()
    assert held[0] < 2 * MIB, held
    assert isinstance(dropped, Oversized) and dropped.size >= 2000 * 4096 and ok.data == "ok"


def _run_stdio(argv: list[str], lines: list[bytes], answers: int) -> tuple[list[dict], int, int]:
    """Talk to `mcp-accept proxy --server`: send the lines, read ``answers`` answers, close
    stdin, read what else comes; give every answer, the exit code and the peak RSS (KiB)."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = []
    for line in lines:
        proc.stdin.write(line)
        proc.stdin.flush()
    for _ in range(answers):
        got.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    got += [json.loads(line) for line in proc.stdout.read().splitlines()]
    _, status, usage = os.wait4(proc.pid, 0)
    assert_no_traceback(proc.stderr.read().decode("utf-8", "replace"))
    return got, os.waitstatus_to_exitcode(status), usage.ru_maxrss


def _stdio_argv(server: str, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "mcp_accept", "proxy", "--server", server, "--out", str(out), *extra]


HELLO = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bounds-host", "version": "1"}}})


def test_a_stdio_answer_over_the_limit_is_an_error_to_the_host_in_bounded_memory(tmp_path):
    out = tmp_path / "runs"
    huge = 200 * MIB  # held whole, this alone would be a 200 MiB process
    server = misbehave("--mode", "huge", "--on", "tools/call:search_text", "--size", huge)
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search_text", "arguments": {"q": "MCP"}}}
    lines = [(HELLO + "\n").encode(), (json.dumps(call) + "\n").encode(),
             b'{"jsonrpc":"2.0","id":6,"method":"tools/list"}\n']
    got, code, peak_kib = _run_stdio(_stdio_argv(server, out, "--max-bytes", str(MIB)), lines, 3)
    assert code == 0
    assert got[1]["id"] == 5 and got[1]["error"]["code"] == -32603
    assert "--max-bytes" in got[1]["error"]["message"] and got[1]["error"]["data"]["size"] >= huge
    assert got[2]["id"] == 6 and "tools" in got[2]["result"]  # the session goes on
    [folder] = list(out.iterdir())
    # the proxy's own peak, as it recorded it (VmHWM): wait4's ru_maxrss survives execve, so it
    # also counts the test runner that forked the proxy
    [peak] = events(folder, "peak-rss")
    own_kib = int(peak["detail"].split()[0])
    assert own_kib < 150 * 1024, (own_kib, peak_kib)
    [large] = events(folder, "too-large")
    assert "the server sent a line of" in large["detail"] and "id 5" in large["detail"]
    call_fact = json.loads((folder / "host.json").read_text())["facts"]["tool_calls"][0]
    assert call_fact["outcome"] == "no answer recorded"  # the record does not pretend the error was the server's


def test_a_stdio_request_over_the_limit_and_a_line_without_an_end(tmp_path):
    out = tmp_path / "runs"
    big = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
           "params": {"name": "search_text", "arguments": {"q": "w" * (3 * MIB)}}}
    lines = [(HELLO + "\n").encode(), (json.dumps(big) + "\n").encode(),
             b'{"jsonrpc":"2.0","id":10,"method":"tools/list"}\n',
             b'{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"' + b"v" * (2 * MIB)]  # never ends
    # The last line ends only when the host closes stdin: its answer comes after that.
    got, code, _ = _run_stdio(_stdio_argv(fixture_command(), out, "--max-bytes", str(MIB)), lines, 3)
    assert code == 0
    by_id = {m["id"]: m for m in got}
    assert by_id[9]["error"]["code"] == -32603 and "not forwarded" in by_id[9]["error"]["message"]
    assert "tools" in by_id[10]["result"]
    assert by_id[11]["error"]["code"] == -32603
    [folder] = list(out.iterdir())
    sent = [e["message"].get("id") for e in wire(folder) if e["dir"] == "out"]
    assert sent == [0, 10]  # the server never saw the two lines over the limit
    assert len(events(folder, "too-large")) == 2


def test_the_memory_benchmark_runs(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "proxy_memory.py"), "-n", "4000",
                           "--json", str(tmp_path / "m.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr  # flatness is the benchmark's to judge, at its own size
    figures = json.loads((tmp_path / "m.json").read_text())
    assert figures["n"] == 4000 and figures["exit_code"] == 0 and figures["host_product"] == "proxy-memory"
    assert figures["peak_session_kib"] > 0 and set(figures["rss_kib_at"]) >= {"20%", "100%"}


# --------------------------------------------------------------------------- 6. every write bounded

def _wait_for_event(folder_of, kind: str, proc: subprocess.Popen | None = None) -> dict:
    """Poll wire.jsonl until an event of ``kind`` shows (the proxy records it within its
    --write-timeout); the cap only keeps a broken proxy from hanging the suite."""
    for _ in range(600):
        folder = folder_of()
        if folder is not None and (folder / "wire.jsonl").is_file():
            found = [e for e in wire(folder) if e.get("event") == kind]
            if found:
                return found[0]
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"no {kind} event was recorded")


@contextlib.contextmanager
def _stdio_proxy(argv: list[str]):
    """`mcp-accept proxy --server` with its pipes to the test; killed if the test fails first."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()  # the proxy stops its server on SIGTERM; SIGKILL would leave it behind
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.wait()


def _exits_cleanly(proc: subprocess.Popen) -> None:
    code = proc.wait(timeout=120)
    err = proc.stderr.read().decode("utf-8", "replace")
    assert_no_traceback(err)
    assert code == 0, err[-2000:]


def _only_folder(out: Path):
    found = list(out.iterdir()) if out.is_dir() else []
    return found[0] if len(found) == 1 else None


def test_a_server_that_stops_reading_gets_no_more_and_the_host_gets_errors(tmp_path):
    out = tmp_path / "runs"
    server = hostile("--mode", "stop-reading", "--on", "tools/call:search_text")
    with _stdio_proxy(_stdio_argv(server, out, "--write-timeout", "1")) as proc:
        proc.stdin.write((HELLO + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        stuck = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_text", "arguments": {"q": "x"}}}
        # far more than a pipe holds: the server has stopped reading, so this cannot all be written
        large = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "search_text", "arguments": {"q": "w" * (4 * MIB)}}}
        for message in (stuck, large, {"jsonrpc": "2.0", "id": 3, "method": "ping"}):
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
        proc.stdin.close()
        rest = proc.stdout.read()
        _exits_cleanly(proc)
    assert [a["id"] for a in answers] == [2, 3], answers
    for answer in answers:
        assert answer["error"]["code"] == -32603
        assert answer["error"]["message"].startswith("mcp-accept proxy: the server stopped reading its stdin")
        assert answer["error"]["data"]["write_timeout"] == 1
    assert rest == b""  # the stuck request has no answer to give; nothing is made up for it
    folder = _only_folder(out)
    first, later = events(folder, "write-timeout")
    assert "of 4194" in first["detail"] and "id 2" in first["detail"] and "nothing more is written" in first["detail"]
    assert "not forwarded" in later["detail"] and "id 3" in later["detail"]
    sent = [e["message"].get("id") for e in wire(folder) if e["dir"] == "out"]
    assert sent == [0, 1, 2]  # the ping was never written to the stalled pipe
    [end] = events(folder, "proxy-end")
    assert end["detail"] == "the host closed the proxy's stdin"  # the session went on until the host ended it
    assert (folder / "results.json").is_file() and (folder / "host.json").is_file()


def test_a_host_that_stops_reading_ends_the_stdio_session(tmp_path):
    out = tmp_path / "runs"
    server = misbehave("--mode", "huge", "--on", "tools/call:search_text", "--size", 16 * MIB)
    with _stdio_proxy(_stdio_argv(server, out, "--write-timeout", "1", "--max-bytes", str(32 * MIB))) as proc:
        call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search_text", "arguments": {"q": "MCP"}}}
        proc.stdin.write((HELLO + "\n" + json.dumps(call) + "\n").encode())
        proc.stdin.flush()
        # The host reads nothing and keeps its stdin open: the proxy ends the session itself.
        _exits_cleanly(proc)
    folder = _only_folder(out)
    [stopped] = events(folder, "write-timeout")
    assert "the host stopped reading" in stopped["detail"] and "the session is ended" in stopped["detail"]
    [end] = events(folder, "proxy-end")
    assert end["detail"].startswith("the host stopped reading for --write-timeout 1")
    assert events(folder, "exit")  # the server was stopped
    assert (folder / "results.json").is_file() and (folder / "host.json").is_file()


def test_an_http_host_that_never_reads_a_large_answer(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs", "--write-timeout", "1", "--max-bytes", str(MIB))
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": 21, "method": "big", "params": {"bytes": 64 * MIB}}).encode()
        conn = socket.socket()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window fills at once
        conn.connect(("127.0.0.1", proxy.port))
        conn.sendall(post_line("/mcp", proxy.port, body))
        try:
            stopped = _wait_for_event(lambda: proxy.folder, "write-timeout")
            # the proxy is still there for the next request
            later = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 22, "method": "ping"}, timeout=30)
        finally:
            conn.close()
    finally:
        results, _, _ = proxy.stop()
    assert "the host took no byte of the answer for --write-timeout 1 s" in stopped["detail"]
    assert later.status_code == 200 and later.json()["id"] == 22
    assert results["rows"]  # the folder is complete
    assert (proxy.folder / "host.json").is_file()


def test_an_http_request_body_that_stops_arriving(tmp_path, upstream):
    proxy = Proxy(upstream.url, tmp_path / "runs", "--write-timeout", "1")
    try:
        body = b'{"jsonrpc":"2.0","id":31,"method":"ping"}'
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=60) as conn:
            conn.sendall(post_line("/mcp", proxy.port, body)[:-10])  # ten bytes short, never sent
            got = b""
            while piece := conn.recv(65536):
                got += piece
    finally:
        results, _, _ = proxy.stop()
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    [stalled] = events(proxy.folder, "read-timeout")
    assert "not forwarded" in stalled["detail"]
    assert upstream.received("POST") == []
    assert results["rows"]


def test_a_quiet_event_stream_outlives_the_write_timeout(tmp_path):
    from faultkit import HOSTILE

    proc, url = start_http_server(str(HOSTILE), "--mode", "quiet-stream", "--quiet", "2.5", "--http", "0")
    try:
        proxy = Proxy(url, tmp_path / "runs", "--write-timeout", "1")
        try:
            with httpx.Client(timeout=httpx.Timeout(30.0)) as client, \
                    client.stream("GET", proxy.url, headers={"Accept": "text/event-stream"}) as stream:
                got = [json.loads(e.data) for e in EventSource(stream).iter_sse()]
        finally:
            results, _, _ = proxy.stop()
    finally:
        stop_http_server(proc)
    # quiet for 2.5 s twice, over a 1 s --write-timeout: the host was reading all along, so nothing is cut
    assert [m["params"]["data"] for m in got] == ["after a quiet while 0", "after a quiet while 1"]
    assert events(proxy.folder, "write-timeout") == [] and events(proxy.folder, "stream-ended") == []
    assert results["rows"]


def test_the_proxys_own_error_answer_survives_any_id():
    # a host's id is whatever JSON string it sent, a lone surrogate included: the proxy's
    # refusal carries it back as the host wrote it, instead of failing to encode it
    from mcp_accept.hosts.proxy.bounds import error_answer

    for message_id in ("\ud800", "x\udfffy", "\u2028", 7, None, "日本"):
        line = error_answer(message_id, "the message is too large — refused")
        assert b"\n" not in line
        assert json.loads(line)["id"] == message_id
