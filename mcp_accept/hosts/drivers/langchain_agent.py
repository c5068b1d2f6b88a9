"""LangChain as a host: its MCP adapters (PyPI ``langchain-mcp-adapters``) load the server's tools,
LangChain's agent (``langchain.agents.create_agent``, built on LangGraph) runs them with a
``ChatOpenAI`` model (PyPI ``langchain-openai``) on the user's message, and the last message's
text is printed. Everything comes from the environment ``host test`` hands a client
(docs/hosts.md, "Your own client"); the framework's own defaults do the rest, as in the adapters'
README (https://github.com/langchain-ai/langchain-mcp-adapters, "Multiple MCP Servers" and its
note on explicit sessions):

* the model: ``ChatOpenAI(model=NAME)``, the Chat Completions API through the ``openai`` SDK,
  whose client reads ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``; the name from ``MCP_ACCEPT_MODEL``;
* the server: ``MultiServerMCPClient`` with one connection, ``{"transport": "stdio", "command",
  "args"}`` from ``MCP_ACCEPT_SERVER_COMMAND`` or ``{"transport": "streamable_http", "url"}`` from
  ``MCP_ACCEPT_SERVER_URL``, and one session for the whole run (``client.session(NAME)`` with
  ``load_mcp_tools``): ``client.get_tools()`` alone would open a session, and so start the
  server anew, for every tool call. Its tools reach the model under their own names.

Imports nothing of mcp-accept: run by its file with any interpreter that has the three packages.
"""

import asyncio
import json
import os


async def main() -> None:
    from langchain.agents import create_agent
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools
    from langchain_openai import ChatOpenAI

    name = os.environ["MCP_ACCEPT_SERVER_NAME"]
    if os.environ.get("MCP_ACCEPT_SERVER_URL"):
        connection = {"transport": "streamable_http", "url": os.environ["MCP_ACCEPT_SERVER_URL"]}
    else:
        argv = json.loads(os.environ["MCP_ACCEPT_SERVER_COMMAND"])
        connection = {"transport": "stdio", "command": argv[0], "args": argv[1:]}
    client = MultiServerMCPClient({name: connection})
    async with client.session(name) as session:
        tools = await load_mcp_tools(session)
        agent = create_agent(ChatOpenAI(model=os.environ["MCP_ACCEPT_MODEL"]), tools)
        result = await agent.ainvoke({"messages": [{"role": "user", "content": os.environ["MCP_ACCEPT_PROMPT"]}]})
    print(result["messages"][-1].text)


if __name__ == "__main__":
    asyncio.run(main())
