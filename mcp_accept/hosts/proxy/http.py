"""The Streamable HTTP recording proxy: a local reverse proxy in front of a server's endpoint.

The host talks to ``http://127.0.0.1:PORT/<path>``; each request goes to the upstream
origin with the same path and query, its headers kept (``Mcp-Session-Id``,
``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``, ``Authorization``,
cookies: docs/specification/2025-11-25/basic/transports.mdx#session-management and
docs/specification/2026-07-28/basic/transports/streamable-http.mdx#standard-request-headers
and #custom-headers-from-tool-parameters), minus the hop-by-hop ones a proxy must
not forward (RFC 9110 section 7.6.1). Three changes are made, all on purpose:
``Accept-Encoding: identity`` is asked of the upstream so the record can be read and SSE
events pass through as they stream, the ``--header`` values are added, and the upstream
URL's own query parameters are added to a request that does not carry them. Answers come
back as they arrive, a chunk at a time, never held whole.

What it refuses (answered by the proxy, recorded as a ``refused`` event, never forwarded):

* a request target that is not origin-form (RFC 9112 section 3.2.1: a path starting with
  one ``/``, visible ASCII, no fragment): absolute-form, authority-form (``CONNECT``),
  ``*``, ``//host/...``: 400. The upstream URL is built from the configured scheme, host
  and port with the target as its path (``httpx.URL.copy_with(raw_path=...)``), and checked
  again, so no target can send the ``--header`` values to another host;
* a ``Host`` that is not the proxy's own address (``127.0.0.1:P``, ``localhost:P``,
  ``[::1]:P``, or the address the connection came in on): 421 Misdirected Request (RFC 9110
  section 15.5.20), as the official MCP Python SDK answers it (``mcp.server.transport_security``);
  a DNS-rebinding page reaches loopback under its own host name;
* an ``Origin`` that is not a loopback origin: 403, which the transport requires
  (docs/specification/2025-11-25/basic/transports.mdx#security-warning,
  docs/specification/2026-07-28/basic/transports/streamable-http.mdx#security-%26-endpoint:
  a server MUST answer 403 to an Origin header that is there but not valid);
* a method other than POST, GET and DELETE: 405; a request body larger than
  ``--max-bytes``: 413 with a JSON-RPC error for the request's id (:mod:`.bounds`).

Each connection from the host has a socket timeout of ``--write-timeout`` seconds: a host
that takes no byte of an answer for that long, or sends no byte of a request body, ends that
exchange (the connection is closed, the upstream's answer let go, a ``write-timeout`` or
``read-timeout`` event recorded); a body that stalls is answered 408 first. A long-lived
event stream is not cut while it is quiet: the proxy then waits on the upstream, which has
no read timeout, not on the host. A keep-alive connection idle for that long is closed, as
HTTP lets a server do (RFC 9112 section 9.3); the host opens a new one.

Built on the standard library's ``ThreadingHTTPServer`` (one thread per connection, enough
for one host on loopback; no ASGI stack to add as a dependency) and ``httpx`` for the upstream
side, the client of ``mcp-accept run``, whose event-stream reader
(:mod:`mcp_accept.transport.sse`) finds the events to record. Header values are recorded
through the Redactor: the sensitive names (Authorization, Cookie, any name with
token/secret/key/auth/password in it) and every ``--header`` are masked, and every value that
looks like a credential and every secret-looking query parameter becomes a secret of the run,
masked wherever it shows.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import os
import re
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from mcp_accept.errors import InputError
from mcp_accept.evidence.credentials import looks_like_credential
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.hosts.proxy.bounds import CHUNK, WRITE_TIMEOUT, JsonHead, describe, error_answer
from mcp_accept.hosts.proxy.folder import UPSTREAM_UNREACHABLE, ProxyRecord
from mcp_accept.running.execute import url_secrets
from mcp_accept.transport.base import DEFAULT_MAX_BYTES
from mcp_accept.transport.sse import Oversized, read_events

# RFC 9110 7.6.1: connection-specific fields are not forwarded; content-length is recomputed;
# Expect is answered here (the standard library sends 100 Continue).
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
                        "trailer", "upgrade", "host", "content-length", "accept-encoding", "expect"})
FORWARDED_METHODS = ("POST", "GET", "DELETE")  # what Streamable HTTP uses
# A request header whose name says it carries a credential: its value is a secret of the run.
SECRET_HEADER = re.compile(r"token|secret|key|auth|passw|credential|signature|cookie", re.I)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
# Origin-form (RFC 9112 section 3.2.1): one "/", then visible ASCII; no fragment, no backslash
# (which some servers read as "/"), percent signs only as escapes.
_ORIGIN_FORM = re.compile(r"/(?!/)(?:[!$&-;=?-\[\]_a-z~]|%[0-9A-Fa-f]{2})*", re.ASCII)


def is_loopback(host: str) -> bool:
    """``localhost`` (RFC 6761 section 6.3) or a loopback address literal."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def target_problem(target: str) -> str | None:
    """Why a request target is not origin-form, or None when it is."""
    if _ORIGIN_FORM.fullmatch(target):
        return None
    if target.startswith("//"):
        return "starts with '//' (a network-path reference names a host, RFC 3986 section 4.2)"
    if target == "*":
        return "is asterisk-form"
    if not target.startswith("/"):
        return "is not a path: absolute-form and authority-form targets are not forwarded"
    return "holds a character no RFC 3986 path or query carries (e.g. '#', '\\', a space, a bare '%')"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, fmt, *args):  # the access log would go to stderr; the wire log has it all
        pass

    def setup(self):
        self.timeout = self.server.proxy.write_timeout  # StreamRequestHandler puts it on the socket
        super().setup()

    def _host_stopped(self, proxy: "HttpProxy", number: int, exc: OSError, during: str) -> None:
        """The host's end failed while the proxy wrote to it: it stopped reading (the socket
        timeout passed) or it went away. Either way the exchange ends here."""
        self.close_connection = True
        if isinstance(exc, TimeoutError):
            proxy.record.event("write-timeout", f"the host took no byte of {during} for --write-timeout "
                               f"{proxy.write_timeout:g} s: the connection was closed",
                               http={"exchange": number})
        else:
            proxy.record.event("stream-ended", f"the host closed the connection during {during}",
                               http={"exchange": number})

    def do_POST(self):
        self._forward()

    def do_GET(self):
        self._forward()

    def do_DELETE(self):
        self._forward()

    def __getattr__(self, name: str):
        # Any other method (CONNECT, PUT, TRACE, ...) goes through the same checks, so it
        # is refused and recorded, not answered 501 by the standard library unseen.
        if name.startswith("do_"):
            return self._forward
        raise AttributeError(name)

    def send_error(self, code, message=None, explain=None):
        """What the standard library refuses by itself (a malformed request line, a line or
        header block too long) is recorded too."""
        proxy = getattr(self.server, "proxy", None)
        if proxy is not None:
            line = getattr(self, "requestline", "") or ""
            for word in line.split():
                proxy.learn_query(word)
            proxy.record.event("refused", f"HTTP {code}: {message or ''}; not forwarded",
                               http={"exchange": proxy.next_exchange(), "request_line": line[:1000]})
        self.close_connection = True
        super().send_error(code, message, explain)

    def _target(self) -> str:
        # The request line as sent: the standard library has already folded a leading "//"
        # of self.path into "/", which would hide what was asked for.
        words = (getattr(self, "requestline", "") or "").split()
        return words[1] if len(words) >= 2 else self.path

    def _forward(self) -> None:
        proxy: HttpProxy = self.server.proxy
        number = proxy.next_exchange()
        target = self._target()
        received = list(self.headers.items())
        proxy.learn_secrets(received, request=True)
        proxy.learn_query(target)
        where = {"exchange": number, "method": self.command, "path": target,
                 "headers": proxy.redactor.headers(received)}
        refusal = proxy.refusal(self.command, target, self.headers, self.connection.getsockname()[0])
        if refusal is not None:
            status, why = refusal
            proxy.record.event("refused", f"{self.command} {target}: HTTP {status}: {why}; not forwarded",
                               http=where)
            extra = [("Allow", ", ".join(FORWARDED_METHODS))] if status == 405 else []
            self._answer(status, why.encode("utf-8"), "text/plain; charset=utf-8", extra)
            return
        body = self._read_body(proxy, where)
        if body is None:
            return
        url = proxy.upstream_for(target)
        if url is None:  # cannot happen for an origin-form target; checked all the same
            why = "the request target would change the upstream's scheme, host or port"
            proxy.record.event("refused", f"{self.command} {target}: HTTP 400: {why}; not forwarded", http=where)
            self._answer(400, why.encode("utf-8"), "text/plain; charset=utf-8")
            return
        if body:
            proxy.record.put("out", body, http=where)
        else:
            proxy.record.event("http-request", f"{self.command} {target}", http=where)
        named = _connection_tokens(self.headers.get_all("Connection") or [])
        headers = [(k, v) for k, v in received if k.lower() not in HOP_BY_HOP and k.lower() not in named]
        headers += list(proxy.headers) + [("Accept-Encoding", "identity")]
        try:
            request = proxy.client.build_request(self.command, url, headers=headers, content=body or None)
            response = proxy.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            # the library's words say which (refused, a name not found, a certificate not trusted)
            said = str(exc).strip()
            detail = f"{UPSTREAM_UNREACHABLE}: {type(exc).__name__}" + (f": {said[:200]}" if said else "")
            proxy.record.event("upstream-error", detail, http={"exchange": number})
            self._answer(502, detail.encode("utf-8"), "text/plain; charset=utf-8")
            return
        try:
            self._relay(proxy, number, response)
        except OSError as exc:  # the answer's head could not be written
            self._host_stopped(proxy, number, exc, "the answer")
        finally:
            response.close()

    def _read_body(self, proxy: "HttpProxy", where: dict) -> bytes | None:
        """The request body, held whole up to --max-bytes so that its record is queued
        before the server can answer it; None when the request was answered here."""
        encoding = (self.headers.get("Transfer-Encoding") or "").strip().lower()
        lengths = self.headers.get_all("Content-Length") or []
        if encoding and lengths:
            return self._bad(proxy, where, "a request with both Transfer-Encoding and Content-Length "
                                           "(RFC 9112 section 6.3)")
        if encoding and encoding != "chunked":
            return self._bad(proxy, where, f"Transfer-Encoding {encoding!r}: only chunked is read "
                                           "(RFC 9112 section 6.1)", 501)
        if len(set(v.strip() for v in lengths)) > 1 or any(not v.strip().isdigit() for v in lengths):
            return self._bad(proxy, where, "a Content-Length that is not one number (RFC 9110 section 8.6)")
        pieces = self._chunked() if encoding else self._sized(int(lengths[0]) if lengths else 0)
        limit, kept, head = proxy.max_bytes, bytearray(), None
        try:
            for piece in pieces:
                if head is None and len(kept) + len(piece) <= limit:
                    kept += piece
                    continue
                if head is None:
                    head = JsonHead()
                    head.feed(bytes(kept))
                    kept = bytearray()
                head.feed(piece)
        except ValueError as exc:
            return self._bad(proxy, where, f"a malformed chunked body: {exc}")
        except TimeoutError:
            proxy.record.event("read-timeout", f"the host sent no byte of its request body for "
                               f"--write-timeout {proxy.write_timeout:g} s: not forwarded; answered HTTP 408",
                               http=where)
            self._answer(408, b"the request body stopped arriving", "text/plain; charset=utf-8")
            return None
        except OSError:
            proxy.record.event("request-incomplete", "the host closed the connection inside a request "
                               "body: not forwarded", http=where)
            self.close_connection = True
            return None
        if head is None:
            return bytes(kept)
        head.finish()
        text = (f"the request ({head.size} bytes) is larger than --max-bytes {limit}; "
                "it was not forwarded")
        proxy.record.event("too-large", f"the host sent a request body of {head.size} bytes, over "
                           f"--max-bytes {limit}: not forwarded; answered HTTP 413 with a JSON-RPC "
                           f"error ({describe(head)})", http=where)
        self._answer(413, error_answer(head.id, text, size=head.size, limit=limit), "application/json")
        return None

    def _bad(self, proxy: "HttpProxy", where: dict, why: str, status: int = 400) -> None:
        proxy.record.event("refused", f"HTTP {status}: {why}; not forwarded", http=where)
        self._answer(status, why.encode("utf-8"), "text/plain; charset=utf-8")
        return None

    def _sized(self, length: int):
        while length > 0:
            piece = self.rfile.read(min(CHUNK, length))
            if not piece:
                raise OSError("short body")
            length -= len(piece)
            yield piece

    def _chunked(self):
        """RFC 9112 section 7.1, read a chunk at a time (no line is read past 1 KiB)."""
        while True:
            line = self.rfile.readline(1024)
            if not line.endswith(b"\n"):
                raise ValueError("a chunk size line is missing or too long")
            size_text = line.split(b";", 1)[0].strip()
            if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                raise ValueError("a chunk size is not hexadecimal")
            size = int(size_text, 16)
            if size == 0:
                break
            yield from self._sized(size)
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise ValueError("a chunk does not end with CRLF")
        while True:  # trailer fields: read and dropped
            line = self.rfile.readline(8192)
            if line in (b"\r\n", b"\n", b""):
                return
            if not line.endswith(b"\n"):
                raise ValueError("a trailer line is too long")

    def _answer(self, status: int, data: bytes, ctype: str, extra: list = ()) -> None:
        """An answer made by the proxy itself; the connection is closed after it, since what
        is left of the request on it was not read."""
        self.close_connection = True
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for name, value in extra:
                self.send_header(name, value)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass

    def _relay(self, proxy: "HttpProxy", number: int, response: httpx.Response) -> None:
        ctype = response.headers.get("content-type", "")
        named = _connection_tokens(response.headers.get_list("connection"))
        kept = [(k, v) for k, v in response.headers.multi_items()
                if k.lower() not in HOP_BY_HOP and k.lower() not in named]
        proxy.learn_secrets(kept, request=False)
        where = {"exchange": number, "status": response.status_code,
                 "headers": proxy.redactor.headers(kept)}
        proxy.record.event("http-response", f"HTTP {response.status_code} {ctype or '(no body type)'}",
                           http=where)
        self.send_response_only(response.status_code)
        for name, value in kept:
            self.send_header(name, value)
        status = response.status_code
        if status in (204, 304) or 100 <= status < 200:  # no body, no framing (RFC 9110 section 6.4.1)
            self.end_headers()
            return
        length = response.headers.get("content-length", "").strip()
        chunked = not length.isdigit() and self.request_version != "HTTP/1.0"
        if "text/event-stream" in ctype.lower() or not length.isdigit():
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.close_connection = True  # an HTTP/1.0 host: the body ends with the connection
                self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", length)
        self.end_headers()
        if "text/event-stream" in ctype.lower():
            self._relay_events(proxy, number, response, chunked)
        else:
            self._relay_body(proxy, number, response, chunked, "json" in ctype.lower())

    def _write(self, chunk: bytes, chunked: bool) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)

    def _relay_events(self, proxy: "HttpProxy", number: int, response: httpx.Response, chunked: bool) -> None:
        def forwarded():
            for chunk in response.iter_raw():
                yield chunk
                # asked for the next chunk: every event this one completed is queued for the
                # record, so the host's next request comes after it
                self._write(chunk, chunked)
                self.wfile.flush()

        ctype = response.headers.get("content-type")
        try:
            for event in read_events(forwarded(), ctype, limit=proxy.max_bytes):
                where = {"exchange": number, "sse_id": event.id or None}
                if isinstance(event, Oversized):
                    proxy.record.event("too-large", f"an event of {event.size} bytes or more, over --max-bytes "
                                       f"{proxy.max_bytes}: forwarded whole, not recorded as a message", http=where)
                elif event.data:
                    proxy.record.put("in", event.data.encode("utf-8"), http=where)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError as exc:
            self._host_stopped(proxy, number, exc, "the event stream")
        except httpx.HTTPError as exc:
            proxy.record.event("upstream-error", f"the event stream broke: {type(exc).__name__}",
                               http={"exchange": number})
            self.close_connection = True

    def _relay_body(self, proxy: "HttpProxy", number: int, response: httpx.Response, chunked: bool,
                    is_json: bool) -> None:
        """Forward the body a chunk at a time. A JSON body is copied for the record up to
        --max-bytes; its record is queued before the last chunk goes out, so the host cannot
        act on the answer before it is recorded. A larger one is forwarded whole all the same
        and said to be too large in the record: nothing the host receives is cut."""
        copy: bytearray | None = bytearray() if is_json else None
        held: bytes | None = None
        total = 0
        try:
            for chunk in response.iter_raw():
                if not chunk:
                    continue
                total += len(chunk)
                if copy is not None:
                    if len(copy) + len(chunk) <= proxy.max_bytes:
                        copy += chunk
                    else:
                        copy = None
                        proxy.record.event("too-large", f"the server's answer passed --max-bytes "
                                           f"{proxy.max_bytes}: forwarded whole, not recorded as a message",
                                           http={"exchange": number})
                if held is not None:
                    self._write(held, chunked)
                held = chunk
        except httpx.HTTPError as exc:
            proxy.record.event("upstream-error", f"the answer broke after {total} bytes: {type(exc).__name__}; "
                               "the host got what had arrived", http={"exchange": number})
            copy = None
            self.close_connection = True
        except OSError as exc:
            self._host_stopped(proxy, number, exc, "the answer")
            return
        if copy:
            proxy.record.put("in", bytes(copy), http={"exchange": number})
        try:
            if held is not None:
                self._write(held, chunked)
            if chunked and not self.close_connection:
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError as exc:
            self._host_stopped(proxy, number, exc, "the answer")


def _connection_tokens(values) -> set[str]:
    """Header names listed in Connection: hop-by-hop too (RFC 9110 section 7.6.1)."""
    return {token.strip().lower() for value in values for token in value.split(",") if token.strip()}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    proxy: "HttpProxy"

    def server_bind(self):
        # Not HTTPServer's: it looks the address up by name (socket.getfqdn), which may ask DNS.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class _Server6(_Server):
    address_family = socket.AF_INET6


class HttpProxy:
    def __init__(self, upstream: str, listen: tuple[str, int], folder: Path, *,
                 headers: list[tuple[str, str]] = (), redactor: Redactor | None = None,
                 given: dict | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 write_timeout: float = WRITE_TIMEOUT, upstream_socket: str | None = None):
        self.upstream = urlsplit(upstream)
        self.write_timeout = write_timeout
        self._base = httpx.URL(upstream)
        self.headers = list(headers)
        self.redactor = redactor or Redactor()
        self.max_bytes = max_bytes
        self.folder = folder
        self.listen_host = listen[0]
        self.record = ProxyRecord(folder, "Streamable HTTP", self.redactor, given)
        # No read timeout: an event stream may be quiet for as long as the host keeps it open.
        # Through --upstream-socket, each connection is relayed to the upstream's host and port from
        # outside the host run's network namespace (hosts/upstream_relay.py); TLS still ends here.
        transport = httpx.HTTPTransport(uds=upstream_socket) if upstream_socket else None
        self.client = httpx.Client(timeout=httpx.Timeout(write_timeout, read=None), follow_redirects=False,
                                   transport=transport)
        self._exchange = 0
        self._lock = threading.Lock()
        # Redactor.add is not atomic: two requests learning at once could lose a secret.
        self._learning = threading.Lock()
        server = _Server6 if ":" in listen[0] else _Server
        self.httpd = server(listen, _Handler)
        self.httpd.proxy = self
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self.httpd.server_address[:2]

    @property
    def local_url(self) -> str:
        """Where the host connects: the upstream's path on the proxy's address. The upstream's
        query is not in it (it may hold a token): the proxy adds it to each request."""
        host, port = self.address
        if _unspecified(host):  # bound to every interface: loopback is one of them, and connectable
            host = "::1" if ":" in host else "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        return urlunsplit(("http", f"{host}:{port}", self.upstream.path or "/", "", ""))

    def upstream_for(self, target: str) -> httpx.URL | None:
        """The upstream URL for an origin-form target: the configured scheme, host and port,
        the target's path and query, and the configured query's parameters the target lacks.
        None if the result would name another origin."""
        path, _, query = target.partition("?")
        configured = [p for p in self.upstream.query.split("&") if p]
        if configured:
            have = {p.partition("=")[0] for p in query.split("&") if p}
            query = "&".join([q for q in (query,) if q] + [p for p in configured if p.partition("=")[0] not in have])
        raw = path + ("?" + query if query else "")
        try:
            url = self._base.copy_with(raw_path=raw.encode("ascii"))
        except (httpx.InvalidURL, UnicodeEncodeError):
            return None
        same = (url.scheme, url.host, url.port) == (self._base.scheme, self._base.host, self._base.port)
        return url if same else None

    def refusal(self, method: str, target: str, headers, local_ip: str) -> tuple[int, str] | None:
        """(status, why) for a request the proxy will not forward, or None."""
        problem = target_problem(target)
        if problem:
            return 400, f"the request target {problem} (RFC 9112 section 3.2.1: origin-form only)"
        hosts = headers.get_all("Host") or []
        if len(hosts) != 1:
            return 400, "a request needs exactly one Host header (RFC 9112 section 3.2)"
        try:
            named = urlsplit("//" + hosts[0].strip())
            name, port = (named.hostname or "").lower(), named.port or 80
        except ValueError:
            return 400, "the Host header is not host[:port] (RFC 9112 section 3.2)"
        own = set(LOOPBACK_NAMES) | {local_ip.lower()}
        if not _unspecified(self.listen_host):
            own.add(self.listen_host.strip("[]").lower())
        if name not in own or port != self.address[1] or named.path or named.username is not None:
            return 421, (f"the Host header does not name this proxy ({', '.join(sorted(own))} "
                         f"port {self.address[1]}): a page reaching loopback by DNS rebinding is refused")
        origins = headers.get_all("Origin") or []
        if origins:
            origin = origins[0].strip()
            if len(origins) > 1 or not _loopback_origin(origin, hosts[0].strip()):
                return 403, ("the Origin is not a loopback origin (basic/transports.mdx, Security "
                             "Warning: an invalid Origin MUST be answered 403)")
        if method not in FORWARDED_METHODS:
            return 405, f"{method} is not forwarded (Streamable HTTP uses {', '.join(FORWARDED_METHODS)})"
        return None

    def learn_secrets(self, headers: list[tuple[str, str]], *, request: bool) -> None:
        """The host's credentials are forwarded, never recorded: their values become secrets
        of the Redactor before anything carrying them is written, so a body that repeats one
        is masked too. In a request that is every header whose name says it holds one, and
        every value that looks like one; in an answer, the fixed sensitive names."""
        for name, value in headers:
            lower = name.lower()
            named = lower in self.redactor.header_names if not request else (
                lower in self.redactor.header_names or bool(SECRET_HEADER.search(lower)))
            if not named and not (request and looks_like_credential(value)):
                continue
            if named and request:
                self.redactor.header_names.add(lower)  # its value is shown as [REDACTED]
            self._add_credential(lower, value.strip())

    def _add_credential(self, name: str, value: str) -> None:
        with self._learning:
            self._add_credential_locked(name, value)

    def _add_credential_locked(self, name: str, value: str) -> None:
        add = self.redactor.add
        add(value)
        scheme, _, token = value.partition(" ")
        token = token.strip()
        if token and scheme.isalpha():  # "Bearer TOKEN": the token alone too
            add(token)
            if scheme.lower() == "basic":
                try:
                    pair = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError, ValueError):
                    pair = ""
                add(pair)
                add(pair.partition(":")[2])
        if name == "set-cookie":  # the cookie's value; its attributes (Path=/, Max-Age) are not secret
            add(value.split(";", 1)[0].partition("=")[2].strip())
            return
        for part in value.split(";"):  # cookies: each value
            add(part.partition("=")[2].strip())

    def learn_query(self, target: str) -> None:
        """Secret-looking query parameters of a request target (token, key, api_key, sig...)."""
        if "?" not in target and "@" not in target:
            return
        url = target if "://" in target else "http://proxy.invalid" + (target if target.startswith("/") else "/" + target)
        try:
            found = url_secrets(url)
        except ValueError:
            return
        with self._learning:
            for secret in found:
                self.redactor.add(secret)

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


def _unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _loopback_origin(origin: str, host: str) -> bool:
    """An origin (RFC 6454) on loopback, or the proxy's own (same scheme-less host:port)."""
    try:
        parts = urlsplit(origin)
        name = parts.hostname or ""
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or parts.path not in ("", "/") or parts.query or parts.username:
        return False
    return is_loopback(name) or parts.netloc.lower() == host.lower()


def parse_listen(value: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (or ``PORT``) as an address; None when it is not one."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535 or not host:
        return None
    return host, int(port)


def listen_address(value: str, allow_remote: bool = False) -> tuple[str, int]:
    """``--listen`` checked: a loopback address unless ``--allow-remote`` (the transport
    SHOULD bind to localhost only when running locally, basic/transports.mdx, Security
    Warning; and the proxy forwards the host's credentials and the --header values)."""
    address = parse_listen(value)
    if address is None:
        raise InputError("expected HOST:PORT, e.g. 127.0.0.1:8800", field="--listen")
    if not allow_remote and not is_loopback(address[0]):
        raise InputError(f"{address[0]} is not a loopback address; the proxy forwards the host's credentials, "
                         "so it listens on 127.0.0.1, ::1 or localhost only (give --allow-remote to listen "
                         "there anyway)", field="--listen")
    return address


def serve_http_proxy(upstream: str, listen: tuple[str, int], folder: Path, *,
                     headers: list[tuple[str, str]], redactor: Redactor, given: dict | None = None,
                     max_bytes: int = DEFAULT_MAX_BYTES, write_timeout: float = WRITE_TIMEOUT,
                     say=print, warn=None, ready_file: Path | None = None,
                     upstream_socket: str | None = None) -> dict:
    """The ``proxy --url`` command: serve until SIGINT or SIGTERM, then complete the folder.
    ``ready_file``, once listening: JSON with the URL to give the host, for a program that starts
    the proxy (``host test``) to read instead of the line printed for a person."""
    import signal

    why: list[str] = []

    def on_signal(signum, frame):
        # no lock, no I/O: an Event set here could wait for ever on its lock, held by this very
        # thread inside Event.wait()
        why.append(f"signal {signal.Signals(signum).name}")

    # Handlers first: a signal arriving while the folder is being set up still completes it.
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        proxy = HttpProxy(upstream, listen, folder, headers=headers, redactor=redactor, given=given,
                          max_bytes=max_bytes, write_timeout=write_timeout, upstream_socket=upstream_socket)
    except BaseException:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        raise
    try:
        proxy.start()
        if not is_loopback(listen[0]):
            line = (f"mcp-accept proxy: warning: listening on {listen[0]} port {proxy.address[1]}, not on "
                    "loopback (--allow-remote): whoever reaches it has requests forwarded with the "
                    "--header values")
            (warn or (lambda text: print(text, file=sys.stderr, flush=True)))(redactor.text(line))
        if upstream_socket:
            from mcp_accept.hosts.upstream_relay import say_i_am_the_proxy

            try:
                say_i_am_the_proxy(upstream_socket)
            except OSError as exc:
                raise InputError(f"cannot connect to it: {exc.strerror or exc}", field="--upstream-socket") from None
        say(redactor.text(f"mcp-accept proxy: listening on {proxy.local_url} (recording into {folder})"))
        if ready_file is not None:
            from mcp_accept.evidence.files import atomic_write_json

            atomic_write_json(ready_file, {"url": proxy.local_url, "folder": str(folder), "pid": os.getpid()})
        while not why:
            time.sleep(0.05)
    finally:
        results = proxy.stop(why[0] if why else "stopped", interrupted=False)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return results
