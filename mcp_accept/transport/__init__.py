"""Transports move raw JSON-RPC messages and record every one of them in the wire log; the
MCP client session (:mod:`.session`) speaks the protocol over any of them.

May import: ``errors``, ``data``, ``evidence`` and ``schemas``; never checks or anything later.
"""

from mcp_accept.transport.base import Reply, Transport, TransportClosed

__all__ = ["Reply", "Transport", "TransportClosed"]
