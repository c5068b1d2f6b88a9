"""The OpenAI Agents SDK for JavaScript (npm ``@openai/agents``), a framework rather than a
program: ``host test openai-agents-js`` runs the driver ``openai_agents_agent.mjs`` of
:mod:`mcp_accept.hosts.drivers` (an ``Agent`` with the server in its ``mcpServers``, run by
``run``) with the ``node`` on PATH and the packages of the folder npm installed them into
(:class:`DrivenNodeFramework`).

Settings and where they come from (the SDK's documentation at
https://openai.github.io/openai-agents-js/, and its source at the tested version):
* model endpoint: the SDK's default model is the Responses API (``DEFAULT_OPENAI_API`` in
  ``@openai/agents-openai`` ``src/defaults.ts``) through the ``openai`` package, whose client
  reads ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (the run's key, sent as a bearer token);
  the driver asks for the model ``MCP_ACCEPT_MODEL``;
* MCP: ``MCPServerStdio({command, args})`` or ``MCPServerStreamableHttp({url})``
  (https://openai.github.io/openai-agents-js/guides/mcp/), on the official TypeScript SDK's
  client; its tools reach the model under their own names, with no tool of the SDK's own
  beside them: the agent is given none;
* headless: it is a library; the driver prints the run's ``finalOutput``;
* offline: tracing, which exports to api.openai.com by default, is off
  (``setTracingDisabled(true)`` in the driver, ``OPENAI_AGENTS_DISABLE_TRACING=1`` here:
  https://openai.github.io/openai-agents-js/guides/tracing/, ``@openai/agents-core``
  ``src/config.ts``). Measured: with it the only connections are to the stand-in (and to the
  proxy, over HTTP).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenNodeFramework


class OpenAIAgentsJs(DrivenNodeFramework):
    name = "openai-agents-js"
    product = "OpenAI Agents SDK for JavaScript"
    binary = "node_modules/@openai/agents"  # no program of its own: found as a folder holding its packages
    driver = "openai_agents_agent.mjs"
    packages = ("@openai/agents@0.20.0",)
    api = "openai-responses"
    sources = ("https://openai.github.io/openai-agents-js/guides/mcp/",
               "https://openai.github.io/openai-agents-js/guides/tracing/",
               "https://openai.github.io/openai-agents-js/guides/models/",
               "https://github.com/openai/openai-agents-js/blob/v0.20.0/packages/agents-core/src/config.ts")
    offline_more = "setTracingDisabled(true)"
    offline_env = {"OPENAI_AGENTS_DISABLE_TRACING": "1"}
    # @openai/agents-core 0.0.7's dist/index.mjs is the first to export MCPServerStreamableHttp
    # (0.0.6's has MCPServerStdio only); measured: 0.0.8 runs
    min_version = "0.0.7"
    min_missing = "@openai/agents exports no MCPServerStreamableHttp, which the driver imports, before 0.0.7"
