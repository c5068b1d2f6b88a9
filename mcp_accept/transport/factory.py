"""Choosing and building the transport a run's options ask for."""

from __future__ import annotations

from pathlib import Path

from mcp_accept.evidence import Redactor, WireLog
from mcp_accept.transport.base import Transport


def make_transport(opts, *, folder: Path, redactor: Redactor, builtin: str) -> Transport:
    from mcp_accept.transport.stdio import StdioTransport

    (folder / "stderr.log").write_bytes(b"")  # a new run starts a new log
    log = WireLog(folder / "wire.jsonl", redactor, transport="stdio")
    command = opts.server or builtin
    return StdioTransport(command, log, stderr_path=folder / "stderr.log", redactor=redactor,
                          max_bytes=opts.max_bytes)
