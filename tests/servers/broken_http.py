"""The reference fixture over Streamable HTTP, with one HTTP-level defect on one tool.

Everything is answered as the fixture answers it, except ``tools/call`` of the tools
named by ``--defect TOOL=KIND`` (repeatable), which get that kind of defect:

    500            HTTP 500 with a plain-text body
    cut            an SSE stream closed in the middle of the answer's event
    cut-json       application/json whose body stops short of its Content-Length
    malformed-sse  an SSE event whose data is not JSON, then the stream ends
    silent         no answer at all (the connection stays open)
    drip           an SSE stream that sends a comment every 0.2 s and never the answer
    huge           an application/json answer of about 3 MB
    html           HTTP 200 with a text/html body

``--echo-headers`` prints every request's headers on stdout and stderr, echoes the
``Authorization`` and ``X-Api-Token`` values in a response header and in the text
tool's result: a run given secret headers must mask them all the same.

    python broken_http.py --http PORT --defect search_text=500 --defect search_embedded=cut
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp_accept import fixture as fx  # noqa: E402

DEFECTS = ("500", "cut", "cut-json", "malformed-sse", "silent", "drip", "huge", "html")
ECHOED = ("Authorization", "X-Api-Token")


class BrokenHandler(fx.FixtureHandler):
    _cached_body = None  # one handler serves every request of a connection: cached per request

    def _read_body(self) -> bytes:
        if self._cached_body is None:
            self._cached_body = super()._read_body()
        return self._cached_body

    def end_headers(self):
        if self.server.echo_headers:
            for name in ECHOED:
                if self.headers.get(name):
                    self.send_header(f"X-Seen-{name}", self.headers[name])
        super().end_headers()

    def do_POST(self):
        self._cached_body = None
        try:
            self._post()
        finally:
            self._cached_body = None

    def _post(self):
        body = self._read_body()
        try:
            msg = json.loads(body.decode("utf-8"))
        except ValueError:
            msg = None
        if self.server.echo_headers:
            seen = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
            print(f"request headers: {seen}", flush=True)
            sys.stderr.write(f"request headers: {seen}\n")
            sys.stderr.flush()
            if _is_call(msg, "search_text"):
                text = "echo: " + " | ".join(str(self.headers.get(n)) for n in ECHOED)
                self._send_json(200, {"jsonrpc": "2.0", "id": msg["id"], "result": {
                    "content": [{"type": "text", "text": text}], "isError": True}})
                return
        name = msg["params"]["name"] if _is_call(msg, None) else None
        if name in self.server.defects:
            self.close_connection = True
            getattr(self, "_defect_" + self.server.defects[name].replace("-", "_"))(msg)
            return
        super().do_POST()

    # -- the defects ------------------------------------------------------------------------
    def _defect_500(self, msg):
        data = b"Internal Server Error: the tool blew up"
        self.send_response(500)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_head(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

    def _answer_text(self, msg) -> str:
        doc = fx.reference_document("MCP")
        return fx.compact({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "content": [{"type": "text", "text": fx.compact(doc)}]}})

    def _defect_cut(self, msg):
        self._sse_head()
        text = self._answer_text(msg)
        self.wfile.write(("event: message\ndata: " + text[: len(text) // 2]).encode("utf-8"))
        self.wfile.flush()

    def _defect_cut_json(self, msg):
        data = self._answer_text(msg).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()

    def _defect_malformed_sse(self, msg):
        self._sse_head()
        self.wfile.write(b'event: message\ndata: {"jsonrpc": "2.0", "id": ' + str(msg["id"]).encode()
                         + b', "result": {not json\n\n')
        self.wfile.flush()

    def _defect_silent(self, msg):
        self.server.stopping.wait()

    def _defect_drip(self, msg):
        self._sse_head()
        while not self.server.stopping.is_set():
            try:
                self.wfile.write(b": still working\n\n")
                self.wfile.flush()
            except OSError:
                return
            time.sleep(0.2)

    def _defect_huge(self, msg):
        doc = fx.reference_document("MCP")
        doc["padding"] = "x" * 3_000_000
        data = fx.compact({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "content": [{"type": "text", "text": fx.compact(doc)}]}}).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass

    def _defect_html(self, msg):
        data = b"<html><body>Welcome to our portal</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _is_call(msg, tool: str | None) -> bool:
    """Whether ``msg`` is a tools/call (of ``tool``, when given)."""
    return (isinstance(msg, dict) and msg.get("method") == "tools/call" and "id" in msg
            and isinstance(msg.get("params"), dict) and isinstance(msg["params"].get("name"), str)
            and (tool is None or msg["params"]["name"] == tool))


def _defect(text: str) -> tuple[str, str]:
    tool, sep, kind = text.partition("=")
    if not sep or kind not in DEFECTS:
        raise argparse.ArgumentTypeError(f"expected TOOL=KIND with KIND one of {', '.join(DEFECTS)}")
    return tool, kind


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="The fixture over HTTP with one HTTP-level defect.")
    parser.add_argument("--http", type=int, required=True, metavar="PORT")
    parser.add_argument("--defect", type=_defect, action="append", default=[], metavar="TOOL=KIND")
    parser.add_argument("--echo-headers", action="store_true")
    args = parser.parse_args(argv)
    server = fx.FixtureHTTPServer(("127.0.0.1", args.http), fx.Fixture())
    server.RequestHandlerClass = BrokenHandler
    server.defects, server.echo_headers = dict(args.defect), args.echo_headers
    server.set_allowed_hosts("127.0.0.1", server.server_address[1])
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping.set()
        server.server_close()
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "broken-http"
    sys.exit(main())
