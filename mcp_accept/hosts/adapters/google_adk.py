"""Google's Agent Development Kit for Python (PyPI ``google-adk[mcp]``), a framework rather than a
program: ``host test google-adk`` runs the driver :mod:`mcp_accept.hosts.drivers.google_adk_agent`
(an ``Agent`` with the server as its ``McpToolset`` and a ``Gemini`` model, run by an
``InMemoryRunner``) with an interpreter that has it (:class:`DrivenFramework`).

``google-adk`` 2.13.0 requires ``google-genai<3``, and mcp-accept's test extras check the stand-in's
answers against google-genai 3: it lives in a virtual environment of its own
(tests/hosts/google-adk-venv, made by .ci/run with tests/hosts/google-adk-constraints.txt).

Settings and where they come from (https://google.github.io/adk-docs/, and the package's source at
the tested version):
* model endpoint: ADK's ``Gemini`` model calls ``generateContent`` through ``google-genai``, whose
  client reads ``GOOGLE_GEMINI_BASE_URL`` (``google/genai/_base_url.py``) and ``GEMINI_API_KEY``;
  the environment of ``--client`` holds both;
* MCP: ``McpToolset`` with ``StdioConnectionParams`` or ``StreamableHTTPConnectionParams``
  (https://google.github.io/adk-docs/tools-custom/mcp-tools/, ``google/adk/tools/mcp_tool/
  mcp_session_manager.py``); its tools reach the model under their own names, with no tool of the
  framework's own beside them;
* headless: it is a library; the driver prints the final response's text;
* offline: over Streamable HTTP, ADK's MCP session manager probes for a client certificate for
  mTLS with ``google.auth.default()`` whatever the server's address, unless
  ``GOOGLE_API_USE_CLIENT_CERTIFICATE`` is ``false`` (``_get_mtls_transport`` in
  ``mcp_session_manager.py``); that probe asks the Compute Engine metadata server, 169.254.169.254
  (``google/auth/compute_engine/_metadata.py``). Measured: without the variable, three connections
  to 169.254.169.254:80 (refused in the run's namespace); with it, none. ADK's OpenTelemetry spans
  are exported nowhere unless an exporter is configured, and the run's environment names none.
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.framework import DrivenFramework


class GoogleAdk(DrivenFramework):
    name = "google-adk"
    product = "Google ADK"
    binary = "google-adk"
    pypi_package = "google-adk"
    distribution = "google-adk"
    driver = "google_adk_agent.py"  # not google_adk.py, named apart from the package as the others are
    tested_version = "2.13.0"
    install = "pip install 'google-adk[mcp]==2.13.0'"
    extras = "[mcp]"  # the extra that brings the MCP SDK its McpToolset imports (in 1.x a dependency)
    # measured: 1.13.0 runs (it stops at the embedded resource, raising on its URL); 1.12.0's
    # mcp_session_manager.py has no StdioConnectionParams
    min_version = "1.13.0"
    min_missing = ("google.adk.tools.mcp_tool.mcp_session_manager has no StdioConnectionParams and "
                   "StreamableHTTPConnectionParams, which the driver imports, before 1.13.0")
    api = "gemini"
    sources = ("https://google.github.io/adk-docs/tools-custom/mcp-tools/",
               "https://google.github.io/adk-docs/agents/models/",
               "https://github.com/google/adk-python/blob/v2.13.0/src/google/adk/tools/mcp_tool/mcp_session_manager.py",
               "https://github.com/googleapis/python-genai/blob/main/google/genai/_base_url.py")
    offline_env = {"GOOGLE_API_USE_CLIENT_CERTIFICATE": "false"}
    offline_more = "so that no mTLS credential is probed for (the GCE metadata server)"
