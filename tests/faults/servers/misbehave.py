"""A deliberately broken MCP server for the fault tests (standard library only).

It answers like the reference fixture (``mcp_accept/fixture.py``, also standard
library only) except at one request, the *target* (``--on METHOD[:NAME]``, NAME
being the tool name or resource URI), where it misbehaves as ``--mode`` says:

  ok              behave (the control case)
  exit-at-start   exit at the first request, answering nothing
  exit            exit (status 4) when the target arrives
  close-stdout    close stdout at the target and keep running
  hang            leave the target unanswered, keep answering the rest
  drip            write the target's answer one byte every --drip seconds
  wrong-id        answer the target with another id
  twice           answer the target twice
  notify          send a log notification before every answer
  server-request  send a JSON-RPC request to the client before the target's answer
  bad-utf8        answer the target with bytes that are not UTF-8
  deep            answer the target with JSON nested --depth levels deep
  deep-structured answer the target with structuredContent nested --depth levels deep
  deep-text       answer the target with text bodies holding JSON nested --depth levels deep
  huge            answer the target with a message of --size bytes, streamed
  drop            (HTTP) send half of the target's answer body, then drop the connection
  echo-headers    (HTTP) repeat every request header in the answer, on stdout and on stderr

``--output-schema JSON`` replaces the outputSchema of search_structured in tools/list.
``--pidfile PATH`` receives the server's pid (and its child's, with ``--spawn-child``).
``--http PORT`` serves the same behaviour over Streamable HTTP instead of stdio (POST
/mcp; answers are JSON, or an SSE stream when more than one message goes back).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from mcp_accept import fixture as fx  # noqa: E402  (standard library only)

MODES = ("ok", "exit-at-start", "exit", "close-stdout", "hang", "drip", "wrong-id", "twice",
         "notify", "server-request", "bad-utf8", "deep", "deep-structured", "deep-text", "huge",
         "drop", "echo-headers")
CHUNK = 1 << 20


def log(text: str) -> None:
    sys.stderr.write(f"misbehave: {text}\n")
    sys.stderr.flush()


def encode(obj) -> bytes:
    return fx.compact(obj).encode("utf-8")


class Plan:
    """What to send back for one incoming message: a list of actions.

    Actions: ("send", bytes) one whole message; ("drip", bytes, seconds); ("huge", prefix,
    size, suffix) a message streamed in chunks; ("drop", bytes) half of it, then the
    connection goes (HTTP); ("exit", code); ("close", None) stdout closes (stdio);
    ("hang", None).
    """

    def __init__(self, args):
        self.args = args
        self.fixture = fx.Fixture()
        self.conn = fx.Connection()
        self.seen = 0
        self.pending: list[tuple] = []  # HTTP "twice": the answer repeated on the next POST
        self.headers: list[tuple[str, str]] = []  # HTTP: the headers of the request being answered

    def is_target(self, msg: dict) -> bool:
        if "id" not in msg:
            return False
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        for target in self.args.on.split(","):
            method, _, name = target.partition(":")
            if msg.get("method") == method and (not name or name in (params.get("name"),
                                                                      params.get("uri"))):
                return True
        return False

    def answer(self, msg) -> list[tuple]:
        args, mode = self.args, self.args.mode
        self.seen += 1
        if mode == "exit-at-start":
            return [("exit", 1)]
        reply = self.fixture.handle(msg, self.conn, "stdio")
        message = reply.message
        if message is None:
            return []
        if isinstance(msg, dict) and msg.get("method") == "tools/list" and args.output_schema:
            for tool in message.get("result", {}).get("tools", []):
                if tool.get("name") == "search_structured":
                    tool["outputSchema"] = json.loads(args.output_schema)
        if mode == "echo-headers":
            shown = "; ".join(f"{k}: {v}" for k, v in self.headers)
            log(f"request headers: {shown}")
            print(f"request headers: {shown}", flush=True)
            if isinstance(message.get("result"), dict):
                message["result"].setdefault("_meta", {})["echo"] = dict(self.headers)
        before: list[tuple] = []
        if mode == "notify":
            before.append(("send", encode({"jsonrpc": "2.0", "method": "notifications/message",
                                           "params": {"level": "info", "logger": "misbehave",
                                                      "data": f"about to answer message {self.seen}"}})))
        if not (isinstance(msg, dict) and self.is_target(msg)):
            return before + [("send", encode(message))]
        log(f"mode {mode} at {args.on}")
        if mode == "exit":
            return [("exit", 4)]
        if mode == "close-stdout":
            return [("close", None)]
        if mode == "hang":
            return [("hang", None)]
        if mode == "drip":
            return before + [("drip", encode(message), args.drip)]
        if mode == "wrong-id":
            wrong = dict(message, id=message["id"] + 1000 if isinstance(message["id"], int) else "x")
            return before + [("send", encode(wrong))]
        if mode == "twice":
            if args.http is not None:  # a second answer on the next POST's stream
                self.pending.append(("send", encode(message)))
                return before + [("send", encode(message))]
            return before + [("send", encode(message)), ("send", encode(message))]
        if mode == "drop":
            return before + [("drop", encode(message))]
        if mode == "server-request":
            request = {"jsonrpc": "2.0", "id": "server-asks-1", "method": "roots/list", "params": {}}
            return before + [("send", encode(request)), ("send", encode(message))]
        if mode == "bad-utf8":
            data = encode(message)
            cut = data.index(b'"result"')
            return before + [("send", data[:cut] + b'"\xff\xfe\xc3(":1,' + data[cut:])]
        if mode == "deep":
            depth = args.depth
            head = b'{"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode() + b',"result":'
            return before + [("send", head + b"[" * depth + b"]" * depth + b"}")]
        if mode == "deep-structured":
            nested = "x"
            for _ in range(args.depth):
                nested = {"n": nested}
            result = message.get("result", {})
            result["structuredContent"] = nested
            result["content"] = [{"type": "text", "text": "deep"}]
            return before + [("send", json.dumps(message, separators=(",", ":")).encode("utf-8"))]
        if mode == "deep-text":
            text = "[" * args.depth + "]" * args.depth
            result = message.get("result", {})
            for item in result.get("content", []) + result.get("contents", []):
                if "text" in item:
                    item["text"] = text
                if isinstance(item.get("resource"), dict):
                    item["resource"]["text"] = text
            return before + [("send", encode(message))]
        if mode == "huge":
            head = (b'{"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode()
                    + b',"result":{"content":[{"type":"text","text":"')
            tail = b'"}]}}'
            return before + [("huge", head, args.size - len(head) - len(tail), tail)]
        return before + [("send", encode(message))]


def serve_stdio(args) -> int:
    plan = Plan(args)
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        for action in plan.answer(msg):
            kind = action[0]
            if kind == "send":
                out.write(action[1] + b"\n")
                out.flush()
            elif kind == "drip":
                for byte in action[1] + b"\n":
                    out.write(bytes([byte]))
                    out.flush()
                    time.sleep(action[2])
            elif kind == "huge":
                _, head, size, tail = action
                out.write(head)
                block = b"a" * CHUNK
                left = size
                while left > 0:
                    out.write(block[:min(left, CHUNK)])
                    left -= CHUNK
                out.write(tail + b"\n")
                out.flush()
            elif kind == "exit":
                log(f"exiting with status {action[1]}")
                out.flush()
                os._exit(action[1])
            elif kind == "close":
                out.flush()
                sys.stdout = None
                os.close(1)
                log("stdout closed; still running")
                while True:
                    time.sleep(60)
            elif kind == "hang":
                log("leaving the request unanswered")
    return 0


# ----- Streamable HTTP ----------------------------------------------------------------------

def serve_http(args) -> int:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    plan = Plan(args)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *fargs):
            log("http " + fmt % fargs)

        def handle(self):
            try:
                super().handle()
            except (BrokenPipeError, ConnectionResetError):
                log("the client went away before the answer was sent")

        def do_GET(self):  # the runner's start-up probe; this server opens no GET stream
            self.send_response(405)
            self.send_header("Allow", "POST")
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
                self.send_response(202)  # notifications and our answers to server requests
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with lock:
                plan.headers = list(self.headers.items())
                earlier, plan.pending = plan.pending, []
                actions = earlier + plan.answer(msg)
            sends = [a for a in actions if a[0] == "send"]
            special = [a for a in actions if a[0] != "send"]
            if special:
                return self._special(special[0], sends)
            if len(sends) == 1:
                return self._body(200, "application/json", sends[0][1])
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for _, data in sends:
                self.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                self.wfile.flush()

        def _body(self, status: int, ctype: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _special(self, action: tuple, sends: list) -> None:
            kind = action[0]
            if kind == "exit":
                log(f"exiting with status {action[1]}")
                os._exit(action[1])
            if kind == "hang":
                log("leaving the request unanswered")
                time.sleep(3600)
                return
            self.close_connection = True
            if kind == "drop":
                data = action[1]
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                log("dropping the connection in the middle of the body")
                self.connection.shutdown(2)
                return
            if kind == "drip":
                data = action[1]
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(action[2])
                return
            if kind == "huge":
                _, head, size, tail = action
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(head) + size + len(tail)))
                self.end_headers()
                self.wfile.write(head)
                block, left = b"a" * CHUNK, size
                while left > 0:
                    self.wfile.write(block[:min(left, CHUNK)])
                    left -= CHUNK
                self.wfile.write(tail)
                self.wfile.flush()
                return
            raise ValueError(f"no HTTP form for {kind}")

    server = ThreadingHTTPServer(("127.0.0.1", args.http), Handler)
    server.daemon_threads = True
    log(f"serving http on 127.0.0.1:{server.server_address[1]}, mode {args.mode}, target {args.on}")
    server.serve_forever()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=MODES, default="ok")
    parser.add_argument("--on", default="tools/call:search_text",
                        help="the target requests: METHOD or METHOD:NAME, comma-separated "
                             "(default %(default)s)")
    parser.add_argument("--drip", type=float, default=1.0, help="seconds between bytes in drip mode")
    parser.add_argument("--depth", type=int, default=100_000, help="nesting of the deep modes")
    parser.add_argument("--size", type=int, default=100 * 1024 * 1024, help="bytes of the huge answer")
    parser.add_argument("--output-schema", default=None, metavar="JSON",
                        help="outputSchema of search_structured in tools/list")
    parser.add_argument("--pidfile", default=None, metavar="PATH", help="write the pids here")
    parser.add_argument("--spawn-child", action="store_true",
                        help="start a sleeping child in the same process group")
    parser.add_argument("--http", type=int, default=None, metavar="PORT",
                        help="serve Streamable HTTP on 127.0.0.1:PORT instead of stdio")
    args = parser.parse_args(argv)
    pids = [os.getpid()]
    if args.spawn_child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        pids.append(child.pid)
    if args.pidfile:
        tmp = args.pidfile + ".tmp"
        Path(tmp).write_text(" ".join(map(str, pids)) + "\n")
        os.replace(tmp, args.pidfile)
    try:
        if args.http is not None:
            return serve_http(args)
        log(f"serving stdio, mode {args.mode}, target {args.on}")
        return serve_stdio(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
