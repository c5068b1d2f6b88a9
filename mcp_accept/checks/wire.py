"""Wire layer: messages against the official schema of their version, and the shape of items.

Each check names the rule its FAIL breaks (see ``mcp_accept.checks.base``): the spec page and
section are given beside it, resolved to the version on the wire.
"""

from __future__ import annotations

import base64
import binascii
import re

from mcp_accept.checks.base import (APP, FAIL, MUST, PASS, SHOULD, UNOBTAINABLE, Context, Verdict, call_outcome, check, content_items, first_few, id_key, json_integer, no_answer_is_local, server_capabilities, spec_for)
from mcp_accept.checks.errors import DELIBERATELY_INVALID, ERROR_CODES, forbidden_code
from mcp_accept.protocol import (CACHE_SCOPES, CACHEABLE_METHODS, COMPLETE, INPUT_REQUIRED, INPUT_REQUIRED_METHODS, METHODS, MODERN, NOTIFICATIONS,
                                 RESOURCE_NOT_FOUND, RESULT_TYPE_FIELD, reserves_error_codes, unknown_resource_code)
from mcp_accept.reasons import Reason, declare, reason
from mcp_accept.schemas import SchemaUnavailable
from mcp_accept.transport.messages import STDOUT_NOISE, noise_reason, violation_rule, violation_source

# The reasons this module's verdicts give: id and English template (collected into
# mcp_accept.reasons.REASONS; translated in the message catalog, else shown in English).
declare({
    # W01
    "wire.messages-valid": "{n} checks over {m} messages valid against {version}",
    "wire.messages-valid-probe": "{n} checks over {m} messages valid against {version} (and the request that "
                                 "looked for a newer version against {probe})",
    "wire.no-violations": "no protocol violations on the wire",
    "wire.items-valid": "{n} items: every URI is an RFC 3986 URI, and every blob and image or audio data is base64",
    "wire.no-items": "no resource, link, contents, image or audio item was received",
    "wire.meta-keys": "{n} _meta keys, each a valid key name",
    "wire.no-meta": "the server sent no _meta key",
    "wire.error-codes": "{n} error answer(s), none with a code {modern} forbids",
    "wire.no-reserved-range": "{version} reserves no error code range ({modern} does)",
    "wire.received-invalid": "#{seq} received {what} ({version}): {detail}",
    "wire.violation": "#{seq} {part}",
    "wire.no-messages": "no message was recorded",
    # W02
    "wire.result-types": "{n} results carry resultType and their caching hints",
    "wire.no-modern-result": "no {modern} result was recorded",
    # T01
    "text.items": "content holds {n} text item(s)",
    # E01
    "embedded.text-item": "resource item {uri} with a text body",
    "embedded.blob-item": "resource item {uri} with a blob body",
    # L01
    "link.no-body": "resource_link {uri} with no body",
    "link.no-item": "content holds no resource_link item",
    # L03
    "missing.error": "resources/read {uri} gave error {code}",
    "missing.empty-contents": "resources/read {uri} answered an empty contents array instead of an error, "
                              "which {version} forbids ({version2}: servers MUST return {code})",
})

# The schema is the authority on every message and structure (every version).
SCHEMA = ("basic/index.mdx", "schema")
# Every message exchanged by clients and servers MUST conform to JSON-RPC 2.0.
MESSAGES = ("basic/index.mdx", "messages")

# The schema's definition each message of a method is judged against (mcp_accept.protocol.METHODS).
REQUEST_DEFS = {method: request for method, (request, _, _) in METHODS.items()}
NOTIFICATION_DEFS = NOTIFICATIONS
RESULT_DEFS = {method: result for method, (_, result, _) in METHODS.items() if result}


def _first_def(store, version: str, *names: str) -> str | None:
    for name in names:
        if store.has_definition(version, name):
            return name
    return None


def message_targets(entry: dict, requests: dict) -> list[tuple[str, str, object]]:
    """The (version, definition, instance) triples one recorded message must satisfy."""
    message = entry["message"]
    version = entry.get("era")
    if entry["dir"] == "out" and entry.get("step") in DELIBERATELY_INVALID:
        return []  # a probe invalid on purpose (W03): the server's answer to it is still judged
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
    request = requests.get(id_key(message.get("id")))
    if request is not None:
        version = request.get("era") or version
    if "error" in message:
        return [(version, "@error", message)]
    targets = [(version, "@result", message)]
    method = request["message"].get("method") if request is not None else None
    result = message.get("result")
    if (method in INPUT_REQUIRED_METHODS and isinstance(result, dict)
            and result.get(RESULT_TYPE_FIELD) == INPUT_REQUIRED):
        # 2026-07-28 mrtr.mdx: these methods may answer an InputRequiredResult instead of their own
        # result; where the schema has no such definition, the method's own result is the contract.
        targets.append((version, "@input_required:" + RESULT_DEFS.get(method, "Result"), result))
    elif method in RESULT_DEFS:
        targets.append((version, RESULT_DEFS[method], result))
    return targets



def _resolve(store, version: str, definition: str) -> str | None:
    if definition == "@result":
        return _first_def(store, version, "JSONRPCResultResponse", "JSONRPCResponse")
    if definition == "@error":
        return _first_def(store, version, "JSONRPCErrorResponse", "JSONRPCError")
    if definition == "@response":
        return _first_def(store, version, "JSONRPCMessage")
    if definition.startswith("@input_required:"):
        return _first_def(store, version, "InputRequiredResult", definition.split(":", 1)[1])
    return definition if store.has_definition(version, definition) else None


def requests_by_id(entries: list[dict]) -> dict:
    return {id_key(e["message"].get("id")): e for e in entries
            if e["dir"] == "out" and "message" in e and "method" in e["message"] and "id" in e["message"]}


@check("wire_messages_valid", "wire", rule=MUST, source=SCHEMA)
def wire_messages_valid(ctx: Context) -> Verdict:
    entries = [e for e in ctx.recording.entries if "message" in e and e["dir"] in ("in", "out")]
    requests = requests_by_id(entries)
    problems, missing, checked, versions = [], set(), 0, set()
    seqs: list[int] = []
    server_broke = False
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
                server_broke = server_broke or entry["dir"] != "out"
                problems.append(reason("wire.received-invalid", seq=entry["seq"], what=name, version=version,
                                       detail=str(errors[0])) if who == "received"
                                else f"#{entry['seq']} {who} {name} ({version}): {errors[0]}")
    if problems:
        # A request of mcp-accept's own that fails the schema is a fault of this tool, not of the
        # server: the sheet checks its own requests (app), the server answers for what it sent.
        return Verdict("wire_messages_valid", "wire", FAIL, first_few(problems), seqs,
                       rule=None if server_broke else APP)
    if missing:
        return Verdict("wire_messages_valid", "wire", UNOBTAINABLE,
                       "official schema unavailable: " + "; ".join(sorted(missing)))
    if not checked:
        return Verdict("wire_messages_valid", "wire", UNOBTAINABLE, reason("wire.no-messages"))
    if ctx.version in versions and len(versions) > 1:
        # the first request, made to find the version, was judged by the schema it was sent in
        return Verdict("wire_messages_valid", "wire", PASS, reason(
            "wire.messages-valid-probe", n=checked, m=len(entries), version=ctx.version,
            probe=", ".join(sorted(versions - {ctx.version}))))
    return Verdict("wire_messages_valid", "wire", PASS, reason("wire.messages-valid", n=checked, m=len(entries),
                                                               version=", ".join(sorted(versions))))


@check("no_protocol_violations", "wire", rule=MUST, source=MESSAGES)
def no_protocol_violations(ctx: Context) -> list[Verdict]:
    """What the transports recorded as breaking JSON-RPC or JSON: junk on stdout, a message
    that is not JSON (or holds NaN/Infinity), an answer with an unknown id or a second one, a
    duplicate object key (a SHOULD of RFC 8259), a limit of this run (app)."""
    name = "no_protocol_violations"
    found = [e for e in ctx.recording.entries if e.get("event") == "violation"]
    if not found:
        return [Verdict(name, "wire", PASS, reason("wire.no-violations"))]
    verdicts = []
    groups: dict[tuple[str, str | None], list[dict]] = {}
    for entry in found:
        kind = entry.get("kind")
        rule = violation_rule(kind)
        source = None
        if rule == SHOULD:  # RFC 8259 section 4, through JSON-RPC 2.0's use of JSON
            source = "RFC 8259 section 4, via " + spec_for(ctx.version, *MESSAGES)
        elif rule == MUST:  # the sentence the violation breaks, on its transport
            source = spec_for(ctx.version, *violation_source(kind, entry.get("transport"), ctx.version))
        groups.setdefault((rule, source), []).append(entry)
    for (rule, source), mine in sorted(groups.items(), key=lambda g: ((MUST, SHOULD, APP).index(g[0][0]), g[0][1] or "")):
        details = first_few([reason("wire.stdout-noise", seq=e["seq"], noise=noise_reason(e.get("raw") or ""))
                             if e.get("kind") == STDOUT_NOISE else reason("wire.violation", seq=e["seq"], part=_said(e))
                             for e in mine])
        verdicts.append(Verdict(name, "wire", FAIL, details, [e["seq"] for e in mine],
                                rule=rule, source=source))
    return verdicts


def _said(entry: dict) -> Reason | str | None:
    """What a recorded event says: its reason as data where the transport gave one, else its text."""
    return Reason.from_json(entry) if "reason_id" in entry else entry.get("detail")


# A result MUST carry resultType (2026-07-28 basic/index.mdx#result-responses); complete
# results of the cacheable methods MUST come with caching hints, and their ttlMs MUST not be
# negative (server/utilities/caching.mdx).
RESULT_TYPE = ("basic/index.mdx", "result-responses")
CACHING = ("server/utilities/caching.mdx", "cacheable-results")
# An InputRequiredResult from a server MUST hold inputRequests, requestState or both.
MRTR_SERVER = ("basic/patterns/mrtr.mdx", "server-requirements-basic-workflow")


@check("modern_result_fields", "wire", rule=MUST, source=RESULT_TYPE)
def modern_result_fields(ctx: Context) -> list[Verdict]:
    name = "modern_result_fields"
    if ctx.version != MODERN:
        return [Verdict(name, "wire", UNOBTAINABLE,
                        f"{ctx.version or 'no version'} is a legacy version: resultType, ttlMs and "
                        f"cacheScope exist from {MODERN} on", source=spec_for(MODERN, *RESULT_TYPE))]
    entries = [e for e in ctx.recording.entries if "message" in e and e["dir"] in ("in", "out")]
    requests = requests_by_id(entries)
    problems: dict[tuple[str, str], list[tuple[int, str]]] = {RESULT_TYPE: [], CACHING: [], MRTR_SERVER: []}
    count = 0
    for entry in entries:
        message = entry["message"]
        if entry["dir"] != "in" or "result" not in message:
            continue
        request = requests.get(id_key(message.get("id")))
        if request is None or request.get("era") != MODERN:
            continue
        method = request["message"].get("method")
        count += 1
        for where, problem in modern_result_problems(method, message["result"]):
            problems[where].append((entry["seq"], f"#{entry['seq']} {method}: {problem}"))
    verdicts = []
    for where, found in problems.items():
        if found:
            verdicts.append(Verdict(name, "wire", FAIL, first_few([p for _, p in found]), [seq for seq, _ in found], rule=MUST,
                                    source=spec_for(ctx.version, *where)))
    if verdicts:
        return verdicts
    if not count:
        return [Verdict(name, "wire", UNOBTAINABLE, reason("wire.no-modern-result", modern=MODERN))]
    return [Verdict(name, "wire", PASS, reason("wire.result-types", n=count))]


def modern_result_problems(method: str | None, result) -> list[tuple[tuple[str, str], str]]:
    """(spec page and section, problem) for each way ``result`` misses the 2026-07-28 fields."""
    if not isinstance(result, dict):
        return [(RESULT_TYPE, "result is not an object")]
    problems = []
    kind = result.get(RESULT_TYPE_FIELD)
    if RESULT_TYPE_FIELD not in result:
        problems.append((RESULT_TYPE, "resultType is missing"))
    elif kind == INPUT_REQUIRED:
        if method not in INPUT_REQUIRED_METHODS:
            problems.append((RESULT_TYPE, f"resultType 'input_required' is not allowed for {method}"))
        if "inputRequests" not in result and "requestState" not in result:
            problems.append((MRTR_SERVER, "an InputRequiredResult with neither inputRequests nor requestState"))
        return problems  # caching hints belong to complete results only
    elif kind != COMPLETE:
        problems.append((RESULT_TYPE, f"resultType is {kind!r}, not 'complete' or 'input_required'"))
    if method in CACHEABLE_METHODS:
        ttl = result.get("ttlMs")
        if not (json_integer(ttl) and ttl >= 0):
            problems.append((CACHING, "ttlMs is missing or not an integer >= 0" if ttl is None else
                             f"ttlMs {ttl!r} is not an integer >= 0"))
        if result.get("cacheScope") not in CACHE_SCOPES:
            problems.append((CACHING, f"cacheScope {result.get('cacheScope')!r} is not 'public' or 'private'"))
    return problems


# -- URIs and binary bodies ---------------------------------------------------------------------

# The schemes server/resources.mdx#common-uri-schemes names; any other is a custom scheme, and
# a custom scheme MUST follow RFC 3986 (server/resources.mdx#custom-uri-schemes).
# A URI with one of the named schemes (or no scheme at all) is held to RFC 3986 because the
# page identifies each resource by a URI (linking RFC 3986) and the schema says
# `format: uri`: no MUST says so, hence a should.
COMMON_SCHEMES = ("https", "file", "git")
CUSTOM_URI = ("server/resources.mdx", "custom-uri-schemes")
RESOURCE_URI = ("server/resources.mdx", "resource")
# Binary data MUST be encoded correctly (server/resources.mdx#security-considerations); the
# schema has `blob` carry base64 (`format: byte`).
BINARY = ("server/resources.mdx", "security-considerations")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# RFC 3986's URI rule without its IP literals and user information, the parts that make
# rfc3986-validator's pattern cost 12-18 ms to compile (on import). Every URI this matches, that validator
# accepts too (``tests/test_uri_fast.py``); a URI it does not match goes to the validator.
_PCHAR = r"(?:[A-Za-z0-9_.~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"
_QUERY = r"(?:[A-Za-z0-9_.~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*"
_PLAIN_URI = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*:"
    rf"(?://(?:[A-Za-z0-9_.~!$&'()*+,;=-]|%[0-9A-Fa-f]{{2}})*(?::[0-9]*)?(?:/{_PCHAR}*)*"  # authority, path-abempty
    rf"|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?"  # path-absolute
    rf"|{_PCHAR}+(?:/{_PCHAR}*)*"  # path-rootless
    r"|)"  # path-empty
    rf"(?:\?{_QUERY})?(?:#{_QUERY})?")


def is_rfc3986_uri(uri: str) -> bool:
    if _PLAIN_URI.fullmatch(uri):
        return True
    from rfc3986_validator import validate_rfc3986

    return bool(validate_rfc3986(uri, rule="URI"))


def uri_problem(uri: str) -> tuple[str, tuple[str, str], str] | None:
    """(rule, spec section, problem) when ``uri`` is not a URI by RFC 3986, else None."""
    if is_rfc3986_uri(uri):
        return None
    scheme = _SCHEME.match(uri)
    shown = uri if len(uri) <= 80 else uri[:77] + "..."
    if scheme and scheme.group(0)[:-1].lower() not in COMMON_SCHEMES:
        return MUST, CUSTOM_URI, f"{shown!r} is not a URI by RFC 3986 (custom scheme {scheme.group(0)[:-1]!r})"
    return SHOULD, RESOURCE_URI, f"{shown!r} is not a URI by RFC 3986"


def blob_problem(blob: str, field: str = "blob") -> str | None:
    """Why ``blob`` is not base64 (RFC 4648, padded, no line breaks), or None."""
    try:
        base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError) as exc:
        shown = blob if len(blob) <= 40 else blob[:37] + "..."
        return f"{field} {shown!r} is not valid base64 ({exc})"
    return None


# Image and audio `data` is described as base64 in the schema
# (`format: byte`, every version), the source of truth for every message (basic/index.mdx#schema).
MEDIA_KINDS = ("image", "audio")


def content_blocks(result, method: str | None) -> list[tuple[str, dict]]:
    """(where, block) for each content block of a result: a tool's content, and the content of
    each message prompts/get returns."""
    if not isinstance(result, dict):
        return []
    blocks: list[tuple[str, object]] = []
    if method == "tools/call" and isinstance(result.get("content"), list):
        blocks = [(f"content[{i}]", item) for i, item in enumerate(result["content"])]
    elif method == "prompts/get" and isinstance(result.get("messages"), list):
        for i, message in enumerate(result["messages"]):
            content = message.get("content") if isinstance(message, dict) else None
            items = content if isinstance(content, list) else [content]
            blocks += [(f"messages[{i}].content", item) for item in items]
    return [(where, item) for where, item in blocks if isinstance(item, dict)]


def media_items(result, method: str | None) -> list[tuple[str, dict]]:
    """(where, item) for each image or audio content block of a result."""
    return [(where, item) for where, item in content_blocks(result, method)
            if item.get("type") in MEDIA_KINDS and isinstance(item.get("data"), str)]


def media_problems(item: dict, where: str) -> list[tuple[str, tuple[str, str], str]]:
    found = blob_problem(item["data"], f"{item['type']} data")
    if not found:
        return []
    return [(MUST, SCHEMA, f"{where} {found}")]


def resource_problems(res: dict, where: str) -> list[tuple[str, tuple[str, str], str]]:
    """(rule, spec section, problem) for the uri and blob of one resource, link or contents item."""
    problems = []
    if isinstance(res.get("uri"), str):
        found = uri_problem(res["uri"])
        if found:
            rule, section, text = found
            problems.append((rule, section, f"{where} uri {text}"))
    if isinstance(res.get("blob"), str):
        found = blob_problem(res["blob"])
        if found:
            problems.append((MUST, BINARY, f"{where} {found}"))
    return problems


def received_resources(result, method: str | None) -> list[tuple[str, dict]]:
    """(where, item) for each resource, resource link and contents item of a result (a tool's
    or a prompt's content, resources/read, resources/list)."""
    if not isinstance(result, dict):
        return []
    found = []
    for where, item in content_blocks(result, method):
        if item.get("type") == "resource_link":
            found.append((f"{where} resource_link", item))
        elif item.get("type") == "resource" and isinstance(item.get("resource"), dict):
            found.append((f"{where} resource", item["resource"]))
    for key, what in (("contents", "contents"), ("resources", "resources")):
        if method in ("resources/read", "resources/list") and isinstance(result.get(key), list):
            found += [(f"{what}[{i}]", item) for i, item in enumerate(result[key]) if isinstance(item, dict)]
    return found


def _verdicts(ctx: Context, name: str, problems: list, seqs: list[int]) -> list[Verdict]:
    """One FAIL per rule kind, naming the first problems and the section of the first."""
    verdicts = []
    for rule in (MUST, SHOULD):
        mine = [p for p in problems if p[0] == rule]
        if mine:
            verdicts.append(Verdict(name, "wire", FAIL, first_few([p[2] for p in mine]), seqs, rule=rule,
                                    source=spec_for(ctx.version, *mine[0][1])))
    return verdicts


@check("uri_and_blob_formats", "wire", rule=MUST, source=CUSTOM_URI)
def uri_and_blob_formats(ctx: Context) -> list[Verdict]:
    """Every URI of a received resource, resource link or contents item is a URI by RFC 3986,
    and every base64 field (a blob, an image's or an audio item's data) is base64: what the
    official schema marks `format: uri` and `format: byte` but does not check."""
    name = "uri_and_blob_formats"
    entries = [e for e in ctx.recording.entries if "message" in e and e["dir"] in ("in", "out")]
    requests = requests_by_id(entries)
    problems, seqs, count = [], [], 0
    for entry in entries:
        message = entry["message"]
        params = message.get("params")
        if entry["dir"] == "in" and message.get("method") == "notifications/resources/updated" \
                and isinstance(params, dict):
            # the URI of the resource that changed is a resource URI like any other
            count += 1
            for found in resource_problems(params, f"#{entry['seq']} notifications/resources/updated"):
                problems.append(found)
                seqs.append(entry["seq"])
        if entry["dir"] != "in" or "result" not in message:
            continue
        request = requests.get(id_key(message.get("id")))
        method = request["message"].get("method") if request is not None else None
        for where, item in received_resources(message["result"], method):
            count += 1
            for rule, section, text in resource_problems(item, f"#{entry['seq']} {method} {where}"):
                problems.append((rule, section, text))
                seqs.append(entry["seq"])
        for where, item in media_items(message["result"], method):
            count += 1
            for found in media_problems(item, f"#{entry['seq']} {method} {where}"):
                problems.append(found)
                seqs.append(entry["seq"])
    if problems:
        return _verdicts(ctx, name, problems, sorted(set(seqs)))
    if not count:
        return [Verdict(name, "wire", PASS, reason("wire.no-items"))]
    return [Verdict(name, "wire", PASS, reason("wire.items-valid", n=count))]


# -- the shape of each form's items -------------------------------------------------------------
# That a form's tool returns its item at all is the profile's expectation (app); an item that
# is there must have the fields its schema definition requires (must).

def _form_items(ctx: Context, form: str, name: str, kind: str,
                none: Reason | str) -> tuple[list, list[int], Verdict | None]:
    """The items of ``kind`` in the result of ``form``'s call and the call's wire entries, or
    the verdict that ends check ``name``: the call has no result (see call_outcome), or its
    content holds no item of ``kind`` (FAIL, reason ``none``)."""
    result, early = call_outcome(ctx, form, name, "wire")
    if early:
        return [], [], early
    items, seqs = content_items(result, kind), ctx.step(f"call:{form}").seqs
    if not items:
        return [], seqs, Verdict(name, "wire", FAIL, none, seqs)
    return items, seqs, None


@check("text_item", "wire", rule=APP)
def text_item(ctx: Context) -> Verdict:
    items, seqs, early = _form_items(ctx, "text", "text_item", "text", reason("text.no-item"))
    if early:
        return early
    if not all(isinstance(item.get("text"), str) for item in items):
        # TextContent requires `text`, a string (server/tools.mdx#text-content; the schema)
        return Verdict("text_item", "wire", FAIL, "a text item has no string text", seqs, rule=MUST,
                       source=spec_for(ctx.version, "server/tools.mdx", "text-content"))
    return Verdict("text_item", "wire", PASS, reason("text.items", n=len(items)), seqs)


@check("embedded_item", "wire", rule=APP)
def embedded_item(ctx: Context) -> list[Verdict]:
    name = "embedded_item"
    items, seqs, early = _form_items(ctx, "embedded", name, "resource",
                                     "content holds no {type: resource, resource: {uri, text|blob}} item")
    if early:
        return [early]
    # EmbeddedResource requires `resource`, a TextResourceContents {uri, text} or a
    # BlobResourceContents {uri, blob} (server/tools.mdx#embedded-resources; the schema)
    whole = [item["resource"] for item in items if isinstance(item.get("resource"), dict)
             and isinstance(item["resource"].get("uri"), str)
             and (isinstance(item["resource"].get("text"), str) or isinstance(item["resource"].get("blob"), str))]
    if not whole:
        return [Verdict(name, "wire", FAIL, "the resource item lacks resource.uri or a text/blob body",
                        seqs, rule=MUST, source=spec_for(ctx.version, "server/tools.mdx", "embedded-resources"))]
    res = whole[0]
    failed = _verdicts(ctx, name, resource_problems(res, "resource"), seqs)
    if failed:
        return failed
    body = "text" if isinstance(res.get("text"), str) else "blob"
    return [Verdict(name, "wire", PASS, reason(f"embedded.{body}-item", uri=res["uri"]), seqs)]


@check("link_item", "wire", rule=APP)
def link_item(ctx: Context) -> list[Verdict]:
    name = "link_item"
    links, seqs, early = _form_items(ctx, "link", name, "resource_link", reason("link.no-item"))
    if early:
        return [early]
    link = links[0]
    missing = [k for k in ("uri", "name") if not isinstance(link.get(k), str)]
    if missing:
        # A resource link is a Resource (server/tools.mdx#resource-links), whose definition
        # includes uri and name (server/resources.mdx#resource); ResourceLink requires both.
        return [Verdict(name, "wire", FAIL, f"resource_link lacks {', '.join(missing)}", seqs, rule=MUST,
                        source=spec_for(ctx.version, "server/tools.mdx", "resource-links"))]
    verdicts = _verdicts(ctx, name, resource_problems(link, "resource_link"), seqs)
    bodies = [k for k in ("text", "blob") if k in link]
    if bodies:
        # No version forbids extra fields on a ResourceLink; a link without a body is what
        # this sheet's L01 asks (the body is read with resources/read).
        verdicts.append(Verdict(name, "wire", FAIL, f"resource_link carries a body ({', '.join(bodies)}); "
                                "the spec does not forbid it, the sheet expects a link without one",
                                seqs, rule=APP))
    return verdicts or [Verdict(name, "wire", PASS, reason("link.no-body", uri=link["uri"]), seqs)]


# -- reading a URI that does not exist ----------------------------------------------------------
# 2026-07-28 server/resources.mdx#error-handling: for a missing resource servers MUST answer
# with a JSON-RPC error -32602 and MUST NOT answer with empty contents;
# basic/index.mdx#error-codes: -32002 MUST NOT be emitted at all.
# 2025-11-25 and 2025-06-18 server/resources.mdx#error-handling: servers SHOULD use the
# standard error, -32002 for a resource not found; nothing forbids an empty contents array.
# Each version is judged by its own words.
NOT_FOUND = ("server/resources.mdx", "error-handling")


@check("unknown_uri_error", "wire", rule=MUST, source=NOT_FOUND)
def unknown_uri_error(ctx: Context) -> Verdict:
    name = "unknown_uri_error"
    step = ctx.step("read:unknown")
    if step is None or step.reply is None:
        return Verdict(name, "wire", FAIL, step.skipped if step and step.skipped else "the read was not made",
                       rule=APP)
    reply = step.reply
    uri = ctx.profile.unknown_uri
    modern = ctx.version == MODERN
    expected = unknown_resource_code(ctx.version)
    rule = MUST if modern else SHOULD
    source = spec_for(ctx.version, *NOT_FOUND)
    words = (f"{MODERN}: servers MUST return {expected}" if modern else
             f"{ctx.version or 'this version'}: servers SHOULD return {expected}")
    capabilities = server_capabilities(ctx)
    if capabilities is not None and "resources" not in capabilities and reply.message is not None:
        # server/resources.mdx#capabilities (every version): a server offering resources
        # MUST declare the resources capability. One that declares none and refuses the read
        # does not offer resources/read at all (JSON-RPC's -32601 is its plain answer), so the
        # not-found rule, which binds servers that serve resources, has nothing to judge. One
        # that answers with a result serves resources it never declared: that breaks the
        # capability's MUST, in every version alike. (An unanswered request is still judged
        # below: JSON-RPC answers every request.)
        if reply.has_result:
            return Verdict(name, "wire", FAIL, f"resources/read {uri} was answered with a result, but the "
                           "server declares no resources capability (servers that support resources MUST "
                           "declare it)", step.seqs, rule=MUST,
                           source=spec_for(ctx.version, "server/resources.mdx", "capabilities"))
        answered = (f"error {reply.error.get('code')}" if isinstance(reply.error, dict)
                    else reply.describe_failure())
        return Verdict(name, "wire", UNOBTAINABLE, f"the server declares no resources capability, so "
                       f"it serves no resources to be missing (resources/read {uri} gave {answered})",
                       step.seqs, rule=APP)

    def failed(text: str) -> Verdict:
        return Verdict(name, "wire", FAIL, f"resources/read {uri} {text} ({words})", step.seqs,
                       rule=rule, source=source)

    if reply.error is not None:
        code = reply.error.get("code")
        if code == expected:
            return Verdict(name, "wire", PASS, reason("missing.error", uri=uri, code=code), step.seqs,
                           rule=rule, source=source)
        if modern and code == RESOURCE_NOT_FOUND:
            return failed(f"gave error {code}, a code {MODERN} implementations MUST NOT emit")
        return failed(f"gave error {code}")
    if reply.has_result:
        contents = reply.result.get("contents") if isinstance(reply.result, dict) else None
        if contents == [] and modern:
            return Verdict(name, "wire", FAIL, reason("missing.empty-contents", uri=uri, version=MODERN,
                                                      version2=MODERN, code=expected), step.seqs,
                           rule=rule, source=source)
        if contents == []:
            return failed("answered an empty contents array instead of an error")
        return failed("answered a result instead of an error")
    local = reply.message is None and no_answer_is_local(reply)  # this run's limit, not the server's silence
    return Verdict(name, "wire", FAIL, reason("read.failed", uri=uri, why=reply.describe_failure()), step.seqs,
                   rule=APP if local else MUST, source=None if local else spec_for(ctx.version, *MESSAGES))


# -- `_meta` key names ----------------------------------------------------------------------------
# basic/index.mdx#meta (every version): a _meta key is a name, optionally preceded by a
# prefix. The prefix MUST be dot-separated labels ending in a slash; each label MUST begin
# with a letter and end with a letter or digit, with letters, digits or hyphens between; a
# non-empty name MUST begin and end with a letter or digit, and may hold hyphens,
# underscores, dots and alphanumerics in between.
META = ("basic/index.mdx", "meta")
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_META_KEY = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?")
# Schema fields that hold data the server was handed or defines itself (a JSON Schema, a
# tool's structured output, the arguments it echoes): a `_meta` key inside them is not MCP's.
_OPAQUE = ("structuredContent", "inputSchema", "outputSchema", "arguments", "requestedSchema", "data")


def meta_key_problem(key: str) -> str | None:
    if _META_KEY.fullmatch(key):
        return None
    shown = key if len(key) <= 60 else key[:57] + "..."
    return f"_meta key {shown!r} is not a valid key name (prefix of dotted labels and '/', name opening and " \
           "closing with a letter or digit)"


def meta_keys(value, path: str = "$", depth: int = 0):
    """(path, key) for every key of every ``_meta`` object in a message, outside opaque data."""
    if depth > 64:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "_meta" and isinstance(inner, dict):
                for meta_key in inner:
                    yield f"{path}._meta", meta_key
            elif key not in _OPAQUE:
                yield from meta_keys(inner, f"{path}.{key}", depth + 1)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from meta_keys(inner, f"{path}[{i}]", depth + 1)


@check("meta_keys_valid", "wire", rule=MUST, source=META)
def meta_keys_valid(ctx: Context) -> list[Verdict]:
    """Every ``_meta`` key the server sent, in any message, has the key name format of
    basic/index.mdx#meta."""
    name = "meta_keys_valid"
    problems, seqs, count = [], [], 0
    for entry in ctx.recording.entries:
        message = entry.get("message")
        if entry.get("dir") != "in" or not isinstance(message, dict):
            continue
        for path, key in meta_keys(message):
            count += 1
            found = meta_key_problem(key)
            if found:
                problems.append((MUST, META, f"#{entry['seq']} {path}: {found}"))
                seqs.append(entry["seq"])
    if problems:
        return _verdicts(ctx, name, problems, sorted(set(seqs)))
    return [Verdict(name, "wire", PASS, reason("wire.meta-keys", n=count) if count else reason("wire.no-meta"))]


# -- error codes the version forbids --------------------------------------------------------------
@check("error_codes_allowed", "wire", rule=MUST, source=ERROR_CODES)
def error_codes_allowed(ctx: Context) -> list[Verdict]:
    """Every error the server answered uses a code its version lets it emit."""
    name = "error_codes_allowed"
    if not reserves_error_codes(ctx.version):
        return [Verdict(name, "wire", PASS, reason("wire.no-reserved-range", version=ctx.version or "this version",
                                                   modern=MODERN))]
    problems, seqs, count = [], [], 0
    for entry in ctx.recording.entries:
        message = entry.get("message")
        if entry.get("dir") != "in" or not isinstance(message, dict) or not isinstance(message.get("error"), dict):
            continue
        count += 1
        found = forbidden_code(entry.get("era") or ctx.version, message["error"].get("code"))
        if found:
            problems.append((MUST, ERROR_CODES, f"#{entry['seq']} {found}"))
            seqs.append(entry["seq"])
    if problems:
        return _verdicts(ctx, name, problems, sorted(set(seqs)))
    return [Verdict(name, "wire", PASS, reason("wire.error-codes", n=count, modern=MODERN))]
