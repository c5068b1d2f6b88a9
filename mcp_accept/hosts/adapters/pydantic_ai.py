"""PydanticAI (PyPI ``pydantic-ai-slim`` with its ``openai`` and ``mcp`` extras, or ``pydantic-ai``),
a framework rather than a program: ``host test pydantic-ai`` runs the driver
:mod:`mcp_accept.hosts.drivers.pydantic_ai_agent` (an ``Agent`` with the server as its ``MCPToolset``, run
by ``Agent.run``) with an interpreter that has it (:class:`DrivenFramework`).

Settings and where they come from (PydanticAI's documentation at https://ai.pydantic.dev/, and
its source at the tested version):
* model endpoint: ``"openai:NAME"`` is ``OpenAIResponsesModel`` (the Responses API;
  ``pydantic_ai/models/__init__.py``, ``infer_model``) with an ``OpenAIProvider`` whose ``openai``
  client reads ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (``pydantic_ai/providers/openai.py``);
  the environment of ``--client`` holds both, and the driver asks for ``MCP_ACCEPT_MODEL``;
* MCP: ``MCPToolset``, built on the FastMCP client (https://ai.pydantic.dev/mcp/client/): of a
  ``StdioTransport(command, args)``, as ``load_mcp_toolsets`` builds one of a ``command`` entry,
  or of the URL (Streamable HTTP, inferred from it); not prefixed, its tools reach the model under
  their own names, with no tool of the framework's own beside them;
* headless: it is a library; the driver prints the run's ``output``;
* offline: nothing to switch off: instrumentation (Logfire/OpenTelemetry) is off unless
  ``Agent.instrument_all()`` or ``instrument=`` turns it on, and the price table is updated from
  the network only by ``pydantic_ai.prices.update_in_background()``, which the driver does not
  call (``pydantic_ai/agent/__init__.py``, ``pydantic_ai/prices.py``). Measured: the only
  connections are to the stand-in (and to the proxy, over HTTP).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenFramework


class PydanticAI(DrivenFramework):
    name = "pydantic-ai"
    product = "PydanticAI"
    binary = "pydantic-ai"
    pypi_package = "pydantic-ai-slim"
    distribution = "pydantic-ai-slim"
    driver = "pydantic_ai_agent.py"  # not pydantic_ai.py: a script's folder comes first on sys.path, and would shadow the package
    tested_version = "2.78.0"
    install = "pip install 'pydantic-ai-slim[openai,mcp]==2.78.0'"
    extras = "[openai,mcp]"  # the OpenAI model and MCPToolset's FastMCP client (pyproject.toml's extras)
    # measured: 2.19.0 runs (pip installs fastmcp-slim 3.4 and mcp 1.30 with it); 2.18.0's extra
    # admits fastmcp-slim 4, with which its MCPToolset stops: "FastMCP Client initialization
    # returned no result"; 1.97.0, the first with MCPToolset on FastMCP, imports the MCP SDK 1's
    # mcp.shared.context, and pip installs the SDK 2
    min_version = "2.19.0"
    min_missing = ("earlier releases admit dependencies their MCPToolset does not run with (fastmcp-slim 4 "
                   "before 2.19.0, the MCP SDK 2 in the 1 series)")
    api = "openai-responses"
    sources = ("https://ai.pydantic.dev/mcp/client/",
               "https://ai.pydantic.dev/models/openai/",
               "https://github.com/pydantic/pydantic-ai/blob/v2.78.0/pydantic_ai_slim/pydantic_ai/mcp.py",
               "https://github.com/pydantic/pydantic-ai/blob/v2.78.0/pydantic_ai_slim/pydantic_ai/providers/openai.py")
    offline_more = "nothing to switch off: no instrumentation or price updates unless asked for"
