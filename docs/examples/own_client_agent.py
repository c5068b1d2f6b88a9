"""A host of one's own: the official `openai` SDK asks the model (Chat Completions), the official
`mcp` SDK runs the MCP server's tools, and the text of each result goes back to the model.
Measured by mcp-accept as it would measure any host:

    mcp-accept host test --client "python docs/examples/own_client_agent.py" --api openai-chat

It reads what mcp-accept hands it from its environment (docs/hosts.md, "Your own client").
"""

import asyncio
import json
import os

from mcp import Client, StdioServerParameters
from openai import OpenAI


async def main() -> None:
    model = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY come from the environment
    argv = json.loads(os.environ["MCP_ACCEPT_SERVER_COMMAND"])
    async with Client(StdioServerParameters(command=argv[0], args=argv[1:])) as server:
        tools = [{"type": "function", "function": {"name": tool.name, "description": tool.description or "",
                                                   "parameters": tool.input_schema}}
                 for tool in (await server.list_tools()).tools]
        messages = [{"role": "user", "content": os.environ["MCP_ACCEPT_PROMPT"]}]
        while True:
            reply = model.chat.completions.create(model=os.environ["MCP_ACCEPT_MODEL"], messages=messages,
                                                  tools=tools).choices[0].message
            messages.append(reply.model_dump(exclude_none=True))
            if not reply.tool_calls:
                print(reply.content)
                return
            for call in reply.tool_calls:
                result = await server.call_tool(call.function.name, json.loads(call.function.arguments))
                text = "\n".join(item.text for item in result.content if item.type == "text")
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


asyncio.run(main())
