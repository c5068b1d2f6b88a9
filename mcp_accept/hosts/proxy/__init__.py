"""``mcp-accept proxy``: sit between a real host and a real server, forward every message
unchanged, record both directions in a run folder, and derive what the wire shows of the host.

* :mod:`mcp_accept.hosts.proxy.stdio`: the host launches the proxy as its stdio server;
* :mod:`mcp_accept.hosts.proxy.http`: a local Streamable HTTP reverse proxy;
* :mod:`mcp_accept.hosts.proxy.folder`: the run folder both write, and its completion;
* :mod:`mcp_accept.hosts.proxy.derive`: the facts a recording establishes, each with its seqs;
* :mod:`mcp_accept.hosts.proxy.bounds`: a message larger than ``--max-bytes``: its id found
  in bounded memory, and the JSON-RPC error the host gets instead.
* :mod:`mcp_accept.hosts.proxy.early`: the stdio server started before the command line is
  parsed, so that its start-up and the proxy's overlap.

Every host run goes through the proxy, so it is a boundary: it forwards only to its
upstream, listens on loopback, checks Host and Origin, keeps the host's credentials out of
the folder and the console, and runs in bounded memory (docs/misbehaving-servers.md, "The
recording proxy's guarantees").

In ``wire.jsonl`` the directions keep the meaning they have in a ``run``: ``out`` is what the
client side (here: the host) sent to the server, ``in`` what the server sent back.

The command line that starts the proxy is built in one place, :func:`proxy_command`, for
``host config``'s snippets and for ``host test``.

May import: what :mod:`mcp_accept.hosts` may.
"""

from __future__ import annotations

import os
import sys


def proxy_command(out, name: str, *, server: str | None = None, url: str | None = None,
                  listen: str | None = None, ready_file=None, isolate: bool = False,
                  upstream_socket: str | None = None, headers: list[str] = (),
                  mask_socket: str | None = None) -> list[str]:
    """``mcp-accept proxy`` run by this interpreter, for ``server`` (the host launches the proxy
    as its stdio server) or for ``url`` (listening on ``listen``, reaching it through
    ``upstream_socket`` where given, sending each of ``headers``: ``Name: env:VAR`` only, so
    that no value is on a command line; ``mask_socket``: where the values of ``host test --env``
    are to be had, to mask them). ``out`` is made absolute: hosts start servers from a
    working folder of their own choosing."""
    upstream = ["--server", server] if server is not None else ["--url", url, "--listen", listen]
    if ready_file is not None:
        upstream += ["--ready-file", os.path.realpath(ready_file)]
    if isolate:
        upstream.append("--isolate")
    if upstream_socket is not None:
        upstream += ["--upstream-socket", upstream_socket]
    for header in headers:
        upstream += ["--header", header]
    if mask_socket is not None:
        upstream += ["--mask-socket", mask_socket]
    return [sys.executable, "-m", "mcp_accept", "proxy", *upstream,
            "--out", os.path.realpath(out), "--name", name]
