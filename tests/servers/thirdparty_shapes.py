"""A stdio MCP server in the shapes common among published servers (stdlib only).

It speaks the legacy era only (``server/discover`` is an unknown method, as in servers
written before 2026-07-28) and answers ``initialize`` with 2025-11-25 or 2025-06-18.

    --mode files   a file-system-like server: capabilities ``{"tools": {}}`` only, so
                   ``resources/read`` is an unknown method (-32601); a state-changing tool
                   (``write_note``, ``readOnlyHint: false``) beside read-only ones; a
                   structured tool whose text item is prose, not its JSON; a text tool that
                   reports an error for any path but ``notes.txt``
    --mode prose   a demo-like server: its text tool answers prose, its embedded resource
                   and its linked resource are ``text/plain``; a structured tool whose
                   required argument must be a real time zone, named in its description;
                   an unknown URI gets -32602; a tool that may only run as a task
                   (``execution.taskSupport: required``) refuses a plain call

``--log FILE`` appends the name of every tool called, one a line.
"""

from __future__ import annotations

import argparse
import json
import sys

VERSIONS = ("2025-11-25", "2025-06-18")
METHOD_NOT_FOUND, INVALID_PARAMS = -32601, -32602
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
WRITES = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}
TEXT_URI = "demo://resource/1"
TEXT_BODY = "Resource 1: This is a plaintext resource"


def _obj(props: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": props, "required": required}


FILES_TOOLS = [
    {"name": "write_note", "description": "Write a note to a file (creates or overwrites it)",
     "inputSchema": _obj({"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"]),
     "outputSchema": _obj({"content": {"type": "string"}}, ["content"]), "annotations": WRITES},
    {"name": "read_text_file", "description": "Read the complete contents of a file as text",
     "inputSchema": _obj({"path": {"type": "string"}}, ["path"]), "annotations": READ_ONLY},
    {"name": "list_roots", "description": "List the directories this server may access",
     "inputSchema": _obj({}, []), "outputSchema": _obj({"content": {"type": "string"}}, ["content"]),
     "annotations": READ_ONLY},
]
PROSE_TOOLS = [
    {"name": "echo", "description": "Echoes back the input string",
     "inputSchema": _obj({"message": {"type": "string"}}, ["message"]), "annotations": READ_ONLY},
    {"name": "get_current_time", "description": "Get the current time in a specific timezone",
     "inputSchema": _obj({"timezone": {"type": "string", "description":
                                       "IANA timezone name (e.g., 'Europe/London', 'Asia/Tokyo')."}},
                         ["timezone"]),
     "outputSchema": _obj({"timezone": {"type": "string"}, "datetime": {"type": "string"}},
                          ["timezone", "datetime"]), "annotations": READ_ONLY},
    {"name": "get-resource-reference", "description": "Returns a resource reference for use by MCP clients",
     "inputSchema": _obj({}, []), "annotations": READ_ONLY},
    {"name": "get-resource-links", "description": "Returns resource links to resources of this server",
     "inputSchema": _obj({}, []), "annotations": READ_ONLY},
    {"name": "research", "description": "Returns a text report on a topic, as a long-running task",
     "inputSchema": _obj({"topic": {"type": "string"}}, ["topic"]), "annotations": READ_ONLY,
     "execution": {"taskSupport": "required"}},
]
ZONES = ("Europe/London", "Asia/Tokyo", "UTC")


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _error(text: str) -> dict:
    return {"content": [_text(text)], "isError": True}


class Server:
    def __init__(self, mode: str, log: str | None):
        self.mode = mode
        self.log = log

    @property
    def tools(self) -> list[dict]:
        return FILES_TOOLS if self.mode == "files" else PROSE_TOOLS

    def capabilities(self) -> dict:
        if self.mode == "files":  # a server with no resources declares none
            return {"tools": {"listChanged": True}}
        return {"tools": {"listChanged": True}, "resources": {"listChanged": True}}

    def call(self, name, args: dict) -> dict:
        if self.log:
            with open(self.log, "a", encoding="utf-8") as fh:
                fh.write(f"{name}\n")
        if name not in {t["name"] for t in self.tools}:  # as many published servers do
            return _error(f"Tool {name} not found")
        if name == "write_note":
            return {"content": [_text(f"Successfully wrote to {args.get('path')}")],
                    "structuredContent": {"content": f"Successfully wrote to {args.get('path')}"}}
        if name == "read_text_file":
            if args.get("path") != "notes.txt":
                return _error(f"ENOENT: no such file or directory, open '{args.get('path')}'")
            return {"content": [_text('{"note": 1}')]}
        if name == "list_roots":
            return {"content": [_text("Allowed directories:\n/data")],
                    "structuredContent": {"content": "Allowed directories:\n/data"}}
        if name == "echo":
            return {"content": [_text(f"Echo: {args.get('message')}")]}
        if name == "get_current_time":
            zone = args.get("timezone")
            if zone not in ZONES:
                return _error(f"Invalid timezone: 'No time zone found with key {zone}'")
            value = {"timezone": zone, "datetime": "2026-01-01T00:00:00"}
            return {"content": [_text(json.dumps(value, indent=2))], "structuredContent": value}
        if name == "research":  # called without task augmentation (as published servers answer it)
            return _error(f"MCP error -32601: Tool {name} requires task augmentation (taskSupport: 'required')")
        if name == "get-resource-reference":
            return {"content": [_text("Returning a resource reference:"),
                                {"type": "resource", "resource": {"uri": TEXT_URI, "mimeType": "text/plain",
                                                                  "text": TEXT_BODY}}]}
        return {"content": [{"type": "resource_link", "uri": TEXT_URI, "name": "Resource 1",
                             "mimeType": "text/plain"}]}

    def handle(self, method: str, params: dict):
        """The result of a request, or raises (code, message)."""
        if method == "initialize":
            asked = params.get("protocolVersion")
            return {"protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
                    "capabilities": self.capabilities(),
                    "serverInfo": {"name": f"shapes-{self.mode}", "version": "1.0.0"}}
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": self.tools}
        if method == "tools/call":
            if not isinstance(params.get("name"), str):
                raise Rpc(-32603, "name is required")
            return self.call(params["name"], params.get("arguments") or {})
        if self.mode == "prose" and method == "resources/list":
            return {"resources": []}
        if self.mode == "prose" and method == "resources/templates/list":
            return {"resourceTemplates": [{"uriTemplate": "demo://resource/{id}", "name": "Resource"}]}
        if self.mode == "prose" and method == "resources/read":
            if params.get("uri") == TEXT_URI:
                return {"contents": [{"uri": TEXT_URI, "mimeType": "text/plain", "text": TEXT_BODY}]}
            raise Rpc(INVALID_PARAMS, f"Resource {params.get('uri')} not found")
        raise Rpc(METHOD_NOT_FOUND, "Method not found")


class Rpc(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("files", "prose"), required=True)
    parser.add_argument("--log")
    args = parser.parse_args()
    server = Server(args.mode, args.log)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            continue  # notifications and answers need no reply
        try:
            reply = {"jsonrpc": "2.0", "id": msg["id"],
                     "result": server.handle(msg["method"], msg.get("params") or {})}
        except Rpc as exc:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": exc.code, "message": str(exc)}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
