#!/usr/bin/env python3
"""A stdio MCP server whose one tool answers a large ``structuredContent`` (benchmark helper).

Standard library only, besides the reference fixture's outputSchema (the same search
document, only larger). It serves the 2026-07-28 era (and ``initialize`` for the
legacy one): ``tools/list`` lists ``search_large``, whose result carries a search
document of tens of thousands of hits as ``structuredContent`` (16 MiB by default)
with a short text summary; ``resources/list`` is empty and ``resources/read``
answers -32602. Pair it with ``large-profile.yaml``.

    python large_server.py                      # builds a 16 MiB document at start-up
    python large_server.py --payload doc.json   # serves a document written earlier
    python large_server.py --write-payload doc.json --mib 16   # writes one and exits
"""

from __future__ import annotations

import argparse
import json
import sys

from mcp_accept.fixture import OUTPUT_SCHEMA

MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18")
SERVER_INFO = {"name": "mcp-accept-large-result", "version": "1.0"}
TOOL = "search_large"
SNIPPET = ("Tool results carry data as text, structuredContent, an embedded resource or a link; "
           "this hit is one of many that make the result large (café, naïve).")


def dump(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_payload(size: int, query: str = "MCP", snippet: str = SNIPPET) -> bytes:
    """A search document (query, total, hits) whose compact UTF-8 JSON is at least ``size`` bytes.

    The text is Latin (a few accented letters): Python keeps such strings at one byte per
    character. Text beyond Latin-1 (CJK, emoji) takes two or four bytes per character in
    memory, so the same payload in Japanese costs about twice as much once parsed."""
    hits, used = [], 64
    while used < size:
        hit = {"id": f"d{len(hits) + 1:06d}", "title": f"Result {len(hits) + 1} for {query}",
               "snippet": snippet}
        used += len(dump(hit)) + 1
        hits.append(hit)
    return dump({"query": query, "total": len(hits), "hits": hits})


def call_result_line(payload: bytes, request_id, modern: bool = True) -> bytes:
    """The exact line answering ``tools/call``: the payload is spliced in, never parsed again."""
    head = {"jsonrpc": "2.0", "id": request_id}
    result_head = {"resultType": "complete"} if modern else {}
    total = payload.count(b'{"id":')
    result_head["content"] = [{"type": "text", "text": f"{total} hits; the document is in structuredContent."}]
    prefix = dump({**head, "result": result_head})[:-2]  # drop the closing "}}"
    return prefix + b',"structuredContent":' + payload + b"}}\n"


class Server:
    def __init__(self, payload: bytes):
        self.payload = payload

    def result(self, msg_id, result: dict, modern: bool, cached: bool = False) -> bytes:
        if modern:
            result = {"resultType": "complete", **result,
                      "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}
            if cached:
                result.update(ttlMs=0, cacheScope="private")
        return dump({"jsonrpc": "2.0", "id": msg_id, "result": result}) + b"\n"

    @staticmethod
    def error(msg_id, code: int, message: str) -> bytes:
        return dump({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}) + b"\n"

    def answer(self, msg: dict) -> bytes | None:
        method, msg_id = msg.get("method"), msg.get("id")
        if "id" not in msg:
            return None  # notifications need no answer
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        modern = meta.get("io.modelcontextprotocol/protocolVersion") == MODERN
        if method == "initialize":
            wanted = params.get("protocolVersion")
            return self.result(msg_id, {"protocolVersion": wanted if wanted in LEGACY else LEGACY[0],
                                        "capabilities": {"tools": {}, "resources": {}},
                                        "serverInfo": SERVER_INFO}, False)
        if method == "server/discover":
            return self.result(msg_id, {"supportedVersions": [MODERN],
                                        "capabilities": {"tools": {}, "resources": {}}}, True, cached=True)
        if method == "tools/list":
            tool = {"name": TOOL, "description": "Search; the result is a large structuredContent.",
                    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
                    "outputSchema": OUTPUT_SCHEMA}
            return self.result(msg_id, {"tools": [tool]}, modern, cached=True)
        if method == "resources/list":
            return self.result(msg_id, {"resources": []}, modern, cached=True)
        if method == "tools/call":
            if params.get("name") != TOOL:
                return self.error(msg_id, -32602, f"unknown tool {params.get('name')!r}")
            return call_result_line(self.payload, msg_id, modern)
        if method == "resources/read":
            return self.error(msg_id, -32602, "Resource not found")
        if method == "ping":
            return self.result(msg_id, {}, modern)
        return self.error(msg_id, -32601, f"method not found: {method}")

    def serve(self) -> int:
        out = sys.stdout.buffer
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                out.write(self.error(None, -32700, "parse error"))
                out.flush()
                continue
            answer = self.answer(msg) if isinstance(msg, dict) else self.error(None, -32600, "invalid request")
            if answer:
                out.write(answer)
                out.flush()
        return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=float, default=16.0, help="size of the document in MiB (default 16)")
    parser.add_argument("--payload", help="serve the document in this file instead of building one")
    parser.add_argument("--write-payload", metavar="FILE", help="write a document of --mib MiB and exit")
    args = parser.parse_args(argv)
    if args.write_payload:
        with open(args.write_payload, "wb") as handle:
            handle.write(build_payload(int(args.mib * 1024 * 1024)))
        return 0
    if args.payload:
        with open(args.payload, "rb") as handle:
            payload = handle.read()
    else:
        payload = build_payload(int(args.mib * 1024 * 1024))
    print(f"large-result server: {len(payload)} bytes of structuredContent", file=sys.stderr)
    return Server(payload).serve()


if __name__ == "__main__":
    sys.exit(main())
