"""The stand-in model: a local HTTP server on 127.0.0.1 that answers a host as its model would,
calling the host's tools by a script, and records every request the host sent it.

* :mod:`.script`: the API-neutral part: a turn as the host sent it, the next action;
* :mod:`.anthropic`, :mod:`.openai`, :mod:`.gemini`: each model API's paths (``handles``), its
  requests read into a turn (``parse``) and each action written back in that API's shape,
  streamed (SSE) or not, as an :mod:`.answer` (``respond``);
* :mod:`.server`: the HTTP server (Starlette on uvicorn) that routes each request to its API
  (one line per API in ``DIALECTS``) and records both directions in ``model.jsonl``.

May import: ``errors``, ``data``, ``untrusted`` and ``evidence``. It knows nothing of MCP
servers, sheets or hosts: an adapter in :mod:`mcp_accept.hosts` hands it a script.
"""
