"""Transports move raw JSON-RPC messages and record every one of them in the wire log."""

from mcp_accept.transport.base import Reply, Transport, TransportClosed

__all__ = ["Reply", "Transport", "TransportClosed"]
