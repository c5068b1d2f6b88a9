"""An HTTP upstream for the recording proxy's fault tests that writes down everything it
receives (standard library only).

Every request, whatever its method, target or body, is appended to ``--log`` as one JSON
line before it is answered: the method, the request target as sent, every header, the
body's length. A POST holding a JSON-RPC request is answered by its method:

  echo      the result repeats the target and every header received
  big       a result of ``params.bytes`` bytes of text, written 64 KiB at a time, with a
            Content-Length (or chunked when ``params.chunked``); with ``params.gate`` it
            writes the first piece, then waits until that file exists before the rest
  sse       an event stream, all in one write: ``params.events`` notifications (with
            ``params.huge``, one more of that many bytes in the middle), then the answer
  (other)   an empty result (initialize: a legacy initialize result)

    python recording_upstream.py --http PORT --log FILE
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PIECE = 64 * 1024


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path: Path
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def __getattr__(self, name: str):
        if name.startswith("do_"):  # any method at all is written down, then refused
            return self._other
        raise AttributeError(name)

    def _write_down(self, body: bytes) -> None:
        words = self.requestline.split()
        entry = {"method": self.command, "target": words[1] if len(words) > 1 else None,
                 "headers": [[k, v] for k, v in self.headers.items()], "body_len": len(body)}
        with self.lock, open(self.log_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _other(self) -> None:
        self._write_down(self._body())
        self._send(405, b"", "text/plain")

    def do_GET(self):
        self._other()

    def _send(self, status: int, data: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self._body()
        self._write_down(body)
        try:
            message = json.loads(body)
        except ValueError:
            return self._send(400, b"not JSON", "text/plain")
        if "id" not in message:
            return self._send(202, b"", "text/plain")
        method, params = message.get("method"), message.get("params") or {}
        if method == "big":
            return self._big(message["id"], params)
        if method == "sse":
            return self._sse(message["id"], params)
        if method == "echo":
            words = self.requestline.split()
            result = {"target": words[1], "headers": [[k, v] for k, v in self.headers.items()]}
        elif method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {},
                      "serverInfo": {"name": "recording-upstream", "version": "1.0"}}
        else:
            result = {}
        data = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        self._send(200, data, "application/json")

    def _big(self, message_id, params: dict) -> None:
        head = json.dumps({"jsonrpc": "2.0", "id": message_id, "result": {"text": ""}}).encode()
        cut = head.index(b'""') + 1
        size = int(params["bytes"])
        total = len(head) + size
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if params.get("chunked"):
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(total))
        self.end_headers()

        def write(data: bytes) -> None:
            if params.get("chunked"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            else:
                self.wfile.write(data)
            self.wfile.flush()

        write(head[:cut])
        gate = params.get("gate")
        left, first = size, True
        while left > 0:
            piece = min(PIECE, left)
            write(b"x" * piece)
            left -= piece
            if first and gate:
                first = False
                deadline = time.monotonic() + 60
                while not Path(gate).exists() and time.monotonic() < deadline:
                    time.sleep(0.02)
        write(head[cut:])
        if params.get("chunked"):
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def _sse(self, message_id, params: dict) -> None:
        events = []
        count = int(params.get("events", 0))
        for n in range(count):
            note = {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": 1, "progress": n}}
            events.append(b"data: " + json.dumps(note).encode() + b"\n\n")
            if params.get("huge") and n == count // 2:
                text = b"y" * int(params["huge"])
                events.append(b'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'
                              + text + b'"}}\n\n')
        final = {"jsonrpc": "2.0", "id": message_id, "result": {"events": count}}
        events.append(b"data: " + json.dumps(final).encode() + b"\n\n")
        data = b"".join(events)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, required=True)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    Upstream.log_path = args.log
    server = ThreadingHTTPServer(("127.0.0.1", args.http), Upstream)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)  # --http 0: the port got
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
