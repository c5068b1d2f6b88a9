"""An MCP server whose tools return bodies of many shapes, for testing mcp-accept beyond JSON.

Standard library only; stdio (newline-delimited JSON-RPC); both eras: ``server/discover``
with the 2026-07-28 envelope, or ``initialize`` (2025-11-25, 2025-06-18).

Tools (none takes arguments):
  summary_prose          one text item of prose, with CRLF line endings
  summary_with_preface   a prose text item, then the report as JSON in a second text item
  report_json            the report as an embedded resource, application/json text
  report_json_link       a resource_link to the report, read back as a base64 blob of its JSON
  report_markdown        an embedded resource, text/markdown
  report_markdown_link   a resource_link to the Markdown, read back as a base64 blob
  report_pdf             an embedded resource, application/pdf blob (tests/data/report.pdf)
  report_pdf_link        a resource_link to the PDF, with its size
  chart                  an embedded resource, image/png blob (tests/data/chart.png)
  chart_link_badsize     a resource_link to the PNG whose size is one byte off
  stats                  structuredContent and its text twin; no outputSchema
  stats_stale            like stats, but structuredContent says total 3
  stats_pretty           like stats, with a pretty-printed text twin
  stats_chart            like stats, with a 32x32 PNG as an image item after the twin
  flaky                  a tool execution error: isError true with a text item
  report_log             {"chars": N}: N characters of a prose log (quotes, CRLF, accents), for H03

    python shapes_server.py
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18")
META_VERSION = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO = {"name": "shapes", "version": "1.0.0"}
CACHEABLE = {"server/discover", "tools/list", "resources/list", "resources/templates/list",
             "resources/read"}

PROSE = "Q3 summary\r\nRevenue grew 12%.\r\nTwo regions reported."
REPORT = {"quarter": "Q3", "growth_pct": 12, "regions": ["north", "south"], "total": 2}
MARKDOWN = "# Q3 report\n\nRevenue grew **12%**.\n\n- north\n- south\n"
MD_URI = "report://q3.md"
JSON_URI = "report://q3.json"
PDF_URI = "files://report.pdf"
PNG_URI = "files://chart.png"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def pdf() -> bytes:
    return (DATA / "report.pdf").read_bytes()


def png() -> bytes:
    return (DATA / "chart.png").read_bytes()


def gradient_png(side: int = 32) -> bytes:
    """A PNG of ``side`` pixels square, each a different colour: long enough in base64 that a
    stretch of it names this image only (tests/data/chart.png is 4 pixels square)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + bytes(v for x in range(side) for v in (x * 8 % 256, y * 8 % 256, (x * y) % 256))
                    for y in range(side))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def link(uri: str, name: str, mime: str, size: int | None = None) -> dict:
    item = {"type": "resource_link", "uri": uri, "name": name, "mimeType": mime}
    if size is not None:
        item["size"] = size
    return item


def embedded(uri: str, mime: str, *, body_text: str | None = None, blob: bytes | None = None) -> dict:
    resource = {"uri": uri, "mimeType": mime}
    if body_text is not None:
        resource["text"] = body_text
    else:
        resource["blob"] = b64(blob)
    return {"type": "resource", "resource": resource}


def log_text(chars: int) -> str:
    """A prose log of exactly ``chars`` characters, every line numbered so none repeats."""
    lines, size, n = [], 0, 0
    while size < chars:
        line = f'{n:06d} région "north" closed the "Q3" books\r\n'
        lines.append(line)
        size += len(line)
        n += 1
    return "".join(lines)[:chars]


def call(name: str, arguments: dict | None = None) -> dict | None:
    """The result of a tool, or None for a tool this server does not have."""
    chars = (arguments or {}).get("chars")
    stale = dict(REPORT, total=3)
    results = {
        "summary_prose": lambda: {"content": [text(PROSE)]},
        "summary_with_preface": lambda: {"content": [text("Here is the Q3 report as JSON:"),
                                                     text(compact(REPORT))]},
        "report_json": lambda: {"content": [embedded(JSON_URI, "application/json", body_text=compact(REPORT))]},
        "report_json_link": lambda: {"content": [link(JSON_URI, "q3.json", "application/json")]},
        "report_markdown": lambda: {"content": [embedded(MD_URI, "text/markdown", body_text=MARKDOWN)]},
        "report_markdown_link": lambda: {"content": [link(MD_URI, "q3.md", "text/markdown",
                                                          len(MARKDOWN.encode("utf-8")))]},
        "report_pdf": lambda: {"content": [embedded(PDF_URI, "application/pdf", blob=pdf())]},
        "report_pdf_link": lambda: {"content": [link(PDF_URI, "report.pdf", "application/pdf", len(pdf()))]},
        "chart": lambda: {"content": [embedded(PNG_URI, "image/png", blob=png())]},
        "chart_link_badsize": lambda: {"content": [link(PNG_URI, "chart.png", "image/png", len(png()) + 1)]},
        "stats": lambda: {"content": [text(compact(REPORT))], "structuredContent": REPORT},
        "stats_pretty": lambda: {"content": [text(json.dumps(REPORT, indent=2))], "structuredContent": REPORT},
        "stats_chart": lambda: {"content": [text(compact(REPORT)), {"type": "image", "data": b64(gradient_png()),
                                                                     "mimeType": "image/png"}],
                                "structuredContent": REPORT},
        "stats_stale": lambda: {"content": [text(compact(stale))], "structuredContent": stale},
        "flaky": lambda: {"content": [text("upstream timeout after 30s")], "isError": True},
        "report_log": lambda: {"content": [text(log_text(chars if isinstance(chars, int) and 0 < chars <= 1 << 22
                                                         else 1000))]},
    }
    make = results.get(name)
    return make() if make else None


TOOL_NAMES = ("summary_prose", "summary_with_preface", "report_json", "report_json_link", "report_markdown",
              "report_markdown_link", "report_pdf", "report_pdf_link", "chart", "chart_link_badsize", "stats",
              "stats_stale", "stats_pretty", "stats_chart", "flaky", "report_log")


def read(uri: str) -> dict | None:
    if uri == MD_URI:  # read back as a blob: the same characters, as bytes
        return {"uri": uri, "mimeType": "text/markdown", "blob": b64(MARKDOWN.encode("utf-8"))}
    if uri == JSON_URI:
        return {"uri": uri, "mimeType": "application/json", "blob": b64(compact(REPORT).encode("utf-8"))}
    if uri == PDF_URI:
        return {"uri": uri, "mimeType": "application/pdf", "blob": b64(pdf())}
    if uri == PNG_URI:
        return {"uri": uri, "mimeType": "image/png", "blob": b64(png())}
    return None


class RpcError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def answer(method: str, params: dict, version: str) -> dict:
    if method == "ping":
        return {}
    if method == "tools/list":
        if "cursor" in params:  # this server hands out no cursors: any is invalid
            raise RpcError(-32602, "Invalid cursor")
        return {"tools": [{"name": n, "description": f"shapes tool {n}",
                           "inputSchema": {"type": "object"}} for n in TOOL_NAMES]}
    if method == "tools/call":
        result = call(params.get("name"), params.get("arguments"))
        if result is None:
            raise RpcError(-32602, f"Unknown tool: {params.get('name')}")
        return result
    if method == "resources/list":  # the Markdown is listed; the files are not
        return {"resources": [{"uri": MD_URI, "name": "q3.md", "mimeType": "text/markdown"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "resources/read":
        found = read(params.get("uri"))
        if found is None:
            raise RpcError(-32602 if version == MODERN else -32002, "Resource not found")
        return {"contents": [found]}
    raise RpcError(-32601, f"Method not found: {method}")


def handle(msg: dict, state: dict) -> dict | None:
    method, params, msg_id = msg.get("method"), msg.get("params") or {}, msg.get("id")
    if "id" not in msg:
        return None  # a notification
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    modern = META_VERSION in meta
    try:
        if method == "initialize":
            wanted = params.get("protocolVersion")
            state["version"] = wanted if wanted in LEGACY else LEGACY[0]
            result = {"protocolVersion": state["version"], "capabilities": {"tools": {}, "resources": {}},
                      "serverInfo": SERVER_INFO}
            return {"jsonrpc": "2.0", "id": msg_id, "result": result}
        if modern:
            if meta[META_VERSION] != MODERN:
                raise RpcError(-32022, "Unsupported protocol version")
            if method == "server/discover":
                result = {"supportedVersions": [MODERN], "capabilities": {"tools": {}, "resources": {}}}
            else:
                result = answer(method, params, MODERN)
            result = {"resultType": "complete", **result, "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}
            if method in CACHEABLE:
                result.update(ttlMs=0, cacheScope="private")
            return {"jsonrpc": "2.0", "id": msg_id, "result": result}
        if method == "server/discover":
            raise RpcError(-32601, "Method not found: server/discover")
        return {"jsonrpc": "2.0", "id": msg_id, "result": answer(method, params, state.get("version", LEGACY[0]))}
    except RpcError as exc:
        return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": exc.code, "message": str(exc)}}


def main() -> int:
    state: dict = {}
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        else:
            reply = handle(msg, state) if isinstance(msg, dict) else None
        if reply is not None:
            sys.stdout.write(compact(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
