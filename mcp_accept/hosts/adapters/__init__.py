"""One module per agent host that runs headless: how to make it launch ``mcp-accept proxy`` for
the server, how to point it at the stand-in model, its headless command, its model API, its
private folders. Each is registered, with the host it runs, in :mod:`mcp_accept.hosts.registry`
(``ADAPTERS`` there maps each ``host test HOST`` name to its adapter).

May import: what :mod:`mcp_accept.hosts` may (the stand-in's script types among them).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.base import HostAdapter

__all__ = ["HostAdapter"]
