"""What a proxy recording establishes about the host, each fact with the ``wire.jsonl``
seqs it rests on.

Only what crossed the wire is claimed: who the host says it is (``clientInfo``), the
protocol version and capabilities it spoke, the tools it listed and called, the results it
was handed (their forms and sizes), whether and when it sent ``resources/read`` for a URI
the server returned as a ``resource_link``, cancellations and errors. What the host then
handed its model is not on the wire; the observation rows stay PENDING with these facts
for a person to complete with ``mcp-accept observe``.

Where the facts come from, per era:

* legacy (2025-11-25, 2025-06-18): ``initialize`` params ``clientInfo``, ``capabilities``;
  the version is the one the server chose in the ``initialize`` result
  (docs/specification/2025-11-25/basic/lifecycle.mdx#initialization);
* 2026-07-28: every request's ``params._meta`` carries
  ``io.modelcontextprotocol/protocolVersion``, ``io.modelcontextprotocol/clientCapabilities``
  and (SHOULD) ``io.modelcontextprotocol/clientInfo``
  (docs/specification/2026-07-28/schema.mdx#requestmetaobject).
"""

from __future__ import annotations

import json
from typing import Any

from mcp_accept.evidence.wirelog import compact_size

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# Which carrier of a tool result each content kind is (DESIGN: the four forms).
FORM_OF_CONTENT = {"text": "text", "resource": "embedded", "resource_link": "link"}
HOST, SERVER = "out", "in"  # wire.jsonl directions: host -> server is "out"


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _meta(message: dict) -> dict:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta if isinstance(meta, dict) else {}


def _params(message: dict) -> dict:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def pair(entries: list[dict]) -> list[dict]:
    """Every request on the wire with its answer (or None): ``{"request", "answer", "by"}``,
    ``by`` being ``host`` or ``server``. Answers are matched by id in the other direction,
    within the same HTTP exchange when the recording has exchanges."""
    pending: dict[tuple, list[dict]] = {}
    exchanges: list[dict] = []
    for entry in entries:
        message = entry.get("message")
        if not isinstance(message, dict) or entry.get("dir") not in (HOST, SERVER):
            continue
        if "method" in message and "id" in message:
            item = {"request": entry, "answer": None, "by": "host" if entry["dir"] == HOST else "server"}
            exchanges.append(item)
            pending.setdefault((entry["dir"], _key(message["id"])), []).append(item)
        elif "id" in message and ("result" in message or "error" in message):
            asker = SERVER if entry["dir"] == HOST else HOST
            waiting = pending.get((asker, _key(message["id"]))) or []
            number = (entry.get("http") or {}).get("exchange")
            chosen = next((w for w in waiting if number is not None
                           and (w["request"].get("http") or {}).get("exchange") == number), None)
            chosen = chosen or (waiting[0] if waiting else None)
            if chosen is not None:
                waiting.remove(chosen)
                chosen["answer"] = entry
    return exchanges


def _distinct(found: list[tuple[Any, int]]) -> list[dict]:
    """Distinct values in order of first appearance, each with the seqs carrying it."""
    out: dict[str, dict] = {}
    for value, seq in found:
        item = out.setdefault(_key(value), {"value": value, "seqs": []})
        item["seqs"].append(seq)
    return list(out.values())


def _first(found: list[dict]) -> dict:
    """A fact from distinct values: the first one, the seqs it rests on, and the others."""
    if not found:
        return {"value": None, "seqs": []}
    fact = {"value": found[0]["value"], "seqs": found[0]["seqs"][:20]}
    if len(found) > 1:
        fact["others"] = [{"value": f["value"], "seqs": f["seqs"][:20]} for f in found[1:]]
    return fact


def _outcome(answer: dict | None) -> dict:
    if answer is None:
        return {"outcome": "no answer recorded"}
    message = answer["message"]
    if "error" in message:
        error = message["error"] if isinstance(message["error"], dict) else {}
        return {"outcome": "error", "code": error.get("code"), "message": error.get("message")}
    return {"outcome": "result"}


def _exchange(request: dict, answer: dict | None) -> dict:
    """A request and how it was answered, with the wire entries of both."""
    out = {"request_seq": request["seq"], "t": request.get("t"), "ms": request.get("ms"), **_outcome(answer)}
    if answer is not None:
        out["answer_seq"] = answer["seq"]
    return out


def _forms(result: Any) -> list[str]:
    """The carriers a tools/call result holds: text, structured, embedded, link."""
    if not isinstance(result, dict):
        return []
    forms = []
    for item in result.get("content") or []:
        form = FORM_OF_CONTENT.get(item.get("type")) if isinstance(item, dict) else None
        if form and form not in forms:
            forms.append(form)
    if "structuredContent" in result:  # present means not absent: null, 0, "" count too
        forms.append("structured")
    return forms


def derive(entries: list[dict], transport: str) -> dict:
    """Every fact the recording establishes (see the module's docstring)."""
    exchanges = pair(entries)
    client_info: list[tuple[Any, int]] = []
    capabilities: list[tuple[Any, int]] = []
    versions: list[tuple[Any, int]] = []
    server_info: list[tuple[Any, int]] = []
    negotiated = None  # the legacy version chosen by the latest initialize result
    tools_listed: dict[str, list[int]] = {}
    calls, reads, errors = [], [], []

    for item in exchanges:
        request, answer = item["request"], item["answer"]
        message, seq = request["message"], request["seq"]
        method = message.get("method")
        if item["by"] != "host":
            if answer is not None and "error" in answer["message"]:
                errors.append({"by": "host", "method": method, "request_seq": seq,
                               "answer_seq": answer["seq"], **_outcome(answer)})
            continue
        params, meta = _params(message), _meta(message)
        result = answer["message"].get("result") if answer is not None else None
        result = result if isinstance(result, dict) else None
        if method == "initialize":
            if isinstance(params.get("clientInfo"), dict):
                client_info.append((params["clientInfo"], seq))
            if "capabilities" in params:
                capabilities.append((params["capabilities"], seq))
            if result is not None:
                negotiated = result.get("protocolVersion")
                if isinstance(result.get("serverInfo"), dict):
                    server_info.append((result["serverInfo"], answer["seq"]))
        if isinstance(meta.get(META_CLIENT_INFO), dict):
            client_info.append((meta[META_CLIENT_INFO], seq))
        if META_CAPS in meta:
            capabilities.append((meta[META_CAPS], seq))
        if result is not None:
            # 2026-07-28 results SHOULD carry _meta serverInfo; discover may carry serverInfo.
            info, stamp = None, result.get("_meta")
            if method != "initialize":
                info = result.get("serverInfo")
                if not isinstance(info, dict) and isinstance(stamp, dict):
                    info = stamp.get(META_SERVER_INFO)
            if isinstance(info, dict):
                server_info.append((info, answer["seq"]))
            # The version the request was served under: its own envelope (2026-07-28), or
            # the one initialize negotiated (legacy); discover/initialize probes do not count.
            if method not in ("initialize", "server/discover"):
                version = meta.get(META_VERSION) or negotiated
                if isinstance(version, str):
                    versions.append((version, seq))
        if answer is not None and "error" in answer["message"]:
            errors.append({"by": "server", "method": method, "request_seq": seq,
                           "answer_seq": answer["seq"], **_outcome(answer)})
        if method == "tools/list" and result is not None:
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    tools_listed.setdefault(tool["name"], []).append(answer["seq"])
        elif method == "tools/call":
            call = {"tool": params.get("name"), **_exchange(request, answer)}
            if result is not None:
                call["size_utf8_bytes"] = compact_size(result)  # counted as `run` counts it
                call["forms"] = _forms(result)
                call["is_error"] = result.get("isError") is True
                call["links"] = [{"uri": c.get("uri"), "name": c.get("name"), "size": c.get("size")}
                                 for c in result.get("content") or []
                                 if isinstance(c, dict) and c.get("type") == "resource_link"]
            calls.append(call)
        elif method == "resources/read":
            read = {"uri": params.get("uri"), **_exchange(request, answer)}
            if result is not None:
                contents = [c for c in result.get("contents") or [] if isinstance(c, dict)]
                read["contents"] = len(contents)
                read["body_utf8_bytes"] = sum(
                    len(c["text"].encode("utf-8")) if isinstance(c.get("text"), str)
                    else len(c.get("blob") or "") for c in contents)
            reads.append(read)

    facts: dict[str, Any] = {
        "transport": {"value": transport, "seqs": []},
        "client_info": _first(_distinct(client_info)),
        "client_capabilities": _first(_distinct(capabilities)),
        "protocol_version_on_wire": _first(_distinct(list(reversed(versions)))),
        "server_info": _first(_distinct(server_info)),
        "tools_listed": {"value": sorted(tools_listed), "seqs": sorted({s for v in tools_listed.values() for s in v})},
        "tool_calls": calls,
        "resource_reads": reads,
        "links": _links(calls, reads),
        "largest_result": _largest(calls),
        "cancellations": _cancellations(entries, exchanges),
        "errors": errors,
        "violations": [{"seq": e["seq"], "detail": e.get("detail")} for e in entries
                       if e.get("dir") == "event" and e.get("event") == "violation"],
    }
    return facts


def _links(calls: list[dict], reads: list[dict]) -> list[dict]:
    """Each resource_link the server returned, and every ``resources/read`` the host sent
    for its URI afterwards (or none: ``read`` is False)."""
    out = []
    for call in calls:
        for link in call.get("links") or []:
            after = [r for r in reads if r["uri"] == link["uri"] and r["request_seq"] > call["answer_seq"]]
            item = {"uri": link["uri"], "name": link.get("name"), "declared_size": link.get("size"),
                    "tool": call["tool"], "call_seq": call["request_seq"],
                    "returned_seq": call["answer_seq"], "read": bool(after), "reads": []}
            for read in after:
                entry = {k: read.get(k) for k in ("request_seq", "answer_seq", "outcome", "code",
                                                  "message", "contents", "body_utf8_bytes") if k in read}
                if isinstance(read.get("ms"), (int, float)) and isinstance(call.get("ms"), (int, float)):
                    entry["ms_after_call"] = round(read["ms"] - call["ms"], 1)
                item["reads"].append(entry)
            out.append(item)
    return out


def _largest(calls: list[dict]) -> dict:
    sized = [c for c in calls if "size_utf8_bytes" in c]
    if not sized:
        return {"value": None, "seqs": []}
    top = max(sized, key=lambda c: c["size_utf8_bytes"])
    return {"value": top["size_utf8_bytes"], "tool": top["tool"], "seqs": [top["answer_seq"]]}


def _cancellations(entries: list[dict], exchanges: list[dict]) -> list[dict]:
    asked = {(x["request"]["dir"], _key(x["request"]["message"].get("id"))): x["request"]
             for x in exchanges}
    out = []
    for entry in entries:
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
            continue
        params = _params(message)
        request = asked.get((entry["dir"], _key(params.get("requestId"))))
        out.append({"seq": entry["seq"], "by": "host" if entry["dir"] == HOST else "server",
                    "request_id": params.get("requestId"), "reason": params.get("reason"),
                    "request_seq": request["seq"] if request else None,
                    "method": request["message"].get("method") if request else None})
    return out


def conditions(facts: dict) -> dict:
    """The execution conditions the wire establishes (the rest stays unset)."""
    info = facts["client_info"]["value"] or {}
    server = facts["server_info"]["value"] or {}
    out: dict[str, Any] = {"transport": facts["transport"]["value"]}
    if isinstance(info.get("name"), str):
        out["host_product"] = info["name"]
    if isinstance(info.get("version"), str):
        out["host_version"] = info["version"]
    if isinstance(facts["protocol_version_on_wire"]["value"], str):
        out["protocol_version_on_wire"] = facts["protocol_version_on_wire"]["value"]
    if isinstance(server.get("name"), str):
        out["server_name"] = server["name"]
    if isinstance(facts["largest_result"]["value"], int):
        out["result_size_utf8_bytes"] = facts["largest_result"]["value"]
    if facts["resource_reads"]:
        out["resource_read_route"] = "resources/read"
    return out


def condition_seqs(facts: dict) -> dict:
    """condition -> the seqs its value rests on."""
    return {"host_product": facts["client_info"]["seqs"], "host_version": facts["client_info"]["seqs"],
            "protocol_version_on_wire": facts["protocol_version_on_wire"]["seqs"],
            "server_name": facts["server_info"]["seqs"],
            "result_size_utf8_bytes": facts["largest_result"]["seqs"],
            "resource_read_route": [r["request_seq"] for r in facts["resource_reads"]][:20]}


# --------------------------------------------------------------------------- rows

WIRE_ONLY = "what the host handed its model is not on the wire: complete the row with mcp-accept observe"


def _seqs(*groups) -> list[int]:
    return sorted({s for group in groups for s in group if isinstance(s, int)})


def host_rows(facts: dict) -> dict[str, dict]:
    """row id -> {"reason", "observed", "seqs"} for H01, H02, H03.

    No row is settled by the wire: H01 asks what reached the model, H02 whether the host
    read the link by itself or for its model (the wire shows a read, not who asked for
    it) and whether the body reached the model, H03 what the host did with a large
    result before its model. Each stays PENDING, carrying what the wire does show."""
    calls = facts["tool_calls"]
    handed: dict[str, list[int]] = {}
    for call in calls:
        for form in call.get("forms") or []:
            handed.setdefault(form, []).append(call["answer_seq"])
    h01_forms = {f: handed.get(f, []) for f in ("text", "structured", "embedded")}
    if calls:
        parts = [f"{form}: handed to the host at seq {', '.join(map(str, s[:5]))}" if s
                 else f"{form}: no result carrying it crossed the wire" for form, s in h01_forms.items()]
        h01 = "; ".join(parts)
    else:
        h01 = "the host called no tool in this session"
    rows = {"H01": {"reason": f"{h01}; {WIRE_ONLY}",
                    "observed": {"wire": {"tools_called": [c["tool"] for c in calls],
                                          "forms_handed": h01_forms}},
                    "seqs": _seqs(*h01_forms.values(), [c["request_seq"] for c in calls])}}

    links = facts["links"]
    if not links:
        h02 = "the server returned no resource_link in this session"
    else:
        parts = []
        for link in links:
            if link["read"]:
                first = link["reads"][0]
                outcome = (f"error {first.get('code')}" if first["outcome"] == "error"
                           else f"{first.get('contents', 0)} contents, {first.get('body_utf8_bytes', 0)} bytes"
                           if first["outcome"] == "result" else first["outcome"])
                later = f", {first['ms_after_call']} ms after the call" if "ms_after_call" in first else ""
                parts.append(f"{link['uri']} (returned at seq {link['returned_seq']}): the host sent "
                             f"resources/read at seq {first['request_seq']}{later} -> {outcome}"
                             + (f" (+{len(link['reads']) - 1} more reads)" if len(link["reads"]) > 1 else ""))
            else:
                parts.append(f"{link['uri']} (returned at seq {link['returned_seq']}): the host never "
                             "sent resources/read for it in this session")
        h02 = "; ".join(parts) + ("; the wire does not show whether the host or its model asked "
                                  "for a read")
    rows["H02"] = {"reason": f"{h02}; {WIRE_ONLY}",
                   "observed": {"wire": {"links": links}},
                   "seqs": _seqs([l["returned_seq"] for l in links],
                                 [r.get("request_seq") for l in links for r in l["reads"]],
                                 [r.get("answer_seq") for l in links for r in l["reads"]])}

    largest = facts["largest_result"]
    if largest["value"] is None:
        h03 = "no tool result crossed the wire"
    else:
        h03 = (f"largest result handed to the host: {largest['value']} bytes (UTF-8, compact JSON) "
               f"from {largest['tool']} at seq {largest['seqs'][0]}")
    rows["H03"] = {"reason": f"{h03}; {WIRE_ONLY}",
                   "observed": {"wire": {"largest_result_utf8_bytes": largest["value"],
                                         "largest_result_tool": largest.get("tool"),
                                         "sizes": [{"tool": c["tool"], "seq": c["answer_seq"],
                                                    "bytes": c["size_utf8_bytes"]}
                                                   for c in calls if "size_utf8_bytes" in c]}},
                   "seqs": largest["seqs"]}
    # Who spoke, on every row: the report groups runs by host and by server (name and
    # version), and no execution condition holds the server's version.
    server = facts["server_info"]["value"] or {}
    client = facts["client_info"]["value"] or {}
    for row in rows.values():
        row["observed"]["wire"]["server"] = {k: server.get(k) for k in ("name", "version")}
        row["observed"]["wire"]["client"] = {k: client.get(k) for k in ("name", "version")}
    return rows
