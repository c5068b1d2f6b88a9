"""What a proxy recording establishes about the host, each fact with the ``wire.jsonl``
seqs it rests on.

Only what crossed the wire is claimed: who the host says it is (``clientInfo``), the
protocol version and capabilities it spoke, the tools it listed and called, the results it
was handed (their forms and sizes), whether and when it sent ``resources/read`` for a URI
the server returned as a ``resource_link``, cancellations (a cancellation of a request
already answered is a host quirk, listed under ``quirks``) and errors. What the host then
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

The facts are taken one entry at a time as the proxy records (:class:`Deriver`), in
bounded memory however long the session: the lists keep their first :data:`LISTED` items
and count the rest (``not_listed``), each fact keeps :data:`SEQS` seqs per value.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_accept.evidence.wirelog import compact_size
from mcp_accept.protocol import LATEST_LEGACY, META_CAPS, META_CLIENT_INFO, META_SERVER_INFO, META_VERSION


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


LISTED = 1000  # tool calls, reads, errors, ... listed one by one; the rest are counted
PENDING = 10_000  # requests waiting for their answer; the oldest is given up past this
REMEMBERED = 10_000  # recent requests a cancellation can name
SEQS = 20  # seqs kept per distinct value of a fact
DISTINCT = 20  # distinct values kept per fact
EVIDENCE_BYTES = 16 * 1024 * 1024  # wire entries kept for the rows' evidence files


class Deriver:
    """The facts of a recording, taken one wire entry at a time (:meth:`add`, in seq order)
    so that a session of any length is derived in bounded memory: what is kept per fact
    is capped (:data:`LISTED` items, :data:`SEQS` seqs, :data:`DISTINCT` values) and every
    item is still counted, so a capped list says how many it left out.

    A request is paired with the first answer carrying its id in the other direction
    (within the same HTTP exchange when the recording has exchanges); each request is
    judged when its answer comes, or at the end unanswered."""

    def __init__(self, transport: str):
        self.transport = transport
        self._pending: dict[tuple, list[dict]] = {}
        self._pending_count = 0
        self._asked: dict[tuple, list] = {}  # (dir, id) -> [seq, method, answer seq], recent ones
        self.client_info = _Distinct()
        self.capabilities = _Distinct()
        self.server_info = _Distinct()
        self.versions = _Latest()
        self.negotiated = None  # the legacy version chosen by the latest initialize result
        self.tools_listed: dict[str, list[int]] = {}
        self.calls = _Capped()
        self.reads = _Capped()
        self.errors = _Capped()
        self.cancellations = _Capped()
        self.violations = _Capped()
        self.late_cancels = 0  # cancellations of requests already answered
        self.late_cancel_seqs: list[int] = []
        self.largest: dict | None = None
        self.kept: dict[int, dict] = {}  # seq -> wire entry, for the rows' evidence
        self._kept_bytes = 0
        self.dropped_evidence = 0

    # ----- feeding -----------------------------------------------------------------

    def add(self, entry: dict, size: int | None = None, result_size: int | None = None) -> None:
        """One wire entry. ``size``: its bytes on the wire (to bound the evidence kept);
        ``result_size``: its result's compact UTF-8 size when already counted."""
        if entry.get("dir") == "event":
            if entry.get("event") == "violation":
                self.violations.add({"seq": entry["seq"], "detail": entry.get("detail")})
            return
        message = entry.get("message")
        if not isinstance(message, dict) or entry.get("dir") not in (HOST, SERVER):
            return
        if "method" in message and "id" in message:
            self._request(entry, message, size)
        elif "id" in message and ("result" in message or "error" in message):
            self._answer(entry, message, size, result_size)
        elif message.get("method") == "notifications/cancelled":
            self._cancelled(entry, message)

    def _request(self, entry: dict, message: dict, size: int | None) -> None:
        seq, method = entry["seq"], message.get("method")
        params, meta = _params(message), _meta(message)
        # What judging the answer needs of the request, not the request: a host may leave
        # thousands unanswered, each as large as --max-bytes.
        slim = {k: entry[k] for k in ("seq", "t", "ms", "dir") if k in entry}
        if (entry.get("http") or {}).get("exchange") is not None:
            slim["http"] = {"exchange": entry["http"]["exchange"]}
        slim["message"] = {"id": message["id"], "method": method,
                           "params": {"name": params.get("name"), "_meta": {META_VERSION: meta.get(META_VERSION)}}}
        item = {"request": slim, "by": "host" if entry["dir"] == HOST else "server", "record": None}
        key = (entry["dir"], _key(message["id"]))
        self._asked.pop(key, None)
        self._asked[key] = [seq, method, None]
        if len(self._asked) > REMEMBERED:
            self._asked.pop(next(iter(self._asked)))
        if item["by"] == "host":
            if method == "initialize":
                if isinstance(params.get("clientInfo"), dict):
                    self.client_info.add(params["clientInfo"], seq)
                if "capabilities" in params:
                    self.capabilities.add(params["capabilities"], seq)
            if isinstance(meta.get(META_CLIENT_INFO), dict):
                self.client_info.add(meta[META_CLIENT_INFO], seq)
            if META_CAPS in meta:
                self.capabilities.add(meta[META_CAPS], seq)
            # Listed in the order asked; filled in when the answer comes.
            if method == "tools/call":
                item["record"] = self.calls.add({"tool": params.get("name"), **_exchange(entry, None)})
            elif method == "resources/read":
                item["record"] = self.reads.add({"uri": params.get("uri"), **_exchange(entry, None)})
            if item["record"] is not None:
                self._keep(entry, size)
        self._pending.setdefault(key, []).append(item)
        self._pending_count += 1
        if self._pending_count > PENDING:  # the oldest unanswered request is given up
            oldest = next(iter(self._pending))
            self._pending[oldest].pop(0)
            self._pending_count -= 1
            if not self._pending[oldest]:
                del self._pending[oldest]

    def _answer(self, entry: dict, message: dict, size: int | None, result_size: int | None) -> None:
        asker = SERVER if entry["dir"] == HOST else HOST
        key = (asker, _key(message["id"]))
        if key in self._asked and self._asked[key][2] is None:
            self._asked[key][2] = entry["seq"]  # a later cancellation of it names a finished request
        waiting = self._pending.get(key)
        if not waiting:
            return
        number = (entry.get("http") or {}).get("exchange")
        chosen = next((w for w in waiting if number is not None
                       and (w["request"].get("http") or {}).get("exchange") == number), waiting[0])
        waiting.remove(chosen)
        self._pending_count -= 1
        if not waiting:
            del self._pending[key]
        self._judge(chosen, entry, size, result_size)

    def _judge(self, item: dict, answer: dict, size: int | None, result_size: int | None) -> None:
        request = item["request"]
        message, seq = request["message"], request["seq"]
        method = message.get("method")
        failed = "error" in answer["message"]
        if item["by"] != "host":
            if failed:
                self.errors.add({"by": "host", "method": method, "request_seq": seq,
                                 "answer_seq": answer["seq"], **_outcome(answer)})
            return
        params, meta = _params(message), _meta(message)
        result = answer["message"].get("result")
        result = result if isinstance(result, dict) else None
        if method == "initialize" and result is not None:
            self.negotiated = result.get("protocolVersion")
            if isinstance(result.get("serverInfo"), dict):
                self.server_info.add(result["serverInfo"], answer["seq"])
        if result is not None:
            # 2026-07-28 results SHOULD carry _meta serverInfo; discover may carry serverInfo.
            info, stamp = None, result.get("_meta")
            if method != "initialize":
                info = result.get("serverInfo")
                if not isinstance(info, dict) and isinstance(stamp, dict):
                    info = stamp.get(META_SERVER_INFO)
            if isinstance(info, dict):
                self.server_info.add(info, answer["seq"])
            # The version the request was served under: its own envelope (2026-07-28), or
            # the one initialize negotiated (legacy); discover/initialize probes do not count.
            if method not in ("initialize", "server/discover"):
                version = meta.get(META_VERSION) or self.negotiated
                if isinstance(version, str):
                    self.versions.add(version, seq)
        if failed:
            self.errors.add({"by": "server", "method": method, "request_seq": seq,
                             "answer_seq": answer["seq"], **_outcome(answer)})
        if method == "tools/list" and result is not None:
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    seqs = self.tools_listed.get(tool["name"])
                    if seqs is None and len(self.tools_listed) < LISTED:
                        seqs = self.tools_listed[tool["name"]] = []
                    if seqs is not None and len(seqs) < SEQS:
                        seqs.append(answer["seq"])
        elif method == "tools/call":
            call = item["record"] if item["record"] is not None else {"tool": params.get("name")}
            call.update(_exchange(request, answer))
            if result is not None:
                call["size_utf8_bytes"] = result_size if result_size is not None else compact_size(result)
                call["forms"] = _forms(result)
                call["is_error"] = result.get("isError") is True
                call["links"] = [{"uri": c.get("uri"), "name": c.get("name"), "size": c.get("size")}
                                 for c in result.get("content") or []
                                 if isinstance(c, dict) and c.get("type") == "resource_link"]
                if self.largest is None or call["size_utf8_bytes"] > self.largest["size_utf8_bytes"]:
                    if self.largest is not None and self.largest.get("unlisted"):
                        self._unkeep(self.largest["answer_seq"])
                    self.largest = call if item["record"] is not None else {**call, "unlisted": True}
                    self._keep(answer, size, always=True)
            if item["record"] is not None:
                self._keep(answer, size)
        elif method == "resources/read" and item["record"] is not None:
            read = item["record"]
            read.update(_exchange(request, answer))
            if result is not None:
                contents = [c for c in result.get("contents") or [] if isinstance(c, dict)]
                read["contents"] = len(contents)
                read["body_utf8_bytes"] = sum(
                    len(c["text"].encode("utf-8")) if isinstance(c.get("text"), str)
                    else len(c.get("blob") or "") for c in contents)
            self._keep(answer, size)

    def _cancelled(self, entry: dict, message: dict) -> None:
        params = _params(message)
        asked = self._asked.get((entry["dir"], _key(params.get("requestId"))))
        item = {"seq": entry["seq"], "by": "host" if entry["dir"] == HOST else "server",
                "request_id": params.get("requestId"), "reason": params.get("reason"),
                "request_seq": asked[0] if asked else None, "method": asked[1] if asked else None}
        if asked and asked[2] is not None:
            # The spec expects this race and lets the receiver ignore it
            # (docs/specification/2025-11-25/basic/utilities/cancellation.mdx#timing-considerations):
            # the answer already given stands, and it is the canceller's quirk, not a fault.
            item["after_answer_seq"] = asked[2]
            self.late_cancels += 1
            if len(self.late_cancel_seqs) < SEQS:
                self.late_cancel_seqs.append(entry["seq"])
        self.cancellations.add(item)

    def _keep(self, entry: dict, size: int | None, always: bool = False) -> None:
        """Keep a wire entry for the rows' evidence, within :data:`EVIDENCE_BYTES`; a message
        larger than the inline limit is kept without its body (it stays in wire.jsonl)."""
        from mcp_accept.output.results_writer import INLINE_LIMIT, larger_than

        if entry["seq"] in self.kept:
            return
        if size is None:  # not told: measured, and only as far as the limit
            large = larger_than(entry.get("message"), INLINE_LIMIT)
            size = INLINE_LIMIT if large else compact_size(entry.get("message"))
        large = size > INLINE_LIMIT
        cost = 512 if large else size
        if not always and self._kept_bytes + cost > EVIDENCE_BYTES:
            self.dropped_evidence += 1
            return
        if large and "message" in entry:
            entry = {k: v for k, v in entry.items() if k != "message"}
            entry["message_omitted"] = f"larger than {INLINE_LIMIT} bytes: see wire.jsonl seq {entry['seq']}"
        self.kept[entry["seq"]] = entry
        self._kept_bytes += cost

    def _unkeep(self, seq: int) -> None:
        if self.kept.pop(seq, None) is not None:
            self._kept_bytes = max(0, self._kept_bytes - 512)

    # ----- the facts -----------------------------------------------------------------

    def quirks(self) -> list[dict]:
        """What the peers did that the spec tolerates but a reader of the wire should know, each
        with the party that did it: never counted as the server's fault."""
        out = []
        if self.late_cancels:
            out.append({"by": "host", "quirk": "cancelled requests already answered",
                        "count": self.late_cancels, "seqs": self.late_cancel_seqs,
                        "source": f"docs/specification/{LATEST_LEGACY}/basic/utilities/cancellation.mdx"
                                  "#timing-considerations (the receiver MAY ignore it; the answer stands)"})
        return out

    def facts(self) -> dict:
        """Every fact the recording establishes (see the module's docstring)."""
        calls, reads = self.calls.items, self.reads.items
        largest = {"value": None, "seqs": []}
        if self.largest is not None:
            largest = {"value": self.largest["size_utf8_bytes"], "tool": self.largest["tool"],
                       "seqs": [self.largest["answer_seq"]]}
        facts: dict[str, Any] = {
            "transport": {"value": self.transport, "seqs": []},
            "client_info": self.client_info.fact(),
            "client_capabilities": self.capabilities.fact(),
            "protocol_version_on_wire": self.versions.fact(),
            "server_info": self.server_info.fact(),
            "tools_listed": {"value": sorted(self.tools_listed),
                             "seqs": sorted({s for v in self.tools_listed.values() for s in v})},
            "tool_calls": calls,
            "resource_reads": reads,
            "links": _links(calls, reads),
            "largest_result": largest,
            "cancellations": self.cancellations.items,
            "errors": self.errors.items,
            "violations": self.violations.items,
            "quirks": self.quirks(),
        }
        counted = {name: capped.total for name, capped in (
            ("tool_calls", self.calls), ("resource_reads", self.reads), ("errors", self.errors),
            ("cancellations", self.cancellations), ("violations", self.violations)) if capped.total > LISTED}
        if counted:  # present only when a list was cut: how many there were in all
            facts["not_listed"] = {"listed_at_most": LISTED,
                                   "totals": counted}
        return facts


class _Capped:
    """A list that keeps its first :data:`LISTED` items and counts every one."""

    def __init__(self):
        self.items: list[dict] = []
        self.total = 0

    def add(self, item: dict) -> dict | None:
        self.total += 1
        if len(self.items) >= LISTED:
            return None
        self.items.append(item)
        return item


class _Distinct:
    """Distinct values in order of first appearance, each with its first seqs."""

    def __init__(self):
        self._found: dict[str, dict] = {}

    def add(self, value: Any, seq: int) -> None:
        key = _key(value)
        item = self._found.get(key)
        if item is None:
            if len(self._found) >= DISTINCT:
                return
            item = self._found[key] = {"value": value, "seqs": []}
        if len(item["seqs"]) < SEQS:
            item["seqs"].append(seq)

    def fact(self) -> dict:
        return _first(list(self._found.values()))


class _Latest:
    """Distinct values, the one seen last first, each with its latest seqs (latest first)."""

    def __init__(self):
        self._found: dict[str, dict] = {}

    def add(self, value: Any, seq: int) -> None:
        key = _key(value)
        item = self._found.pop(key, None) or {"value": value, "seqs": []}
        item["seqs"].append(seq)
        del item["seqs"][:-SEQS]
        self._found[key] = item  # re-inserted: the dict's order is the order of last sight
        if len(self._found) > DISTINCT:
            self._found.pop(next(iter(self._found)))

    def fact(self) -> dict:
        found = [{"value": f["value"], "seqs": sorted(f["seqs"], reverse=True)}
                 for f in reversed(self._found.values())]
        return _first(found)


def derive(entries: list[dict], transport: str) -> dict:
    """Every fact a list of wire entries establishes (:class:`Deriver` over all of them)."""
    deriver = Deriver(transport)
    for entry in entries:
        deriver.add(entry)
    return deriver.facts()


def _first(found: list[dict]) -> dict:
    """A fact from distinct values: the first one, the seqs it rests on, and the others."""
    if not found:
        return {"value": None, "seqs": []}
    fact = {"value": found[0]["value"], "seqs": found[0]["seqs"][:SEQS]}
    if len(found) > 1:
        fact["others"] = [{"value": f["value"], "seqs": f["seqs"][:SEQS]} for f in found[1:]]
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


def _links(calls: list[dict], reads: list[dict]) -> list[dict]:
    """Each resource_link the server returned, and every ``resources/read`` the host sent
    for its URI afterwards (or none: ``read`` is False)."""
    reads_of: dict[Any, list[dict]] = {}
    for read in reads:
        reads_of.setdefault(_key(read["uri"]), []).append(read)
    out = []
    for call in calls:
        for link in call.get("links") or []:
            after = [r for r in reads_of.get(_key(link["uri"]), []) if r["request_seq"] > call["answer_seq"]]
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
