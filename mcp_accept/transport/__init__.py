"""Transports move raw JSON-RPC messages and record every one of them in the wire log; the
MCP client session (:mod:`.session`) speaks the protocol over any of them.

* :mod:`.base`: what every transport offers (:class:`Transport`, :class:`Reply`);
* :mod:`.stdio`: a server started as a subprocess, newline-delimited JSON both ways;
* :mod:`.http`: Streamable HTTP, both eras, over httpx, with the 2026-07-28 header values of
  :mod:`.headers`;
* :mod:`.sse`: event streams read by httpx-sse, by the HTTP transport and the recording proxy;
* :mod:`.factory`: which transport a run's options ask for;
* :mod:`.messages`: received bytes turned into JSON-RPC messages, answers matched to requests,
  and what breaks the protocol recorded as a violation with its source.

The versions, header names and error codes they speak by are :mod:`mcp_accept.protocol`'s.

May import: ``errors``, ``data``, ``protocol``, ``evidence`` and ``schemas``; never checks or
anything later.
"""

from mcp_accept.transport.base import Reply, Transport, TransportClosed

__all__ = ["Reply", "Transport", "TransportClosed"]
