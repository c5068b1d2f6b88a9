"""Google's Agent Development Kit for Python (PyPI ``google-adk`` with its ``mcp`` extra) as a host:
one ``Agent`` with the MCP server under test as its ``McpToolset``, run by an ``InMemoryRunner`` on
the user's message, the final response's text printed. Everything comes from the environment
``host test`` hands a client (docs/hosts.md, "Your own client"); the framework's own defaults do
the rest, as in its MCP tools documentation (https://google.github.io/adk-docs/tools-custom/mcp-tools/):

* the model: ``Gemini(model=NAME)``, ADK's Gemini model on the ``google-genai`` client, which reads
  ``GOOGLE_GEMINI_BASE_URL`` and ``GEMINI_API_KEY``; the name from ``MCP_ACCEPT_MODEL`` (a bare
  name that is not ``gemini-...`` resolves to no model of ADK's registry);
* the server: ``McpToolset`` with ``StdioConnectionParams(server_params=StdioServerParameters(
  command, args))`` from ``MCP_ACCEPT_SERVER_COMMAND``, or ``StreamableHTTPConnectionParams(url)``
  from ``MCP_ACCEPT_SERVER_URL``; its tools reach the model under their own names. The connection's
  ``timeout`` is raised from ADK's 5 s to 60 s: a server behind the recording proxy on a loaded
  machine can take longer than 5 s to answer ``initialize``, and ADK then gives up on it.

Imports nothing of mcp-accept: run by its file with any interpreter that has ADK.
"""

import asyncio
import json
import os

CONNECT_TIMEOUT = 60.0


async def main() -> None:
    from google.adk.agents import Agent
    from google.adk.models import Gemini
    from google.adk.runners import InMemoryRunner
    from google.adk.tools.mcp_tool import McpToolset
    from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams, StreamableHTTPConnectionParams
    from google.genai import types
    from mcp import StdioServerParameters

    if os.environ.get("MCP_ACCEPT_SERVER_URL"):
        params = StreamableHTTPConnectionParams(url=os.environ["MCP_ACCEPT_SERVER_URL"], timeout=CONNECT_TIMEOUT)
    else:
        argv = json.loads(os.environ["MCP_ACCEPT_SERVER_COMMAND"])
        params = StdioConnectionParams(server_params=StdioServerParameters(command=argv[0], args=argv[1:]),
                                       timeout=CONNECT_TIMEOUT)
    toolset = McpToolset(connection_params=params)
    agent = Agent(name="mcp_accept", model=Gemini(model=os.environ["MCP_ACCEPT_MODEL"]), tools=[toolset])
    runner = InMemoryRunner(agent=agent)
    session = await runner.session_service.create_session(app_name=runner.app_name, user_id="user")
    message = types.Content(role="user", parts=[types.Part(text=os.environ["MCP_ACCEPT_PROMPT"])])
    text = ""
    try:
        async for event in runner.run_async(user_id="user", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content and event.content.parts:
                text = "".join(part.text or "" for part in event.content.parts)
    finally:
        await toolset.close()
    print(text)


if __name__ == "__main__":
    asyncio.run(main())
