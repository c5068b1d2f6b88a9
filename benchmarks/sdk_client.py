#!/usr/bin/env python3
"""Baseline for the benchmark: the official MCP Python SDK client making the sheet's calls.

It connects the way the SDK does by default (``server/discover``, falling back to
``initialize``), then lists the tools and resources, calls the four tools, reads
the link and an unknown URI. It checks nothing: it only makes the calls. The
response cache is off so that every call reaches the server, as in a run.

    python sdk_client.py -- python fixture.py              # stdio
    python sdk_client.py --url http://127.0.0.1:PORT/mcp   # Streamable HTTP

Needs the SDK: ``pip install mcp``.
"""

from __future__ import annotations

import argparse
import sys

TOOLS = ("search_text", "search_structured", "search_embedded", "search_link")
UNKNOWN_URI = "search://results/does-not-exist"


async def calls(server) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    async with Client(server, cache=None) as client:
        await client.list_tools()
        await client.list_resources()
        link = None
        for name in TOOLS:
            result = await client.call_tool(name, {"q": "MCP"})
            for item in result.content:
                if getattr(item, "type", None) == "resource_link":
                    link = str(item.uri)
        if link:
            await client.read_resource(link)
        try:
            await client.read_resource(UNKNOWN_URI)
        except MCPError:
            pass  # the expected answer: a JSON-RPC error


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="Streamable HTTP endpoint (otherwise the command after --)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS: the stdio server")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.url:
        server = args.url
    else:
        from mcp.client.stdio import StdioServerParameters

        server = StdioServerParameters(command=command[0], args=command[1:])
    import anyio

    anyio.run(calls, server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
