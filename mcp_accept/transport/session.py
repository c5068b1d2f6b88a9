"""The two eras of MCP: building requests, negotiating the version, the steps of a run.

Modern (2026-07-28): no handshake; every request carries the ``_meta`` envelope.
Legacy (2025-11-25, 2025-06-18): ``initialize``, then ``notifications/initialized``.
``auto`` probes ``server/discover`` with the modern envelope and falls back to
``initialize`` on any error or timeout; when the server fixed its era on the failed
probe, the fallback is tried again on a fresh connection. When ``initialize`` is refused
too, one modern ``tools/list`` tells whether the server speaks 2026-07-28 without
``server/discover`` (a MUST it breaks: server/discover.mdx, which servers MUST support).

A 2026-07-28 result of ``resultType: "input_required"`` is followed as a client must
(basic/patterns/mrtr.mdx#client-requirements-basic-workflow): :meth:`Session.follow`
retries the original request with a new id and the exact ``requestState``, for at most
``max_rounds`` requests.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from mcp_accept import __version__
from mcp_accept.protocol import (INPUT_REQUIRED, INPUT_REQUIRED_METHODS, LATEST_LEGACY, LEGACY, LEGACY_ERA, META_CAPS,
                                 META_CLIENT_INFO, META_SERVER_INFO, META_VERSION, MODERN, MODERN_ERA, RESULT_TYPE_FIELD,
                                 is_modern)
from mcp_accept.transport.base import Reply, Transport
from mcp_accept.transport.messages import timed_out

CLIENT_INFO = {"name": "mcp-accept", "version": __version__}

PROTOCOL_CHOICES = ("auto", MODERN, *LEGACY)


@dataclass
class Negotiation:
    version: str | None = None
    era: str | None = None  # "modern" | "legacy"
    attempts: list[str] = field(default_factory=list)  # what was tried, in order, and how it went
    server_info: dict | None = None
    restarted: bool = False
    discover: Reply | None = None  # the answer to server/discover, when it was sent
    supported: list | None = None  # supportedVersions from that answer, when it gave a list

    @property
    def discovered(self) -> bool:
        """Whether server/discover answered with a result naming 2026-07-28."""
        return self.supported is not None and MODERN in self.supported

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
            meta.update({META_VERSION: version, META_CAPS: {}, META_CLIENT_INFO: CLIENT_INFO})
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
            supported = listed_versions(reply)
            result.discover, result.supported = reply, supported
            if supported is not None and MODERN in supported:
                result.attempts.append(f"server/discover: {MODERN} supported")
                self._settle(result, MODERN, reply)
                return result
            result.attempts.append(f"server/discover: {_how(reply, supported)}")
            if self._hopeless(reply):
                return result
            if protocol == MODERN:
                if reply.message is not None:
                    # Forced, and discovery failed: the server speaks 2026-07-28 without
                    # server/discover only if it answers a 2026-07-28 request with a 2026-07-28
                    # result (resultType: basic/index.mdx#result-responses). A server that answers
                    # as a legacy version never claimed 2026-07-28: its rows cannot be judged by it.
                    self._modern_without_discover(result, require_result_type=True)
                return result
        wanted = protocol if protocol in LEGACY else LATEST_LEGACY
        reply = self._initialize(wanted, result)
        if self._hopeless(reply):
            return result
        if (not reply.has_result and self.transport.name == "stdio" and probed
                and not self.transport.exited_unread()):
            # Some servers fix their era from the first request they see; start afresh (not one
            # that ended without reading the probe: it would only end again).
            self.transport.restart()
            result.restarted = True
            reply = self._initialize(wanted, result)
            if self._hopeless(reply):
                return result
        if not reply.has_result and probed and result.discover is not None and result.discover.message:
            # The server answered the probe (with an error) and refused initialize too.
            self._modern_without_discover(result)
        return result

    def _hopeless(self, reply: Reply) -> bool:
        """Whether the server let a request time out after writing to its stdout what is no
        message at all: its stdout carries something else, and every other opening would cost
        one more timeout to fail the same way. The run says so at the first timeout."""
        return timed_out(reply) and self.transport.noise is not None

    def _modern_without_discover(self, result: Negotiation, *, require_result_type: bool = False) -> None:
        """Neither era answered its opening: try one modern request. A server that answers it
        speaks 2026-07-28 without server/discover, which the rows then report.

        ``require_result_type``: only a result carrying ``resultType`` counts (a legacy server
        that answers anything it is sent would otherwise be judged by 2026-07-28's rules)."""
        reply = self.send("tools/list", {}, version=MODERN)
        legacy_shaped = (require_result_type and reply.has_result
                         and not (isinstance(reply.result, dict) and RESULT_TYPE_FIELD in reply.result))
        if legacy_shaped:
            result.attempts.append(f"tools/list with the {MODERN} envelope: answered without resultType, "
                                   f"as a legacy version answers: the server does not speak {MODERN}")
        elif reply.has_result:
            result.attempts.append(f"tools/list with the {MODERN} envelope: answered, "
                                   f"so the server speaks {MODERN} without server/discover")
            self._settle(result, MODERN, reply)
        else:
            result.attempts.append(f"tools/list with the {MODERN} envelope: {reply.describe_failure()}")

    # -- multi round-trip requests ----------------------------------------------------------
    def follow(self, method: str, params: dict | None = None, *, max_rounds: int,
               timeout: float | None = None) -> "Followed":
        """Send a request and, in 2026-07-28, follow ``input_required`` results to the end.

        Dispatch is on ``resultType`` alone (never on which schema branch a result fits).
        Each retry is a new request with a new id, the original params, the exact
        ``requestState`` when one was given (and none when none was: mrtr.mdx, client
        requirements 2), and ``inputResponses`` for the ``inputRequests`` answered. This
        client declares no capabilities, so any input request it is handed asks for one it
        did not declare: it cannot construct the inputs, so it must not retry (client
        requirement 1), and the server broke the rule that it MUST NOT ask, in
        inputRequests, for anything the client did not declare (server requirements 7; also
        basic/index.mdx#meta, where a server MUST NOT count on capabilities the client left
        undeclared).
        """
        params = dict(params or {})
        followed = Followed()
        for _ in range(max_rounds):
            reply = self.send(method, followed.retry_params(params), timeout=timeout)
            followed.replies.append(reply)
            asked = input_required(self.version, method, reply)
            if asked is None:
                return followed
            requests = asked.get("inputRequests")
            if isinstance(requests, dict) and requests:
                followed.stop = UNANSWERABLE
                followed.why = (f"the server asked for input this client did not declare it can give "
                                f"({_describe_requests(requests)}); mcp-accept declares no client "
                                "capabilities")
                return followed
            followed.state = asked.get("requestState") if isinstance(asked.get("requestState"), str) else None
            followed.answered = {} if isinstance(requests, dict) else None
        followed.stop = BOUNDED
        followed.why = (f"the server still answered resultType \"input_required\" after {max_rounds} "
                        f"round{'s' if max_rounds != 1 else ''} (--max-rounds {max_rounds})")
        return followed

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
        result.era = MODERN_ERA if is_modern(version) else LEGACY_ERA
        res = reply.result if isinstance(reply.result, dict) else {}
        info = res.get("serverInfo")
        if info is None:
            info = (res.get("_meta") or {}).get(META_SERVER_INFO)
        result.server_info = info if isinstance(info, dict) else None


# How a multi round-trip request ended without a complete result.
UNANSWERABLE = "unanswerable"  # input requests for capabilities the client did not declare
BOUNDED = "bounded"  # still input_required when the round limit was reached
DEFAULT_MAX_ROUNDS = 5


@dataclass
class Followed:
    """Every round of one request that :meth:`Session.follow` made, and how it ended."""

    replies: list[Reply] = field(default_factory=list)
    state: str | None = None  # requestState to echo on the next retry
    answered: dict | None = None  # inputResponses to send on the next retry
    stop: str | None = None  # None: the last reply is final; else UNANSWERABLE or BOUNDED
    why: str | None = None

    @property
    def reply(self) -> Reply | None:
        return self.replies[-1] if self.replies else None

    def retry_params(self, params: dict) -> dict:
        out = dict(params)
        if self.state is not None:
            out["requestState"] = self.state  # exactly as received: never inspected or changed
        if self.answered is not None:
            out["inputResponses"] = self.answered
        return out


def input_required(version: str | None, method: str, reply: Reply) -> dict | None:
    """The result when it asks for more input (2026-07-28, a method that may), else None."""
    result = reply.result if reply.has_result else None
    if (is_modern(version) and method in INPUT_REQUIRED_METHODS and isinstance(result, dict)
            and result.get(RESULT_TYPE_FIELD) == INPUT_REQUIRED):
        return result
    return None


def _describe_requests(requests: dict) -> str:
    parts = []
    for key, value in list(requests.items())[:3]:
        method = value.get("method") if isinstance(value, dict) else None
        parts.append(f"{key}: {method}" if isinstance(method, str) else str(key))
    more = f" and {len(requests) - 3} more" if len(requests) > 3 else ""
    return ", ".join(parts) + more


def listed_versions(reply: Reply) -> list | None:
    """``supportedVersions`` of a server/discover answer, or None when it gave no list."""
    if not reply.has_result or not isinstance(reply.result, dict):
        return None
    versions = reply.result.get("supportedVersions")
    return versions if isinstance(versions, list) else None


def _how(reply: Reply, supported: list | None) -> str:
    if supported is not None:
        return f"{MODERN} not among {supported}"
    return reply.describe_failure()
