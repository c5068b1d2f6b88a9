"""The Streamable HTTP recording proxy: a local reverse proxy in front of a server's endpoint.

The host talks to ``http://127.0.0.1:PORT/<path>``; each request goes to the upstream
origin with the same path and query, its headers kept (``Mcp-Session-Id``,
``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``, ``Authorization``,
cookies: docs/specification/2025-11-25/basic/transports.mdx#session-management and
docs/specification/2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers
and #custom-headers-from-tool-parameters), minus the hop-by-hop ones a proxy must
not forward (RFC 9110 section 7.6.1). Two changes are made, both on purpose:
``Accept-Encoding: identity`` is asked of the upstream so the record can be read and SSE
events pass through as they stream, and the ``--header`` values are added. Answers come back
as they arrive: an ``text/event-stream`` body is relayed chunk by chunk.

Built on the standard library's ``ThreadingHTTPServer`` (one thread per connection, enough
for one host on loopback; no ASGI stack to add as a dependency) and ``httpx`` (already a
dependency) for the upstream side. Header values are recorded through the Redactor: the
sensitive names (Authorization, Cookie, ...) and every ``--header`` are masked, never written.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from mcp_accept.evidence.redaction import Redactor
from mcp_accept.hosts.proxy.folder import ProxyRecord

# RFC 9110 7.6.1: connection-specific fields are not forwarded; content-length is recomputed.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
                        "trailer", "upgrade", "host", "content-length", "accept-encoding"})
MAX_BODY = 64 * 1024 * 1024


class SseSplitter:
    """Incremental text/event-stream reader: feed bytes, get each event's data as it completes.
    Takes ``\\n``, ``\\r\\n`` and ``\\r`` line ends (html.spec.whatwg.org, server-sent events)."""

    def __init__(self):
        self._buffer = b""
        self._data: list[bytes] = []
        self._id: str | None = None

    def feed(self, chunk: bytes) -> list[tuple[bytes, str | None]]:
        self._buffer += chunk
        events = []
        while True:
            cut = min((i for i in (self._buffer.find(b"\n"), self._buffer.find(b"\r")) if i >= 0), default=-1)
            if cut < 0:
                break
            if self._buffer[cut:cut + 1] == b"\r" and cut + 1 == len(self._buffer):
                break  # a "\r" at the end may be the first half of "\r\n"
            line = self._buffer[:cut]
            step = 2 if self._buffer[cut:cut + 2] == b"\r\n" else 1
            self._buffer = self._buffer[cut + step:]
            if not line:
                if self._data:
                    events.append((b"\n".join(self._data), self._id))
                self._data = []
                continue
            field, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            if field == b"data":
                self._data.append(value)
            elif field == b"id":
                self._id = value.decode("utf-8", "replace")
        return events


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, fmt, *args):  # the access log would go to stderr; the wire log has it all
        pass

    def do_POST(self):
        self._forward()

    def do_GET(self):
        self._forward()

    def do_DELETE(self):
        self._forward()

    def _forward(self) -> None:
        proxy: HttpProxy = self.server.proxy
        number = proxy.next_exchange()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        received = list(self.headers.items())
        proxy.learn_secrets(received)
        shown = proxy.redactor.headers(received)
        where = {"exchange": number, "method": self.command, "path": self.path, "headers": shown}
        if body:
            proxy.record.put("out", body, http=where)
        else:
            proxy.record.event("http-request", f"{self.command} {self.path}", http=where)
        headers = [(k, v) for k, v in received if k.lower() not in HOP_BY_HOP]
        headers += list(proxy.headers) + [("Accept-Encoding", "identity")]
        try:
            request = proxy.client.build_request(self.command, proxy.target(self.path),
                                                 headers=headers, content=body or None)
            response = proxy.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            detail = f"upstream unreachable: {type(exc).__name__}"
            proxy.record.event("upstream-error", detail, http={"exchange": number})
            self._plain(502, detail)
            return
        try:
            self._relay(proxy, number, response)
        finally:
            response.close()

    def _plain(self, status: int, text: str) -> None:
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _relay(self, proxy: "HttpProxy", number: int, response: httpx.Response) -> None:
        ctype = response.headers.get("content-type", "")
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in HOP_BY_HOP]
        proxy.learn_secrets(kept)
        where = {"exchange": number, "status": response.status_code,
                 "headers": proxy.redactor.headers(kept)}
        proxy.record.event("http-response", f"HTTP {response.status_code} {ctype or '(no body type)'}",
                           http=where)
        self.send_response_only(response.status_code)
        for name, value in kept:
            self.send_header(name, value)
        if "text/event-stream" in ctype.lower():
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            splitter = SseSplitter()
            try:
                for chunk in response.iter_raw():
                    if not chunk:
                        continue
                    # queued before the host has it, so the host's next request comes after
                    for data, event_id in splitter.feed(chunk):
                        proxy.record.put("in", data, http={"exchange": number, "sse_id": event_id})
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                proxy.record.event("stream-ended", "the host closed the event stream",
                                   http={"exchange": number})
                self.close_connection = True
            except httpx.HTTPError as exc:
                proxy.record.event("upstream-error", f"the event stream broke: {type(exc).__name__}",
                                   http={"exchange": number})
                self.close_connection = True
            return
        body = b"".join(response.iter_raw())[:MAX_BODY]
        if body and "json" in ctype.lower():
            proxy.record.put("in", body, http={"exchange": number})
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    proxy: "HttpProxy"


class HttpProxy:
    def __init__(self, upstream: str, listen: tuple[str, int], folder: Path, *,
                 headers: list[tuple[str, str]] = (), redactor: Redactor | None = None,
                 given: dict | None = None):
        self.upstream = urlsplit(upstream)
        self.headers = list(headers)
        self.redactor = redactor or Redactor()
        self.folder = folder
        self.record = ProxyRecord(folder, "Streamable HTTP", self.redactor, given)
        self.client = httpx.Client(timeout=httpx.Timeout(30.0, read=None), follow_redirects=False)
        self._exchange = 0
        self._lock = threading.Lock()
        self.httpd = _Server(listen, _Handler)
        self.httpd.proxy = self
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self.httpd.server_address[:2]

    @property
    def local_url(self) -> str:
        host, port = self.address
        return urlunsplit(("http", f"{host}:{port}", self.upstream.path or "/", self.upstream.query, ""))

    def target(self, path: str) -> str:
        base = urlunsplit((self.upstream.scheme, self.upstream.netloc, "", "", ""))
        return base + path

    def learn_secrets(self, headers: list[tuple[str, str]]) -> None:
        """The host's credentials (Authorization, cookies...) are forwarded, never recorded:
        their values become secrets of the Redactor before anything carrying them is
        written, so a body that repeats one is masked too."""
        for name, value in headers:
            if name.lower() not in self.redactor.header_names:
                continue
            self.redactor.add(value.strip())
            scheme, _, token = value.strip().partition(" ")
            if token.strip() and scheme.isalpha():  # "Bearer TOKEN": the token alone too
                self.redactor.add(token.strip())
            for part in value.split(";"):  # cookies: each value
                self.redactor.add(part.partition("=")[2].strip())

    def next_exchange(self) -> int:
        with self._lock:
            self._exchange += 1
            return self._exchange

    def start(self) -> None:
        self.record.event("listen", f"{self.local_url} -> {urlunsplit(self.upstream._replace(query=''))}")
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        daemon=True)
        self._thread.start()

    def stop(self, ended_by: str, interrupted: bool = False) -> dict:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.client.close()
        return self.record.finish(ended_by=ended_by, interrupted=interrupted)


def parse_listen(value: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (or ``PORT``) as an address; None when it is not one."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535 or not host:
        return None
    return host, int(port)


def serve_http_proxy(upstream: str, listen: tuple[str, int], folder: Path, *,
                     headers: list[tuple[str, str]], redactor: Redactor, given: dict | None = None,
                     say=print) -> dict:
    """The ``proxy --url`` command: serve until SIGINT or SIGTERM, then complete the folder."""
    import signal

    ended = threading.Event()
    why: list[str] = []

    def on_signal(signum, frame):
        why.append(f"signal {signal.Signals(signum).name}")
        ended.set()

    # Handlers first: a signal arriving while the folder is being set up still completes it.
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        proxy = HttpProxy(upstream, listen, folder, headers=headers, redactor=redactor, given=given)
    except BaseException:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        raise
    try:
        proxy.start()
        say(f"mcp-accept proxy: listening on {proxy.local_url} (recording into {folder})")
        while not ended.wait(0.5):
            pass
    finally:
        results = proxy.stop(why[0] if why else "stopped", interrupted=False)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return results
