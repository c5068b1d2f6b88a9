"""Streamable HTTP: every JSON-RPC message is one POST to the server's endpoint.

The answer to a request comes back as ``application/json`` or as an SSE stream
(``text/event-stream``) that may carry notifications before the response. Both
are turned into messages and fed into an :class:`~mcp_accept.transport.messages.Inbox`,
exactly as the stdio transport does, so the checks never know which transport
carried a message.

Both eras:

* 2026-07-28: no session. Every POST carries ``MCP-Protocol-Version``, ``Mcp-Method``
  and, for ``tools/call``, ``resources/read`` and ``prompts/get``, ``Mcp-Name``;
  header values that are not plain ASCII travel as ``=?base64?...?=``.
* Legacy: ``initialize`` carries no version header; the ``Mcp-Session-Id`` it hands
  out is sent on every later request together with ``MCP-Protocol-Version``; a 404
  on a session request means the session is gone: one new ``initialize``, then the
  request once more; ``DELETE`` ends the session.

Requests go out through httpx and event streams are read by httpx-sse (:mod:`.sse`), the
client the official MCP Python SDK uses. Each POST runs on its own thread so that the
caller's deadline bounds the whole answer, a dripping SSE stream included; the thread stops
reading when the answer has come, when the caller gave up, or when the body grows past
``max_bytes``.
Every HTTP exchange is recorded in the wire log, in order, with its method, URL,
status and headers (values of credentials masked) and its body (the messages, or
the raw text when it is not a message).
"""

from __future__ import annotations

import base64
import itertools
import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx

from mcp_accept import __version__
from mcp_accept.errors import ServerError
from mcp_accept.evidence.redaction import Redactor, clip
from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.protocol import (HEADER_METHOD, HEADER_NAME, HEADER_SESSION, HEADER_VERSION, METHOD_NOT_FOUND, MODERN,
                                 NAMED_METHODS, PROTOCOL_HEADERS)
from mcp_accept.reasons import Reason, reason
from mcp_accept.server_command import ServerEnv
from mcp_accept.transport.base import DEFAULT_MAX_BYTES, Reply, Transport, wire_text
from mcp_accept.transport.headers import header_value as _header_value, param_headers
from mcp_accept.transport.messages import (BAD_MESSAGE, DECODED_ANYWAY, HTTP_ANSWER, OWN_LIMIT, SESSION_ID, TOOL_HEADER,
                                           Inbox, decode_message, timed_out)
from mcp_accept.transport.sse import read_events


ACCEPT = "application/json, text/event-stream"
ERROR_BODY_CAP = 1024 * 1024  # error answers are kept as evidence only
STARTUP_WAIT = 30.0  # seconds a started server has to answer on its URL
POLL_INTERVAL = 0.1
NOTIFY_TIMEOUT = 5.0

def header_value(value: str) -> str:
    """As sent; a name holding a lone surrogate (from a server's own text) cannot be UTF-8,
    so its code units go base64-encoded as they are instead of crashing the request."""
    try:
        return _header_value(value)
    except UnicodeEncodeError:
        return "=?base64?" + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii") + "?="


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be an MCP endpoint, or None when it can."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if not parts.hostname:
        return "names no host"
    return None


def shown_url(url: str) -> str:
    """The URL without user name and password, for the evidence."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


HTTP_TIMED_OUT = "the HTTP exchange timed out"

class _TooLarge(Exception):
    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


class _Abandoned(Exception):
    """The caller stopped waiting (deadline or the answer already came)."""


class _Undecodable(Exception):
    """The body is compressed in a way mcp-accept does not decode."""


DECODE_STEP = 64 * 1024  # decompressed bytes produced per step: a bomb is stopped one step past the cap


class _Inflate:
    """gzip or deflate, decoded a bounded step at a time (``zlib`` with ``max_length``), so
    that one small compressed chunk never turns into gigabytes in memory."""

    def __init__(self, encoding: str):
        import zlib

        self.zlib = zlib
        self.encoding = encoding
        # gzip: the gzip header; deflate: the zlib format, or raw deflate as some servers send
        self.obj = zlib.decompressobj(47 if encoding in ("gzip", "x-gzip") else 15)
        self.started = False

    def feed(self, data: bytes):
        while data:
            try:
                out = self.obj.decompress(data, DECODE_STEP)
            except self.zlib.error:
                if self.started or self.encoding in ("gzip", "x-gzip"):
                    raise _Undecodable(f"the {self.encoding} body is corrupt") from None
                self.obj = self.zlib.decompressobj(-15)  # raw deflate
                self.started = True
                continue
            self.started = True
            data = self.obj.unconsumed_tail
            if out:
                yield out


def _decoders(header: str | None) -> list:
    """The decoders for a Content-Encoding header, in the order to apply them."""
    names = [n.strip().lower() for n in (header or "").split(",") if n.strip()]
    out = []
    for name in reversed(names):
        if name == "identity":
            continue
        if name not in ("gzip", "x-gzip", "deflate"):
            raise _Undecodable(f"the server compressed the answer with {name!r} although the request "
                               "said Accept-Encoding: identity; not decoded")
        out.append(_Inflate(name))
    return out


# What a failed exchange raises: httpx's errors (a timeout is one) and socket errors
HTTP_ERRORS = (httpx.HTTPError, OSError)


class _Endpoint:
    """The endpoint's origin and the one httpx client that speaks to it.

    The client's pool keeps connections alive between exchanges and reuses an idle one only
    when the server has neither closed it nor sent on it unasked; an exchange still reading
    holds its connection alone. No proxy and no ``.netrc`` from the environment
    (``trust_env=False``); redirects are never followed; ``https://`` is verified against
    certifi's CA store, and a plain ``http://`` endpoint never loads it (no redirect can lead
    to TLS)."""

    def __init__(self, url: str):
        parts = urlsplit(url)
        self.authority = parts.netloc.rpartition("@")[2]
        # user:password travel as the Authorization header this transport writes and records
        self.url = urlunsplit((parts.scheme, self.authority, parts.path or "/", parts.query, ""))
        self.basic = None
        if parts.username is not None or parts.password is not None:
            pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
            self.basic = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        verify: Any = False
        if parts.scheme == "https":
            import ssl

            import certifi

            verify = ssl.create_default_context(cafile=certifi.where())
        self.client = httpx.Client(trust_env=False, follow_redirects=False, verify=verify)

    def close(self) -> None:
        self.client.close()


class IncompleteBody(httpx.RemoteProtocolError):
    """The connection ended before the body its Content-Length announced."""


class _Request:
    """A request as it goes on the wire: the headers recorded are the headers sent."""

    def __init__(self, method: str, headers: list[tuple[str, str]], body: bytes | None, deadline: float):
        self.method = method
        self.headers = headers
        self.body = body
        self.deadline = deadline


class _Response:
    """An answer being read: status, headers as received, and the body as byte chunks as they
    arrive, undecoded (:class:`_Bounded` decodes them)."""

    def __init__(self, raw: httpx.Response):
        self.raw = raw
        self.status = raw.status_code
        self.reason_phrase = raw.reason_phrase
        # names in the server's case; values as the bytes received, read as Latin-1
        self.headers: list[tuple[str, str]] = [(k.decode("latin-1"), v.decode("latin-1"))
                                               for k, v in raw.headers.raw]
        self.stream: Iterable[bytes] = self.chunks()
        network = raw.extensions.get("network_stream")
        self.socket = network.get_extra_info("socket") if network is not None else None

    def header(self, name: str) -> str | None:
        """Every value of ``name``, joined as one field value (RFC 9110 section 5.3)."""
        values = [v for k, v in self.headers if k.lower() == name]
        return ", ".join(values) if values else None

    def raw_values(self, name: str) -> list[bytes]:
        return [v for k, v in self.raw.headers.raw if k.lower() == name.encode("ascii")]

    def chunks(self):
        received = 0
        try:
            for chunk in self.raw.iter_raw():
                received += len(chunk)
                yield chunk
        except httpx.RemoteProtocolError:
            announced = (self.header("content-length") or "").strip()
            if announced.isdigit() and received < int(announced):
                raise IncompleteBody(f"the server closed the connection without sending the complete "
                                     f"message body: {received} of {announced} bytes (Content-Length)") from None
            raise

    def read(self) -> bytes:
        return b"".join(self.stream)

    def close(self) -> None:
        self.raw.close()  # read to its end, the connection carries the next exchange; else it is closed


def _send(endpoint: _Endpoint, request: _Request) -> _Response:
    """Send ``request``; the answer's head has been read on return. Each read waits at most
    what was left of the deadline when the request went out."""
    remaining = max(0.05, request.deadline - time.monotonic())
    outgoing = httpx.Request(request.method, endpoint.url,
                             headers=[(n.encode("ascii"), v.encode("latin-1")) for n, v in request.headers],
                             content=request.body, extensions={"timeout": httpx.Timeout(remaining).as_dict()})
    return _Response(endpoint.client.send(outgoing, stream=True))


class _Bounded:
    """Wraps a response body: decodes it (bounded), counts decoded bytes per message,
    honours the caller's deadline. --max-bytes counts what the body decodes to, never
    the compressed size, and decoding stops there."""

    def __init__(self, inner, limit: int, exchange: "_Exchange", decoders: list | None = None):
        self.inner = inner
        self.limit = limit
        self.exchange = exchange
        self.decoders = decoders or []
        self.total = 0
        self.since_mark = 0
        self.tail = b""

    def _decoded(self):
        for chunk in self.inner:
            pieces = [chunk]
            for decoder in self.decoders:
                pieces = (out for piece in pieces for out in decoder.feed(piece))
            yield from pieces

    def __iter__(self):
        for chunk in self._decoded():
            if self.exchange.abandoned.is_set() or time.monotonic() > self.exchange.deadline:
                raise _Abandoned()
            self.total += len(chunk)
            self.since_mark += len(chunk)
            if self.since_mark > self.limit:
                raise _TooLarge(self.since_mark)
            self.tail = (self.tail + chunk)[-4:]
            yield chunk

    def mark(self) -> None:
        self.since_mark = 0

    def ended_inside_event(self) -> bool:
        tail = self.tail.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return self.total > 0 and not tail.endswith(b"\n\n")


class _Exchange:
    """One POST and what became of it."""

    def __init__(self, number: int, message: dict, deadline: float):
        self.number = number
        self.message = message
        self.deadline = deadline
        self.abandoned = threading.Event()
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self.status: int | None = None
        self.session_expired = False
        self.failure: str | Reason | None = None

    def reading(self, sock: socket.socket | None) -> None:
        """The socket the answer is being read from; None once the reading is over."""
        with self._lock:
            self._socket = sock

    def interrupt(self) -> None:
        """The caller stopped waiting: a read still waiting on the server ends now, not when its
        timeout passes."""
        with self._lock:
            sock, self._socket = self._socket, None
        if sock is None:
            return
        try:
            # the plain socket's shutdown, also for TLS: ssl.SSLSocket's own would drop the TLS
            # state under the thread still reading
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass

    @property
    def request_id(self) -> Any:
        return self.message.get("id")

    @property
    def is_request(self) -> bool:
        return "id" in self.message and "method" in self.message


class HttpTransport(Transport):
    name = "Streamable HTTP"

    def __init__(self, url: str, log: WireLog, *, headers: Iterable[tuple[str, str]] = (),
                 redactor: Redactor | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 server_command: str | None = None, stderr_path: Path | None = None,
                 stdout_path: Path | None = None, startup_wait: float = STARTUP_WAIT):
        super().__init__(log, max_bytes=max_bytes)
        self.url = url
        self.shown_url = shown_url(url)
        self.user_headers = list(headers)
        self.redactor = redactor or Redactor()
        self.server_command = server_command
        self.stderr_path = stderr_path
        self.stdout_path = stdout_path
        self.startup_wait = startup_wait
        self.process = None
        # what a server started here is given of the environment (see StdioTransport.env)
        self.env: dict = ServerEnv().build()
        self.client: _Endpoint | None = None
        self.session_id: str | None = None
        self.reinitialized = 0
        self._answered: set = set()
        self._flood: dict = {}
        self._numbers = itertools.count(1)
        self._reinit_ids = itertools.count(1)
        self._threads: list[threading.Thread] = []

    # -- life cycle -------------------------------------------------------------------------
    def open(self) -> None:
        self.client = _Endpoint(self.url)
        if self.server_command and self.process is None:
            try:
                self._start_server()
            except BaseException:
                self.close()
                raise

    def _start_server(self) -> None:
        from mcp_accept.transport.stdio import ServerProcess

        self.process = ServerProcess(self.server_command, stderr_path=self.stderr_path,
                                     redactor=self.redactor, stdout_path=self.stdout_path,
                                     cwd=getattr(self, "cwd", None), env=self.env)
        self.log.record("event", event="spawn", detail=f"pid {self.process.pid}")
        started = time.monotonic()
        deadline = started + self.startup_wait
        attempts = 0
        while True:
            code = self.process.exit_code()
            if code is not None:
                raise ServerError(f"the server exited with code {code} before {self.shown_url} answered")
            attempts += 1
            remaining = deadline - time.monotonic()
            request = _Request("GET", self._complete([("Accept", ACCEPT)], None),
                               None, time.monotonic() + max(0.05, min(1.0, remaining)))
            try:
                response = _send(self.client, request)
                status = response.status
                response.close()  # a GET may open an endless event stream: not read
            except HTTP_ERRORS:
                if time.monotonic() >= deadline:
                    raise ServerError(f"{self.shown_url} did not answer within {self.startup_wait:g}s "
                                      "of starting the server") from None
                time.sleep(POLL_INTERVAL)
                continue
            self.log.record("event", event="server-ready",
                            detail=f"{self.shown_url} answered GET with HTTP {status} after "
                                   f"{time.monotonic() - started:.1f}s ({attempts} attempts)")
            return

    def restart(self) -> None:
        """A fresh session; the server process (if we started it) keeps running."""
        self.session_id = None
        self.legacy_version = None

    def close(self) -> None:
        if self.client is not None:
            until = time.monotonic() + 1.0  # abandoned exchanges get a moment to notice, no more
            for thread in self._threads:
                thread.join(timeout=max(0.0, until - time.monotonic()))
            self.client.close()
            self.client = None
        self._threads = []
        if self.process is not None:
            try:  # an HTTP server does not end when its stdin closes: ask it to stop at once
                os.killpg(self.process.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
            code = self.process.stop()
            self.log.record("event", event="exit", detail=f"exit code {code}")
            self.process = None

    def describe(self) -> dict:
        out = {"transport": self.name, "url": self.shown_url}
        if self.server_command:
            out["command"] = self.server_command
        return out

    # -- headers ----------------------------------------------------------------------------
    def _headers(self, message: dict | None) -> list[tuple[str, str]]:
        headers = [("Content-Type", "application/json"), ("Accept", ACCEPT)] if message is not None else []
        protocol_names = {name.lower() for name in PROTOCOL_HEADERS}
        headers += [(n, v) for n, v in self.user_headers if n.lower() not in protocol_names]
        method = message.get("method") if message is not None else None
        if self.era == MODERN:
            headers.append((HEADER_VERSION, MODERN))
            if isinstance(method, str):
                headers.append((HEADER_METHOD, header_value(method)))
                key = NAMED_METHODS.get(method)
                params = message.get("params") if isinstance(message.get("params"), dict) else {}
                if key and isinstance(params.get(key), str):
                    headers.append((HEADER_NAME, header_value(params[key])))
                if method == "tools/call":
                    headers += self._param_headers(params)
        elif method != "initialize":
            if self.legacy_version:
                headers.append((HEADER_VERSION, self.legacy_version))
            if self.session_id:
                headers.append((HEADER_SESSION, self.session_id))
        return headers

    def _complete(self, headers: list[tuple[str, str]], body: bytes | None) -> list[tuple[str, str]]:
        """``headers`` with what every request carries, a name given already left as given."""
        assert self.client is not None
        names = {n.lower() for n, _ in headers}
        first = [("Host", self.client.authority)]
        first += [(n, v) for n, v in (("User-Agent", f"mcp-accept/{__version__}"),
                                      ("Accept-Encoding", "identity")) if n.lower() not in names]
        out = first + headers
        if self.client.basic:  # user:password in the URL is sent as Basic credentials (RFC 7617)
            out = [(n, v) for n, v in out if n.lower() != "authorization"] + [("Authorization", self.client.basic)]
        if body is not None:
            out.append(("Content-Length", str(len(body))))
        return out

    def _param_headers(self, params: dict) -> list[tuple[str, str]]:
        """Arguments the tool's inputSchema asks to mirror into ``Mcp-Param-*`` headers."""
        tool = self.tools.get(params.get("name")) if isinstance(params.get("name"), str) else None
        if not isinstance(tool, dict):
            return []
        try:
            found, problems = param_headers(tool.get("inputSchema"), params.get("arguments") or {})
        except UnicodeEncodeError:
            found, problems = [], ["an argument to mirror into a header holds text UTF-8 cannot encode"]
        for problem in problems:
            self.log.record("event", event="violation",
                            detail=f"tool {params['name']!r}: {problem}", kind=TOOL_HEADER)
        return found

    def _http(self, exchange: int, method: str, headers, status: int | None = None,
              phrase: str | None = None) -> dict:
        out: dict[str, Any] = {"exchange": exchange, "method": method, "url": self.shown_url}
        if status is not None:
            out["status"] = status
            if phrase:
                out["reason"] = phrase
        out["headers"] = self.redactor.headers(headers)
        return out

    # -- requests ---------------------------------------------------------------------------
    def request(self, message: dict, *, timeout: float) -> Reply:
        reply = Reply(request=message, meta={"timeout": timeout})
        if self.client is None:
            reply.failure = "not started"
            return reply
        deadline = time.monotonic() + timeout
        if message.get("method") == "initialize":
            self.session_id = None  # an initialize opens a new session
        exchange = self._post(message, reply, deadline)
        if exchange.session_expired and not reply.message:
            if self._reinitialize(deadline):
                reply.failure = None
                reply.meta.pop("timed_out", None)
                reply.violations, reply.others = [], []
                exchange = self._post(message, reply, deadline)
                if exchange.session_expired and not reply.message:
                    reply.failure = "the server answered HTTP 404 (session not found) again after a new initialize"
        if exchange.status is not None:
            reply.meta["http_status"] = exchange.status
        if reply.failure == HTTP_TIMED_OUT and reply.message is None:
            # the socket's timeout is the same deadline: whichever fires first, it is the one timeout
            reply.failure = reason("transport.timeout", seconds=f"{timeout:g}")
            reply.meta["timed_out"] = True
        if timed_out(reply):
            self.log.record("event", event="timeout", detail=reply.failure)
            self._cancel(message)
        return reply

    def _start(self, message: dict, deadline: float) -> tuple[_Exchange, Inbox]:
        """POST ``message``, recorded as sent, on an exchange thread of its own that reads the
        answer into the inbox returned."""
        exchange = _Exchange(next(self._numbers), message, deadline)
        inbox = Inbox(self.log)
        inbox.answered = self._answered  # a second answer for an id is caught across POSTs
        inbox.flood = self._flood  # the per-step caps hold across POSTs
        request = self._build(message, deadline)
        self.log.record("out", message=message, era=self.era,
                        http=self._http(exchange.number, "POST", request.headers))
        thread = threading.Thread(target=self._run, args=(exchange, request, inbox), daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return exchange, inbox

    def _post(self, message: dict, reply: Reply, deadline: float) -> _Exchange:
        """Send one request and wait (until ``deadline``) for its answer to reach ``reply``."""
        exchange, inbox = self._start(message, deadline)
        inbox.wait_for(message.get("id"), reply, deadline=deadline, era=self.era,
                       answer=self._answer_server_request)
        if reply.message is None or not exchange.done.is_set():
            exchange.abandoned.set()
        if reply.message is None:
            exchange.interrupt()
        return exchange

    def _build(self, message: dict, deadline: float) -> _Request:
        body = wire_text(message).encode("utf-8")
        return _Request("POST", self._complete(self._headers(message), body), body, deadline)

    def _run(self, exchange: _Exchange, request: _Request, inbox: Inbox) -> None:
        """The exchange thread: send, read the answer into ``inbox``, always close the inbox."""
        why: str | Reason | None = None
        try:
            why = self._send_and_read(exchange, request, inbox)
        except _Abandoned:
            why = "abandoned"
        except _TooLarge as exc:
            why = reason("transport.answer-too-large", limit=self.max_bytes)
            if not exchange.abandoned.is_set():
                inbox.violation(reason("transport.message-too-large", size=exc.size, limit=self.max_bytes),
                                kind=OWN_LIMIT, http={"exchange": exchange.number})
        except _Undecodable as exc:
            why = str(exc)
            if not exchange.abandoned.is_set():
                inbox.violation(why, kind=BAD_MESSAGE, http={"exchange": exchange.number})
        except (httpx.TimeoutException, TimeoutError):
            why = HTTP_TIMED_OUT
        except HTTP_ERRORS as exc:
            why = f"HTTP exchange failed: {_describe_error(exc)}"
            if not exchange.abandoned.is_set():
                self.log.record("event", event="http-error", detail=why,
                                http={"exchange": exchange.number})
        except Exception as exc:  # a broken answer must end this exchange, never the run
            why = f"reading the answer failed: {type(exc).__name__}: {clip(str(exc), 200)}"
            if not exchange.abandoned.is_set():
                self.log.record("event", event="http-error", detail=why,
                                http={"exchange": exchange.number})
        finally:
            exchange.failure = why
            exchange.done.set()
            inbox.close(why or f"the HTTP answer held no response to id {exchange.request_id!r}")

    def _send_and_read(self, exchange: _Exchange, request: _Request, inbox: Inbox) -> str | None:
        assert self.client is not None
        response = _send(self.client, request)
        exchange.reading(response.socket)
        try:
            return self._read(exchange, response, inbox)
        finally:
            exchange.reading(None)
            response.close()

    def _read(self, exchange: _Exchange, response: _Response, inbox: Inbox) -> str | None:
        if exchange.abandoned.is_set():
            raise _Abandoned()
        status = response.status
        exchange.status = status
        content_type = response.header("content-type") or ""
        ctype = content_type.split(";")[0].strip().lower()
        self.log.record("event", event="http-response", detail=f"HTTP {status} {ctype or '(no body type)'}",
                        http=self._http(exchange.number, "POST", response.headers, status,
                                        response.reason_phrase))
        method = exchange.message.get("method")
        where = {"exchange": exchange.number}
        if method == "initialize" and 200 <= status < 300:
            self.session_id = self._session_id(response, inbox, where)
        encoding = response.header("content-encoding")
        if encoding and encoding.strip().lower() != "identity":
            inbox.violation(f"the answer is compressed ({encoding!r}) although the request said "
                            "Accept-Encoding: identity; decoded up to --max-bytes", kind=DECODED_ANYWAY, http=where)
        decoders = _decoders(encoding)
        bounded = _Bounded(response.stream, self.max_bytes, exchange, decoders)
        response.stream = bounded
        if status == 404 and self.session_id and method != "initialize" and self.legacy_version:
            raw = self._small_body(response)
            exchange.session_expired = True
            self.log.record("event", event="session-expired", raw=raw, http=where,
                            detail="HTTP 404 for a request of the legacy session: the session is gone")
            return "the session is gone (HTTP 404)"
        if not 200 <= status < 300:
            return self._error_answer(exchange, response, inbox, status)
        if not exchange.is_request:  # a notification, or our answer to a server request
            raw = self._small_body(response)
            if status != 202:
                kind = "a notification" if "method" in exchange.message else "a response"
                inbox.violation(f"HTTP {status} for {kind}; 202 Accepted with no body is required",
                                kind=HTTP_ANSWER, raw=raw or None, http=where)
            return None
        if status == 202 or not ctype:
            raw = self._small_body(response)
            inbox.violation(f"HTTP {status} with no answer to the request {method!r}", kind=HTTP_ANSWER,
                            raw=raw or None, http=where)
            return f"HTTP {status}: the server sent no answer"
        if ctype == "text/event-stream":
            return self._read_sse(exchange, bounded, content_type, inbox)
        if ctype == "application/json":
            inbox.put_decoded(decode_message(response.read()), http=where)
            return None
        raw = self._small_body(response)
        inbox.violation(f"HTTP {status} answer of type {ctype or 'none'!r}: neither application/json "
                        "nor text/event-stream", kind=HTTP_ANSWER, raw=raw, http=where)
        return f"HTTP {status} answer of type {ctype or 'none'!r} is not an MCP answer"

    def _session_id(self, response: _Response, inbox: Inbox, where: dict) -> str | None:
        """The session id handed out on initialize, if it is one a client can send back.

        2025-11-25 basic/transports.mdx#session-management: the session ID MUST consist of
        printable ASCII only, 0x21 through 0x7E. Any other byte is a violation;
        such an id is not sent back (it could not travel as a header), so the session's later
        requests show what the server does without it."""
        values = response.raw_values(HEADER_SESSION.lower())
        if not values:
            return None
        raw = values[-1]
        if raw and all(0x21 <= b <= 0x7E for b in raw):
            return raw.decode("ascii")
        shown = raw[:200].decode("ascii", "backslashreplace")
        inbox.violation(f"{HEADER_SESSION} {shown!r} holds bytes outside visible ASCII 0x21-0x7E; "
                        "not sent back (basic/transports.mdx#session-management: MUST)", kind=SESSION_ID, http=where)
        return None

    def _small_body(self, response: _Response) -> str:
        data = b""
        try:
            for chunk in response.stream:
                data += chunk
                if len(data) >= ERROR_BODY_CAP:
                    break
        except (_TooLarge, _Undecodable):
            pass
        return data.decode("utf-8", "replace")

    def _error_answer(self, exchange: _Exchange, response: _Response, inbox: Inbox,
                      status: int) -> str:
        """A non-2xx answer: the JSON-RPC error for our id if it holds one, else evidence and a reason."""
        raw = self._small_body(response)
        where = {"exchange": exchange.number}
        decoded = decode_message(raw)
        message = decoded.message
        if (exchange.is_request and isinstance(message, dict) and "error" in message
                and message.get("id") == exchange.request_id
                and type(message.get("id")) is type(exchange.request_id)):
            inbox.put_decoded(decoded, http=where)
            return f"HTTP {status}"
        what = f"HTTP {status} {response.reason_phrase}".strip()
        if isinstance(message, dict) and isinstance(message.get("error"), dict):
            err = message["error"]
            what += f": JSON-RPC error {err.get('code')}: {clip(str(err.get('message')), 200)}"
        elif raw.strip():
            what += f": {self.redactor.cut(' '.join(raw.split()), 200)}"
        self.log.record("event", event="http-error", detail=what, raw=raw or None, http=where)
        return what

    def _read_sse(self, exchange: _Exchange, bounded: _Bounded, content_type: str, inbox: Inbox) -> str | None:
        events = 0
        for event in read_events(bounded, content_type):  # --max-bytes is _Bounded's
            bounded.mark()
            if exchange.abandoned.is_set():
                raise _Abandoned()
            if not event.data.strip():
                continue  # some servers open the stream with an empty event
            events += 1
            where = {"exchange": exchange.number, "sse": {"event": event.event}}
            if event.id:
                where["sse"]["id"] = event.id
            decoded = decode_message(event.data)
            inbox.put_decoded(decoded, http=where, size=len(event.data))
            msg = decoded.message
            if (exchange.is_request and isinstance(msg, dict) and "method" not in msg
                    and msg.get("id") == exchange.request_id and ("result" in msg or "error" in msg)):
                return None  # the answer came; the rest of the stream is not needed
        if not exchange.is_request:
            return None
        cut = " (it was cut inside an event)" if bounded.ended_inside_event() else ""
        detail = (f"the SSE stream ended after {events} message(s) without the answer to id "
                  f"{exchange.request_id!r}{cut}")
        self.log.record("event", event="http-error", detail=detail, http={"exchange": exchange.number})
        return detail

    # -- legacy sessions --------------------------------------------------------------------
    def _reinitialize(self, deadline: float) -> bool:
        from mcp_accept.transport.session import CLIENT_INFO

        version = self.legacy_version
        if not version or self.reinitialized >= 100:
            return False
        self.reinitialized += 1
        self.session_id = None
        self.log.record("event", event="reinitialize",
                        detail=f"the session is gone; initializing a new one ({version})")
        message = {"jsonrpc": "2.0", "id": f"mcp-accept-reinitialize-{next(self._reinit_ids)}",
                   "method": "initialize",
                   "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}}
        reply = Reply(request=message)
        self._post(message, reply, deadline)
        if not reply.has_result:
            self.log.record("event", event="reinitialize-failed", detail=reply.describe_failure())
            return False
        chosen = reply.result.get("protocolVersion") if isinstance(reply.result, dict) else None
        if chosen != version:
            self.log.record("event", event="reinitialize-failed",
                            detail=f"the server chose {chosen!r} for the new session, not {version}")
            return False
        self._send_only({"jsonrpc": "2.0", "method": "notifications/initialized"},
                        min(deadline, time.monotonic() + NOTIFY_TIMEOUT))
        return True

    def end_session(self, *, timeout: float) -> None:
        if self.client is None or self.era == MODERN or not self.session_id:
            return
        number = next(self._numbers)
        request = _Request("DELETE", self._complete(self._headers(None), None), None, time.monotonic() + timeout)
        self.log.record("event", event="http-request", detail="DELETE: end of the session",
                        http=self._http(number, "DELETE", request.headers))
        try:
            response = _send(self.client, request)
            response.close()  # the session's last exchange: its body is not needed
        except HTTP_ERRORS as exc:
            self.log.record("event", event="http-error", detail=f"DELETE failed: {_describe_error(exc)}",
                            http={"exchange": number})
            return
        finally:
            self.session_id = None
        detail = f"HTTP {response.status}" + (" (the server does not end sessions on request)"
                                              if response.status == 405 else "")
        self.log.record("event", event="http-response", detail=detail,
                        http=self._http(number, "DELETE", response.headers, response.status,
                                        response.reason_phrase))

    # -- notifications and answers to the server --------------------------------------------
    def notify(self, message: dict, *, timeout: float) -> Reply:
        reply = Reply(request=message)
        if self.client is None:
            reply.failure = "not started"
            return reply
        failure = self._send_only(message, time.monotonic() + timeout)
        if failure:
            reply.failure = failure
        return reply

    def _send_only(self, message: dict, deadline: float) -> str | Reason | None:
        """POST a message that gets no JSON-RPC answer (a notification or our response); wait for 202."""
        exchange, _ = self._start(message, deadline)
        if not exchange.done.wait(max(0.0, deadline - time.monotonic())):
            exchange.abandoned.set()
            exchange.interrupt()
            return "no HTTP answer in time"
        if exchange.status is not None and not 200 <= exchange.status < 300:
            return exchange.failure or f"HTTP {exchange.status}"
        if exchange.status is None:
            return exchange.failure or "no HTTP answer"
        return None

    def _answer_server_request(self, message: dict) -> None:
        # Legacy servers may ping; everything else is declined since we declare no capabilities.
        if message.get("method") == "ping":
            answer = {"jsonrpc": "2.0", "id": message.get("id"), "result": {}}
        else:
            answer = {"jsonrpc": "2.0", "id": message.get("id"),
                      "error": {"code": METHOD_NOT_FOUND, "message": "mcp-accept declares no client capabilities"}}
        self._send_only(answer, time.monotonic() + NOTIFY_TIMEOUT)

    def _cancel(self, message: dict) -> None:
        # 2026-07-28 cancels by closing the stream (done: the exchange was abandoned).
        if self.era == MODERN or "id" not in message:
            return
        self._send_only({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": message.get("id"), "reason": "timed out"}},
                        time.monotonic() + NOTIFY_TIMEOUT)


def _describe_error(exc: Exception) -> str:
    text = clip(" ".join(str(exc).split()), 200)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
