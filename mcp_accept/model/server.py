"""The stand-in model's HTTP server: Starlette on uvicorn, on 127.0.0.1 and a free port, in a
thread of the process that runs the host. Each request goes to the API its path names; each
request and each answer is a line of ``model.jsonl`` (through the run's :class:`WireLog`, so it
is flushed per message and redacted like ``wire.jsonl``): ``in`` is what the host sent its
model, ``out`` what the stand-in answered.

Only the host is answered: its configuration carries the run's key (``HostContext.model_key``),
and a request without it is refused (401) before its body is read, recorded as an event
``forged-request``, never as something the host sent its model. The entries are not kept in
memory: the rows read the file back.

What a host (or anything else on loopback) may send is bounded, and each refusal is an
``event`` line of ``model.jsonl`` (``request-refused``; ``request-dropped`` when its client
went away before the body ended), its reason in ``http.reason``: a body over :data:`MAX_BODY` (413,
``too-large``); a body that would bring the bodies being read at once past
:data:`IN_FLIGHT` (503, ``in-flight``); a request whose head is not whole, or whose body
brings no byte, within ``read_timeout`` seconds (408, ``head-timeout`` / ``body-timeout``,
and the connection is closed). Once the run's byte budget is reached nothing more is
recorded, and every request is answered 503.
"""

from __future__ import annotations

import hmac
import json
import socket
import threading
from pathlib import Path
from types import ModuleType

from mcp_accept.evidence.budget import ByteBudget
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.model import anthropic, gemini, openai
from mcp_accept.model.answer import Answer
from mcp_accept.model.script import CallTool, Say, Script

# One module per model API (its `handles`, `parse` and `respond`), in the order a request's path
# is offered to them.
DIALECTS: tuple[ModuleType, ...] = (anthropic, openai, gemini)
# The APIs by the names a user gives them (``host test --api``), each the ``Turn.api`` its
# dialect reads a request as.
API_NAMES = {"anthropic": anthropic.API, "openai-chat": openai.CHAT, "openai-responses": openai.RESPONSES,
             "gemini": gemini.API}
WRONG_API = "wrong-api"
MAX_BODY = 64 * 1024 * 1024  # a host's request larger than this is refused, not read whole
IN_FLIGHT = 2 * MAX_BODY  # bytes of request bodies held at once, all requests together
READ_TIMEOUT = 30.0  # seconds a request's head may take, and its body between two bytes
# Request headers kept in the record: the rest (credentials above all) never reach the file.
KEPT_HEADERS = ("content-type", "accept", "user-agent", "anthropic-version", "anthropic-beta",
                "x-goog-api-client", "openai-beta", "x-stainless-lang", "x-stainless-package-version")


def bare_path(path: str) -> str:
    """The path a route is chosen by: hosts add query strings (Claude Code sends
    ``/v1/messages/count_tokens?beta=true``, Gemini ``?alt=sse``) that no API reads as a route."""
    return path.split("?", 1)[0].rstrip("/")


def dialect_for(bare: str) -> ModuleType | None:
    """The model API a request's path is for, or None."""
    return next((dialect for dialect in DIALECTS if dialect.handles(bare)), None)


def dialect_name(dialect: ModuleType) -> str:
    """What ``model.jsonl`` calls a model API: its module's name."""
    return dialect.__name__.rsplit(".", 1)[-1]


def dialect_named(name: str) -> ModuleType | None:
    """The model API ``model.jsonl`` recorded a request under, or None."""
    return next((dialect for dialect in DIALECTS if dialect_name(dialect) == name), None)


# Where the APIs carry a key: Anthropic's ``x-api-key``, OpenAI's bearer token, Gemini's
# ``x-goog-api-key`` (or ``?key=``), Azure OpenAI's ``api-key``.
KEY_HEADERS = ("x-api-key", "x-goog-api-key", "api-key")
FORGED = "forged-request"


def carries_key(headers: dict, query: str, key: str) -> bool:
    """True when the request carries ``key`` where one of the model APIs puts its key."""
    given = [headers.get(name, "") for name in KEY_HEADERS]
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer":
        given.append(token.strip())
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if name == "key":
            given.append(value)
    wanted = key.encode()
    return any(hmac.compare_digest(value.encode("utf-8", "replace"), wanted) for value in given if value)


def describe(action) -> dict | None:
    if isinstance(action, CallTool):
        return {"call": action.offer.name, "namespace": action.offer.namespace, "step": action.step,
                "arguments": action.arguments, "call_id": action.call_id}
    if isinstance(action, Say):
        return {"say": action.text}
    return None


class StandIn:
    """The stand-in model for one host run. ``url`` is its base (``http://127.0.0.1:PORT``)."""

    def __init__(self, script: Script, log_path: Path, redactor: Redactor | None = None, *,
                 budget: ByteBudget | None = None, read_timeout: float = READ_TIMEOUT,
                 in_flight: int = IN_FLIGHT, key: str | None = None, api: str | None = None):
        self.script = script
        # the one API answered (a ``Turn.api``), None: any; a request of another is refused
        # and recorded, so that a client that speaks another API than it was said to is told
        self.api = api
        self.key = key  # None: every request is taken for the host's (the dialect tests)
        self.forged = 0
        self._refusals_logged: set[str] = set()
        self.log = WireLog(log_path, redactor or Redactor(), transport="model", keep=False, budget=budget)
        if key:
            self.log.redactor.add(key)  # a host that sends it in a query string: no file shows it
        self.budget = budget
        self.read_timeout = read_timeout
        self.in_flight_limit = in_flight
        self.in_flight = 0  # bytes of request bodies held now (only the server's loop changes it)
        self._server = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, method: str, path: str, headers: dict, raw: bytes) -> Answer:
        """Read one request, decide, record both directions; no I/O but the log."""
        bare = bare_path(path)
        dialect = dialect_for(bare)
        kept = {k: v for k, v in headers.items() if k.lower() in KEPT_HEADERS}
        api = dialect_name(dialect) if dialect else None
        try:
            body = json.loads(raw) if raw else {}
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
            body = None
        self.log.record("in", message=body if body is not None else None,
                        raw=None if body is not None else raw.decode("utf-8", "replace"),
                        http={"method": method, "path": path, "headers": kept, "api": api})
        if dialect is None or not isinstance(body, dict):
            answer = Answer(json={"error": {"type": "not_found", "message": f"no model API at {path}"}},
                            status=404 if dialect is None else 400)
            self.log.record("out", message=answer.json, http={"status": answer.status, "path": path})
            return answer
        turn = dialect.parse(bare, body)
        if self.api and turn.api != self.api:
            answer = Answer(json={"error": {"type": "not_found", "message": (
                f"mcp-accept stand-in: this run's model answers the {self.api} API only; this request "
                f"is {turn.api}")}}, status=404)
            self.log.record("out", message=answer.json, http={
                "status": answer.status, "path": path, "api": turn.api,
                WRONG_API: {"called": turn.api, "answered": self.api}})
            return answer
        if turn.side:
            action = None
        elif turn.tool_choice == "none":  # the request forbids a tool call: the script waits
            action = Say(self.script.final_text)
        else:
            action = self.script.next_action(turn)
        answer = dialect.respond(turn, action, body)
        http = {"status": answer.status, "path": path, "api": turn.api, "stream": turn.stream,
                "side": turn.side, "action": describe(action), "offers": [o.shown for o in turn.offers]}
        if turn.tool_choice != "auto":
            http["tool_choice"] = turn.tool_choice
        refused = {key: r.record() for key, r in self.script.refused.items() if key not in self._refusals_logged}
        if refused:
            # recorded once, with the request that offered the tool: the rows read it from here
            http["refused"] = refused
            self._refusals_logged.update(refused)
        self.log.record("out", message=answer.record(), http=http)
        return answer

    def admits(self, headers: dict, query: str) -> bool:
        return self.key is None or carries_key(headers, query, self.key)

    def refuse(self, method: str, path: str, headers: dict) -> Answer:
        """A request without the run's key: not the host's. Its body is never read."""
        self.forged += 1
        kept = {k: v for k, v in headers.items() if k.lower() in KEPT_HEADERS}
        self.log.record("event", event=FORGED,
                        detail="a request without the run's key: refused, not taken for the host's",
                        http={"method": method, "path": path, "headers": kept, "status": 401,
                              "declared_bytes": headers.get("content-length")})
        return Answer(json={"error": {"type": "authentication_error",
                                      "message": "this stand-in model answers only the host under test"}},
                      status=401)

    # ------------------------------------------------------------------ serving

    def _refuse(self, request, status: int | None, reason: str, text: str, **facts):
        """Record a request not read whole and the answer it gets: a JSON error, and the
        connection closed (the rest of its body is not waited for). ``status`` None: its client
        is gone, and the answer is never sent."""
        from starlette.responses import JSONResponse

        if not (self.budget and self.budget.reached):
            http = {"method": request.method, "path": request.url.path, "status": status, "reason": reason, **facts}
            self.log.record("event", event="request-refused" if status else "request-dropped",
                            detail=text, http=http)
        return JSONResponse({"error": {"type": "request_refused", "message": f"mcp-accept stand-in: {text}"}},
                            status_code=status or 400, headers={"connection": "close"})

    async def _receive(self, request):
        """The request's body, held within MAX_BODY and IN_FLIGHT and read within the timeout;
        or the answer refusing it. What it holds is counted in ``request.state.held`` until
        :meth:`_release`."""
        import asyncio

        from starlette.requests import ClientDisconnect

        request.state.held = 0
        if self.budget and self.budget.reached:
            return self._refuse(request, 503, "run-bound", self.budget.said())
        declared = request.headers.get("content-length")
        declared = int(declared) if declared and declared.isdigit() else 0
        if declared > MAX_BODY:
            return self._refuse(request, 413, "too-large", f"request too large ({declared} bytes declared; "
                                f"at most {MAX_BODY})", declared=declared)
        if not self._hold(request, declared):
            return self._busy(request, declared, 0)
        raw = bytearray()
        chunks = request.stream().__aiter__()
        while True:
            try:
                chunk = await asyncio.wait_for(chunks.__anext__(), self.read_timeout)
            except StopAsyncIteration:
                return raw
            except asyncio.TimeoutError:
                return self._refuse(request, 408, "body-timeout", f"no byte of the body came within "
                                    f"{self.read_timeout:g} s", read=len(raw))
            except ClientDisconnect:
                return self._refuse(request, None, "client-gone", "the client went away while sending "
                                    "its body", read=len(raw))
            raw += chunk
            if len(raw) > MAX_BODY:
                return self._refuse(request, 413, "too-large", f"request too large (over {MAX_BODY} bytes)",
                                    read=len(raw))
            if not self._hold(request, max(declared, len(raw))):
                return self._busy(request, declared, len(raw))

    def _busy(self, request, declared: int, read: int):
        others = self.in_flight - request.state.held
        return self._refuse(request, 503, "in-flight", f"{others} bytes of other requests are being "
                            f"read: this one ({max(declared, read)} bytes) would pass {self.in_flight_limit}",
                            declared=declared or None, read=read)

    def _hold(self, request, size: int) -> bool:
        more = size - request.state.held
        if more > 0 and self.in_flight + more > self.in_flight_limit:
            return False
        if more > 0:
            self.in_flight += more
            request.state.held = size
        return True

    def _release(self, request) -> None:
        self.in_flight -= getattr(request.state, "held", 0)
        request.state.held = 0

    def _app(self):
        from sse_starlette.sse import EventSourceResponse
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def handle(request: Request):
            if not self.admits(request.headers, request.url.query):
                path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                answer = self.refuse(request.method, path, dict(request.headers))
                return JSONResponse(answer.json, status_code=answer.status)
            try:
                raw = await self._receive(request)
                if not isinstance(raw, bytearray):
                    return raw  # refused, and recorded
                path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                answer = self.answer(request.method, path, dict(request.headers), raw)
            finally:
                self._release(request)
            if self.budget and self.budget.reached:  # this exchange's record did not fit: no answer either
                return self._refuse(request, 503, "run-bound", self.budget.said())
            if answer.events is None:
                return JSONResponse(answer.json, status_code=answer.status)

            async def events():
                for name, data in answer.events:
                    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
                    yield {"event": name, "data": text} if name else {"data": text}

            return EventSourceResponse(events(), ping=None, sep="\n")

        return Starlette(routes=[Route("/{path:path}", handle, methods=["GET", "POST", "HEAD"])])

    def start(self) -> "StandIn":
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self._socket = sock
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self._app(), log_level="error", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=1, http=head_deadline(self))
        self._server = uvicorn.Server(config)
        started = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(started,), name="stand-in-model", daemon=True)
        self._thread.start()
        started.wait(10)
        return self

    def _serve(self, started: threading.Event) -> None:
        server = self._server
        original = server.startup

        async def startup(sockets=None):
            await original(sockets=sockets)
            started.set()

        server.startup = startup
        try:
            server.run(sockets=[self._socket])
        finally:
            started.set()

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        if self._socket is not None:
            self._socket.close()
        self.log.close()

    def __enter__(self) -> "StandIn":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def head_deadline(stand_in: StandIn) -> type:
    """uvicorn's h11 protocol (its ``http`` setting takes a protocol class) with a deadline on a
    request's head: uvicorn bounds a head's size (``h11_max_incomplete_event_size``) and the
    wait between two requests (``timeout_keep_alive``), but not the time a head takes to come
    whole. A connection whose head is not whole ``read_timeout`` seconds after the wait for it
    began is answered 408 and closed. Whether a head is whole is h11's own state of the
    connection (``their_state`` leaves ``IDLE`` with the request line and headers read)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadDeadline(H11Protocol):
        deadline = None  # the timer of the head being waited for
        received = 0  # bytes of that head received so far

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._watch(0)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch(len(data))

        def connection_lost(self, exc) -> None:
            self._clear()
            super().connection_lost(exc)

        def _watch(self, size: int) -> None:
            if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
                self._clear()
            elif size or self.deadline is None:
                # a head has begun (or the connection is new): the keep-alive wait is over
                self.received += size
                if self.deadline is None:
                    self.deadline = self.loop.call_later(stand_in.read_timeout, self._expired)

        def _clear(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            self.deadline, self.received = None, 0

        def _expired(self) -> None:
            self.deadline = None
            if self.transport.is_closing():
                return
            if not (stand_in.budget and stand_in.budget.reached):
                stand_in.log.record("event", event="request-refused",
                                    detail=f"the request's head was not whole within {stand_in.read_timeout:g} s",
                                    http={"status": 408, "reason": "head-timeout", "read": self.received})
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            self.transport.close()

    return HeadDeadline
