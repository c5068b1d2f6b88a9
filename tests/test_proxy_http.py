"""`mcp-accept proxy --url UPSTREAM --listen 127.0.0.1:PORT`: the Streamable HTTP recording proxy.

The upstream is a real server on loopback (the fixture, JSON or SSE answers, both eras; the
SDK-built server); the host is a raw HTTP client or the official SDK's `Client`.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from httpx_sse import EventSource

from conftest import FIXTURE, SERVERS, load_results, refused_port, start_http_server, stop_http_server

from mcp_accept.fixture import LINK_URI

SECRET = "Bearer s3cr3t-token-0123456789"
COOKIE = "sid=cookie-value-abcdef"
EXTRA = "extra-secret-value-987"


class Proxy:
    def __init__(self, upstream: str, out: Path, *extra: str):
        env = {**os.environ, "EXTRA_KEY": EXTRA}
        ready = out.parent / f"{out.name}-ready.json"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_accept", "proxy", "--url", upstream, "--listen", "127.0.0.1:0",
             "--out", str(out), "--ready-file", str(ready), *extra], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in self.proc.stdout], daemon=True).start()
        line = lines.get(timeout=30)
        assert line.startswith("mcp-accept proxy: listening on "), line
        self.url = line.split()[4]
        self.folder = Path(line.rsplit("recording into ", 1)[1].rstrip(")\n"))
        # the same facts for a program, in the file written once the proxy listens
        for _ in range(600):
            if ready.is_file():
                break
            time.sleep(0.05)
        said = json.loads(ready.read_text())
        assert said["url"] == self.url and Path(said["folder"]) == self.folder and said["pid"] == self.proc.pid

    def stop(self) -> dict:
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=30) == 0, self.proc.stderr.read()
        return load_results(self.folder)


def wire(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def fixture_sse(tmp_path):
    proc, url = start_http_server(str(FIXTURE), "--http", "0", "--sse", "crlf")
    yield url
    stop_http_server(proc)


@pytest.fixture
def fixture_json():
    proc, url = start_http_server(str(FIXTURE), "--http", "0")
    yield url
    stop_http_server(proc)


def post(client: httpx.Client, url: str, message: dict, headers: dict) -> httpx.Response:
    return client.post(url, json=message, headers={"Accept": "application/json, text/event-stream",
                                                   "Content-Type": "application/json", **headers})


def body_messages(response: httpx.Response) -> list[dict]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [json.loads(e.data) for e in EventSource(response).iter_sse() if e.data.strip()]
    return [response.json()] if response.content else []


def test_raw_host_legacy_session_over_sse_with_secrets(tmp_path, fixture_sse):
    proxy = Proxy(fixture_sse, tmp_path / "runs", "--header", "X-Api-Key: env:EXTRA_KEY")
    sent, got = [], []
    try:
        with httpx.Client(timeout=30) as client:
            auth = {"Authorization": SECRET, "Cookie": COOKIE}
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "http-host", "version": "7.0"}}}
            answer = post(client, proxy.url, init, auth)
            sent.append(init)
            got += body_messages(answer)
            assert answer.headers["content-type"].startswith("text/event-stream")
            session = answer.headers["mcp-session-id"]  # the session header came back through
            headers = {**auth, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
            for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": "search_link", "arguments": {"q": "MCP"}}},
                            {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": LINK_URI}}):
                answer = post(client, proxy.url, message, headers)
                assert answer.status_code in (200, 202), answer.text
                sent.append(message)
                got += body_messages(answer)
            assert client.delete(proxy.url, headers=headers).status_code in (200, 202, 204, 405)
    finally:
        results = proxy.stop()
    entries = wire(proxy.folder)
    assert [e["message"] for e in entries if e["dir"] == "out"] == sent
    assert [e["message"] for e in entries if e["dir"] == "in"] == got
    assert got[-1]["result"]["contents"][0]["uri"] == LINK_URI
    c = results["conditions"]
    assert (c["host_product"], c["host_version"], c["transport"]) == ("http-host", "7.0", "Streamable HTTP")
    assert c["protocol_version_on_wire"] == "2025-11-25"
    [link] = {r["id"]: r for r in results["rows"]}["H02"]["observed"]["wire"]["links"]
    assert link["read"] is True
    # Secrets were forwarded (the session worked) but are nowhere in the run folder.
    for path in proxy.folder.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            for secret in (SECRET, "s3cr3t-token", COOKIE, EXTRA):
                assert secret not in text, (path, secret)
    recorded = dict((k.lower(), v) for k, v in entries[[e.get("dir") for e in entries].index("out")]["http"]["headers"])
    assert recorded["authorization"] == "[REDACTED]" and recorded["cookie"] == "[REDACTED]"
    later = [e for e in entries if e["dir"] == "out" and e["message"].get("id") == 2][0]
    assert dict((k.lower(), v) for k, v in later["http"]["headers"])["mcp-session-id"] == session


async def _sdk(url: str, era: str, read_link: bool, tool: str, arg: str) -> dict:
    from mcp import Client

    seen: dict = {}
    async with Client(url, mode="auto" if era == "2026-07-28" else "legacy", cache=None,
                      read_timeout_seconds=20) as client:
        seen["version"] = client.protocol_version
        result = await client.call_tool(tool, {arg: "MCP"})
        seen["link"] = str(result.content[0].uri)
        if read_link:
            seen["body"] = (await client.read_resource(seen["link"])).contents[0].text
    return seen


@pytest.mark.parametrize("era,read_link", [("2026-07-28", True), ("2025-11-25", False)])
def test_sdk_client_through_the_http_proxy(tmp_path, fixture_json, era, read_link):
    pytest.importorskip("mcp")
    import anyio

    proxy = Proxy(fixture_json, tmp_path / "runs")
    try:
        seen = anyio.run(_sdk, proxy.url, era, read_link, "search_link", "q")
    finally:
        results = proxy.stop()
    assert seen["version"] == era and seen["link"] == LINK_URI
    entries = wire(proxy.folder)
    sent = [e["message"] for e in entries if e["dir"] == "out"]
    infos = [m["params"]["clientInfo"] for m in sent if m.get("method") == "initialize"] + \
            [m["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] for m in sent
             if "io.modelcontextprotocol/clientInfo" in (m.get("params") or {}).get("_meta", {})]
    c = results["conditions"]
    assert (c["host_product"], c["host_version"]) == (infos[0]["name"], infos[0]["version"])
    assert c["protocol_version_on_wire"] == era
    if era == "2026-07-28":  # the modern headers went through as the client sent them
        call = next(e for e in entries if e["dir"] == "out" and e["message"].get("method") == "tools/call")
        headers = {k.lower(): v for k, v in call["http"]["headers"]}
        assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "search_link"
        assert headers["mcp-protocol-version"] == era
    [link] = {r["id"]: r for r in results["rows"]}["H02"]["observed"]["wire"]["links"]
    assert link["read"] is read_link


def test_sdk_server_sse_behind_the_http_proxy(tmp_path):
    pytest.importorskip("mcp")
    import anyio

    proc, upstream = start_http_server(str(SERVERS / "sdk_server.py"), "--http", "0")
    try:
        proxy = Proxy(upstream, tmp_path / "runs")
        try:
            seen = anyio.run(_sdk, proxy.url, "2025-11-25", True, "find_link", "query")
        finally:
            results = proxy.stop()
    finally:
        stop_http_server(proc)
    assert json.loads(seen["body"])["total"] == 2
    assert results["conditions"]["server_name"] == "sdk-search"
    entries = wire(proxy.folder)
    streamed = [e for e in entries if e["dir"] == "in" and "sse_id" in (e.get("http") or {})]
    assert streamed, "the SDK server answers over SSE; each event is recorded as it passes"
    [link] = {r["id"]: r for r in results["rows"]}["H02"]["observed"]["wire"]["links"]
    assert link["read"] is True and link["reads"][0]["outcome"] == "result"


def test_an_unreachable_upstream_is_a_502_and_recorded(tmp_path):
    with refused_port() as port:
        proxy = Proxy(f"http://127.0.0.1:{port}/mcp", tmp_path / "runs")
        try:
            answer = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=30)
        finally:
            proxy.stop()
    assert answer.status_code == 502
    assert any(e.get("event") == "upstream-error" for e in wire(proxy.folder))


def test_bad_listen_address(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--url", "http://127.0.0.1:9/mcp",
                           "--listen", "nowhere", "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "--listen: expected HOST:PORT" in done.stderr


def test_a_body_repeating_the_hosts_credentials_is_masked_too(tmp_path):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Echo(BaseHTTPRequestHandler):  # a server that repeats the request headers in its result
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"headers": dict(self.headers)}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        proxy = Proxy(f"http://127.0.0.1:{server.server_address[1]}/mcp", tmp_path / "runs",
                      "--header", "X-Api-Key: env:EXTRA_KEY")
        try:
            answer = httpx.post(proxy.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30,
                                headers={"Authorization": SECRET, "Cookie": COOKIE})
        finally:
            proxy.stop()
    finally:
        server.shutdown()
        server.server_close()
    echoed = answer.json()["result"]["headers"]
    assert echoed["Authorization"] == SECRET and echoed["X-Api-Key"] == EXTRA  # forwarded
    text = (proxy.folder / "wire.jsonl").read_text(encoding="utf-8")
    assert "headers" in text and "[REDACTED]" in text
    for secret in ("s3cr3t-token-0123456789", "cookie-value-abcdef", EXTRA):
        assert secret not in text
