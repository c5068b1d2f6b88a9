"""The stand-in model's HTTP server: Starlette on uvicorn, on 127.0.0.1 and a free port, in a
thread of the process that runs the host. Each request goes to the API its path names; each
request and each answer is a line of ``model.jsonl`` (through the run's :class:`WireLog`, so it
is flushed per message and redacted like ``wire.jsonl``): ``in`` is what the host sent its
model, ``out`` what the stand-in answered.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from types import ModuleType

from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.model import anthropic, gemini, openai
from mcp_accept.model.answer import Answer
from mcp_accept.model.script import CallTool, Say, Script

# One module per model API (its `handles`, `parse` and `respond`), in the order a request's path
# is offered to them.
DIALECTS: tuple[ModuleType, ...] = (anthropic, openai, gemini)
MAX_BODY = 64 * 1024 * 1024  # a host's request larger than this is refused, not read whole
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


def describe(action) -> dict | None:
    if isinstance(action, CallTool):
        return {"call": action.offer.name, "namespace": action.offer.namespace, "step": action.step,
                "arguments": action.arguments, "call_id": action.call_id}
    if isinstance(action, Say):
        return {"say": action.text}
    return None


class StandIn:
    """The stand-in model for one host run. ``url`` is its base (``http://127.0.0.1:PORT``)."""

    def __init__(self, script: Script, log_path: Path, redactor: Redactor | None = None):
        self.script = script
        self._refusals_logged: set[str] = set()
        self.log = WireLog(log_path, redactor or Redactor(), transport="model")
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
        action = None if turn.side else self.script.next_action(turn)
        answer = dialect.respond(turn, action, body)
        http = {"status": answer.status, "path": path, "api": turn.api, "stream": turn.stream,
                "side": turn.side, "action": describe(action), "offers": [o.shown for o in turn.offers]}
        refused = {key: r.record() for key, r in self.script.refused.items() if key not in self._refusals_logged}
        if refused:
            # recorded once, with the request that offered the tool: the rows read it from here
            http["refused"] = refused
            self._refusals_logged.update(refused)
        self.log.record("out", message=answer.record(), http=http)
        return answer

    # ------------------------------------------------------------------ serving

    def _app(self):
        from sse_starlette.sse import EventSourceResponse
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def handle(request: Request):
            declared = request.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > MAX_BODY:
                return JSONResponse({"error": {"message": "request too large"}}, status_code=413)
            raw = bytearray()
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > MAX_BODY:
                    return JSONResponse({"error": {"message": "request too large"}}, status_code=413)
            path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            answer = self.answer(request.method, path, dict(request.headers), bytes(raw))
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
                                timeout_graceful_shutdown=1)
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
