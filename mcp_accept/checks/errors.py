"""Errors and the protocol's own requests: W03's probes, discovery, unfinished round trips.

W03 ("errors are JSON-RPC errors") judges the probe steps the runner records after the
rows' own steps: a tool the server does not list, a method that does not exist, a
``tools/call`` without ``name``, an invalid ``cursor``, and a plain ``tools/list``
afterwards. Each rule is judged by the words of the version on the wire.
"""

from __future__ import annotations

from mcp_accept.checks.base import (APP, FAIL, MUST, PASS, SHOULD, UNOBTAINABLE, Context, Verdict, check, json_integer, spec_for)
from mcp_accept.protocol import (DEFINED_RESERVED, INVALID_PARAMS, METHOD_NOT_FOUND, MODERN, RESERVED_RANGE, RETIRED_CODES,
                                 reserves_error_codes)
from mcp_accept.reasons import Reason, declare, reason

# The reasons this module's verdicts give: id and English template (collected into
# mcp_accept.reasons.REASONS; translated in the message catalog, else shown in English).
declare({
    # W02
    "wire.discover-lists": "server/discover lists {version}",
    "wire.discover-not-sent": "server/discover was not sent",
    # W03
    "probe.result-not-error": "{request} answered a result instead of error {code} ({why})",
    "probe.no-answer": "{request}: no answer ({why})",
    "probe.error": "{request} gave error {code}",
    "probe.wrong-error": "{request} gave error {got}, expected {code}",
    "probe.cursor-invalid": "a cursor the server never handed out is invalid",
    "probe.still-answers": "tools/list still answers after the probes ({n} tools)",
    "probe.after-failed": "tools/list after the probes: {why}",
})

# Step names, as the runner records them (mcp_accept.running.runner.PROBE_*).
UNKNOWN_TOOL = "probe:unknown-tool"
UNKNOWN_METHOD = "probe:unknown-method"
NO_NAME = "probe:call-without-name"
BAD_CURSOR = "probe:invalid-cursor"
STILL_ANSWERS = "probe:still-answers"
# Steps whose request is invalid against the official schema on purpose: the wire layer
# judges the server's answer to them, not the request the runner sent.
DELIBERATELY_INVALID = (NO_NAME,)

# JSON-RPC 2.0 requires an answer to every request; MCP messages MUST follow JSON-RPC 2.0.
ANSWER_SOURCE = ("basic/index.mdx", "messages")

# 2026-07-28 basic/index.mdx#error-codes (the codes are in mcp_accept.protocol). Its SHOULD NOT
# on -32000 to -32019 applies only to implementations that are new, which a recording cannot
# tell.
ERROR_CODES = ("basic/index.mdx", "error-codes")


def forbidden_code(version: str | None, code) -> str | None:
    """Why the version on the wire forbids a server to emit error ``code``, or None."""
    if not reserves_error_codes(version) or not json_integer(code):
        return None
    code = int(code)
    if code in RETIRED_CODES:
        return f"error code {code} is a code of an earlier version that {MODERN} implementations MUST NOT emit"
    lowest, highest = RESERVED_RANGE
    if lowest <= code <= highest and code not in DEFINED_RESERVED:
        return (f"error code {code} lies in {highest}..{lowest}, reserved for the specification, which does not "
                "define it (MUST NOT emit)")
    return None




def _probe(ctx: Context, name: str, step_name: str):
    """The reply of a probe step, or a verdict saying why there is none."""
    step = ctx.step(step_name)
    if step is None or (step.reply is None and step.skipped):
        why = step.skipped if step is not None else "the run made no such probe"
        return None, Verdict(name, "wire", UNOBTAINABLE, f"{step_name}: {why}")
    if step.reply is None or step.reply.message is None:
        failure = step.reply.describe_failure() if step.reply is not None else "no answer"
        return None, Verdict(name, "wire", FAIL, reason("probe.no-answer", request=_what(step), why=failure), step.seqs,
                             rule=MUST, source=spec_for(ctx.version, *ANSWER_SOURCE))
    return step, None


def _what(step) -> str:
    request = step.reply.request if step.reply is not None else {}
    method = request.get("method", "?")
    params = {k: v for k, v in (request.get("params") or {}).items() if k != "_meta"}
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items() if k in ("name", "cursor"))
    if method == "tools/call" and "name" not in params:
        shown = "no name"
    return f"{method}({shown})" if shown else method


def _error_check(name: str, step_name: str, code: int, *, rule: str, source: tuple[str, str],
                 result_is: str | Reason):
    """The check that the probe ``step_name`` was answered with JSON-RPC error ``code``."""

    @check(name, "wire", rule=rule, source=source)
    def judged(ctx: Context) -> Verdict:
        return _expect_error(ctx, name, step_name, code, result_is=result_is)

    judged.__name__ = judged.__qualname__ = name
    return judged


def _expect_error(ctx: Context, name: str, step_name: str, code: int, *, result_is: str | Reason) -> Verdict:
    """PASS for a JSON-RPC error with ``code``; FAIL for another code or for a result."""
    step, early = _probe(ctx, name, step_name)
    if early:
        return early
    reply, what = step.reply, _what(step)
    if reply.error is not None:
        got = reply.error.get("code")
        forbidden = forbidden_code(ctx.version, got)
        if forbidden:
            # Whatever this probe expects, the version's own ban on the code is a MUST.
            return Verdict(name, "wire", FAIL, f"{what} gave error {got}: {forbidden}", step.seqs,
                           rule=MUST, source=spec_for(ctx.version, *ERROR_CODES))
        if json_integer(got) and got == code:
            return Verdict(name, "wire", PASS, reason("probe.error", request=what, code=code), step.seqs)
        return Verdict(name, "wire", FAIL, reason("probe.wrong-error", request=what, got=got, code=code), step.seqs)
    if reply.has_result:
        result = reply.result if isinstance(reply.result, dict) else {}
        if result.get("isError") is True:
            return Verdict(name, "wire", FAIL, f"{what} answered a result with isError: true instead of "
                           f"error {code} ({result_is})", step.seqs)
        return Verdict(name, "wire", FAIL, reason("probe.result-not-error", request=what, code=code, why=result_is),
                       step.seqs)
    return Verdict(name, "wire", FAIL, f"{what}: {reply.describe_failure()}", step.seqs)


# server/tools.mdx#error-handling (all three versions): an unknown tool is a protocol error,
# reported the JSON-RPC way, with -32602 as the example; isError: true is for errors of the
# tool's own execution. The schema's CallToolResult.isError adds that failing to find the
# tool belongs in an MCP error response, in lower case. Neither sentence uses a MUST or
# SHOULD keyword (the lower-case "should" is not one, RFC 8174), so the sheet holds
# servers to that classification as a rule of its own (app), citing the section.
unknown_tool_error = _error_check(
    "unknown_tool_error", UNKNOWN_TOOL, INVALID_PARAMS, rule=APP, source=("server/tools.mdx", "error-handling"),
    result_is="an unknown tool is a protocol error, not a tool execution error")


# basic/index.mdx#messages: messages MUST follow JSON-RPC 2.0, whose error -32601 is
# "Method not found" (2026-07-28 also lists it among the codes MCP uses, #error-codes, and
# defines MethodNotFoundError in the schema).
unknown_method_error = _error_check(
    "unknown_method_error", UNKNOWN_METHOD, METHOD_NOT_FOUND, rule=MUST, source=("basic/index.mdx", "messages"),
    result_is="JSON-RPC 2.0 answers a method that does not exist with -32601")


# server/tools.mdx#error-handling: a request that does not fit the CallToolRequest schema
# is a protocol error (2025-06-18: "Invalid arguments"); JSON-RPC's
# code for invalid parameters is -32602. Stated without a MUST or SHOULD keyword: a rule of
# the sheet (app) that cites the section.
call_without_name_error = _error_check(
    "call_without_name_error", NO_NAME, INVALID_PARAMS, rule=APP, source=("server/tools.mdx", "error-handling"),
    result_is="a tools/call without name fails the CallToolRequest schema")


# server/utilities/pagination.mdx#error-handling: a bad cursor SHOULD be answered with error
# -32602 (worded alike in all three versions).
invalid_cursor_error = _error_check(
    "invalid_cursor_error", BAD_CURSOR, INVALID_PARAMS, rule=SHOULD, source=("server/utilities/pagination.mdx", "error-handling"),
    result_is=reason("probe.cursor-invalid"))


# After the refused requests the server still answers a plain tools/list: refusing a
# request is an answer, not the end of the conversation (JSON-RPC 2.0 answers every request).
@check("still_answers", "wire", rule=MUST, source=ANSWER_SOURCE)
def still_answers(ctx: Context) -> Verdict:
    name = "still_answers"
    step, early = _probe(ctx, name, STILL_ANSWERS)
    if early:
        return early
    result = step.reply.result
    if step.reply.has_result and isinstance(result, dict) and isinstance(result.get("tools"), list):
        return Verdict(name, "wire", PASS, reason("probe.still-answers", n=len(result["tools"])), step.seqs)
    return Verdict(name, "wire", FAIL, reason("probe.after-failed", why=step.reply.describe_failure()),
                   step.seqs)


# -- discovery ------------------------------------------------------------------------------

# server/discover.mdx: `server/discover` is how a client learns which protocol versions a
# server supports, and servers MUST support it.
@check("discover_implemented", "wire", rule=MUST, source=("server/discover.mdx", "discovery"))
def discover_implemented(ctx: Context) -> Verdict:
    name = "discover_implemented"
    neg = ctx.recording.negotiation
    if ctx.version != MODERN:
        return Verdict(name, "wire", UNOBTAINABLE, f"{ctx.version or 'no version'} is a legacy version: "
                       f"server/discover exists from {MODERN} on")
    step = ctx.step("discover")
    seqs = list(step.seqs) if step is not None else []
    if neg.discovered:
        return Verdict(name, "wire", PASS, reason("wire.discover-lists", version=", ".join(map(str, neg.supported))),
                       seqs)
    answered = _modern_results(ctx)
    if neg.discover is None:
        return Verdict(name, "wire", UNOBTAINABLE, reason("wire.discover-not-sent"))
    if not answered:
        return Verdict(name, "wire", UNOBTAINABLE, f"server/discover failed and no {MODERN} request was "
                       f"answered either ({neg.discover.describe_failure()})", seqs)
    if neg.supported is not None:
        how = f"server/discover lists {neg.supported}, without {MODERN}"
    else:
        how = f"server/discover: {neg.discover.describe_failure()}"
    return Verdict(name, "wire", FAIL, f"{how}, yet the server answered {answered} {MODERN} request(s): "
                   "servers MUST implement server/discover", seqs)


def _modern_results(ctx: Context) -> int:
    """How many 2026-07-28 requests other than server/discover got a result."""
    sent = {}
    count = 0
    for entry in ctx.recording.entries:
        message = entry.get("message")
        if not isinstance(message, dict) or "id" not in message:
            continue
        key = repr(message.get("id"))
        if entry.get("dir") == "out" and "method" in message:
            sent[key] = (message.get("method"), entry.get("era"))
        elif entry.get("dir") == "in" and "result" in message and key in sent:
            method, era = sent[key]
            count += method != "server/discover" and era == MODERN
    return count


# -- multi round-trip requests that did not end in a complete result --------------------------

def unfinished_round_trips(ctx: Context, step_names) -> list[Verdict]:
    """Verdicts for the named steps whose input_required exchange did not complete.

    Unanswerable input requests are the server's fault (basic/patterns/mrtr.mdx, server
    requirements: a server MUST NOT put in inputRequests anything the client did not declare
    it supports); a server still asking when the round limit is reached is allowed to (it
    MAY answer with InputRequiredResult again and again), so the row's final
    result cannot be had: UNOBTAINABLE.
    """
    from mcp_accept.transport.session import UNANSWERABLE

    out = []
    source = spec_for(ctx.version, "basic/patterns/mrtr.mdx", "server-requirements-basic-workflow")
    for step_name in step_names:
        step = ctx.step(step_name)
        if step is None or not step.incomplete:
            continue
        status = FAIL if step.incomplete_kind == UNANSWERABLE else UNOBTAINABLE
        out.append(Verdict("input_required_followed", "wire", status, f"{step_name}: {step.incomplete}",
                           step.seqs, rule=MUST, source=source))
    return out
