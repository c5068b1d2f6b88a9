// The OpenAI Agents SDK for JavaScript (npm `@openai/agents`) as a host, as its MCP guide shows
// (https://openai.github.io/openai-agents-js/guides/mcp/): an `Agent` with the server in its
// `mcpServers`, `run` on the user's message, the final output printed. Everything comes from the
// environment `host test` hands a client (docs/hosts.md, "Your own client"); the SDK's own
// defaults do the rest:
// * the model: the SDK's default, the Responses API through the `openai` package, whose client
//   reads OPENAI_BASE_URL and OPENAI_API_KEY; the model's name from MCP_ACCEPT_MODEL;
// * the server: `MCPServerStdio({ command, args })` of MCP_ACCEPT_SERVER_COMMAND, or
//   `MCPServerStreamableHttp({ url })` of MCP_ACCEPT_SERVER_URL;
// * tracing off (`setTracingDisabled(true)`, and OPENAI_AGENTS_DISABLE_TRACING in the
//   environment): on, the SDK exports its traces to api.openai.com
//   (https://openai.github.io/openai-agents-js/guides/tracing/);
// * `maxTurns` raised from the SDK's 10 to 50: the stand-in's script takes 13 turns.
// Imports nothing of mcp-accept; run with `node --import resolve_from.mjs`, which finds the
// packages in the folder npm installed them into.
import { Agent, MCPServerStdio, MCPServerStreamableHttp, run, setTracingDisabled } from "@openai/agents";

setTracingDisabled(true);
const env = process.env;
const name = env.MCP_ACCEPT_SERVER_NAME;
let server;
if (env.MCP_ACCEPT_SERVER_URL) {
  server = new MCPServerStreamableHttp({ url: env.MCP_ACCEPT_SERVER_URL, name });
} else {
  const [command, ...args] = JSON.parse(env.MCP_ACCEPT_SERVER_COMMAND);
  server = new MCPServerStdio({ command, args, name });
}
await server.connect();
try {
  const agent = new Agent({ name: "mcp-accept", mcpServers: [server], model: env.MCP_ACCEPT_MODEL });
  const result = await run(agent, env.MCP_ACCEPT_PROMPT, { maxTurns: 50 });
  console.log(result.finalOutput);
} finally {
  await server.close();
}
