"""The OpenAI Agents SDK for Python (PyPI ``openai-agents``), a framework rather than a program:
``host test openai-agents`` runs the driver :mod:`mcp_accept.hosts.drivers.openai_agents` (an
``Agent`` with the server in its ``mcp_servers``, run by ``Runner.run``) with an interpreter that
has the SDK: this one, or the one ``--host-bin`` names.

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

import importlib.metadata
import os
import sys
from pathlib import Path

from mcp_accept.hosts import drivers
from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch
from mcp_accept.hosts.own_client import MODEL, contract_env

DRIVER = Path(drivers.__file__).parent / "openai_agents.py"
VERSION_CODE = "import importlib.metadata as m; print(m.version('openai-agents'))"


class OpenAIAgents(HostAdapter):
    name = "openai-agents"
    product = "OpenAI Agents SDK"
    # no program of its own: found as an interpreter that has the package (see ``find``)
    binary = "openai-agents"
    pypi_package = "openai-agents"
    tested_version = "0.24.0"
    api = "openai-responses"
    model = MODEL
    sources = ("https://openai.github.io/openai-agents-python/mcp/",
               "https://openai.github.io/openai-agents-python/tracing/",
               "https://github.com/openai/openai-agents-python/blob/v0.24.0/src/agents/mcp/server.py",
               "https://github.com/openai/openai-agents-python/blob/v0.24.0/src/agents/tracing/provider.py")
    offline = "tracing off: set_tracing_disabled(True), OPENAI_AGENTS_DISABLE_TRACING=1"
    tool_scheme = "{tool}"
    own_tools_off = "none to switch off: the driver's agent is given no tool but its MCP server's"

    def find(self, given: str | None) -> str | None:
        """An interpreter that has the SDK: ``given`` (``--host-bin``), else this one."""
        if given:
            path = Path(given).absolute()
            return str(path) if path.is_file() and os.access(path, os.X_OK) else None
        try:
            importlib.metadata.version(self.pypi_package)
        except importlib.metadata.PackageNotFoundError:
            return None
        return sys.executable

    def installed_binary(self, place: Path) -> Path:
        return place / "bin" / "python"  # the environment's interpreter has the SDK

    def version_argv(self, binary: str) -> list[str]:
        return [binary, "-c", VERSION_CODE]

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env, config = contract_env(ctx, "openai-responses")
        env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
        return Launch([binary, str(DRIVER)], env, ctx.work, [config])
