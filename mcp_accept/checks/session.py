"""Rules that hold across a whole recording: what the server may send, given what was negotiated
and what the client asked for, and what it may serve, given what it declared.

One message can be valid against its schema and still break the session: a progress
notification for a token nobody sent, a log message nobody asked for, a request for a client
capability the client never declared, a cancellation of a request that is not in flight, a
result of a feature the server never declared. Each check below reads the recording in order
(``seq``) and cites the sentence of the version on the wire it rests on.
"""

from __future__ import annotations

from mcp_accept.checks.base import (FAIL, MUST, PASS, SHOULD, Context, Verdict, check, content_items, first_few, id_key,
                                    server_capabilities)
from mcp_accept.checks.places import cite
from mcp_accept.protocol import CLIENT_CAPABILITY_OF, INPUT_REQUIRED, META_LOG_LEVEL, METHODS, MODERN, RESULT_TYPE_FIELD
from mcp_accept.reasons import declare, reason

# The reasons this module's verdicts give: id and English template (collected into
# mcp_accept.reasons.REASONS; translated in the message catalog, else shown in English).
declare({
    # W01
    "wire.progress": "{n} progress notification(s), each for a token of a request in flight",
    "wire.no-progress": "no progress notification was received",
    "wire.logs": "{n} log message(s), each one the version allows",
    "wire.no-logs": "no log message was received",
    "wire.no-session-capabilities": "{modern} negotiates no session capabilities ({n} request(s) from the server)",
    "wire.server-requests": "{n} request(s) from the server, none for an undeclared client capability",
    "wire.no-server-requests": "the server sent no request",
    "wire.cancellations": "{n} cancellation(s), each of a request in flight",
    "wire.no-cancellations": "the server cancelled nothing",
    "wire.features-declared": "every feature served was declared: {features}",
    "wire.no-declaration": "no capability declaration was recorded, so none is held against what the server served",
})

# The pages moved between eras: basic/utilities/ (2025-11-25, 2025-06-18) became
# basic/patterns/ (2026-07-28).
PROGRESS = ("basic/utilities/progress.mdx", "behavior-requirements")
CANCELLATION = ("basic/utilities/cancellation.mdx", "behavior-requirements")
LOGGING_CAPABILITY = ("server/utilities/logging.mdx", "capabilities")
# 2026-07-28 only: a server MUST NOT send notifications/message for a request lacking
# io.modelcontextprotocol/logLevel in its _meta.
LOG_LEVEL = ("server/utilities/logging.mdx", "per-request-log-level")
# Legacy: each side MUST stick to the capabilities the two agreed on.
NEGOTIATED = ("basic/lifecycle.mdx", "operation")
TOOLS_CAPABILITY = ("server/tools.mdx", "capabilities")
RESOURCES_CAPABILITY = ("server/resources.mdx", "capabilities")
# A server that embeds resources SHOULD also offer the resources capability (every version).
EMBEDDED_CAPABILITY = ("server/tools.mdx", "embedded-resources")

# The methods whose result is serving a feature, the capability that feature needs and where that is said.
SERVED_BY = {method: (capability, {"tools": TOOLS_CAPABILITY, "resources": RESOURCES_CAPABILITY}[capability])
             for method, (_, _, capability) in METHODS.items() if capability}


class Flow:
    """The messages of a recording in order, with when each request was in flight."""

    def __init__(self, ctx: Context):
        self.entries = [e for e in ctx.recording.entries
                        if isinstance(e.get("message"), dict) and e.get("dir") in ("in", "out")]
        self.version = ctx.version
        # (sender, id) -> list of [request entry, seq of its answer or None]
        self.spans: dict[tuple, list[list]] = {}
        for entry in self.entries:
            message = entry["message"]
            sender = "client" if entry["dir"] == "out" else "server"
            if "method" in message and "id" in message:
                self.spans.setdefault((sender, id_key(message["id"])), []).append([entry, None])
            elif "method" not in message and "id" in message:
                asker = "server" if sender == "client" else "client"
                for span in self.spans.get((asker, id_key(message["id"])), []):
                    if span[1] is None and span[0]["seq"] < entry["seq"]:
                        span[1] = entry["seq"]

    def in_flight(self, sender: str, seq: int):
        """The requests ``sender`` had sent and not yet seen answered at ``seq``."""
        for (who, _), spans in self.spans.items():
            if who != sender:
                continue
            for request, answered in spans:
                if request["seq"] < seq and (answered is None or answered > seq):
                    yield request

    def from_server(self, kind: str):
        """Notifications (``kind`` "notification") or requests ("request") the server sent."""
        for entry in self.entries:
            message = entry["message"]
            if entry["dir"] == "in" and "method" in message and (("id" in message) == (kind == "request")):
                yield entry

    def client_capabilities(self) -> dict | None:
        """What the client declared: the initialize request's capabilities (legacy)."""
        for entry in self.entries:
            message = entry["message"]
            if entry["dir"] == "out" and message.get("method") == "initialize":
                params = message.get("params")
                caps = params.get("capabilities") if isinstance(params, dict) else None
                if entry.get("era") in (None, self.version) and isinstance(caps, dict):
                    return caps
        return None


def _params(message: dict) -> dict:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def _meta(message: dict) -> dict:
    meta = _params(message).get("_meta")
    return meta if isinstance(meta, dict) else {}


def _fail(name: str, ctx: Context, problems: list[str], seqs: list[int], rule: str, source: str) -> Verdict:
    return Verdict(name, "wire", FAIL, first_few(problems), sorted(set(seqs)), rule=rule, source=source)


def _each_notification(ctx: Context, name: str, method: str, section: tuple[str, str], why, passed: str,
                       none: str) -> Verdict:
    """One verdict over every ``method`` notification the server sent: ``why(flow, entry)``
    says what is wrong with one (or None); a FAIL names the first few and cites ``section``.
    ``passed`` (which takes the count as ``n``) and ``none`` are the PASS's reason ids."""
    flow = Flow(ctx)
    problems, seqs, seen = [], [], 0
    for entry in flow.from_server("notification"):
        if entry["message"].get("method") != method:
            continue
        seen += 1
        found = why(flow, entry)
        if found:
            problems.append(f"#{entry['seq']} {found}")
            seqs.append(entry["seq"])
    if problems:
        return _fail(name, ctx, problems, seqs, MUST, cite(ctx.version, *section))
    return Verdict(name, "wire", PASS, reason(passed, n=seen) if seen else reason(none))


@check("progress_tokens_known", "wire", rule=MUST, source=PROGRESS)
def progress_tokens_known(ctx: Context) -> Verdict:
    """A progress notification MUST name only a token some active request handed over, for
    an operation that is still running (basic/utilities/progress.mdx, every
    version). mcp-accept sends no progressToken, so any progress notification it receives
    names a token nobody gave."""

    def why(flow: Flow, entry: dict) -> str | None:
        token = _params(entry["message"]).get("progressToken")
        for request in flow.in_flight("client", entry["seq"]):
            meta = _meta(request["message"])
            if "progressToken" in meta and id_key(meta["progressToken"]) == id_key(token):
                return None
        return f"notifications/progress names token {token!r}, which no request in flight carried"

    return _each_notification(ctx, "progress_tokens_known", "notifications/progress", PROGRESS, why,
                              "wire.progress", "wire.no-progress")


@check("log_messages_allowed", "wire", rule=MUST, source=LOGGING_CAPABILITY)
def log_messages_allowed(ctx: Context) -> list[Verdict]:
    """A server that sends log notifications MUST have declared the logging capability (every
    version); in 2026-07-28 it MUST NOT send notifications/message for a request whose
    ``_meta`` has no ``io.modelcontextprotocol/logLevel``. No version forbids logging to a client
    that never set a level beyond these two sentences, so nothing else is judged."""
    name = "log_messages_allowed"
    flow = Flow(ctx)
    capabilities = server_capabilities(ctx)
    undeclared, unasked, seqs_u, seqs_a, seen = [], [], [], [], 0
    for entry in flow.from_server("notification"):
        if entry["message"].get("method") != "notifications/message":
            continue
        seen += 1
        if capabilities is not None and "logging" not in capabilities:
            undeclared.append(f"#{entry['seq']} notifications/message from a server that declares no logging "
                              "capability")
            seqs_u.append(entry["seq"])
        if ctx.version == MODERN:
            asked = [r for r in flow.in_flight("client", entry["seq"]) if META_LOG_LEVEL in _meta(r["message"])]
            if not asked:
                unasked.append(f"#{entry['seq']} notifications/message while no request in flight set "
                               f"{META_LOG_LEVEL}")
                seqs_a.append(entry["seq"])
    verdicts = []
    if undeclared:
        verdicts.append(_fail(name, ctx, undeclared, seqs_u, MUST, cite(ctx.version, *LOGGING_CAPABILITY)))
    if unasked:
        verdicts.append(_fail(name, ctx, unasked, seqs_a, MUST, cite(ctx.version, *LOG_LEVEL)))
    return verdicts or [Verdict(name, "wire", PASS, reason("wire.logs", n=seen) if seen else reason("wire.no-logs"))]


@check("server_requests_declared", "wire", rule=MUST, source=NEGOTIATED)
def server_requests_declared(ctx: Context) -> Verdict:
    """Legacy versions: each side MUST keep to the capabilities agreed during
    negotiation (basic/lifecycle.mdx#operation), so a server asks the client for sampling,
    roots or elicitation only when the client declared it. 2026-07-28 has no such lifecycle
    (requests from the server ride on input_required, judged where they come)."""
    name = "server_requests_declared"
    flow = Flow(ctx)
    requests = list(flow.from_server("request"))
    if ctx.version == MODERN:
        return Verdict(name, "wire", PASS, reason("wire.no-session-capabilities", modern=MODERN, n=len(requests)))
    declared = flow.client_capabilities()
    problems, seqs = [], []
    for entry in requests:
        method = entry["message"].get("method")
        needs = CLIENT_CAPABILITY_OF.get(method)
        if needs and declared is not None and needs not in declared:
            problems.append(f"#{entry['seq']} the server sent {method}, which uses the client capability "
                            f"{needs!r} the client did not declare")
            seqs.append(entry["seq"])
    if problems:
        return _fail(name, ctx, problems, seqs, MUST, cite(ctx.version, *NEGOTIATED))
    return Verdict(name, "wire", PASS, reason("wire.server-requests", n=len(requests)) if requests
                   else reason("wire.no-server-requests"))


@check("cancellations_in_flight", "wire", rule=MUST, source=CANCELLATION)
def cancellations_in_flight(ctx: Context) -> Verdict:
    """A cancellation notification MUST point at a request sent earlier in the same direction
    that has not finished (basic/utilities/cancellation.mdx, legacy versions). In 2026-07-28 a
    cancellation from the server MUST concern a subscriptions/listen request (servers MUST NOT
    use it otherwise)."""
    modern = ctx.version == MODERN

    def why(flow: Flow, entry: dict) -> str | None:
        target = _params(entry["message"]).get("requestId")
        # 2026-07-28: the client's own subscriptions/listen; legacy: the server's own request
        sender = "client" if modern else "server"
        for request in flow.in_flight(sender, entry["seq"]):
            if id_key(request["message"].get("id")) == id_key(target) and \
                    (not modern or request["message"].get("method") == "subscriptions/listen"):
                return None
        what = "a subscriptions/listen request in flight" if modern else "a request of its own still in flight"
        return f"the server cancelled request {target!r}, which is not {what}"

    return _each_notification(ctx, "cancellations_in_flight", "notifications/cancelled", CANCELLATION, why,
                              "wire.cancellations", "wire.no-cancellations")


@check("features_declared", "wire", rule=MUST, source=TOOLS_CAPABILITY)
def features_declared(ctx: Context) -> list[Verdict]:
    """A server that serves tools or resources (answers their methods with a result) MUST
    have declared the capability (server/tools.mdx#capabilities, server/resources.mdx#capabilities,
    every version); one that embeds resources in tool results SHOULD implement the
    resources capability (server/tools.mdx#embedded-resources). Nothing is concluded when no
    declaration was recorded."""
    name = "features_declared"
    capabilities = server_capabilities(ctx)
    if capabilities is None:
        return [Verdict(name, "wire", PASS, reason("wire.no-declaration"))]
    flow = Flow(ctx)
    by_seq = {e["seq"]: e for e in flow.entries}
    served: dict[str, list[int]] = {}
    embedded: list[int] = []
    for (sender, _), spans in flow.spans.items():
        if sender != "client":
            continue
        for request, answered in spans:
            method = request["message"].get("method")
            if answered is None:
                continue
            result = by_seq[answered]["message"].get("result")
            if not isinstance(result, dict) or result.get(RESULT_TYPE_FIELD) == INPUT_REQUIRED:
                continue
            if method in SERVED_BY and SERVED_BY[method][0] not in capabilities:
                served.setdefault(method, []).append(answered)
            if method == "tools/call" and content_items(result, "resource") and "resources" not in capabilities:
                embedded.append(answered)
    verdicts = []
    for feature, section in (("tools", TOOLS_CAPABILITY), ("resources", RESOURCES_CAPABILITY)):
        methods = {m: s for m, s in served.items() if SERVED_BY[m][0] == feature}
        if methods:
            seqs = [s for found in methods.values() for s in found]
            verdicts.append(_fail(name, ctx, [f"the server answered {', '.join(sorted(methods))} with a result "
                                              f"but declares no {feature} capability"], seqs, MUST,
                                  cite(ctx.version, *section)))
    if embedded:
        verdicts.append(_fail(name, ctx, [f"tool results embed resources (wire.jsonl message #{embedded[0]}) but the server declares "
                                          "no resources capability"], embedded, SHOULD,
                              cite(ctx.version, *EMBEDDED_CAPABILITY)))
    return verdicts or [Verdict(name, "wire", PASS, reason("wire.features-declared",
                                                           features=", ".join(sorted(capabilities)) or "none"))]
