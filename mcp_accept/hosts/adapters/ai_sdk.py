"""The Vercel AI SDK (npm ``ai`` with ``@ai-sdk/mcp`` and ``@ai-sdk/openai``), a framework rather
than a program: ``host test ai-sdk`` runs the driver ``ai_sdk_agent.mjs`` of
:mod:`mcp_accept.hosts.drivers` (the tools of ``createMCPClient`` handed to ``generateText``) with
the ``node`` on PATH and the packages of the folder npm installed them into
(:class:`DrivenNodeFramework`).

Settings and where they come from (https://ai-sdk.dev/docs/ai-sdk-core/mcp-tools,
https://ai-sdk.dev/providers/ai-sdk-providers/openai, and the packages' source at the tested
versions):
* model endpoint: ``createOpenAI({baseURL, apiKey})`` of ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``
  (the run's key, sent as a bearer token); ``openai(MODEL)`` is the Responses API, the provider's
  default (``@ai-sdk/openai`` ``src/openai-provider.ts``: ``createLanguageModel`` makes a
  responses model), kept as a user who writes ``openai("...")`` gets it;
* MCP: ``createMCPClient`` with ``Experimental_StdioMCPTransport({command, args})`` of
  ``@ai-sdk/mcp/mcp-stdio`` (stdio) or ``{type: "http", url}`` (Streamable HTTP); ``tools()``
  gives each server tool under its own name, and the agent is given no other;
* headless: it is a library; the driver prints the text ``generateText`` returns, with
  ``stopWhen: isStepCount(50)`` (one step by default);
* offline: nothing to switch off: the SDK's telemetry is OpenTelemetry spans, recorded only when
  ``experimental_telemetry`` turns them on and exported only by an exporter the program sets up,
  and the AI Gateway is used only for a model given as a string
  (https://ai-sdk.dev/docs/ai-sdk-core/telemetry). Measured: the only connections are to the
  stand-in (and to the proxy, over HTTP).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenNodeFramework


class AiSdk(DrivenNodeFramework):
    name = "ai-sdk"
    product = "Vercel AI SDK"
    binary = "node_modules/ai"  # no program of its own: found as a folder holding its packages
    driver = "ai_sdk_agent.mjs"
    packages = ("ai@7.0.185", "@ai-sdk/mcp@2.0.99", "@ai-sdk/openai@4.0.126")
    # ai-sdk@VERSION: the SDK's packages are released together from one repository, each release
    # pinning the @ai-sdk/provider-utils it is built on (their package.json at any tag)
    companions_by = "@ai-sdk/provider-utils"
    # measured: 5.0.82 runs, with @ai-sdk/mcp 0.0.4, the first published, built on
    # @ai-sdk/provider-utils 3.0.14, which ai pins from 5.0.82 (npm view "@ai-sdk/mcp@<1" and
    # "ai@5" dependencies)
    min_version = "5.0.82"
    min_missing = ("no release of @ai-sdk/mcp, which the driver imports, is built on the @ai-sdk/provider-utils "
                   "it pins (the first, 0.0.4, on 3.0.14, which ai pins from 5.0.82)")
    api = "openai-responses"
    sources = ("https://ai-sdk.dev/docs/ai-sdk-core/mcp-tools",
               "https://ai-sdk.dev/providers/ai-sdk-providers/openai",
               "https://ai-sdk.dev/docs/ai-sdk-core/telemetry",
               "https://github.com/vercel/ai/blob/ai%407.0.185/packages/mcp/README.md")
    offline_more = "nothing to switch off: no telemetry unless experimental_telemetry and an exporter are set"
