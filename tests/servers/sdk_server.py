"""A search server written with the official MCP Python SDK, for testing mcp-accept on a real server.

Four tools return the reference document in the four forms a tool result can take:
``find_text`` (a text item), ``find_structured`` (``structuredContent`` with an
``outputSchema``; the SDK adds a pretty-printed text twin), ``find_embedded`` (an
embedded resource) and ``find_link`` (a ``resource_link`` to ``docs://search/{query}``,
served by a resource template and not listed by ``resources/list``).

    python sdk_server.py                               # stdio
    python sdk_server.py --http PORT                   # Streamable HTTP, sessions (0: the port it got,
                                                       # said as "listening on URL" on stdout)
    python sdk_server.py --http PORT --stateless       # Streamable HTTP, no sessions
    python sdk_server.py --http PORT --json-response   # answers as application/json, not SSE
    python sdk_server.py --http PORT --bearer VAR      # 401 to a request without "Authorization:
                                                       # Bearer" and the value of variable VAR
    python sdk_server.py --http PORT --tls CERT KEY    # HTTPS, with that certificate and key
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server.mcpserver import MCPServer
from mcp.types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

HITS = [
    {"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
    {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."},
]


class Hit(BaseModel):
    id: str
    title: str
    snippet: str


class SearchResult(BaseModel):
    query: str
    total: int
    hits: list[Hit]


def document(query: str) -> dict:
    hits = [dict(h) for h in HITS] if query == "MCP" else []
    return {"query": query, "total": len(hits), "hits": hits}


def body(query: str) -> str:
    return json.dumps(document(query), separators=(",", ":"), ensure_ascii=False)


def link_uri(query: str) -> str:
    return f"docs://search/{query}"


server = MCPServer("sdk-search", instructions="Search tools returning one document in four forms.")


@server.tool(description="Search; the document comes back as a text item.", structured_output=False)
def find_text(query: str) -> TextContent:
    return TextContent(type="text", text=body(query))


# Over 2026-07-28 HTTP the query is also mirrored into an `Mcp-Param-Query` header, which the
# SDK's server checks against the body: a client that does not mirror it is refused.
MirroredQuery = Annotated[str, Field(json_schema_extra={"x-mcp-header": "Query"})]


@server.tool(description="Search; the document comes back as structuredContent.")
def find_structured(query: MirroredQuery) -> SearchResult:
    return SearchResult.model_validate(document(query))


@server.tool(description="Search; the document comes back as an embedded resource.", structured_output=False)
def find_embedded(query: str) -> EmbeddedResource:
    contents = TextResourceContents(uri=link_uri(query), mime_type="application/json", text=body(query))
    return EmbeddedResource(type="resource", resource=contents)


@server.tool(description="Search; the result links to the document.", structured_output=False)
def find_link(query: str) -> ResourceLink:
    return ResourceLink(type="resource_link", uri=link_uri(query), name=f"search-{query}.json",
                        mime_type="application/json", size=len(body(query).encode("utf-8")))


@server.resource("docs://search/{query}", name="search-results", mime_type="application/json")
def read_results(query: str) -> str:
    return body(query)


def bearer_only(app, token: str):
    """The app, answering 401 to an HTTP request whose Authorization is not ``Bearer TOKEN``."""
    expected = b"Bearer " + token.encode()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
            await send({"type": "http.response.body", "body": b"a bearer token is needed"})
            return
        await app(scope, receive, send)

    return guarded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--stateless", action="store_true", help="HTTP: no sessions")
    parser.add_argument("--json-response", action="store_true", help="HTTP: answer as application/json")
    parser.add_argument("--bearer", metavar="VAR", help="HTTP: the token every request must carry, from variable VAR")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="HTTP: serve HTTPS with this certificate and key")
    args = parser.parse_args(argv)
    if args.http is None:
        server.run("stdio")
        return 0
    import socket

    import uvicorn

    # bound here, so that --http 0 says the port it got before serving on it
    sock = socket.create_server(("127.0.0.1", args.http))
    scheme = "https" if args.tls else "http"
    print(f"listening on {scheme}://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    app = server.streamable_http_app(stateless_http=args.stateless, json_response=args.json_response,
                                     host="127.0.0.1")
    if args.bearer:
        app = bearer_only(app, os.environ[args.bearer])
    tls = {"ssl_certfile": args.tls[0], "ssl_keyfile": args.tls[1]} if args.tls else {}
    uvicorn.Server(uvicorn.Config(app, log_level="warning", **tls)).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
