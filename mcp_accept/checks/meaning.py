"""Meaning layer: what no schema says. The forms carry the reference document, the
text twin says what ``structuredContent`` says, the profile's assertions hold, and
the link's ``size`` is the body's byte length.

Bodies need not be JSON. The profile says per form whether its body is ``json``
(compared by value), ``text`` (compared by characters, line endings read as LF) or
``bytes`` (a ``blob`` after base64 decoding; a ``text`` body as bytes is its UTF-8
encoding). A form may hold several candidates (several text items, several embedded
resources); any of them may carry the document.

Every rule here is the sheet's or the profile's (``app``) except the text twin, which
is the spec's SHOULD (server/tools.mdx#structured-content, the same sentence in
2026-07-28, 2025-11-25 and 2025-06-18)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

import jmespath

from mcp_accept.checks.base import (APP, FAIL, FORMS, PASS, PROFILE, SHOULD, UNOBTAINABLE, Context, Verdict, call_outcome, check, content_items, difference_at, first_difference, same_json)
from mcp_accept.reasons import REASONS, Reason, declare, reason
from mcp_accept.transport.messages import MAX_DEPTH, nesting_depth

# The reasons this module's verdicts give: id and English template (collected into
# mcp_accept.reasons.REASONS; translated in the message catalog, else shown in English).
declare({
    # T01
    "text.equals-reference": "the text item equals the reference document ({how})",
    # S01
    "structured.absent": "structuredContent is absent",
    # S02
    "twin.equal": "the text twin's JSON equals structuredContent",
    "twin.differs": "the text twin differs at {path}: {detail}",
    "twin.absent": "content holds no text twin of structuredContent",
    "twin.not-due": "no structuredContent, so no text twin is due",
    "twin.off": "the text-twin check is off (mode: off)",
    "twin.byte-equal": "a text item is byte-equal to the compact JSON",
    # S03
    "assert.error": "{expr} could not be evaluated: {detail}",
    "assert.false": "{expr} gave {got}, not true",
    "assert.holds": "{expr} holds",
    "assert.none": "the profile has no assertions",
    # E01
    "embedded.equals-reference": "embedded resource {uri} equals the reference document ({how})",
    "embedded.differs": "embedded resource {uri} differs from the reference document ({how}): {detail}",
    "embedded.no-read-needed": "the body came with the call: no resources/read needed",
    "embedded.none": "the result holds no embedded resource with a body",
    # L01
    "link.size-equal": "size {size} equals the body's byte length",
    "link.size-differs": "size {size} but the body read is {n} bytes",
    "link.no-size": "the link declares no size",
    "link.none": "no resource_link item",
    # L02
    "link.equals-reference": "the link's body equals the reference document ({how})",
    "link.read-once": "read {uri} once",
    "link.not-listed": "it is not listed in resources/list",
    "link.listed": "it is listed in resources/list",
    "link.read-times": "read {uri} {times}; it is {where} in resources/list",
    # X01
    "forms.agree": "{forms} carry the same document",
    "forms.differ": "{a} differs from {b} ({what}): {detail} (compared: {forms})",
    "forms.partly": "the forms obtained agree ({agree}), but not every form could be had: {missing}",
    "forms.undeclared": "the profile does not say that the forms carry one document: give it a reference "
                        "document (reference: or reference_file:) or same_document: true",
})


class NoBody(Exception):
    """The form's document could not be had; the message says why. ``rule`` and ``source``
    carry over what the call's own outcome broke (e.g. a request never answered); None
    leaves the check's rule."""

    def __init__(self, message: str | Reason, status: str = FAIL, seqs: list[int] | None = None,
                 rule: str | None = None, source: str | None = None, mismatch: bool = False):
        super().__init__(str(message))
        self.said = message
        self.status = status
        self.seqs = seqs or []
        self.rule = rule
        self.source = source
        self.mismatch = mismatch  # a body is there, but not of the form's body kind

    @classmethod
    def of(cls, early: Verdict) -> "NoBody":
        return cls(early.said(), early.status, early.seqs, early.rule, early.source)

    def verdict(self, name: str) -> Verdict:
        return Verdict(name, "meaning", self.status, self.said, self.seqs, rule=self.rule, source=self.source)


@dataclass
class Body:
    """One candidate body of a form, in the form's body kind."""

    kind: str  # json | text | bytes
    value: Any  # a JSON value, a str or bytes
    where: str  # e.g. "text item 2", "embedded resource report://q3.md"
    mime: str | None = None  # the mimeType its resource declared, if any
    form: str | None = None  # text | embedded | link, where the reasons name it by its form


# --------------------------------------------------------------------------- reading bodies


def decode_blob(blob: str) -> bytes | None:
    try:
        return base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return None


def body_bytes(container: dict) -> bytes | None:
    """The body of a resource contents object (``text`` or ``blob``) as bytes: the raw
    content, before base64 (what a link's ``size`` counts)."""
    if isinstance(container.get("text"), str):
        return container["text"].encode("utf-8")
    if isinstance(container.get("blob"), str):
        return decode_blob(container["blob"])
    return None


def parse_json(text: str, what: str) -> Any:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise NoBody(f"{what} is not JSON ({type(exc).__name__})", mismatch=True) from None
    if nesting_depth(value) > MAX_DEPTH:
        raise NoBody(f"{what} is JSON nested more than {MAX_DEPTH} levels deep; not compared")
    return value


def resource_body(container: dict, kind: str, where: str, form: str | None = None) -> Body:
    """A resource contents object (embedded or read) as a body of ``kind``."""
    mime = container.get("mimeType") if isinstance(container.get("mimeType"), str) else None
    if isinstance(container.get("text"), str):
        text = container["text"]
        data = None
    elif isinstance(container.get("blob"), str):
        data = decode_blob(container["blob"])
        if data is None:
            raise NoBody(f"{where}: blob is not valid base64")
        text = None
    else:
        raise NoBody(f"{where} has no text or blob body")
    if kind == "bytes":
        return Body(kind, data if data is not None else text.encode("utf-8"), where, mime, form)
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise NoBody(f"{where}: its blob is not UTF-8 text (body: {kind}; say body: bytes)",
                         mismatch=True) from None
    if kind == "text":
        return Body(kind, text, where, mime, form)
    return Body(kind, parse_json(text, f"{where} (mimeType {mime})" if mime else where), where, mime, form)


def link_uri(ctx: Context) -> str | None:
    step = ctx.step("call:link")
    if step is None or not step.reply or not isinstance(step.reply.result, dict):
        return None
    links = content_items(step.reply.result, "resource_link")
    return links[0].get("uri") if links and isinstance(links[0].get("uri"), str) else None


def link_contents(ctx: Context) -> dict:
    """The contents item of the link's ``resources/read`` whose uri is the link's."""
    if "link" not in ctx.profile.tools:
        raise NoBody(reason("profile.no-tool", form="link"), UNOBTAINABLE)
    early = call_outcome(ctx, "link", "", "meaning")[1]
    if early is not None:
        raise NoBody.of(early)
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


def bodies(ctx: Context, form: str) -> tuple[list[Body], list[int]]:
    """The candidate bodies a form carries (at least one), with the wire entries they came from.

    A body that is not of the form's kind fails the profile's rule (app), unless that kind
    is still a guess of ``profile init`` (``guessed: tools.<form>.body``): then nobody has
    said what the body should be, and the row cannot be established until someone does."""
    try:
        return _bodies(ctx, form)
    except NoBody as exc:
        guess = ctx.profile.guesses(f"tools.{form}.body")
        if exc.mismatch and exc.status == FAIL and guess:
            raise NoBody(f"{exc}; {guess[0]}", UNOBTAINABLE, exc.seqs, APP, mismatch=True) from None
        raise


def _bodies(ctx: Context, form: str) -> tuple[list[Body], list[int]]:
    kind = ctx.profile.body(form)
    if form == "link":
        item = link_contents(ctx)
        seqs = ctx.step("read:link").seqs
        try:
            return [resource_body(item, kind, "the link's body", "link")], seqs
        except NoBody as exc:
            raise NoBody(exc.said, exc.status, seqs, mismatch=exc.mismatch) from None
    result, early = call_outcome(ctx, form, "", "meaning")
    if early:
        raise NoBody.of(early)
    seqs = ctx.step(f"call:{form}").seqs
    if form == "structured":
        if "structuredContent" not in result:
            raise NoBody(reason("structured.absent"), seqs=seqs)
        return [Body("json", result["structuredContent"], "structuredContent")], seqs
    found: list[Body] = []
    problems: list[str] = []
    mismatched: list[bool] = []  # per problem: a body of another kind (not a missing one)
    if form == "text":
        texts = [i["text"] for i in content_items(result, "text") if isinstance(i.get("text"), str)]
        if not texts:
            raise NoBody(reason("text.no-item"), seqs=seqs)
        for n, text in enumerate(texts, 1):
            where = f"text item {n}" if len(texts) > 1 else "the text item"
            if kind == "text":
                found.append(Body(kind, text, where, form="text"))
            elif kind == "bytes":
                found.append(Body(kind, text.encode("utf-8"), where, form="text"))
            else:  # a preface or a note beside the JSON is allowed: only JSON items are candidates
                try:
                    found.append(Body(kind, parse_json(text, where), where, form="text"))
                except NoBody as exc:
                    problems.append(str(exc))
                    mismatched.append(exc.mismatch)
    else:
        for item in content_items(result, "resource"):
            res = item.get("resource")
            if isinstance(res, dict):
                where = f"embedded resource {res.get('uri')}"
                try:
                    found.append(resource_body(res, kind, where, "embedded"))
                except NoBody as exc:
                    problems.append(str(exc))
                    mismatched.append(exc.mismatch)
        if not found and not problems:
            raise NoBody("content holds no embedded resource with a body", seqs=seqs)
    if not found:
        hint = " (for prose or another document that is not JSON, give the form body: text)" \
            if kind == "json" and form == "text" else ""
        raise NoBody("; ".join(problems[:3]) + hint, seqs=seqs, mismatch=all(mismatched))
    return found, seqs


# --------------------------------------------------------------------------- comparing bodies


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _as_json(body: Body) -> Any:
    if body.kind == "json":
        return body.value
    if body.kind == "text":
        return parse_json(body.value, body.where)
    try:
        return parse_json(body.value.decode("utf-8"), body.where)
    except UnicodeDecodeError:
        raise NoBody(f"{body.where} is not UTF-8 text, so not JSON") from None


def _text_difference(a: str, b: str) -> str:
    for n, (x, y) in enumerate(zip(a.split("\n"), b.split("\n")), 1):
        if x != y:
            return f"line {n}: {_clip(x)} vs {_clip(y)}"
    return f"{a.count(chr(10)) + 1} lines vs {b.count(chr(10)) + 1} lines"


def _clip(text: str) -> str:
    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= 60 else shown[:57] + '..."'


def difference(a: Body, b: Body) -> str | None:
    """None when two bodies carry the same document, else where they differ.

    The pair decides how: JSON with JSON by value; JSON with text or bytes by parsing the
    other as JSON; text with text by characters after CRLF/CR -> LF; bytes with bytes (or a
    text as its UTF-8 encoding) byte for byte."""
    if "json" in (a.kind, b.kind):
        try:
            x, y = _as_json(a), _as_json(b)
        except NoBody as exc:
            return str(exc)
        return None if same_json(x, y) else f"at {first_difference(x, y)}"
    if a.kind == b.kind == "text":
        x, y = _lf(a.value), _lf(b.value)
        return None if x == y else _text_difference(x, y)
    x = a.value if a.kind == "bytes" else a.value.encode("utf-8")
    y = b.value if b.kind == "bytes" else b.value.encode("utf-8")
    if x == y:
        return None
    at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f"{len(x)} bytes vs {len(y)} bytes, first difference at byte {at}"


# --------------------------------------------------------------------------- against the reference


def _media_type(value: str) -> tuple[str, list[str]]:
    kind, *params = value.split(";")
    return kind.strip().lower(), sorted(p.strip().lower().replace(" ", "") for p in params if p.strip())


def same_mime(got: str | None, wanted: str) -> bool:
    """Whether a declared mimeType is the profile's: type and subtype match case-insensitively;
    parameters (``charset=...``) count only when the profile names some."""
    if got is None:
        return False
    (got_type, got_params), (want_type, want_params) = _media_type(got), _media_type(wanted)
    return got_type == want_type and (not want_params or got_params == want_params)


def _mime_verdict(ctx: Context, form: str, name: str, body: Body, seqs: list[int]) -> Verdict | None:
    """The profile's mime_type for a resource form (a rule of the profile): the body's mimeType names it, and a
    resource_link that declares one declares the same."""
    wanted = ctx.profile.tools[form].mime_type
    if wanted is None:
        return None
    check_name = f"{name}.mime_type"
    if not same_mime(body.mime, wanted):
        got = f"mimeType {body.mime!r}" if body.mime is not None else "no mimeType"
        return Verdict(check_name, "meaning", FAIL, f"{body.where} has {got}, the profile names {wanted!r}",
                       seqs, rule=PROFILE)
    if form == "link":
        step = ctx.step("call:link")
        links = content_items(step.reply.result, "resource_link") if step and step.reply else []
        declared = links[0].get("mimeType") if links else None
        if isinstance(declared, str) and not same_mime(declared, wanted):
            return Verdict(check_name, "meaning", FAIL,
                           f"the resource_link declares mimeType {declared!r}, the profile names {wanted!r}",
                           step.seqs, rule=PROFILE)
    return Verdict(check_name, "meaning", PASS, f"{body.where} has mimeType {wanted!r}", seqs, rule=PROFILE)


def _against_reference(ctx: Context, form: str, name: str) -> list[Verdict]:
    """Rule of the profile: a body of the form equals the profile's reference document,
    compared by the form's body kind; and its mimeType is the one the profile names, if it
    names one. Without a reference the row only says what body came (a rule of the sheet)."""
    expected = ctx.profile.reference_for(form)
    try:
        found, seqs = bodies(ctx, form)
    except NoBody as exc:
        verdict = exc.verdict(name)
        if expected is not None and verdict.status == FAIL and verdict.rule in (None, APP):
            # The user wrote the document this form should carry, and none came.
            verdict.rule = PROFILE
        return [verdict]
    kind = ctx.profile.body(form)
    if expected is None:
        verdict = Verdict(name, "meaning", PASS, f"{found[0].where} is a {kind} body (no reference "
                          "document in the profile)", seqs, rule=APP)
        carrier = found[0]
    else:
        ref = Body(expected.kind, expected.value, expected.origin)
        if expected.kind != kind:  # a JSON reference for a text or bytes body
            kind = f"{kind} read as JSON"
        differences = [(body, difference(body, ref)) for body in found]
        carrier = next((body for body, diff in differences if diff is None), None)
        if carrier is not None:
            how = f"{kind}, {expected.origin}"
            verdict = Verdict(name, "meaning", PASS, _by_form(carrier, "equals-reference", how,
                              f"{carrier.where} equals the reference document ({how})"), seqs, rule=PROFILE)
        else:
            carrier, diff = differences[0]
            several = f"none of {len(found)} candidates equals it; " if len(found) > 1 else ""
            how = f"{kind}, {expected.origin}"
            text = f"{several}{carrier.where} differs from the reference document ({how}): {diff}"
            verdict = Verdict(name, "meaning", FAIL, text if several else _by_form(
                carrier, "differs", how, text, detail=diff), seqs, rule=PROFILE)
    mime = _mime_verdict(ctx, form, name, carrier, seqs) if form in ("embedded", "link") else None
    return [verdict] + ([mime] if mime else [])


def _by_form(body: Body, what: str, how: str, text: str, **params) -> Reason | str:
    """The reason ``<form>.<what>`` for a body that is its form's only one, else ``text``."""
    if body.form == "text" and body.where == "the text item" and f"text.{what}" in REASONS:
        return reason(f"text.{what}", how=how, **params)
    if body.form == "embedded":
        return reason(f"embedded.{what}", uri=body.where.removeprefix("embedded resource "), how=how, **params)
    if body.form == "link" and f"link.{what}" in REASONS:
        return reason(f"link.{what}", how=how, **params)
    return text


@check("text_is_reference", "meaning")
def text_is_reference(ctx: Context) -> list[Verdict]:
    return _against_reference(ctx, "text", "text_is_reference")


@check("embedded_is_reference", "meaning")
def embedded_is_reference(ctx: Context) -> list[Verdict]:
    return _against_reference(ctx, "embedded", "embedded_is_reference")


@check("link_is_reference", "meaning")
def link_is_reference(ctx: Context) -> list[Verdict]:
    return _against_reference(ctx, "link", "link_is_reference")


# --------------------------------------------------------------------------- how the bodies came


def _reads_of(ctx: Context, uri: str) -> int:
    """How many resources/read of ``uri`` the runner asked. A request sent again under the
    same id (a legacy HTTP session that expired and was re-initialized) is one read, and so are
    the rounds of one step that follows 2026-07-28 input_required results (a new id each,
    mrtr.mdx): the rounds are one read the server asked to be completed."""
    ids = set()
    for entry in ctx.recording.entries:
        message = entry.get("message")
        if (entry["dir"] == "out" and isinstance(message, dict) and message.get("method") == "resources/read"
                and (message.get("params") or {}).get("uri") == uri):
            params = message.get("params") or {}
            if "requestState" in params or "inputResponses" in params:
                continue  # a later round of a read already counted
            ids.add(repr(message.get("id")))
    return len(ids)


@check("no_read_needed", "meaning")
def no_read_needed(ctx: Context) -> Verdict:
    """Rule of the sheet (app): the embedded tool's result carries the body itself, so a
    client needs no resources/read. The spec lets a tool return a resource_link instead
    (server/tools.mdx#resource-links); that tool is then the profile's link form."""
    name = "no_read_needed"
    result, early = call_outcome(ctx, "embedded", name, "meaning")
    if early:
        return early
    seqs = ctx.step("call:embedded").seqs
    for item in content_items(result, "resource"):
        res = item.get("resource")
        if isinstance(res, dict) and (isinstance(res.get("text"), str) or isinstance(res.get("blob"), str)):
            return Verdict(name, "meaning", PASS, reason("embedded.no-read-needed"), seqs)
    if content_items(result, "resource_link"):
        return Verdict(name, "meaning", FAIL, "the result holds a resource_link, not an embedded body: "
                       "a client must read it with resources/read", seqs)
    return Verdict(name, "meaning", FAIL, reason("embedded.none"), seqs)


@check("link_read_once", "meaning")
def link_read_once(ctx: Context) -> Verdict:
    """Rule of the sheet (app): one resources/read of the link's URI gives its contents,
    whether or not resources/list lists it (the spec does not promise it is listed:
    server/tools.mdx#resource-links). Records which; more than one read is the runner's
    doing (a retry), not the server's, so it is reported, never failed."""
    name = "link_read_once"
    try:
        link_contents(ctx)
    except NoBody as exc:
        return exc.verdict(name)
    uri = link_uri(ctx)
    listed = uri in ctx.recording.listed_uris
    reads = _reads_of(ctx, uri)
    if reads == 1:
        said = reason("list.parts", parts=[reason("link.read-once", uri=uri),
                                          reason("link.listed" if listed else "link.not-listed")])
    else:
        said = reason("link.read-times", uri=uri, times=f"{reads} times (retried by the runner)",
                      where="listed" if listed else "not listed")
    return Verdict(name, "meaning", PASS, said, ctx.step("read:link").seqs)


@check("link_size", "meaning")
def link_size(ctx: Context) -> Verdict:
    """Rule of the sheet (app): a resource_link's ``size``, if given, equals the byte length
    of the raw body read (before base64). The spec calls it the size "if known", a hint for
    hosts (schema: Resource.size; server/resources.mdx#resource), not a promise."""
    name = "link_size"
    result, early = call_outcome(ctx, "link", name, "meaning")
    if early:
        return early
    links = content_items(result, "resource_link")
    if not links:
        return Verdict(name, "meaning", FAIL, reason("link.none"))
    if "size" not in links[0]:
        return Verdict(name, "meaning", PASS, reason("link.no-size"))
    size = links[0]["size"]
    try:
        data = body_bytes(link_contents(ctx))
    except NoBody as exc:
        return Verdict(name, "meaning", UNOBTAINABLE, f"size {size!r} cannot be compared: {exc}")
    if data is None:
        return Verdict(name, "meaning", UNOBTAINABLE, "size cannot be compared: the body is unreadable")
    if isinstance(size, bool) or size != len(data):
        return Verdict(name, "meaning", FAIL, reason("link.size-differs", size=repr(size), n=len(data)),
                       ctx.step("call:link").seqs)
    return Verdict(name, "meaning", PASS, reason("link.size-equal", size=str(size)),
                   ctx.step("call:link").seqs)


# --------------------------------------------------------------------------- structured content


def twin_mode(ctx: Context) -> str:
    return str(ctx.options.get("mode") or ctx.profile.twin or "json-equal")


# A tool returning structured content SHOULD, for older clients, also put that JSON,
# serialized, in a text block. The rule reads the same in 2026-07-28, 2025-11-25 and
# 2025-06-18 (server/tools.mdx, Structured Content); spec_for names the version on the wire.
TWIN_SOURCE = ("server/tools.mdx", "structured-content")


@check("text_twin", "meaning", rule=SHOULD, source=TWIN_SOURCE,
       options={"mode": ("json-equal", "exact", "off")})
def text_twin(ctx: Context) -> Verdict:
    """The spec's SHOULD: some text item holds JSON equal to structuredContent (any item: the
    spec names no position or format). Mode exact adds a rule of the sheet (app): that item
    is byte-equal to the compact dump."""
    name = "text_twin"
    mode = twin_mode(ctx)
    if mode == "off":
        return Verdict(name, "meaning", UNOBTAINABLE, reason("twin.off"))
    result, early = call_outcome(ctx, "structured", name, "meaning")
    if early:
        if early.rule is None:  # the call's outcome is not the twin rule
            early.rule = APP
        return early
    seqs = ctx.step("call:structured").seqs
    if "structuredContent" not in result:
        # The SHOULD binds a tool that returns structured content; S01 judges its absence.
        return Verdict(name, "meaning", UNOBTAINABLE, reason("twin.not-due"), seqs)
    value = result["structuredContent"]
    texts = [i["text"] for i in content_items(result, "text") if isinstance(i.get("text"), str)]
    if not texts:
        return Verdict(name, "meaning", FAIL, reason("twin.absent"), seqs)
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
            break
        where, values = difference_at(parsed, value)
        last = reason("twin.differs", path=where, detail=values) if values is not None \
            else f"the text twin differs at {where}"
    else:
        return Verdict(name, "meaning", FAIL, last, seqs)
    if mode != "exact":
        return Verdict(name, "meaning", PASS, reason("twin.equal"), seqs)
    # byte equality is what the user asked for (twin: exact, or --set S02.mode=exact)
    compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if compact in texts:
        return Verdict(name, "meaning", PASS, reason("twin.byte-equal"), seqs, rule=PROFILE)
    return Verdict(name, "meaning", FAIL, "the text twin's JSON equals structuredContent, but no text item "
                   "is byte-equal to its compact dump (mode: exact)", seqs, rule=PROFILE)


ASSERTION_SECONDS = 3.0  # one JMESPath assertion over structuredContent


def _search(expr: str, value):
    try:
        return jmespath.search(expr, value)
    except RecursionError:
        raise ValueError("nested too deeply to evaluate") from None


@check("assertions", "meaning", rule=PROFILE)
def assertions(ctx: Context) -> list[Verdict]:
    """Rule of the profile: each JMESPath assertion is true on structuredContent."""
    if not ctx.profile.assertions:
        return [Verdict("assertions", "meaning", UNOBTAINABLE, reason("assert.none"))]
    try:
        found, seqs = bodies(ctx, "structured")
    except NoBody as exc:
        return [exc.verdict("assertions")]
    from mcp_accept.evidence import bounded

    value = found[0].value
    out = []
    for label, expr in ctx.profile.assertions:
        # The expression is the user's, the value the server's: evaluated in a child process
        # with a time and memory limit, so that no pair of them can hang or exhaust the run.
        seconds = bounded.seconds_left(ASSERTION_SECONDS)
        try:
            result = bounded.call(_search, expr, value, seconds=seconds)
        except bounded.TooCostly as exc:
            why = f"took longer than {seconds:g}s" if exc.why == "time" else exc.why
            out.append(Verdict(f"assert:{label}", "meaning", FAIL,
                               f"{expr}: evaluating it {why}; too costly to check, refused", seqs))
            continue
        except RuntimeError as exc:
            out.append(Verdict(f"assert:{label}", "meaning", FAIL,
                               reason("assert.error", expr=expr, detail=str(exc)), seqs))
            continue
        if result is True:
            out.append(Verdict(f"assert:{label}", "meaning", PASS, reason("assert.holds", expr=expr), seqs))
        else:
            out.append(Verdict(f"assert:{label}", "meaning", FAIL,
                               reason("assert.false", expr=expr, got=json.dumps(result)[:80]), seqs))
    return out


# --------------------------------------------------------------------------- the forms together


def _agreeing(first: list[Body], other: list[Body]) -> tuple[Body, Body] | None:
    """A pair of candidates, one from each form, that carry the same document, or None."""
    for a in first:
        for b in other:
            if difference(a, b) is None:
                return a, b
    return None


@check("forms_agree", "meaning", rule=PROFILE)
def forms_agree(ctx: Context) -> Verdict:
    """Rule of the profile: the forms that were had carry the same document, each compared
    by its body kind (see :func:`difference`). Only a profile that says so is held to it
    (a reference document for the whole profile, or ``same_document: true``): many servers
    give each form a document of its own, which breaks no rule. A form that could not be
    had is left out and named; then the row cannot be established unless a difference is
    found."""
    name = "forms_agree"
    if not (ctx.profile.has_reference or ctx.profile.same_document):
        return Verdict(name, "meaning", UNOBTAINABLE, reason("forms.undeclared"))
    had: dict[str, list[Body]] = {}
    seqs: list[int] = []
    missing: list[str] = []
    # A body that arrived but is not of the kind the profile declares was had, and it is not
    # the document the others carry: the forms differ. Only a body that never came (or whose
    # kind is still a guess) leaves the form out.
    unlike: list[str] = []
    for form in FORMS:
        if form not in ctx.profile.tools:
            missing.append(f"{form} (the profile names no {form} tool)")
            continue
        try:
            had[form], where = bodies(ctx, form)
            seqs += where
        except NoBody as exc:
            if exc.mismatch and exc.status == FAIL:
                unlike.append(f"{form} ({exc})")
                seqs += exc.seqs
            else:
                missing.append(f"{form} ({exc})")
    forms = list(had)
    compared = ", ".join(forms) if forms else "none"
    # Candidates of the first form that agree with every other form had so far.
    anchor_form = next((f for f in forms if len(had[f]) == 1), forms[0] if forms else None)
    anchors = list(had[anchor_form]) if anchor_form else []
    for form in forms:
        if form == anchor_form:
            continue
        kept = [a for a in anchors if _agreeing([a], had[form]) is not None]
        if not kept:
            a, b = anchors[0], had[form][0]
            return Verdict(name, "meaning", FAIL, reason("forms.differ", a=form, b=anchor_form,
                                                         what=f"{b.where} vs {a.where}", detail=difference(b, a),
                                                         forms=compared), seqs)
        anchors = kept
    if unlike:
        return Verdict(name, "meaning", FAIL, f"the forms differ: {'; '.join(unlike)} is not of the body kind "
                       f"the profile declares (compared: {compared})", seqs)
    if missing:
        if len(forms) < 2:
            return Verdict(name, "meaning", UNOBTAINABLE, f"fewer than two forms to compare (had: {compared}; "
                           f"not had: {'; '.join(missing)})", seqs)
        return Verdict(name, "meaning", UNOBTAINABLE, reason("forms.partly", agree=compared,
                                                               missing=missing), seqs)
    return Verdict(name, "meaning", PASS, reason("forms.agree", forms=compared), seqs)
