"""The OpenAI Agents SDK for Python (PyPI ``openai-agents``) as a host: one ``Agent`` with the MCP
server under test in its ``mcp_servers``, run by ``Runner.run`` on the user's message, its final
output printed. Everything comes from the environment ``host test`` hands a client (docs/hosts.md,
"Your own client"); the SDK's own defaults do the rest, as in the SDK's MCP examples
(https://openai.github.io/openai-agents-python/mcp/):

* the model: the SDK's default, the Responses API through the ``openai`` SDK, which reads
  ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``; the model's name from ``MCP_ACCEPT_MODEL``;
* the server: ``MCPServerStdio`` with ``params={"command", "args"}`` from
  ``MCP_ACCEPT_SERVER_COMMAND``, or ``MCPServerStreamableHttp`` with ``params={"url"}`` from
  ``MCP_ACCEPT_SERVER_URL``; its tools reach the model under their own names;
* tracing off (``set_tracing_disabled(True)``, and ``OPENAI_AGENTS_DISABLE_TRACING`` in the
  environment): on, the SDK exports its traces to api.openai.com
  (https://openai.github.io/openai-agents-python/tracing/);
* ``max_turns`` raised from the SDK's 10 to 50: the stand-in's script takes 13 turns.

Imports nothing of mcp-accept: run by its file with any interpreter that has the SDK.
"""

import asyncio
import json
import os

MAX_TURNS = 50


async def main() -> None:
    from agents import Agent, Runner, set_tracing_disabled
    from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

    set_tracing_disabled(True)
    name = os.environ["MCP_ACCEPT_SERVER_NAME"]
    if os.environ.get("MCP_ACCEPT_SERVER_URL"):
        server = MCPServerStreamableHttp(params={"url": os.environ["MCP_ACCEPT_SERVER_URL"]}, name=name)
    else:
        argv = json.loads(os.environ["MCP_ACCEPT_SERVER_COMMAND"])
        server = MCPServerStdio(params={"command": argv[0], "args": argv[1:]}, name=name)
    async with server:
        agent = Agent(name="mcp-accept", mcp_servers=[server], model=os.environ["MCP_ACCEPT_MODEL"])
        result = await Runner.run(agent, os.environ["MCP_ACCEPT_PROMPT"], max_turns=MAX_TURNS)
    print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
