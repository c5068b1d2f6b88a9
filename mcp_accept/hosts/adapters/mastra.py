"""Mastra (npm ``@mastra/core`` with ``@mastra/mcp``), a framework rather than a program:
``host test mastra`` runs the driver ``mastra_agent.mjs`` of :mod:`mcp_accept.hosts.drivers` (the
tools of an ``MCPClient`` given to an ``Agent``, run by ``agent.generate``) with the ``node`` on
PATH and the packages of the folder npm installed them into (:class:`DrivenNodeFramework`).

Settings and where they come from (https://mastra.ai/docs/tools-mcp/mcp-overview,
https://mastra.ai/reference/tools/mcp-client, https://mastra.ai/models, and the packages' source
at the tested versions):
* model endpoint: Mastra's model router with an OpenAI-compatible endpoint, ``{id:
  "openai/MODEL", url, apiKey}`` (``OpenAICompatibleConfig`` in ``@mastra/core``
  ``src/llm/model/shared.types.ts``) of ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (the run's key),
  which the router serves with ``@ai-sdk/openai-compatible`` over Chat Completions (its ``api``
  option left at that default, as a user who names an endpoint gets it: ``src/llm/model/router.ts``);
* MCP: ``MCPClient({servers: {NAME: {command, args}}})`` (stdio) or ``{url}`` (Streamable HTTP);
  ``listTools()`` names each tool ``NAME_TOOL`` (the server's name, ``_``, the tool's), and the
  agent is given no other tool;
* headless: it is a library; the driver prints ``agent.generate``'s text, with ``maxSteps: 50``;
* offline: Mastra's telemetry to PostHog (us.posthog.com) is off by ``MASTRA_TELEMETRY_DISABLED=1``
  (``@mastra/core`` ``src/telemetry/posthog.ts``, ``isTelemetryEnabled``).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenNodeFramework


class Mastra(DrivenNodeFramework):
    name = "mastra"
    product = "Mastra"
    binary = "node_modules/@mastra/core"  # no program of its own: found as a folder holding its packages
    driver = "mastra_agent.mjs"
    packages = ("@mastra/core@1.71.0", "@mastra/mcp@2.0.0")
    # mastra@VERSION: @mastra/mcp at its newest version whose peer dependency on @mastra/core
    # admits VERSION (its package.json declares one, e.g. ">=1.68.0-0 <2.0.0-0" in 2.0.0)
    companions_by = ""
    # measured: 1.68.0 runs, with @mastra/mcp 2.x, whose peer range starts there; 1.0.4 is given an
    # @mastra/mcp whose peer range admits it but which imports @mastra/core/dist/schema, absent
    # from it (ERR_MODULE_NOT_FOUND); the versions between were not measured
    min_version = "1.68.0"
    min_missing = ("the @mastra/mcp its peer ranges admit imports modules of @mastra/core it does not have "
                   "(measured at 1.0.4: dist/schema); 1.68.0 is the oldest measured to run")
    api = "openai-chat"
    tool_scheme = "{server}_{tool}"
    sources = ("https://mastra.ai/docs/tools-mcp/mcp-overview",
               "https://mastra.ai/reference/tools/mcp-client",
               "https://mastra.ai/models",
               "https://github.com/mastra-ai/mastra/blob/main/packages/core/src/telemetry/posthog.ts")
    offline_env = {"MASTRA_TELEMETRY_DISABLED": "1"}
