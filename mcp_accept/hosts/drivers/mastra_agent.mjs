// Mastra (npm `@mastra/core`, `@mastra/mcp`) as a host, as its MCP guide shows
// (https://mastra.ai/docs/tools-mcp/mcp-overview, https://mastra.ai/reference/tools/mcp-client):
// an `MCPClient` with the server under `servers`, its `listTools()` given to an `Agent`, and
// `agent.generate` on the user's message, the text printed. Everything comes from the
// environment `host test` hands a client (docs/hosts.md, "Your own client"):
// * the server: `{ command, args }` of MCP_ACCEPT_SERVER_COMMAND (stdio), or `{ url }` of
//   MCP_ACCEPT_SERVER_URL (Streamable HTTP), under the name MCP_ACCEPT_SERVER_NAME;
// * the model: Mastra's model router with an OpenAI-compatible endpoint,
//   `{ id: "openai/MODEL", url, apiKey }` of OPENAI_BASE_URL and OPENAI_API_KEY
//   (https://mastra.ai/models, "OpenAI-compatible"), served over Chat Completions, the router's
//   default for an endpoint of one's own;
// * instructions empty: the agent's instructions are the only prompt of the driver's own a
//   Mastra agent takes, and the task is the user's message alone;
// * `maxSteps: 50`: the stand-in's script takes 13 steps;
// * Mastra's telemetry off (MASTRA_TELEMETRY_DISABLED in the environment).
// Imports nothing of mcp-accept; run with `node --import resolve_from.mjs`, which finds the
// packages in the folder npm installed them into.
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";

const env = process.env;
const server = env.MCP_ACCEPT_SERVER_URL
  ? { url: new URL(env.MCP_ACCEPT_SERVER_URL) }
  : (([command, ...args]) => ({ command, args }))(JSON.parse(env.MCP_ACCEPT_SERVER_COMMAND));
const mcp = new MCPClient({ servers: { [env.MCP_ACCEPT_SERVER_NAME]: server } });
try {
  const agent = new Agent({
    id: "mcp-accept",
    name: "mcp-accept",
    instructions: "",
    model: { id: `openai/${env.MCP_ACCEPT_MODEL}`, url: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY },
    tools: await mcp.listTools(),
  });
  const result = await agent.generate(env.MCP_ACCEPT_PROMPT, { maxSteps: 50 });
  console.log(result.text);
} finally {
  await mcp.disconnect();
}
