"""Choosing and building the transport a run's options ask for.

* ``--url`` alone: Streamable HTTP to a server that is already running;
* ``--url`` and ``--server``: start the server, wait until the URL answers, then HTTP;
* ``--server`` alone (or nothing: the built-in fixture): stdio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from mcp_accept.evidence.files import new_empty
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.server_command import ServerEnv, server_env
from mcp_accept.transport.base import Transport


def started_env(opts) -> ServerEnv:
    """What of the user's environment a server started for ``opts`` is given (``--env``,
    ``--inherit-env``); the built-in fixture also the runner's PYTHONPATH, so that it is the
    same mcp-accept as the runner."""
    builtin = not opts.server and not getattr(opts, "url", None)
    return server_env(getattr(opts, "env", None) or (), getattr(opts, "inherit_env", False),
                      own=("PYTHONPATH",) if builtin else ())


def make_transport(opts, *, folder: Path, redactor: Redactor, builtin: str,
                   headers: Iterable[tuple[str, str]] = ()) -> Transport:
    new_empty(folder / "stderr.log")  # a new run starts a new log (nothing planted there is written through)
    if getattr(opts, "url", None):
        from mcp_accept.transport.http import STARTUP_WAIT, HttpTransport

        stdout_path = None
        if opts.server:
            stdout_path = folder / "server-stdout.log"
            new_empty(stdout_path)
        log = WireLog(folder / "wire.jsonl", redactor, transport=HttpTransport.name)
        transport = HttpTransport(opts.url, log, headers=headers, redactor=redactor, max_bytes=opts.max_bytes,
                                  server_command=opts.server, stderr_path=folder / "stderr.log",
                                  stdout_path=stdout_path,
                                  # the readiness wait is part of the run: --run-timeout bounds it too
                                  startup_wait=min(STARTUP_WAIT, float(getattr(opts, "run_timeout", STARTUP_WAIT))))
    else:
        from mcp_accept.transport.stdio import StdioTransport

        log = WireLog(folder / "wire.jsonl", redactor, transport="stdio")
        command = opts.server or builtin
        transport = StdioTransport(command, log, stderr_path=folder / "stderr.log", redactor=redactor,
                                   max_bytes=opts.max_bytes)
    # the folder a started server runs in (a targets file's folder; None: the current one)
    transport.cwd = getattr(opts, "cwd", None)
    transport.env = started_env(opts).build()
    return transport


def make_probe_transport(*, server: str | None, url: str | None, headers: Iterable[tuple[str, str]] = (),
                         redactor: Redactor | None = None, max_bytes: int | None = None,
                         env: ServerEnv | None = None) -> Transport:
    """A transport that keeps no files: for looking at a server (``profile init``), which is
    given ``env`` (default: the MCP SDKs' default variables)."""
    from mcp_accept.transport.base import DEFAULT_MAX_BYTES

    redactor = redactor or Redactor()
    limit = max_bytes or DEFAULT_MAX_BYTES
    if url:
        from mcp_accept.transport.http import HttpTransport

        transport: Transport = HttpTransport(url, WireLog(None, redactor, transport=HttpTransport.name),
                                             headers=headers, redactor=redactor, max_bytes=limit,
                                             server_command=server)
    else:
        from mcp_accept.transport.stdio import StdioTransport

        assert server, "a server command or a URL is needed"
        transport = StdioTransport(server, WireLog(None, redactor), redactor=redactor, max_bytes=limit)
    transport.env = (env or ServerEnv()).build()
    return transport
