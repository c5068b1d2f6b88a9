"""LangChain (PyPI ``langchain``, ``langchain-openai`` and ``langchain-mcp-adapters``), a framework
rather than a program: ``host test langchain`` runs the driver
:mod:`mcp_accept.hosts.drivers.langchain_agent` (the server's tools loaded by ``langchain-mcp-adapters``,
an agent of ``langchain.agents.create_agent`` with a ``ChatOpenAI`` model) with an interpreter that
has them (:class:`DrivenFramework`). Its version is that of ``langchain-mcp-adapters``, the package
that turns a tool's result into what the model is handed.

``langchain-mcp-adapters`` 0.3.2 requires ``mcp<2``, and mcp-accept's test extras ``mcp>=2.3``: it
lives in a virtual environment of its own (tests/hosts/langchain-venv, made by .ci/run with
tests/hosts/langchain-constraints.txt).

Settings and where they come from (https://github.com/langchain-ai/langchain-mcp-adapters README,
https://docs.langchain.com/oss/python/langchain/mcp, and the packages' source at the tested versions):
* model endpoint: ``ChatOpenAI`` speaks Chat Completions through the ``openai`` SDK, whose client
  reads ``OPENAI_BASE_URL`` when LangChain's own ``OPENAI_API_BASE`` is unset, and
  ``OPENAI_API_KEY`` (``langchain_openai/chat_models/base.py``); the driver asks for
  ``MCP_ACCEPT_MODEL``;
* MCP: ``MultiServerMCPClient`` with one ``stdio`` or ``streamable_http`` connection and one session
  for the run (``client.session`` and ``load_mcp_tools``); its tools reach the model under their
  own names, with no tool of the framework's own beside them;
* headless: it is a library; the driver prints the last message's text;
* offline: nothing to switch off: LangSmith tracing is off unless ``LANGSMITH_TRACING`` is set,
  which the run's environment never is (https://docs.smith.langchain.com/observability). Measured:
  the only connections are to the stand-in (and to the proxy, over HTTP).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenFramework


class LangChain(DrivenFramework):
    name = "langchain"
    product = "LangChain"
    binary = "langchain"
    pypi_package = "langchain-mcp-adapters"
    distribution = "langchain-mcp-adapters"
    driver = "langchain_agent.py"  # not langchain.py, which would shadow the package
    tested_version = "0.3.2"
    install = "pip install langchain-mcp-adapters==0.3.2 langchain==1.5.2 langchain-openai==1.8.1"
    companions = ("langchain", "langchain-openai")  # create_agent and ChatOpenAI, which the driver imports
    # measured: 0.3.1 and 0.1.11 stop at their import of the MCP SDK (RequestContext,
    # streamablehttp_client), pip having installed mcp 2; 0.3.2's metadata is the first to bound it
    min_version = "0.3.2"
    min_missing = ("earlier releases require mcp>=1.9.2 with no upper bound, so pip installs the MCP SDK 2, "
                   "which lacks what they import from it (0.3.2 requires mcp<2.0.0)")
    api = "openai-chat"
    sources = ("https://github.com/langchain-ai/langchain-mcp-adapters/blob/langchain-mcp-adapters==0.3.2/README.md",
               "https://docs.langchain.com/oss/python/langchain/mcp",
               "https://github.com/langchain-ai/langchain-mcp-adapters/blob/langchain-mcp-adapters==0.3.2/langchain_mcp_adapters/tools.py",
               "https://github.com/langchain-ai/langchain/blob/langchain-openai==1.8.1/libs/partners/openai/langchain_openai/chat_models/base.py")
    offline_more = "nothing to switch off: LangSmith tracing is off unless LANGSMITH_TRACING is set"
