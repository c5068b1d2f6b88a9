"""Meaning layer: what no schema says. The forms carry the reference document, the
text twin says what ``structuredContent`` says, the profile's assertions hold, and
the link's ``size`` is the body's byte length."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import jmespath
import jmespath.exceptions

from mcp_accept.checks import (FAIL, FORMS, PASS, UNOBTAINABLE, Context, Verdict, call_outcome, check,
                               content_items, first_difference, same_json)
from mcp_accept.transport.messages import MAX_DEPTH, nesting_depth

_MISSING = object()


class NoBody(Exception):
    """The form's document could not be had; the message says why."""

    def __init__(self, message: str, status: str = FAIL, seqs: list[int] | None = None):
        super().__init__(message)
        self.status = status
        self.seqs = seqs or []


def body_bytes(container: dict) -> bytes | None:
    """The body of a resource contents object (``text`` or ``blob``) as bytes."""
    if isinstance(container.get("text"), str):
        return container["text"].encode("utf-8")
    if isinstance(container.get("blob"), str):
        try:
            return base64.b64decode(container["blob"], validate=True)
        except (binascii.Error, ValueError):
            return None
    return None


def parse_body(data: bytes, what: str) -> Any:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NoBody(f"{what} is not JSON ({type(exc).__name__})") from None
    if nesting_depth(value) > MAX_DEPTH:
        raise NoBody(f"{what} is JSON nested more than {MAX_DEPTH} levels deep; not compared")
    return value


def link_uri(ctx: Context) -> str | None:
    step = ctx.step("call:link")
    if step is None or not step.reply or not isinstance(step.reply.result, dict):
        return None
    links = content_items(step.reply.result, "resource_link")
    return links[0].get("uri") if links and isinstance(links[0].get("uri"), str) else None


def link_contents(ctx: Context) -> dict:
    """The contents item of the link's ``resources/read`` whose uri is the link's."""
    if "link" not in ctx.profile.tools:
        raise NoBody("the profile names no link tool", UNOBTAINABLE)
    early = call_outcome(ctx, "link", "", "meaning")[1]
    if early is not None and early.status == UNOBTAINABLE:
        raise NoBody(early.detail, UNOBTAINABLE, early.seqs)
    step = ctx.step("read:link")
    if step is None or step.reply is None:
        raise NoBody(f"resources/read was not made: {step.skipped if step else 'no link'}")
    reply = step.reply
    if not reply.has_result or not isinstance(reply.result, dict):
        raise NoBody(f"resources/read: {reply.describe_failure()}", seqs=step.seqs)
    uri = link_uri(ctx)
    contents = reply.result.get("contents")
    if not isinstance(contents, list):
        raise NoBody("resources/read answered no contents array", seqs=step.seqs)
    for item in contents:
        if isinstance(item, dict) and item.get("uri") == uri:
            return item
    raise NoBody(f"resources/read contents hold no item with uri {uri}", seqs=step.seqs)


def document(ctx: Context, form: str) -> tuple[Any, list[int]]:
    """The JSON document a form carries, with the wire entries it came from."""
    if form == "link":
        item = link_contents(ctx)
        data = body_bytes(item)
        if data is None:
            raise NoBody("the link's contents item has no readable text or blob")
        return parse_body(data, "the link's body"), ctx.step("read:link").seqs
    result, early = call_outcome(ctx, form, "", "meaning")
    if early:
        raise NoBody(early.detail, early.status, early.seqs)
    seqs = ctx.step(f"call:{form}").seqs
    if form == "structured":
        if "structuredContent" not in result:
            raise NoBody("structuredContent is absent", seqs=seqs)
        return result["structuredContent"], seqs
    if form == "text":
        items = content_items(result, "text")
        if not items or not isinstance(items[0].get("text"), str):
            raise NoBody("content holds no text item", seqs=seqs)
        return parse_body(items[0]["text"].encode("utf-8"), "the text item"), seqs
    for item in content_items(result, "resource"):
        if isinstance(item.get("resource"), dict):
            data = body_bytes(item["resource"])
            if data is not None:
                return parse_body(data, "the embedded body"), seqs
    raise NoBody("content holds no embedded resource with a body", seqs=seqs)


def _against_reference(ctx: Context, form: str, name: str) -> Verdict:
    try:
        value, seqs = document(ctx, form)
    except NoBody as exc:
        return Verdict(name, "meaning", exc.status, str(exc), exc.seqs)
    if ctx.profile.reference is None:
        return Verdict(name, "meaning", PASS, "body is JSON (no reference document: forms compared in X01)",
                       seqs)
    if same_json(value, ctx.profile.reference):
        return Verdict(name, "meaning", PASS, "body equals the reference document", seqs)
    return Verdict(name, "meaning", FAIL,
                   f"body differs from the reference document at {first_difference(value, ctx.profile.reference)}",
                   seqs)


@check("text_is_reference", "meaning")
def text_is_reference(ctx: Context) -> Verdict:
    return _against_reference(ctx, "text", "text_is_reference")


@check("embedded_is_reference", "meaning")
def embedded_is_reference(ctx: Context) -> Verdict:
    return _against_reference(ctx, "embedded", "embedded_is_reference")


@check("link_is_reference", "meaning")
def link_is_reference(ctx: Context) -> Verdict:
    return _against_reference(ctx, "link", "link_is_reference")


def _reads_in(ctx: Context, step_name: str | None, uri: str | None = None) -> int:
    """How many resources/read (of ``uri``, if given) were asked during a step, or in the whole run.

    A request sent again under the same id (a legacy HTTP session that expired and was
    re-initialized) is one read, not two."""
    lo, hi = 0, float("inf")
    if step_name is not None:
        step = ctx.step(step_name)
        if step is None or not step.seqs:
            return 0
        lo, hi = step.seqs[0], step.seqs[-1]
    ids = set()
    for entry in ctx.recording.entries:
        message = entry.get("message")
        if (entry["dir"] == "out" and lo <= entry["seq"] <= hi and isinstance(message, dict)
                and message.get("method") == "resources/read"
                and (uri is None or (message.get("params") or {}).get("uri") == uri)):
            ids.add(repr(message.get("id")))
    return len(ids)


@check("no_read_needed", "meaning")
def no_read_needed(ctx: Context) -> Verdict:
    if "embedded" not in ctx.profile.tools:
        return Verdict("no_read_needed", "meaning", UNOBTAINABLE, "the profile names no embedded tool")
    reads = _reads_in(ctx, "call:embedded")
    if reads:
        return Verdict("no_read_needed", "meaning", FAIL, f"{reads} resources/read were needed for the body")
    return Verdict("no_read_needed", "meaning", PASS, "the body came with the call: no resources/read")


@check("link_read_once", "meaning")
def link_read_once(ctx: Context) -> Verdict:
    uri = link_uri(ctx)
    if uri is None:
        early = call_outcome(ctx, "link", "link_read_once", "meaning")[1]
        if early is not None and early.status == UNOBTAINABLE:
            return early
        return Verdict("link_read_once", "meaning", FAIL, "no link URI to read")
    reads = _reads_in(ctx, None, uri)
    listed = uri in ctx.recording.listed_uris
    where = "listed" if listed else "not listed"
    if reads != 1:
        return Verdict("link_read_once", "meaning", FAIL, f"{reads} reads of {uri}, expected exactly one")
    return Verdict("link_read_once", "meaning", PASS,
                   f"read {uri} once; it is {where} in resources/list")


@check("link_size", "meaning")
def link_size(ctx: Context) -> Verdict:
    name = "link_size"
    result, early = call_outcome(ctx, "link", name, "meaning")
    if early:
        return early
    links = content_items(result, "resource_link")
    if not links:
        return Verdict(name, "meaning", FAIL, "no resource_link item")
    if "size" not in links[0]:
        return Verdict(name, "meaning", PASS, "the link declares no size")
    size = links[0]["size"]
    try:
        data = body_bytes(link_contents(ctx))
    except NoBody as exc:
        return Verdict(name, "meaning", UNOBTAINABLE, f"size {size!r} cannot be compared: {exc}")
    if data is None:
        return Verdict(name, "meaning", UNOBTAINABLE, "size cannot be compared: the body is unreadable")
    if isinstance(size, bool) or size != len(data):
        return Verdict(name, "meaning", FAIL, f"size {size!r} but the body read is {len(data)} bytes",
                       ctx.step("call:link").seqs)
    return Verdict(name, "meaning", PASS, f"size {size} equals the body's byte length",
                   ctx.step("call:link").seqs)


def twin_mode(ctx: Context) -> str:
    return str(ctx.options.get("mode") or ctx.profile.twin or "json-equal")


@check("text_twin", "meaning")
def text_twin(ctx: Context) -> Verdict:
    name = "text_twin"
    mode = twin_mode(ctx)
    if mode == "off":
        return Verdict(name, "meaning", UNOBTAINABLE, "the text-twin check is off (mode: off)")
    result, early = call_outcome(ctx, "structured", name, "meaning")
    if early:
        return early
    seqs = ctx.step("call:structured").seqs
    if "structuredContent" not in result:
        return Verdict(name, "meaning", FAIL, "structuredContent is absent", seqs)
    value = result["structuredContent"]
    texts = [i["text"] for i in content_items(result, "text") if isinstance(i.get("text"), str)]
    if not texts:
        return Verdict(name, "meaning", FAIL, "content holds no text twin of structuredContent", seqs)
    if mode == "exact":
        compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if compact in texts:
            return Verdict(name, "meaning", PASS, "a text item is byte-equal to the compact JSON", seqs)
        return Verdict(name, "meaning", FAIL, "no text item is byte-equal to the compact JSON of "
                       "structuredContent (mode: exact)", seqs)
    last = "no text item is JSON"
    for text in texts:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if nesting_depth(parsed) > MAX_DEPTH:
            last = f"a text item is JSON nested more than {MAX_DEPTH} levels deep; not compared"
            continue
        if same_json(parsed, value):
            return Verdict(name, "meaning", PASS, "the text twin's JSON equals structuredContent", seqs)
        last = f"the text twin differs at {first_difference(parsed, value)}"
    return Verdict(name, "meaning", FAIL, last, seqs)


@check("assertions", "meaning")
def assertions(ctx: Context) -> list[Verdict]:
    if not ctx.profile.assertions:
        return [Verdict("assertions", "meaning", UNOBTAINABLE, "the profile has no assertions")]
    try:
        value, seqs = document(ctx, "structured")
    except NoBody as exc:
        return [Verdict("assertions", "meaning", exc.status, str(exc), exc.seqs)]
    out = []
    for label, expr in ctx.profile.assertions:
        try:
            found = jmespath.search(expr, value)
        except jmespath.exceptions.JMESPathError as exc:
            out.append(Verdict(f"assert:{label}", "meaning", FAIL, f"{expr} could not be evaluated: {exc}", seqs))
            continue
        if found is True:
            out.append(Verdict(f"assert:{label}", "meaning", PASS, f"{expr} holds", seqs))
        else:
            out.append(Verdict(f"assert:{label}", "meaning", FAIL,
                               f"{expr} gave {json.dumps(found)[:80]}, not true", seqs))
    return out


@check("forms_agree", "meaning")
def forms_agree(ctx: Context) -> Verdict:
    name = "forms_agree"
    found: dict[str, Any] = {}
    seqs: list[int] = []
    problems = []
    for form in FORMS:
        if form not in ctx.profile.tools:
            continue
        try:
            found[form], where = document(ctx, form)
            seqs += where
        except NoBody as exc:
            if exc.status != UNOBTAINABLE:  # a form that cannot be had is left out, like an unnamed one
                problems.append(f"{form}: {exc}")
    if problems:
        return Verdict(name, "meaning", FAIL, "; ".join(problems), seqs)
    if len(found) < 2:
        return Verdict(name, "meaning", UNOBTAINABLE, "fewer than two forms to compare")
    forms = list(found)
    first = forms[0]
    for form in forms[1:]:
        if not same_json(found[first], found[form]):
            return Verdict(name, "meaning", FAIL,
                           f"{form} differs from {first} at {first_difference(found[form], found[first])}", seqs)
    return Verdict(name, "meaning", PASS, f"{', '.join(forms)} carry the same document", seqs)
