"""PydanticAI (PyPI ``pydantic-ai-slim`` with its ``openai`` and ``mcp`` extras, or ``pydantic-ai``)
as a host: one ``Agent`` with the MCP server under test as its toolset, run by ``Agent.run`` on the
user's message, its output printed. Everything comes from the environment ``host test`` hands a
client (docs/hosts.md, "Your own client"); the framework's own defaults do the rest, as in its MCP
client documentation (https://ai.pydantic.dev/mcp/client/):

* the model: ``"openai:NAME"``, which PydanticAI resolves to its ``OpenAIResponsesModel`` (the
  Responses API) with an ``OpenAIProvider`` whose ``openai`` client reads ``OPENAI_BASE_URL`` and
  ``OPENAI_API_KEY``; the model's name from ``MCP_ACCEPT_MODEL``;
* the server: ``MCPToolset`` of a FastMCP ``StdioTransport(command, args)`` from
  ``MCP_ACCEPT_SERVER_COMMAND`` (the transport ``load_mcp_toolsets`` builds of a ``command``
  entry), or of the URL ``MCP_ACCEPT_SERVER_URL`` (Streamable HTTP, inferred from the URL); a
  toolset not prefixed hands its tools to the model under their own names.

Imports nothing of mcp-accept: run by its file with any interpreter that has PydanticAI.
"""

import asyncio
import json
import os


async def main() -> None:
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset

    if os.environ.get("MCP_ACCEPT_SERVER_URL"):
        server = MCPToolset(os.environ["MCP_ACCEPT_SERVER_URL"], id=os.environ["MCP_ACCEPT_SERVER_NAME"])
    else:
        argv = json.loads(os.environ["MCP_ACCEPT_SERVER_COMMAND"])
        server = MCPToolset(StdioTransport(command=argv[0], args=argv[1:]), id=os.environ["MCP_ACCEPT_SERVER_NAME"])
    agent = Agent("openai:" + os.environ["MCP_ACCEPT_MODEL"], toolsets=[server])
    async with agent:
        result = await agent.run(os.environ["MCP_ACCEPT_PROMPT"])
    print(result.output)


if __name__ == "__main__":
    asyncio.run(main())
