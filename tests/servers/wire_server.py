"""An MCP server over stdio whose answers break rules of the wire and type layers, one
``--defect`` at a time (standard library only).

It answers like the reference fixture (``mcp_accept/fixture.py``) and then changes one
thing in what it writes:

  nan               search_structured's structuredContent gains "score": NaN (not JSON)
  infinity          search_structured's structuredContent gains "score": -Infinity
  duplicate-key     search_structured's structuredContent names "total" twice ("2", then 2)
  bad-link-uri      search_link's resource_link has uri "search://results/demo v1" (a space)
  bad-link-scheme   search_link's resource_link has uri "https://exa mple.org/x" (a space)
  bad-blob          search_embedded's resource carries blob "not base64!" instead of text
  link-no-name      search_link's resource_link has no name
  link-body         search_link's resource_link also carries the body as text
  no-output-schema  search_structured declares no outputSchema in tools/list
  no-structured     ... and its result has no structuredContent either
  tool-error        search_text answers a result with isError: true
  unknown-code      resources/read of an unknown URI answers error --code (default -32602)
  unknown-empty     resources/read of an unknown URI answers contents: []

``--output-schema JSON`` replaces the outputSchema of search_structured in tools/list.
``--protocol`` is passed to the fixture (``auto`` serves both eras).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from mcp_accept import fixture as fx  # noqa: E402  (standard library only)

DEFECTS = ("nan", "infinity", "duplicate-key", "bad-link-uri", "bad-link-scheme", "bad-blob",
           "link-no-name", "link-body", "no-output-schema", "no-structured", "tool-error",
           "unknown-code", "unknown-empty")
TOOL_ERROR = "Search backend quota exceeded for q=MCP; retry after 60 seconds"


def tool_name(msg: dict) -> str | None:
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    return params.get("name") if msg.get("method") == "tools/call" else None


def unknown_read(msg: dict, args) -> bool:
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    return msg.get("method") == "resources/read" and params.get("uri") != fx.LINK_URI


def change(msg: dict, message: dict, args) -> str:
    """The text to write for ``message``, the answer to ``msg``, with the defects applied."""
    defects = set(args.defect)
    result = message.get("result")
    name = tool_name(msg)
    if msg.get("method") == "tools/list" and isinstance(result, dict):
        for tool in result.get("tools", []):
            if tool.get("name") != "search_structured":
                continue
            if args.output_schema is not None:
                tool["outputSchema"] = json.loads(args.output_schema)
            if defects & {"no-output-schema", "no-structured"}:
                tool.pop("outputSchema", None)
    if isinstance(result, dict) and name == "search_structured":
        if "no-structured" in defects:
            result.pop("structuredContent", None)
        if "nan" in defects:
            result["structuredContent"]["score"] = float("nan")
        if "infinity" in defects:
            result["structuredContent"]["score"] = float("-inf")
    if isinstance(result, dict) and name == "search_link":
        link = next(i for i in result["content"] if i.get("type") == "resource_link")
        if "bad-link-uri" in defects:
            link["uri"] = "search://results/demo v1"
        if "bad-link-scheme" in defects:
            link["uri"] = "https://exa mple.org/x"
        if "link-no-name" in defects:
            link.pop("name", None)
        if "link-body" in defects:
            link["text"] = fx.compact(fx.reference_document("MCP"))
    if isinstance(result, dict) and name == "search_embedded" and "bad-blob" in defects:
        resource = next(i for i in result["content"] if i.get("type") == "resource")["resource"]
        resource.pop("text", None)
        resource["blob"] = "not base64!"
    if isinstance(result, dict) and name == "search_text" and "tool-error" in defects:
        message["result"] = {**{k: v for k, v in result.items() if k != "content"},
                             "content": [{"type": "text", "text": TOOL_ERROR}], "isError": True}
    if unknown_read(msg, args) and "unknown-code" in defects:
        message.pop("result", None)
        message["error"] = {"code": args.code, "message": "Resource not found",
                            "data": {"uri": msg["params"].get("uri")}}
    if unknown_read(msg, args) and "unknown-empty" in defects:
        message.pop("error", None)
        message["result"] = {"contents": []}
        if msg.get("params", {}).get("_meta"):  # the 2026-07-28 envelope: a complete result
            message["result"].update(resultType="complete", ttlMs=0, cacheScope="private")
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)  # NaN written as NaN
    if "duplicate-key" in defects and name == "search_structured":
        text = text.replace('"structuredContent":{', '"structuredContent":{"total":"2",', 1)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defect", action="append", default=[], choices=DEFECTS)
    parser.add_argument("--code", type=int, default=-32602, help="error code of unknown-code")
    parser.add_argument("--output-schema", default=None, metavar="JSON")
    parser.add_argument("--protocol", default="auto")
    args = parser.parse_args(argv)
    fixture = fx.Fixture(protocol=args.protocol)
    conn = fx.Connection()
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        reply = fixture.handle(msg, conn, "stdio")
        if reply.message is None:
            continue
        text = change(msg, reply.message, args) if isinstance(msg, dict) else fx.compact(reply.message)
        out.write(text.encode("utf-8") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
