#!/usr/bin/env python3
"""Baseline for the benchmark: the least a client can do to make the sheet's calls.

It speaks raw JSON-RPC (standard library only) and checks nothing: it sends the
same requests as ``mcp-accept run`` with the fixture's profile (``server/discover``,
``tools/list``, ``resources/list``, the four ``tools/call``, ``resources/read`` of
the link and of an unknown URI) and reads each answer.

    python raw_client.py -- python fixture.py          # stdio
    python raw_client.py --url http://127.0.0.1:PORT/mcp   # Streamable HTTP (2026-07-28)
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import urllib.parse

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw-baseline", "version": "0"},
}
TOOLS = ("search_text", "search_structured", "search_embedded", "search_link")
UNKNOWN_URI = "search://results/does-not-exist"


def calls(send):
    """Make the sheet's calls through ``send(method, params) -> response``."""
    send("server/discover", {})
    send("tools/list", {})
    send("resources/list", {})
    link = None
    for name in TOOLS:
        answer = send("tools/call", {"name": name, "arguments": {"q": "MCP"}})
        for item in answer.get("result", {}).get("content", []):
            if item.get("type") == "resource_link":
                link = item["uri"]
    if link:
        send("resources/read", {"uri": link})
    send("resources/read", {"uri": UNKNOWN_URI})


class Stdio:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, method, params):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": {**params, "_meta": META}}
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


class Http:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.path = parts.path or "/"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)
        self.next_id = 0

    def send(self, method, params):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": {**params, "_meta": META}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": VERSION, "Mcp-Method": method}
        if method == "tools/call":
            headers["Mcp-Name"] = params["name"]
        elif method == "resources/read":
            headers["Mcp-Name"] = params["uri"]
        self.conn.request("POST", self.path, body=json.dumps(message).encode(), headers=headers)
        response = self.conn.getresponse()
        body = response.read()
        if response.getheader("Content-Type", "").startswith("text/event-stream"):
            data = [line[5:].strip() for line in body.decode().splitlines() if line.startswith("data:")]
            return json.loads(data[-1])
        return json.loads(body)

    def close(self):
        self.conn.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="Streamable HTTP endpoint (otherwise the command after --)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS: the stdio server")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    client = Http(args.url) if args.url else Stdio(command)
    try:
        calls(client.send)
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
