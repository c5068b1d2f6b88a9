"""The OpenAI Agents SDK for Python (PyPI ``openai-agents``), a framework rather than a program:
``host test openai-agents`` runs the driver :mod:`mcp_accept.hosts.drivers.openai_agents` (an
``Agent`` with the server in its ``mcp_servers``, run by ``Runner.run``) with an interpreter that
has the SDK: the one ``--host-bin`` names, this one, or a ``python3`` on PATH
(:class:`DrivenFramework`).

Settings and where they come from (the SDK's documentation at
https://openai.github.io/openai-agents-python/, and its source at the tested version):
* model endpoint: the SDK's default model is the Responses API through the ``openai`` SDK
  (``agents/models/openai_provider.py``), whose client reads ``OPENAI_BASE_URL`` and
  ``OPENAI_API_KEY`` (the run's key, sent as a bearer token); the environment of ``--client``
  (:func:`mcp_accept.hosts.own_client.contract_env`) holds both, and the driver asks for the
  model ``MCP_ACCEPT_MODEL``;
* MCP: ``MCPServerStdio(params={"command", "args"})`` or ``MCPServerStreamableHttp(params={"url"})``
  (https://openai.github.io/openai-agents-python/mcp/); its tools reach the model under their own
  names (``agents/mcp/util.py`` makes each a ``FunctionTool`` of the tool's name), with no tool
  of the SDK's own beside them: the agent is given none;
* headless: it is a library; the driver prints the run's ``final_output``;
* offline: tracing, which exports to api.openai.com by default, is off
  (``set_tracing_disabled(True)`` in the driver, ``OPENAI_AGENTS_DISABLE_TRACING=1`` here:
  https://openai.github.io/openai-agents-python/tracing/, ``agents/tracing/provider.py``).
  Measured: with it the only connections are to the stand-in (and to the proxy, over HTTP).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenFramework


class OpenAIAgents(DrivenFramework):
    name = "openai-agents"
    product = "OpenAI Agents SDK"
    # no program of its own: found as an interpreter that has the package (DrivenFramework.find)
    binary = "openai-agents"
    pypi_package = "openai-agents"
    distribution = "openai-agents"
    driver = "openai_agents.py"
    tested_version = "0.24.0"
    api = "openai-responses"
    sources = ("https://openai.github.io/openai-agents-python/mcp/",
               "https://openai.github.io/openai-agents-python/tracing/",
               "https://github.com/openai/openai-agents-python/blob/v0.24.0/src/agents/mcp/server.py",
               "https://github.com/openai/openai-agents-python/blob/v0.24.0/src/agents/tracing/provider.py")
    offline_more = "set_tracing_disabled(True)"
    offline_env = {"OPENAI_AGENTS_DISABLE_TRACING": "1"}
    # measured: 0.0.15 runs (it stops at the embedded PDF, its tool call raising on the blob's URL);
    # 0.0.14's agents/mcp/__init__.py exports MCPServerStdio and MCPServerSse only
    min_version = "0.0.15"
    min_missing = "agents.mcp has no MCPServerStreamableHttp, which the driver imports, before 0.0.15"
