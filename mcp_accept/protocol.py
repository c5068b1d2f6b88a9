"""The two eras of MCP: building requests, negotiating the version, the steps of a run.

Modern (2026-07-28): no handshake; every request carries the ``_meta`` envelope.
Legacy (2025-11-25, 2025-06-18): ``initialize``, then ``notifications/initialized``.
``auto`` probes ``server/discover`` with the modern envelope and falls back to
``initialize`` on any error or timeout; when the server fixed its era on the failed
probe, the fallback is tried again on a fresh connection.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from mcp_accept import __version__
from mcp_accept.schemas import LEGACY, MODERN
from mcp_accept.transport.base import Reply, Transport

CLIENT_INFO = {"name": "mcp-accept", "version": __version__}
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT = "io.modelcontextprotocol/clientInfo"

PROTOCOL_CHOICES = ("auto", MODERN, *LEGACY)


def is_modern(version: str | None) -> bool:
    return version == MODERN


@dataclass
class Negotiation:
    version: str | None = None
    era: str | None = None  # "modern" | "legacy"
    attempts: list[str] = field(default_factory=list)  # what was tried, in order, and how it went
    server_info: dict | None = None
    restarted: bool = False

    @property
    def ok(self) -> bool:
        return self.version is not None


class Session:
    """Numbers requests, wraps them for the era in use, and sends them through a transport."""

    def __init__(self, transport: Transport, *, timeout: float):
        self.transport = transport
        self.timeout = timeout
        self.version: str | None = None
        self._ids = itertools.count(1)

    # -- building --------------------------------------------------------------------------
    def build(self, method: str, params: dict | None = None, *, version: str | None = None) -> dict:
        version = version or self.version
        params = dict(params or {})
        if is_modern(version):
            meta = dict(params.get("_meta") or {})
            meta.update({META_VERSION: version, META_CAPS: {}, META_CLIENT: CLIENT_INFO})
            params["_meta"] = meta
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params or is_modern(version):
            message["params"] = params
        return message

    def send(self, method: str, params: dict | None = None, *, version: str | None = None,
             timeout: float | None = None) -> Reply:
        message = self.build(method, params, version=version)
        self.transport.era = self.transport.log.era = version or self.version
        return self.transport.request(message, timeout=timeout or self.timeout)

    def notify(self, method: str, params: dict | None = None) -> Reply:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params:
            message["params"] = params
        return self.transport.notify(message, timeout=self.timeout)

    # -- negotiation -----------------------------------------------------------------------
    def negotiate(self, protocol: str = "auto") -> Negotiation:
        result = Negotiation()
        probed = protocol in ("auto", MODERN)
        if probed:
            reply = self.send("server/discover", {}, version=MODERN)
            supported = _supported(reply)
            if supported is not None and MODERN in supported:
                result.attempts.append("server/discover: 2026-07-28 supported")
                self._settle(result, MODERN, reply)
                return result
            result.attempts.append(f"server/discover: {_how(reply, supported)}")
            if protocol == MODERN:
                if reply.message is not None:
                    # Forced: go on in the modern era; the rows judge what the server does.
                    self._settle(result, MODERN, reply)
                return result
        wanted = protocol if protocol in LEGACY else LEGACY[0]
        reply = self._initialize(wanted, result)
        if not reply.has_result and self.transport.name == "stdio" and probed:
            # Some servers fix their era from the first request they see; start afresh.
            self.transport.restart()
            result.restarted = True
            reply = self._initialize(wanted, result)
        return result

    def _initialize(self, wanted: str, result: Negotiation) -> Reply:
        reply = self.send("initialize", {"protocolVersion": wanted, "capabilities": {},
                                         "clientInfo": CLIENT_INFO}, version=wanted)
        if not reply.has_result or not isinstance(reply.result, dict):
            result.attempts.append(f"initialize {wanted}: {reply.describe_failure()}")
            return reply
        chosen = reply.result.get("protocolVersion")
        result.attempts.append(f"initialize {wanted}: server chose {chosen!r}")
        version = chosen if isinstance(chosen, str) and chosen else wanted
        self._settle(result, version, reply)
        self.transport.legacy_version = version
        self.notify("notifications/initialized")
        return reply

    def _settle(self, result: Negotiation, version: str, reply: Reply) -> None:
        self.version = version
        self.transport.era = self.transport.log.era = version
        result.version = version
        result.era = "modern" if is_modern(version) else "legacy"
        res = reply.result if isinstance(reply.result, dict) else {}
        info = res.get("serverInfo")
        if info is None:
            info = (res.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo")
        result.server_info = info if isinstance(info, dict) else None


def _supported(reply: Reply) -> list | None:
    if not reply.has_result or not isinstance(reply.result, dict):
        return None
    versions = reply.result.get("supportedVersions")
    return versions if isinstance(versions, list) else None


def _how(reply: Reply, supported: list | None) -> str:
    if supported is not None:
        return f"2026-07-28 not among {supported}"
    return reply.describe_failure()
