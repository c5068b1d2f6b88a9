"""Continue CLI (npm ``@continuedev/cli``, binary ``cn``), headless with ``cn -p``.

Settings and where they come from (the package ships its TypeScript source in ``src/``, which
is what "source" below refers to, at the tested version):
* configuration: ``--config FILE``, a ``config.yaml`` (``name``, ``version``, ``schema: v1``)
  with ``models: [{name, provider: anthropic, model, apiBase, apiKey, roles: [chat]}]`` and
  ``mcpServers: [{name, type: stdio, command, args}]`` or ``{name, type: streamable-http, url}``:
  https://docs.continue.dev/reference and https://docs.continue.dev/customize/deep-dives/mcp;
  with ``--config`` no Continue Hub login or hub configuration is asked for (source
  ``configLoader.ts``: a file path is unrolled locally; ``services/AuthService.ts``: hub
  authentication is gone from this version);
* model: ``provider: anthropic`` (the provider the CLI's own onboarding writes, source
  ``onboarding.ts``) with ``apiBase`` the stand-in's ``/v1/``: Anthropic Messages, streamed. No
  ``contextLength`` is set, so the CLI's default of 200k tokens (its own count) holds: a tool
  result that takes the conversation past it is not handed over; the CLI asks the model for a
  summary of the conversation without it and goes on from the summary (source ``compaction.ts``,
  ``stream/streamChatResponse.compactionHelpers.ts``);
* ``CONTINUE_GLOBAL_DIR``: the folder used instead of ``~/.continue`` (logs, sessions,
  ``permissions.yaml``, ``index/globalContext.json``): source ``env.ts``;
* headless: ``cn -p PROMPT --config FILE`` (https://docs.continue.dev/cli/quickstart); no
  permission flag is needed: in headless mode MCP tools (the ``*`` policy) and ``Bash`` are
  allowed by default, the write tools left out (source ``permissions/defaultPolicies.ts``;
  measured: the MCP tools are offered and run). The tool-permissions page
  (https://docs.continue.dev/cli/tool-permissions) says Bash is "ask", and "ask" tools are
  left out in headless mode: this version offers Bash headless all the same;
* the host's own tools off: ``--exclude TOOL`` for each built-in (``cn --help``; the policy
  ``exclude`` leaves a tool out of the model's list, source ``permissions/``); a server tool that
  shares a built-in's name would be excluded with it, and is never called;
* MCP tools reach the model under the server's own tool names, no prefix, and the result as
  ``JSON.stringify(result.content)`` (``structuredContent`` dropped); no tool reads a resource:
  source ``tools/index.tsx`` (``convertMcpToolToContinueTool``);
* offline: telemetry is OpenTelemetry metrics only, exported only when an ``OTEL_*`` endpoint is
  set (none is: the environment is fresh), and off with ``CONTINUE_METRICS_ENABLED=0`` and
  ``CONTINUE_CLI_ENABLE_TELEMETRY=0`` (source ``telemetry/telemetryService.ts``); the CLI's self
  update (``npm i -g @continuedev/cli``) is off with ``autoUpdateCli: false`` in
  ``index/globalContext.json`` (source ``services/UpdateService.ts``). One call home has no
  setting: at start-up the CLI fetches ``https://api.continue.dev/cn/info?id=<machine id>`` for
  the latest version (source ``version.ts``, run when the module loads, headless or not). A
  preload (``NODE_OPTIONS=--require``) refuses ``fetch`` to the Continue Hub's host
  ``api.continue.dev`` as an offline machine would (the CLI takes it as no newer version and
  goes on) and notes each refused URL, without its query, in ``host-config/refused.jsonl``;
  every other request is left alone, so strace still sees it. Measured: with these the only
  connection is the stand-in's port, and the version check is the only URL refused.
"""

from __future__ import annotations

import json

import yaml

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch

MODEL = "claude-sonnet-4-5"
HUB_HOSTS = ("api.continue.dev",)
# The CLI's own tools (source ``tools/builtInToolNames.ts``). MCP tools are offered beside them
# under their bare names, so a server tool with one of these names is never called.
OWN_TOOLS = ("AskQuestion", "Bash", "CheckBackgroundJob", "Checklist", "Diff", "Edit", "Exit", "Fetch", "List",
             "MultiEdit", "Read", "ReportFailure", "Search", "Skills", "Status", "Subagent", "UploadArtifact",
             "Write")

# CommonJS, loaded before the CLI's own (ESM) entry point; the CLI calls the global fetch.
PRELOAD = """\
"use strict";
const fs = require("fs");
const refused = new Set(%(hosts)s);
const log = %(log)s;
const original = globalThis.fetch;
globalThis.fetch = function (input, init) {
  let url = null;
  try {
    url = new URL(typeof input === "string" || input instanceof URL ? String(input) : input.url);
  } catch (error) {
    return original.apply(this, arguments);
  }
  if (!refused.has(url.hostname)) return original.apply(this, arguments);
  try {
    fs.appendFileSync(log, JSON.stringify({url: url.origin + url.pathname, at: new Date().toISOString()}) + "\\n");
  } catch (error) {}
  return Promise.reject(new TypeError("fetch failed (refused: mcp-accept host test runs offline)"));
};
"""


class ContinueCli(HostAdapter):
    name = "continue"
    product = "Continue CLI"
    binary = "cn"
    npm_package = "@continuedev/cli"
    tested_version = "1.5.47"
    api = "anthropic-messages"
    model = MODEL
    sources = ("https://docs.continue.dev/reference",
               "https://docs.continue.dev/customize/deep-dives/mcp",
               "https://docs.continue.dev/cli/tool-permissions",
               "https://docs.continue.dev/cli/quickstart",
               "https://github.com/continuedev/continue/tree/main/extensions/cli/src")
    tool_scheme = "{tool}"
    own_tools = OWN_TOOLS
    own_tools_off = "--exclude for each built-in tool (" + ", ".join(OWN_TOOLS) + ")"
    offline_env = {"CONTINUE_METRICS_ENABLED": "0", "CONTINUE_CLI_ENABLE_TELEMETRY": "0"}
    offline_more = ("no OTEL_* endpoint, autoUpdateCli=false; the start-up version check to api.continue.dev "
                    "(no setting) refused by a fetch preload and noted in host-config/refused.jsonl")

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        continue_home = ctx.home_dir(".continue")
        ctx.home_dir(".continue", "index")
        state = continue_home / "index" / "globalContext.json"
        state.write_text(json.dumps({"autoUpdateCli": False}), encoding="utf-8")
        folder = ctx.folder / "host-config"
        folder.mkdir(parents=True, exist_ok=True)
        preload = folder / "offline.cjs"
        preload.write_text(PRELOAD % {"hosts": json.dumps(list(HUB_HOSTS)),
                                      "log": json.dumps(str(folder / "refused.jsonl"))}, encoding="utf-8")
        env.update({
            "CONTINUE_GLOBAL_DIR": str(continue_home), **self.offline_env,
            "NODE_OPTIONS": "--require " + json.dumps(str(preload)),
        })
        server = {"name": ctx.server_name, **ctx.server_entry(http={"type": "streamable-http"},
                                                             stdio={"type": "stdio"})}
        config = {
            "name": "mcp-accept host test", "version": "0.0.1", "schema": "v1",
            "models": [{"name": "stand-in", "provider": "anthropic", "model": MODEL,
                        "apiBase": ctx.model_url + "/v1/", "apiKey": ctx.model_key, "roles": ["chat"]}],
            "mcpServers": [server],
        }
        path = folder / "config.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        argv = [binary, "-p", ctx.prompt, "--config", str(path)]
        for tool in OWN_TOOLS:
            argv += ["--exclude", tool]
        return Launch(argv, env, ctx.work, [path, state, preload])

    def resource_reader(self, server_name: str):
        # the CLI lists and calls MCP tools and prompts only: no tool of its own reads a resource
        return lambda offers, uri: None
