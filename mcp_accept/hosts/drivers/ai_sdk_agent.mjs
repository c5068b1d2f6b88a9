// The Vercel AI SDK (npm `ai`, `@ai-sdk/mcp`, `@ai-sdk/openai`) as a host, as its MCP example
// shows (https://ai-sdk.dev/docs/ai-sdk-core/mcp-tools; the @ai-sdk/mcp README): an MCP client of
// `createMCPClient`, its `tools()` handed to `generateText` with a step limit, the text printed.
// Everything comes from the environment `host test` hands a client (docs/hosts.md, "Your own
// client"):
// * the server: `Experimental_StdioMCPTransport` of MCP_ACCEPT_SERVER_COMMAND (stdio), or the
//   `{ type: "http", url }` transport of MCP_ACCEPT_SERVER_URL (Streamable HTTP);
// * the model: `createOpenAI({ baseURL, apiKey })` of OPENAI_BASE_URL and OPENAI_API_KEY, and
//   `openai(MCP_ACCEPT_MODEL)`, the provider's default, which is the Responses API: what a user
//   who writes `openai("...")` gets;
// * `stopWhen: isStepCount(50)`: the SDK stops after one step by default, and the stand-in's
//   script takes 13.
// Imports nothing of mcp-accept; run with `node --import resolve_from.mjs`, which finds the
// packages in the folder npm installed them into.
//
// The same example runs the SDK's 6 series too (`host test ai-sdk@6.x`): there the client is
// `experimental_createMCPClient` (the @ai-sdk/mcp CHANGELOG's 1.0.0 example) and the stop
// condition `stepCountIs` (ai's CHANGELOG, 7.0.0: "rename `stepCountIs` to `isStepCount`"), so
// each is taken by whichever name the installed version exports.
import * as mcp from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { createOpenAI } from "@ai-sdk/openai";
import * as ai from "ai";

const createMCPClient = mcp.createMCPClient ?? mcp.experimental_createMCPClient;
const isStepCount = ai.isStepCount ?? ai.stepCountIs;
const { generateText } = ai;
const env = process.env;
let transport;
if (env.MCP_ACCEPT_SERVER_URL) {
  transport = { type: "http", url: env.MCP_ACCEPT_SERVER_URL };
} else {
  const [command, ...args] = JSON.parse(env.MCP_ACCEPT_SERVER_COMMAND);
  transport = new Experimental_StdioMCPTransport({ command, args });
}
const mcpClient = await createMCPClient({ transport });
try {
  const tools = await mcpClient.tools();
  const openai = createOpenAI({ baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY });
  const { text } = await generateText({
    model: openai(env.MCP_ACCEPT_MODEL),
    tools,
    stopWhen: isStepCount(50),
    prompt: env.MCP_ACCEPT_PROMPT,
  });
  console.log(text);
} finally {
  await mcpClient.close();
}
