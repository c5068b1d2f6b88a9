"""What every check shares: statuses, rule kinds, :class:`Verdict`, :class:`Context`, the
registry's decorator :func:`check` (a check's layer, rule, spec source and row options), and
the helpers that read a recorded result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from mcp_accept.protocol import MODERN, VERSIONS
from mcp_accept.reasons import Reason, reason

PASS, FAIL, UNOBTAINABLE, PENDING = "PASS", "FAIL", "UNOBTAINABLE", "PENDING"
# Which rule a check enforces: a MUST or a SHOULD of the MCP specification (with the spec
# file and section it comes from), a rule the user wrote in their profile (a reference
# document, a mimeType, an assertion, forms declared to carry one document), or a rule the
# sheet chose for itself (its advice). The order is what ``--fail-on`` reads: a run fails on
# every kind up to the one it names, and by default on what the spec and the user demand.
MUST, PROFILE, SHOULD, APP = "must", "profile", "should", "app"
RULES = (MUST, PROFILE, SHOULD, APP)  # strongest first
DEFAULT_FAIL_ON = PROFILE
LAYERS = ("wire", "type", "meaning", "sdk")
# Layers that report but do not decide. The sdk layer tells what one client library does
# with an answer; that is not a rule of the spec, so it never changes a row's status.
ADVISORY_LAYERS = ("sdk",)


@dataclass
class Verdict:
    check: str
    layer: str
    status: str
    detail: str  # given as a Reason, it is kept in ``reason`` and its English is the detail
    seqs: list[int] = field(default_factory=list)  # wire.jsonl entries this verdict rests on
    rule: str | None = None  # must | should | app; None takes the check's registered rule
    source: str | None = None  # spec file and section, for must and should
    reason: Reason | None = None

    def __post_init__(self) -> None:
        if isinstance(self.detail, Reason):
            self.reason, self.detail = self.detail, self.detail.english()

    def said(self) -> Reason | str:
        """The detail as data when it has a reason id, else its text."""
        return self.reason if self.reason is not None else self.detail

    def as_dict(self) -> dict:
        out = {"check": self.check, "layer": self.layer, "rule": self.rule, "source": self.source,
               "status": self.status, "detail": self.detail, "wire_seqs": self.seqs}
        if self.reason is not None:
            out.update(self.reason.as_json())
        return out


SPEC_ROOT = "docs/specification"


def spec(page: str, section: str, version: str = MODERN) -> str:
    """Where a rule is written: ``docs/specification/<version>/<page>#<section>`` in the
    modelcontextprotocol/modelcontextprotocol repository (at the commit of the pinned schemas)."""
    return f"{SPEC_ROOT}/{version}/{page}#{section}"


SPEC_SITE = "https://modelcontextprotocol.io/specification"


def spec_url(source: str | None) -> str | None:
    """The page of the published specification a source names, with its section:
    ``docs/specification/2025-11-25/server/tools.mdx#output-schema`` ->
    ``https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema``
    (an ``index.mdx`` is its folder's page); None for anything else (an RFC, a file edited by hand)."""
    import re

    match = re.fullmatch(r"docs/specification/([0-9]{4}-[0-9]{2}-[0-9]{2})/([A-Za-z0-9_/-]+)\.mdx(#[A-Za-z0-9_-]+)?",
                         source or "")
    if match is None:
        return None
    version, page, section = match.groups()
    page = page.removesuffix("/index") if page != "index" else ""
    return f"{SPEC_SITE}/{version}{'/' + page if page else ''}{section or ''}"


def spec_for(ctx_version: str | None, page: str, section: str) -> str:
    """The same page in the version on the wire (the modern one when none was chosen)."""
    return spec(page, section, ctx_version if ctx_version in VERSIONS else MODERN)


def strongest_failed_rule(verdicts: Iterable[Verdict]) -> str | None:
    """The strongest rule among the FAIL verdicts (must > profile > should > app), or None."""
    failed = {v.rule or APP for v in verdicts if v.status == FAIL}
    return next((rule for rule in RULES if rule in failed), None)


def breaks_threshold(rule: str | None, fail_on: str) -> bool:
    """Whether a row failing ``rule`` counts towards exit 1 under ``--fail-on fail_on``."""
    return rule is not None and RULES.index(rule) <= RULES.index(fail_on)


CheckFn = Callable[["Context"], "Verdict | Iterable[Verdict]"]


@dataclass(frozen=True)
class Registered:
    layer: str
    rule: str
    fn: CheckFn
    # (page, section) in the spec of the version on the wire; None for app rules
    source: tuple[str, str] | None = None
    # the options it reads from its row (--set ROW.option=VALUE or a sheet row's options),
    # with the values each accepts
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)


REGISTRY: dict[str, Registered] = {}


def check(name: str, layer: str, rule: str = APP, source: tuple[str, str] | None = None,
          options: dict[str, tuple[str, ...]] | None = None):
    """Register a check under ``name``; the sheet refers to it by that name.

    ``rule`` is what a FAIL of this check breaks by default (a verdict may say otherwise,
    e.g. a check whose parts enforce different rules); ``source`` is the spec page and
    section of a must or should rule; ``options`` the row options it reads, each with the
    values it accepts.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}")
    if rule in (MUST, SHOULD) and source is None:
        raise ValueError(f"check {name}: a {rule} rule names its spec source")

    def wrap(fn: CheckFn) -> CheckFn:
        REGISTRY[name] = Registered(layer, rule, fn, source, dict(options or {}))
        return fn

    return wrap


LAYER_REASONS = {f"layer.{layer}" for layer in LAYERS}


def combine(verdicts: list[Verdict]) -> tuple[str, str]:
    """A row's status and reason from its verdicts: any FAIL, else any UNOBTAINABLE, else PASS."""
    status, said = combine_reason(verdicts)
    return status, said.english()


def combine_reason(verdicts: list[Verdict]) -> tuple[str, Reason]:
    """:func:`combine`, its reason as data: the parts (each verdict's reason, or its text
    where it has none) joined as a list."""
    for status in (FAIL, UNOBTAINABLE):
        hits = [v for v in verdicts if v.status == status]
        # two checks of a layer that fail for one reason (no tool named for the form) say it once
        said: set = set()
        hits = [v for v in hits if not ((v.layer, v.rule, str(v.detail)) in said
                                        or said.add((v.layer, v.rule, str(v.detail))))]
        if hits:
            parts: list = [_labelled(v) for v in hits[:3]]
            if len(hits) > 3:
                parts.append(reason("row.more", n=len(hits) - 3))
            return status, reason("list.parts", parts=parts)
    if not verdicts:
        return UNOBTAINABLE, reason("row.no-checks")
    return PASS, reason("list.parts", parts=[v.said() for v in verdicts])


def _labelled(v: Verdict) -> Reason:
    """A verdict as it stands in a row's reason: its layer, and for a FAIL the rule it broke."""
    layer = reason(f"layer.{v.layer}") if f"layer.{v.layer}" in LAYER_REASONS else v.layer
    if v.status == FAIL and v.rule:
        return reason("row.part-rule", layer=layer, rule=v.rule, part=v.said())
    return reason("row.part", layer=layer, part=v.said())



def first_few(parts: list, shown: int = 3) -> Reason:
    """The first ``shown`` of ``parts`` (reasons or texts), and how many more there were."""
    if len(parts) > shown:
        return reason("list.more", items=list(parts[:shown]), n=len(parts) - shown)
    return reason("list.parts", parts=list(parts))


def row_status(verdicts: list[Verdict]) -> tuple[str, str]:
    """A row's status and reason: :func:`combine` over the verdicts of the deciding layers."""
    return combine(deciding(verdicts))


def row_reason(verdicts: list[Verdict]) -> Reason:
    """:func:`row_status`'s reason as data."""
    return combine_reason(deciding(verdicts))[1]


def deciding(verdicts: list[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if v.layer not in ADVISORY_LAYERS]


def layer_summary(verdicts: list[Verdict]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for layer in LAYERS:
        mine = [v for v in verdicts if v.layer == layer]
        out[layer] = combine(mine)[0] if mine else None
    return out


@dataclass
class Context:
    """What a check may look at."""

    recording: Any  # mcp_accept.running.runner.Recording
    profile: Any  # mcp_accept.inputs.sheet.Profile
    store: Any  # mcp_accept.schemas.SchemaStore
    options: dict = field(default_factory=dict)

    @property
    def version(self) -> str | None:
        return self.recording.version

    def step(self, name: str):
        return self.recording.steps.get(name)


FORMS = ("text", "structured", "embedded", "link")


def not_offered(ctx: Context, tool: str) -> bool:
    """The server answered tools/list and the profile's tool is not in it: a server the
    profile was not written for, so its rows cannot be established (rather than failed)."""
    listing = ctx.step("tools/list")
    answered = listing is not None and listing.reply is not None and listing.reply.has_result
    return answered and tool not in ctx.recording.tools


def server_capabilities(ctx: Context) -> dict | None:
    """The capabilities the server declared when the version on the wire was agreed: the
    ``initialize`` result (legacy) or the ``server/discover`` result (2026-07-28); None
    when no such answer was recorded, so that nothing is concluded from its absence."""
    found = None
    for entry in ctx.recording.entries:
        message = entry.get("message")
        if entry.get("step") != "discover" or entry.get("dir") != "in" or not isinstance(message, dict):
            continue
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("capabilities"), dict) \
                and entry.get("era") in (None, ctx.version):
            found = result["capabilities"]
    return found


def unlisted_reason(tool: str) -> str:
    return (f"the server lists no tool {tool!r}, and calling it failed: map the rows onto this "
            "server's tools with --profile (mcp-accept profile init writes a first one)")


def call_outcome(ctx: Context, form: str, check_name: str, layer: str):
    """The result dict of a form's tools/call, or a verdict saying why there is none.

    The verdict names the rule its FAIL breaks: a server that never answered broke JSON-RPC
    (basic/index.mdx#messages: all messages MUST follow JSON-RPC 2.0, whose server MUST reply
    to every request); an answer that is not a result object broke the schema; a timeout,
    a size limit, a JSON-RPC error or a tool that reported an error break only what the
    profile expected (a result from this tool), since the spec allows each of them.
    A JSON-RPC error and a result with ``isError: true`` are well-formed answers: the wire
    layer has no item to judge (UNOBTAINABLE, W01 judges the message); the other layers
    FAIL the profile's expectation.
    """
    if form not in ctx.profile.tools:
        return None, Verdict(check_name, layer, UNOBTAINABLE,
                             reason("profile.no-tool", form=form), rule=APP)
    step = ctx.step(f"call:{form}")
    tool = ctx.profile.tools[form].name
    if step is None or step.reply is None:
        why = step.skipped if step is not None and step.skipped else "the call was not made"
        return None, Verdict(check_name, layer, FAIL, reason("call.failed", tool=tool, why=why), rule=APP)
    reply = step.reply
    result = reply.result
    rule, source = APP, None
    if not reply.has_result:
        failure = reply.describe_failure()
        if reply.message is None and not no_answer_is_local(reply):
            rule, source = MUST, spec_for(ctx.version, "basic/index.mdx", "messages")
        elif reply.message is not None and reply.error is None:  # neither result nor error
            rule, source = MUST, spec_for(ctx.version, "basic/index.mdx", "messages")
    elif not isinstance(result, dict):
        return None, Verdict(check_name, layer, FAIL, reason("call.failed", tool=tool, why="result is not an object"),
                             step.seqs, rule=MUST, source=spec_for(ctx.version, "basic/index.mdx", "messages"))
    elif result.get("isError") is True:
        failure = f"the tool reported an error: {tool_error_text(result)}"
    else:
        return result, None
    if not_offered(ctx, tool):
        # How the server refused an unknown tool (an error, or a result with isError) is kept.
        return None, Verdict(check_name, layer, UNOBTAINABLE, f"{unlisted_reason(tool)} ({failure})",
                             step.seqs, rule=APP)
    refused = reply.error is not None or (isinstance(result, dict) and result.get("isError") is True)
    if refused and needs_task(ctx.recording.tools.get(tool)):
        # 2025-11-25 basic/utilities/tasks.mdx#tool-level-negotiation: for taskSupport
        # "required", clients MUST call the tool as a task and servers MUST refuse a plain
        # call. This runner makes plain calls only, so the refusal says nothing of the server.
        return None, Verdict(check_name, layer, UNOBTAINABLE, reason("list.parts", parts=[
            reason("call.failed", tool=tool, why=failure), "the tool declares execution.taskSupport: required "
            "(a client must call it as a task, which this runner does not): name another tool"]), step.seqs, rule=APP)
    guesses = ctx.profile.guesses(f"tools.{form}.arguments.")
    if refused and guesses:
        # The tool refused arguments nobody has checked yet (profile init's placeholders):
        # that says nothing about the server, so the row waits for real arguments.
        return None, Verdict(check_name, layer, UNOBTAINABLE, reason("list.parts", parts=[
            reason("call.failed", tool=tool, why=failure), f"its arguments are still guesses of profile init "
            f"({'; '.join(guesses[:2])}): give real ones and remove them from guessed:"]), step.seqs, rule=APP)
    if refused and layer == "wire":
        return None, Verdict(check_name, layer, UNOBTAINABLE, reason("list.parts", parts=[
            reason("call.failed", tool=tool, why=failure), "no item to judge"]), step.seqs, rule=APP)
    return None, Verdict(check_name, layer, FAIL, reason("call.failed", tool=tool, why=failure), step.seqs,
                         rule=rule, source=source)


def needs_task(tool: dict | None) -> bool:
    """Whether a listed tool may only be called as a task (``execution.taskSupport: required``,
    2025-11-25 server/tools.mdx#tool)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def no_answer_is_local(reply) -> bool:
    """Whether a missing answer is the runner's own limit rather than the server's silence:
    the request's timeout (the server may still answer; no version bounds its time) or
    ``--max-bytes`` (the answer came, larger than this run accepts)."""
    from mcp_accept.transport.messages import timed_out, too_large

    return timed_out(reply) or too_large(reply)


def tool_error_text(result: dict, limit: int = 160) -> str:
    """The first text item of a result with ``isError: true``, shortened, as the tool's own
    account of what went wrong."""
    for item in content_items(result, "text"):
        if isinstance(item.get("text"), str):
            text = " ".join(item["text"].split())
            return text if len(text) <= limit else text[:limit - 3] + "..."
    return "(isError: true, with no text item)"


def content_items(result: dict, kind: str) -> list[dict]:
    content = result.get("content")
    if not isinstance(content, list):
        return []
    return [item for item in content if isinstance(item, dict) and item.get("type") == kind]


def id_key(value):
    """A JSON-RPC id (or progress token) as a key: ``1`` and ``"1"`` are different ids."""
    return (type(value).__name__, repr(value))


def json_integer(value: Any) -> bool:
    """Whether ``value`` is an integer as JSON Schema counts one: any number with no fraction
    (``0.0`` is one), never a boolean. Every check that reads a field the schema types
    ``integer`` asks this, so that no check is stricter than the schema."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def same_json(a: Any, b: Any) -> bool:
    """JSON equality: like ``==`` but ``true`` is not ``1`` and ``false`` is not ``0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def first_difference(a: Any, b: Any, path: str = "$") -> str:
    """Where two JSON values first differ, as a short path and the two values."""
    where, values = difference_at(a, b, path)
    return f"{where}: {values}" if values is not None else where


def difference_at(a: Any, b: Any, path: str = "$") -> tuple[str, str | None]:
    """:func:`first_difference` in two parts: the path and the two values, or a text saying
    which key one side lacks and None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a:
                return f"{path}.{key} missing on one side", None
            if key not in b:
                return f"{path}.{key} missing on the other side", None
            if not same_json(a[key], b[key]):
                return difference_at(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not same_json(x, y):
                return difference_at(x, y, f"{path}[{i}]")
    return path, f"{_short(a)} vs {_short(b)}"


def _short(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
