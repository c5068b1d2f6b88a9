// A host of one's own in JavaScript: the official `openai` package asks the model (the Responses
// API, streamed), the official `@modelcontextprotocol/sdk` runs the MCP server's tools, and each
// result's content goes back to the model as JSON. Measured by mcp-accept as any host:
//   mcp-accept host test --client "node tests/hosts/clients/own_client_agent.mjs" --api openai-responses
// It reads what mcp-accept hands it from its environment (docs/hosts.md, "Your own client").
import OpenAI from "openai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const model = new OpenAI(); // OPENAI_BASE_URL and OPENAI_API_KEY come from the environment
const [command, ...args] = JSON.parse(process.env.MCP_ACCEPT_SERVER_COMMAND);
const server = new Client({ name: "own-client-js", version: "1.0.0" });
await server.connect(new StdioClientTransport({ command, args }));
const tools = (await server.listTools()).tools.map((tool) => ({
  type: "function", name: tool.name, description: tool.description ?? "", parameters: tool.inputSchema,
}));
const input = [{ role: "user", content: process.env.MCP_ACCEPT_PROMPT }];
for (;;) {
  let response;
  const stream = await model.responses.create({ model: process.env.MCP_ACCEPT_MODEL, input, tools, stream: true });
  for await (const event of stream) if (event.type === "response.completed") response = event.response;
  const calls = response.output.filter((item) => item.type === "function_call");
  if (calls.length === 0) break;
  input.push(...response.output);
  for (const call of calls) {
    const result = await server.callTool({ name: call.name, arguments: JSON.parse(call.arguments) });
    input.push({ type: "function_call_output", call_id: call.call_id, output: JSON.stringify(result.content) });
  }
}
await server.close();
