"""A hostile MCP server for the second round of fault tests (standard library only).

It answers like the reference fixture except at the target request (``--on METHOD[:NAME]``,
as in misbehave.py), where ``--mode`` says what it does:

  ok            behave (the control case)
  gzip-bomb     (HTTP) answer compressed with gzip although identity was asked: --size bytes
                of JSON whitespace that compress to about a thousandth of that
  deflate-bomb  (HTTP) the same with Content-Encoding: deflate
  br            (HTTP) Content-Encoding: br over bytes that are no brotli at all
  flood         send --count log notifications before the answer (HTTP: as SSE events)
  stray-flood   send --count answers to ids never asked before the answer
  bom           put a UTF-8 byte order mark before the answer
  early         answer the next request's id first, before that request was sent
  string-id     answer the target with its id as a string
  surrogates    the target's text, and the link's URI, hold a lone surrogate (JSON "\\ud800")
  hostile-text  server name, tool text and link name full of ANSI escapes, rich markup, HTML,
                Markdown pipes and a newline that would start a YAML key
  stop-reading  (stdio) stop reading stdin at the target, answering nothing, for 10 minutes
  quiet-stream  (HTTP) a GET asking for text/event-stream opens a stream that stays quiet for
                --quiet seconds, sends a notification, twice, then ends (a stream that is
                quiet for a while without anyone having stopped reading)
  session-bytes (HTTP, legacy) hand out an Mcp-Session-Id with bytes outside visible ASCII
  echo          echo every request header and the URL: on stdout, on stderr (one value split
                across the 64 KiB read boundary), base64- and URL-encoded in the result,
                and in the target's error text after 150 characters (--pad; --echo-header: that
                header's value only), and line-wrapped base64 (MIME LF and CRLF, PEM) of each

``--server-name TEXT`` replaces the server's name everywhere it is announced (JSON string
escapes such as ``\\ud800`` are decoded: a command line cannot carry a lone surrogate).
``--output-schema FILE`` and ``--structured FILE`` replace the outputSchema of
search_structured in tools/list and its structuredContent (JSON files: they can be large).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
import zlib
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from mcp_accept import fixture as fx  # noqa: E402  (standard library only)

MODES = ("ok", "gzip-bomb", "deflate-bomb", "br", "flood", "stray-flood", "bom", "early", "string-id", "surrogates",
         "hostile-text", "session-bytes", "echo", "stop-reading", "quiet-stream")
HOSTILE = ("\x1b[31mRED\x1b[0m [bold red]markup[/] <script>alert(1)</script> | pipe `tick` &amp;\n"
           "injected: true  # comment \x07")
SURROGATE = "\ud800"


def log(text: str) -> None:
    sys.stderr.write(f"hostile: {text}\n")
    sys.stderr.flush()


class Plan:
    def __init__(self, args):
        self.args = args
        self.fixture = fx.Fixture()
        self.conn = fx.Connection()
        self.headers: list[tuple[str, str]] = []
        self.path = ""
        self.early_sent = None

    def is_target(self, msg: dict) -> bool:
        if "id" not in msg:
            return False
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        for target in self.args.on.split(","):
            method, _, name = target.partition(":")
            if msg.get("method") == method and (not name or name in (params.get("name"), params.get("uri"))):
                return True
        return False

    def rename(self, message: dict) -> None:
        name = self.args.server_name or (HOSTILE if self.args.mode == "hostile-text" else None)
        if self.args.server_name:
            name = json.loads(f'"{self.args.server_name}"')  # JSON escapes, e.g. a lone \ud800
        result = message.get("result") if isinstance(message.get("result"), dict) else None
        if name is None or result is None:
            return
        if isinstance(result.get("serverInfo"), dict):
            result["serverInfo"]["name"] = name
        meta = result.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get(fx.META_SERVER_INFO), dict):
            meta[fx.META_SERVER_INFO]["name"] = name

    def replace_structured(self, msg: dict, message: dict) -> None:
        result = message.get("result") if isinstance(message.get("result"), dict) else {}
        if msg.get("method") == "tools/list" and self.args.output_schema:
            for tool in result.get("tools", []):
                if tool.get("name") == "search_structured":
                    tool["outputSchema"] = json.loads(Path(self.args.output_schema).read_text())
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if (self.args.structured and msg.get("method") == "tools/call"
                and params.get("name") == "search_structured"):
            result["structuredContent"] = json.loads(Path(self.args.structured).read_text())

    def answer(self, msg: dict) -> list[tuple]:
        """Actions: ("send", text), ("raw", bytes), ("encoded", name, bytes) (HTTP body with
        that Content-Encoding), ("session", value, text)."""
        args, mode = self.args, self.args.mode
        reply = self.fixture.handle(msg, self.conn, "stdio")
        message = reply.message
        if message is None:
            return []
        self.rename(message)
        self.replace_structured(msg, message)
        if mode == "session-bytes" and msg.get("method") == "initialize":
            return [("session", "sess\xff\x01id", json.dumps(message))]
        if mode == "echo":
            shown = "; ".join(f"{k}: {v}" for k, v in self.headers) + f"; path: {self.path}"
            print(f"request headers: {shown}", flush=True)
            log("request headers: " + "x" * (65536 - 40) + shown)  # a value across the read boundary
            if isinstance(message.get("result"), dict):
                meta = message["result"].setdefault("_meta", {})
                meta["echo"] = dict(self.headers)
                meta["echo-base64"] = {k: base64.b64encode(v.encode()).decode() for k, v in self.headers}
                meta["echo-url"] = {k: quote(v, safe="") for k, v in self.headers}
                meta["echo-path"] = self.path
                # line-wrapped base64 as mail (76 columns, LF and CRLF) and PEM (64) wrap it,
                # the value at each of the three alignments behind a prefix
                for lead in range(3):
                    for k, v in self.headers:
                        data = ("#" * lead + "wrapped: " + "w" * 60 + v).encode()
                        meta[f"echo-mime-{lead}-{k}"] = base64.encodebytes(data).decode()
                        meta[f"echo-crlf-{lead}-{k}"] = base64.encodebytes(data).decode().replace("\n", "\r\n")
                        flat = base64.b64encode(data).decode()
                        pem = "\n".join(flat[i:i + 64] for i in range(0, len(flat), 64))
                        meta[f"echo-pem-{lead}-{k}"] = pem
                        log(f"wrapped {k}:\n{pem}")  # on stderr, one line of it per read
        if not self.is_target(msg):
            return [("send", json.dumps(message))]
        log(f"mode {mode} at {args.on}")
        if mode in ("gzip-bomb", "deflate-bomb"):
            return [("bomb", "gzip" if mode == "gzip-bomb" else "deflate", message)]
        if mode == "br":
            return [("encoded", "br", b"\xce\xb2\xcf\x81 this is not brotli" * 100)]
        if mode == "flood":
            note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "info", "logger": "hostile", "data": "x" * 100}})
            return [("send", note)] * args.count + [("send", json.dumps(message))]
        if mode == "stray-flood":
            return [("send", json.dumps({"jsonrpc": "2.0", "id": 10**6 + n, "result": {}}))
                    for n in range(args.count)] + [("send", json.dumps(message))]
        if mode == "bom":
            return [("raw", "\ufeff".encode() + json.dumps(message).encode())]
        if mode == "early":
            early = {"jsonrpc": "2.0", "id": msg["id"] + 1 if isinstance(msg["id"], int) else "early",
                     "result": {"content": [{"type": "text", "text": "an answer to a request not yet sent"}]}}
            return [("send", json.dumps(early)), ("send", json.dumps(message))]
        if mode == "string-id":
            return [("send", json.dumps(dict(message, id=str(message["id"]))))]
        if mode == "surrogates":
            result = message.get("result", {})
            for item in result.get("content", []):
                if item.get("type") == "text":
                    item["text"] = item["text"][:-1] + f', "odd": "{SURROGATE}"}}'
                if item.get("type") == "resource_link":
                    item["uri"] += SURROGATE
                    item["name"] += SURROGATE
            return [("send", json.dumps(message))]  # ensure_ascii: "\ud800" as JSON allows
        if mode == "hostile-text":
            result = message.get("result", {})
            for item in result.get("content", []):
                if item.get("type") == "text":
                    item["text"] = HOSTILE
                if item.get("type") == "resource_link":
                    item["name"] = HOSTILE
            return [("send", json.dumps(message))]
        if mode == "stop-reading":  # (stdio) read nothing more: the client's writes fill the pipe
            time.sleep(600)
            return []
        if mode == "echo":
            named = [v for k, v in self.headers if k.lower() == (args.echo_header or "").lower()]
            secret = " ".join(named or [v for _, v in self.headers])
            error = {"jsonrpc": "2.0", "id": msg["id"],
                     "error": {"code": -32603, "message": "e" * args.pad + " " + secret + " " + self.path}}
            return [("send", json.dumps(error))]
        return [("send", json.dumps(message))]


def serve_stdio(args) -> int:
    plan = Plan(args)
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(msg, dict):
            continue
        actions = plan.answer(msg)
        for action in actions:
            if action[0] == "send":
                out.write(action[1].encode() + b"\n")
            elif action[0] == "raw":
                out.write(action[1] + b"\n")
            out.flush()
    return 0


def serve_http(args) -> int:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    plan = Plan(args)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *fargs):
            log("http " + fmt % fargs)

        def do_GET(self):
            if args.mode == "quiet-stream" and "text/event-stream" in (self.headers.get("Accept") or ""):
                return self._quiet_stream()
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self):
            self.do_GET()

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            try:
                msg = json.loads(self.rfile.read(length))
            except ValueError:
                msg = None
            if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with lock:
                plan.headers = list(self.headers.items())
                plan.path = self.path
                actions = plan.answer(msg)
            if not actions:
                return self._body(202, "application/json", b"", {})
            kind = actions[0][0]
            if kind == "session":
                return self._body(200, "application/json", actions[0][2].encode(),
                                  {"Mcp-Session-Id": actions[0][1]})
            if kind == "encoded":
                return self._body(200, "application/json", actions[0][2], {"Content-Encoding": actions[0][1]})
            if kind == "bomb":
                return self._bomb(actions[0][1], actions[0][2])
            if kind == "raw":
                return self._body(200, "application/json", actions[0][1], {})
            if len(actions) == 1:
                return self._body(200, "application/json", actions[0][1].encode(), {})
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for action in actions:
                self.wfile.write(b"event: message\ndata: " + action[1].encode() + b"\n\n")
            self.wfile.flush()

        def _quiet_stream(self) -> None:
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            for n in range(2):
                time.sleep(args.quiet)
                note = {"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": f"after a quiet while {n}"}}
                self.wfile.write(b"event: message\ndata: " + json.dumps(note).encode() + b"\n\n")
                self.wfile.flush()

        def _body(self, status: int, ctype: str, data: bytes, extra: dict) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _bomb(self, encoding: str, message: dict) -> None:
            """A valid JSON answer padded with --size bytes of whitespace, compressed as it goes."""
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31 if encoding == "gzip" else 15)
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", encoding)
            self.send_header("Connection", "close")
            self.end_headers()
            block, left = b" " * (1 << 20), args.size
            sent = 0
            try:
                while left > 0:
                    data = compressor.compress(block[:min(left, len(block))])
                    left -= len(block)
                    if data:
                        self.wfile.write(data)
                        sent += len(data)
                data = compressor.compress(json.dumps(message).encode()) + compressor.flush()
                self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                log(f"the client stopped reading after {sent} compressed bytes")

    server = ThreadingHTTPServer(("127.0.0.1", args.http), Handler)
    server.daemon_threads = True
    log(f"serving http on 127.0.0.1:{server.server_address[1]}, mode {args.mode}, target {args.on}")
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)  # --http 0: the port got
    server.serve_forever()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=MODES, default="ok")
    parser.add_argument("--on", default="tools/call:search_text")
    parser.add_argument("--size", type=int, default=4 * 1024 * 1024 * 1024, help="bytes a bomb decodes to")
    parser.add_argument("--count", type=int, default=200_000, help="notifications of the flood")
    parser.add_argument("--server-name", default=None)
    parser.add_argument("--output-schema", default=None, metavar="FILE")
    parser.add_argument("--structured", default=None, metavar="FILE")
    parser.add_argument("--http", type=int, default=None, metavar="PORT")
    parser.add_argument("--pidfile", default=None)
    parser.add_argument("--quiet", type=float, default=3.0, help="(quiet-stream) seconds between events")
    parser.add_argument("--pad", type=int, default=150, help="(echo) characters before the secret in the error text")
    parser.add_argument("--echo-header", default=None, help="(echo) the header whose value the error text echoes")
    args = parser.parse_args(argv)
    if args.pidfile:
        Path(args.pidfile).write_text(f"{os.getpid()}\n")
    try:
        if args.http is not None:
            return serve_http(args)
        return serve_stdio(args)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    sys.exit(main())
