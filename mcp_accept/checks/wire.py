"""Wire layer: messages against the official schema of their version, and the shape of items."""

from __future__ import annotations

from mcp_accept.checks import (FAIL, PASS, UNOBTAINABLE, Context, Verdict, call_outcome, check,
                               content_items)
from mcp_accept.schemas import MODERN, SchemaUnavailable

REQUEST_DEFS = {
    "server/discover": "DiscoverRequest",
    "initialize": "InitializeRequest",
    "ping": "PingRequest",
    "tools/list": "ListToolsRequest",
    "tools/call": "CallToolRequest",
    "resources/list": "ListResourcesRequest",
    "resources/read": "ReadResourceRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
}
NOTIFICATION_DEFS = {
    "notifications/initialized": "InitializedNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
}
RESULT_DEFS = {
    "server/discover": "DiscoverResult",
    "initialize": "InitializeResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/read": "ReadResourceResult",
    "resources/templates/list": "ListResourceTemplatesResult",
}
CACHED_METHODS = ("server/discover", "tools/list", "resources/list", "resources/templates/list",
                  "resources/read")
INPUT_REQUIRED_METHODS = ("tools/call", "resources/read", "prompts/get")


def _first_def(store, version: str, *names: str) -> str | None:
    for name in names:
        if store.has_definition(version, name):
            return name
    return None


def message_targets(entry: dict, requests: dict) -> list[tuple[str, str, object]]:
    """The (version, definition, instance) triples one recorded message must satisfy."""
    message = entry["message"]
    version = entry.get("era")
    if entry["dir"] == "out":
        method = message.get("method")
        if "id" in message and "method" in message:
            return [(version, REQUEST_DEFS.get(method, "JSONRPCRequest"), message)]
        if "method" in message:
            return [(version, NOTIFICATION_DEFS.get(method, "JSONRPCNotification"), message)]
        return [(version, "@response", message)]
    if "method" in message:
        envelope = "JSONRPCRequest" if "id" in message else "JSONRPCNotification"
        known = NOTIFICATION_DEFS.get(message["method"]) if "id" not in message else None
        return [(version, known or envelope, message)]
    request = requests.get(_key(message.get("id")))
    if request is not None:
        version = request.get("era") or version
    if "error" in message:
        return [(version, "@error", message)]
    targets = [(version, "@result", message)]
    method = request["message"].get("method") if request is not None else None
    if method in RESULT_DEFS and isinstance(message.get("result"), dict):
        targets.append((version, RESULT_DEFS[method], message["result"]))
    elif method in RESULT_DEFS:
        targets.append((version, RESULT_DEFS[method], message.get("result")))
    return targets


def _key(value):
    return (type(value).__name__, repr(value))


def _resolve(store, version: str, definition: str) -> str | None:
    if definition == "@result":
        return _first_def(store, version, "JSONRPCResultResponse", "JSONRPCResponse")
    if definition == "@error":
        return _first_def(store, version, "JSONRPCErrorResponse", "JSONRPCError")
    if definition == "@response":
        return _first_def(store, version, "JSONRPCMessage")
    return definition if store.has_definition(version, definition) else None


def requests_by_id(entries: list[dict]) -> dict:
    return {_key(e["message"].get("id")): e for e in entries
            if e["dir"] == "out" and "message" in e and "method" in e["message"] and "id" in e["message"]}


@check("wire_messages_valid", "wire")
def wire_messages_valid(ctx: Context) -> Verdict:
    entries = [e for e in ctx.recording.entries if "message" in e and e["dir"] in ("in", "out")]
    requests = requests_by_id(entries)
    problems, missing, checked, versions = [], set(), 0, set()
    seqs: list[int] = []
    for entry in entries:
        for version, definition, instance in message_targets(entry, requests):
            if not version:
                missing.add("a message sent before any protocol version was chosen")
                continue
            try:
                name = _resolve(ctx.store, version, definition)
                if name is None:
                    continue  # the version has no such definition (e.g. a method it lacks)
                errors = ctx.store.errors(version, name, instance)
            except SchemaUnavailable as exc:
                missing.add(str(exc))
                continue
            checked += 1
            versions.add(version)
            if errors:
                seqs.append(entry["seq"])
                who = "sent" if entry["dir"] == "out" else "received"
                problems.append(f"#{entry['seq']} {who} {name} ({version}): {errors[0]}")
    if problems:
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        return Verdict("wire_messages_valid", "wire", FAIL, "; ".join(problems[:3]) + more, seqs)
    if missing:
        return Verdict("wire_messages_valid", "wire", UNOBTAINABLE,
                       "official schema unavailable: " + "; ".join(sorted(missing)))
    if not checked:
        return Verdict("wire_messages_valid", "wire", UNOBTAINABLE, "no message was recorded")
    return Verdict("wire_messages_valid", "wire", PASS,
                   f"{checked} checks over {len(entries)} messages valid against {', '.join(sorted(versions))}")


@check("no_protocol_violations", "wire")
def no_protocol_violations(ctx: Context) -> Verdict:
    found = [e for e in ctx.recording.entries if e.get("event") == "violation"]
    if found:
        details = "; ".join(f"#{e['seq']} {e.get('detail')}" for e in found[:3])
        more = f" (+{len(found) - 3} more)" if len(found) > 3 else ""
        return Verdict("no_protocol_violations", "wire", FAIL, details + more, [e["seq"] for e in found])
    return Verdict("no_protocol_violations", "wire", PASS, "no protocol violations on the wire")


@check("modern_result_fields", "wire")
def modern_result_fields(ctx: Context) -> Verdict:
    name = "modern_result_fields"
    if ctx.version != MODERN:
        return Verdict(name, "wire", UNOBTAINABLE,
                       f"{ctx.version or 'no version'} is a legacy version: resultType, ttlMs and "
                       "cacheScope exist from 2026-07-28 on")
    entries = [e for e in ctx.recording.entries if "message" in e and e["dir"] in ("in", "out")]
    requests = requests_by_id(entries)
    problems, seqs, count = [], [], 0
    for entry in entries:
        message = entry["message"]
        if entry["dir"] != "in" or "result" not in message:
            continue
        request = requests.get(_key(message.get("id")))
        if request is None or request.get("era") != MODERN:
            continue
        method = request["message"].get("method")
        count += 1
        for problem in modern_result_problems(method, message["result"]):
            problems.append(f"#{entry['seq']} {method}: {problem}")
            seqs.append(entry["seq"])
    if problems:
        return Verdict(name, "wire", FAIL, "; ".join(problems[:3]) +
                       (f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""), seqs)
    if not count:
        return Verdict(name, "wire", UNOBTAINABLE, "no 2026-07-28 result was recorded")
    return Verdict(name, "wire", PASS, f"{count} results carry resultType and their caching hints")


def modern_result_problems(method: str | None, result) -> list[str]:
    if not isinstance(result, dict):
        return ["result is not an object"]
    problems = []
    kind = result.get("resultType")
    if "resultType" not in result:
        problems.append("resultType is missing")
    elif kind == "input_required":
        if method not in INPUT_REQUIRED_METHODS:
            problems.append(f"resultType 'input_required' is not allowed for {method}")
        return problems  # caching hints belong to complete results only
    elif kind != "complete":
        problems.append(f"resultType is {kind!r}, not 'complete' or 'input_required'")
    if method in CACHED_METHODS:
        ttl = result.get("ttlMs")
        if not (isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0):
            problems.append("ttlMs is missing or not an integer >= 0" if ttl is None else
                            f"ttlMs {ttl!r} is not an integer >= 0")
        if result.get("cacheScope") not in ("public", "private"):
            problems.append(f"cacheScope {result.get('cacheScope')!r} is not 'public' or 'private'")
    return problems


# -- the shape of each form's items -----------------------------------------------------------

@check("text_item", "wire")
def text_item(ctx: Context) -> Verdict:
    result, early = call_outcome(ctx, "text", "text_item", "wire")
    if early:
        return early
    items = content_items(result, "text")
    seqs = ctx.step("call:text").seqs
    if not items or not isinstance(items[0].get("text"), str):
        return Verdict("text_item", "wire", FAIL, "content holds no text item", seqs)
    return Verdict("text_item", "wire", PASS, f"content holds {len(items)} text item(s)", seqs)


@check("structured_present", "wire")
def structured_present(ctx: Context) -> Verdict:
    result, early = call_outcome(ctx, "structured", "structured_present", "wire")
    if early:
        return early
    seqs = ctx.step("call:structured").seqs
    if "structuredContent" not in result:  # present means not absent: null, false, 0 count
        return Verdict("structured_present", "wire", FAIL, "structuredContent is absent", seqs)
    kind = type(result["structuredContent"]).__name__
    return Verdict("structured_present", "wire", PASS, f"structuredContent is present ({kind})", seqs)


@check("embedded_item", "wire")
def embedded_item(ctx: Context) -> Verdict:
    result, early = call_outcome(ctx, "embedded", "embedded_item", "wire")
    if early:
        return early
    seqs = ctx.step("call:embedded").seqs
    for item in content_items(result, "resource"):
        res = item.get("resource")
        if isinstance(res, dict) and isinstance(res.get("uri"), str) and (
                isinstance(res.get("text"), str) or isinstance(res.get("blob"), str)):
            body = "text" if "text" in res else "blob"
            return Verdict("embedded_item", "wire", PASS, f"resource item {res['uri']} with a {body} body", seqs)
    return Verdict("embedded_item", "wire", FAIL,
                   "content holds no {type: resource, resource: {uri, text|blob}} item", seqs)


@check("link_item", "wire")
def link_item(ctx: Context) -> Verdict:
    result, early = call_outcome(ctx, "link", "link_item", "wire")
    if early:
        return early
    seqs = ctx.step("call:link").seqs
    links = content_items(result, "resource_link")
    if not links:
        return Verdict("link_item", "wire", FAIL, "content holds no resource_link item", seqs)
    link = links[0]
    missing = [k for k in ("uri", "name") if not isinstance(link.get(k), str)]
    if missing:
        return Verdict("link_item", "wire", FAIL, f"resource_link lacks {', '.join(missing)}", seqs)
    bodies = [k for k in ("text", "blob") if k in link]
    if bodies:
        return Verdict("link_item", "wire", FAIL, f"resource_link carries a body ({', '.join(bodies)})", seqs)
    return Verdict("link_item", "wire", PASS, f"resource_link {link['uri']} with no body", seqs)


@check("unknown_uri_error", "wire")
def unknown_uri_error(ctx: Context) -> Verdict:
    name = "unknown_uri_error"
    step = ctx.step("read:unknown")
    if step is None or step.reply is None:
        return Verdict(name, "wire", FAIL, step.skipped if step and step.skipped else "the read was not made")
    reply = step.reply
    uri = ctx.profile.unknown_uri
    accepted = (-32602,) if ctx.version == MODERN else (-32602, -32002)
    if reply.error is not None:
        code = reply.error.get("code")
        if code in accepted:
            return Verdict(name, "wire", PASS, f"resources/read {uri} gave error {code}", step.seqs)
        return Verdict(name, "wire", FAIL, f"resources/read {uri} gave error {code}, expected "
                       + " or ".join(str(c) for c in accepted), step.seqs)
    if reply.has_result:
        contents = reply.result.get("contents") if isinstance(reply.result, dict) else None
        if contents == []:
            return Verdict(name, "wire", FAIL, f"resources/read {uri} answered an empty contents array "
                           "instead of an error", step.seqs)
        return Verdict(name, "wire", FAIL, f"resources/read {uri} answered a result instead of an error",
                       step.seqs)
    return Verdict(name, "wire", FAIL, f"resources/read {uri}: {reply.describe_failure()}", step.seqs)
