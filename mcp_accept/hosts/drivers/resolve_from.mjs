// Loaded by `node --import` before a JavaScript framework driver: the driver's own bare imports
// ("ai", "@openai/agents", ...) are resolved as if imported from the folder npm installed the
// framework into ($MCP_ACCEPT_NODE_FRAMEWORKS, the folder holding node_modules), since the
// driver ships inside mcp-accept, where no node_modules is, and an ES module's imports are
// resolved from the importing file's folder only (NODE_PATH is read by require alone). Node's
// own resolver does the rest (https://nodejs.org/api/module.html#customization-hooks); the
// framework's modules import each other from where they are, untouched.
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const HOOKS = `
let from, drivers;
export function initialize(data) { ({ from, drivers } = data); }
export async function resolve(specifier, context, next) {
  const bare = !/^(\\.|\\/|[a-z]+:)/.test(specifier);
  if (bare && context.parentURL && context.parentURL.startsWith(drivers)) {
    return next(specifier, { ...context, parentURL: from });
  }
  return next(specifier, context);
}`;

const folder = process.env.MCP_ACCEPT_NODE_FRAMEWORKS;
if (!folder) throw new Error("MCP_ACCEPT_NODE_FRAMEWORKS names no folder to import the framework from");
register("data:text/javascript," + encodeURIComponent(HOOKS), {
  data: { from: pathToFileURL(folder + "/").href, drivers: new URL(".", import.meta.url).href },
});
