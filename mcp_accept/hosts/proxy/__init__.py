"""``mcp-accept proxy``: sit between a real host and a real server, forward every message
unchanged, record both directions in a run folder, and derive what the wire shows of the host.

* :mod:`mcp_accept.hosts.proxy.stdio`: the host launches the proxy as its stdio server;
* :mod:`mcp_accept.hosts.proxy.http`: a local Streamable HTTP reverse proxy;
* :mod:`mcp_accept.hosts.proxy.folder`: the run folder both write, and its completion;
* :mod:`mcp_accept.hosts.proxy.derive`: the facts a recording establishes, each with its seqs.

In ``wire.jsonl`` the directions keep the meaning they have in a ``run``: ``out`` is what the
client side (here: the host) sent to the server, ``in`` what the server sent back.

May import: what :mod:`mcp_accept.hosts` may.
"""
