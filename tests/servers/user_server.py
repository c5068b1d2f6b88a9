"""An MCP server of the kind a user writes, for measuring hosts beyond the fixture: no marker
tokens, bodies a host must pass on unchanged.

Standard library only; stdio (newline-delimited JSON-RPC); the legacy era only (``initialize``;
``server/discover`` is not a method here, as in a server built before 2026-07-28).

    python user_server.py [--bodies prose|json] [--only VERSION]

``--bodies prose``: every form carries prose with quotes of both kinds, a backslash, a tab, LF
and CRLF line ends, a C0 control character (U+001F), accents and a character outside the BMP.
``--bodies json`` (the default): every form carries JSON (objects, arrays, numbers, true, null).
``--only VERSION``: answers ``initialize`` with VERSION whatever the client asked for, as a server
that speaks one version does.

Tools: ``note`` (one text item), ``figures`` (structuredContent, its text twin, an outputSchema),
``attachment`` (an embedded resource), ``attachment_link`` (a resource_link to a resource that
``resources/list`` lists and ``resources/read`` answers as text), ``log`` (``{"size": N}``: N
characters of prose lines with quotes, for H03).
"""

from __future__ import annotations

import json
import sys

VERSIONS = ("2025-11-25", "2025-06-18")
PROSE = ("He said \"ship it\" and she wrote 'not yet' \\ then:\n\tstep one\r\n"
         "step two\u001f naïve café, 10 € \U0001F680 done.")
JSON_BODY = {"quarter": "Q4", "items": [{"sku": "a-1", "qty": 2, "price": 9.5}, {"sku": "b-7", "qty": 0, "price": 12}],
             "ok": True, "note": None, "tags": ["north", "süd"]}
LINK_URI = "doc://attachment"


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def body(kind: str) -> tuple[str, object, str]:
    """The text of each form, its JSON value for the structured tool, and its MIME type."""
    if kind == "prose":
        return PROSE, {"summary": PROSE, "count": 3}, "text/plain"
    return compact(JSON_BODY), JSON_BODY, "application/json"


def log(size: int) -> str:
    line = 'entry {n:06d}: "north" said \'ok\', café\r\n'
    return "".join(line.format(n=n) for n in range(size // len(line.format(n=0)) + 1))[:size]


def answer(method: str, params: dict, kind: str) -> dict:
    text, value, mime = body(kind)
    if method == "ping":
        return {}
    if method == "tools/list":
        schema = {"type": "object", "properties": {k: {} for k in value}} if isinstance(value, dict) else {"type": "object"}
        tools = [{"name": "note", "description": "A note.", "inputSchema": {"type": "object"}},
                 {"name": "figures", "description": "The figures.", "inputSchema": {"type": "object"},
                  "outputSchema": schema},
                 {"name": "attachment", "description": "The attachment, embedded.", "inputSchema": {"type": "object"}},
                 {"name": "attachment_link", "description": "A link to the attachment.",
                  "inputSchema": {"type": "object"}},
                 {"name": "log", "description": "A log of SIZE characters.",
                  "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}}]
        return {"tools": tools}
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name == "note":
            return {"content": [{"type": "text", "text": text}]}
        if name == "figures":
            return {"content": [{"type": "text", "text": compact(value)}], "structuredContent": value}
        if name == "attachment":
            return {"content": [{"type": "resource", "resource": {"uri": LINK_URI, "mimeType": mime, "text": text}}]}
        if name == "attachment_link":
            return {"content": [{"type": "resource_link", "uri": LINK_URI, "name": "attachment", "mimeType": mime}]}
        if name == "log" and isinstance(arguments.get("size"), int) and 0 < arguments["size"] <= 1 << 21:
            return {"content": [{"type": "text", "text": log(arguments["size"])}]}
        raise RpcError(-32602, f"Unknown tool or bad arguments: {name}")
    if method == "resources/list":
        return {"resources": [{"uri": LINK_URI, "name": "attachment", "mimeType": mime}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        if params.get("uri") != LINK_URI:
            raise RpcError(-32002, "Resource not found")
        return {"contents": [{"uri": LINK_URI, "mimeType": mime, "text": text}]}
    raise RpcError(-32601, f"Method not found: {method}")


class RpcError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def main(argv: list[str]) -> int:
    kind = argv[argv.index("--bodies") + 1] if "--bodies" in argv else "json"
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    for raw in sys.stdin.buffer:
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            msg = None
        if not isinstance(msg, dict) or "id" not in msg:
            continue  # a notification, or a line that is not one
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        try:
            if msg.get("method") == "initialize":
                asked = params.get("protocolVersion")
                version = only or (asked if asked in VERSIONS else VERSIONS[0])
                result = {"protocolVersion": version, "capabilities": {"tools": {}, "resources": {}},
                          "serverInfo": {"name": "user-notes", "version": "0.3.1"}}
            else:
                result = answer(msg.get("method"), params, kind)
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        except RpcError as exc:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": exc.code, "message": str(exc)}}
        sys.stdout.write(compact(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
