"""A server written with the official MCP Python SDK whose text tool takes two round trips.

``search_text`` first answers ``resultType: "input_required"`` with a ``requestState`` only (no
input requests: a client that declares no capabilities can still follow it), and the reference
document once the client retries with that state. The SDK seals the state, so a client that
changes it gets an error. The other tools are the fixture's, in name and result.

    python mrtr_sdk_server.py          # stdio
"""

from __future__ import annotations

import json
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import InputRequiredResult, TextContent

DOCUMENT = {"query": "MCP", "total": 2, "hits": [
    {"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
    {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."}]}

server = MCPServer("mrtr-search", instructions="A text search that asks for one more round trip.")


@server.tool(description="Search; asks for a second round, then returns the document as text.",
             structured_output=False)
def search_text(q: str, ctx: Context) -> TextContent | InputRequiredResult:
    if ctx.request_state != "second round":
        return InputRequiredResult(request_state="second round")
    return TextContent(type="text", text=json.dumps(DOCUMENT, separators=(",", ":")))


if __name__ == "__main__":
    server.run("stdio")
    sys.exit(0)
