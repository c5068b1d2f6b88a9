"""``mcp-accept profile init``: a starting profile from what a server shows.

The server is asked for its tools (and, where it has them, its resource templates), and
calls the tools it may: those it marks read-only (``annotations.readOnlyHint: true``) and
those the user names (``--call``), never one it marks destructive (``destructiveHint: true``).
Each result form gets a tool whose result was seen to have that form (a text item,
``structuredContent``, an embedded resource, a ``resource_link``); a form no result showed
falls back to the tool that most plainly offers it: the structured form the tool that
declares an ``outputSchema``, the others a tool whose name or description says so. Arguments come from each tool's ``inputSchema``
(``default``, ``examples``, ``enum``, ``const``) or else a placeholder. Whatever had
to be guessed is listed under ``guessed:`` in the profile, for a person to check.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from mcp_accept.checks.base import needs_task
from mcp_accept.untrusted import yaml_comment

from mcp_accept.errors import InputError, ServerError
from mcp_accept.inputs.profile import PLACEHOLDER_MARK
from mcp_accept.transport.session import Session

PLACEHOLDER_STRING = "MCP"
PLACEHOLDERS = {"string": PLACEHOLDER_STRING, "integer": 1, "number": 1, "boolean": True, "array": [],
                "object": {}, "null": None}
# What a tool's name or description says about the form of its result.
HINTS = {
    "link": re.compile(r"link", re.I),
    "embedded": re.compile(r"embed|resource", re.I),
    "text": re.compile(r"text|plain|string", re.I),
    "structured": re.compile(r"struct|json|object", re.I),
}
MAX_PAGES = 50
# What profile init writes for an argument it cannot guess at all (an object or array, or a
# string of a format such as uri or date-time, with nothing in its schema to go by): a value
# no tool accepts, which `run` refuses with the profile's line until a person replaces it.


def placeholder(name: str) -> str:
    return f"{PLACEHOLDER_MARK}: {name}>"
# The first quoted example in a property's description: "e.g. 'X'", "e.g., \"X\"", "for example `X`".
EXAMPLE_IN_TEXT = re.compile(r"(?:e\.g\.|for example)[,:]?\s*['\"`]([^'\"`\n]{1,200})['\"`]", re.I)


@dataclass
class Discovery:
    """What the server showed: its name, version on the wire, tools and resource templates."""

    server_name: str | None = None
    version: str | None = None
    tools: list[dict] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)
    # what each called tool's result held: name -> Seen
    seen: dict[str, "Seen"] = field(default_factory=dict)


@dataclass
class Seen:
    """One call of a tool at ``profile init``: whether it gave a result (not an error), the
    forms its result had, and whether its text and embedded bodies read as JSON."""

    ok: bool
    forms: tuple[str, ...] = ()
    json_bodies: dict[str, bool] = field(default_factory=dict)


# Calls made while mapping, at most: a server with many read-only tools is not run through.
MAX_CALLS = 24


def may_call(tool: dict, named: tuple[str, ...] = ()) -> bool:
    """Whether ``profile init`` may call the tool: never one marked destructive; one marked
    read-only, or one the user named."""
    if _annotation(tool, "destructiveHint") is True or needs_task(tool):
        return False
    return _annotation(tool, "readOnlyHint") is True or tool.get("name") in named


def _is_json(text) -> bool:
    import json

    try:
        json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def classify(result) -> Seen:
    """The forms a tools/call result actually has."""
    if not isinstance(result, dict) or result.get("isError") is True:
        return Seen(False)
    content = [item for item in result.get("content") or () if isinstance(item, dict)]
    forms: list[str] = []
    bodies: dict[str, bool] = {}
    texts = [item.get("text") for item in content if item.get("type") == "text"]
    if texts:
        forms.append("text")
        bodies["text"] = any(_is_json(t) for t in texts)
    if "structuredContent" in result:
        forms.append("structured")
    embedded = [item.get("resource") for item in content if item.get("type") == "resource"]
    if embedded:
        forms.append("embedded")
        inner = embedded[0] if isinstance(embedded[0], dict) else {}
        bodies["embedded"] = "text" in inner and _is_json(inner.get("text"))
    if any(item.get("type") == "resource_link" for item in content):
        forms.append("link")
    return Seen(True, tuple(forms), bodies)


def discover(transport, *, protocol: str = "auto", timeout: float = 10.0, call: tuple[str, ...] = ()) -> Discovery:
    """Open ``transport``, negotiate, list the tools and resource templates, call the tools
    it may (:func:`may_call`) to see the forms of their results, close."""
    found = Discovery()
    transport.open()
    try:
        session = Session(transport, timeout=timeout)
        negotiation = session.negotiate(protocol)
        if not negotiation.ok:
            raise ServerError("the server could not be spoken to: " + ("; ".join(negotiation.attempts)
                                                                        or "no answer"))
        found.version = negotiation.version
        info = negotiation.server_info or {}
        found.server_name = info.get("name") if isinstance(info.get("name"), str) else None
        found.tools = _paged(session, "tools/list", "tools", required=True)
        found.templates = [t["uriTemplate"] for t in _paged(session, "resources/templates/list",
                                                            "resourceTemplates", required=False)
                           if isinstance(t.get("uriTemplate"), str)]
        callable_ = [t for t in found.tools if isinstance(t.get("name"), str) and may_call(t, call)]
        for tool in callable_[:MAX_CALLS]:
            reply = session.send("tools/call", {"name": tool["name"], "arguments": guess_arguments(tool)[0]})
            found.seen[tool["name"]] = classify(reply.result if reply.has_result else None)
        try:
            transport.end_session(timeout=timeout)
        except Exception:  # a courtesy only
            pass
    finally:
        transport.close()
    return found


def _paged(session: Session, method: str, key: str, *, required: bool) -> list[dict]:
    items: list[dict] = []
    cursor, seen = None, set()
    for _ in range(MAX_PAGES):
        # server/utilities/pagination.mdx: the cursor is opaque, so an empty string is a
        # cursor like any other; only an absent nextCursor ends the list.
        reply = session.send(method, {"cursor": cursor} if cursor is not None else {})
        if not reply.has_result or not isinstance(reply.result, dict):
            if required:
                raise ServerError(f"{method}: {reply.describe_failure()}")
            return items
        items += [item for item in reply.result.get(key) or [] if isinstance(item, dict)]
        cursor = reply.result.get("nextCursor")
        if not isinstance(cursor, str) or cursor in seen:
            break
        seen.add(cursor)
    return items


# -- guessing ---------------------------------------------------------------------------------

def _tool_text(tool: dict) -> str:
    return " ".join(str(tool.get(k) or "") for k in ("name", "title", "description"))


def _annotation(tool: dict, key: str):
    annotations = tool.get("annotations")
    return annotations.get(key) if isinstance(annotations, dict) else None


def changes_state(tool: dict) -> bool:
    """Whether the tool says it modifies its environment: ``readOnlyHint: false``, or
    ``destructiveHint: true`` without ``readOnlyHint: true`` (ToolAnnotations in the schema of
    every version; hints only, which is why a tool that says nothing is not passed over).
    The run calls every chosen tool, so a tool that says it creates, edits or deletes
    something is never picked for a person to find out later."""
    read_only = _annotation(tool, "readOnlyHint")
    return read_only is False or (read_only is not True and _annotation(tool, "destructiveHint") is True)


def _guesses(tool: dict) -> int:
    """How many required arguments of the tool would be guessed (no const in its schema)."""
    return len(guess_arguments(tool)[1])


def _preference(tool: dict) -> tuple[int, int]:
    """Sort key among the candidates for a form: a tool that says it is read-only first,
    then the one needing the fewest guessed arguments (list order breaks ties)."""
    return (0 if _annotation(tool, "readOnlyHint") is True else 1, _guesses(tool))


def choose_tools(tools: list[dict], seen: dict[str, Seen] | None = None) -> tuple[dict[str, dict], list[str]]:
    """Which tool serves each form; and the notes on what was guessed. A form some called
    tool's result was seen to have gets that tool (the one whose result has the fewest other
    forms); the rest are guessed from tools/list, never from a tool whose result was seen
    without the form."""
    chosen: dict[str, dict] = {}
    guessed: list[str] = []
    taken: set[str] = set()
    seen = seen or {}
    named = [t for t in tools if isinstance(t.get("name"), str) and t["name"]]
    for form in ("structured", "link", "embedded", "text"):
        shown = [t for t in named if t["name"] not in taken and seen.get(t["name"]) is not None
                 and seen[t["name"]].ok and form in seen[t["name"]].forms]
        if form == "text":  # a text twin of structuredContent is the structured form's
            shown = [t for t in shown if "structured" not in seen[t["name"]].forms] or shown
        if shown:
            pick = min(shown, key=lambda t: (len(seen[t["name"]].forms), *_preference(t)))
            chosen[form] = pick
            taken.add(pick["name"])
    called = {name for name, s in seen.items() if s.ok}
    passed = [t["name"] for t in named if changes_state(t)]
    tasks = [t["name"] for t in named if needs_task(t) and not changes_state(t)]
    named = [t for t in named if not changes_state(t) and not needs_task(t)]
    if passed:
        guessed.append(f"tools: passed over {', '.join(passed)} (their annotations say a call changes "
                       "the server's state); name one only if that is safe")
    if tasks:
        guessed.append(f"tools: passed over {', '.join(tasks)} (execution.taskSupport: required: a client "
                       "must call it as a task, and the run makes plain calls)")

    structured = sorted((t for t in named if "outputSchema" in t and t["name"] not in called), key=_preference)
    if structured and "structured" not in chosen:
        # The name or description breaks ties only: a read-only tool that needs no guessed
        # argument is likelier to answer at all.
        pick = min(structured, key=lambda t: (*_preference(t), not HINTS["structured"].search(_tool_text(t))))
        chosen["structured"] = pick
        taken.add(pick["name"])
        if len(structured) > 1:
            guessed.append(f"tools.structured: {pick['name']} is one of {len(structured)} tools that "
                           "declare an outputSchema")
    for form in ("link", "embedded", "text"):
        if form in chosen:
            continue
        hinted = sorted((t for t in named if t["name"] not in taken and t["name"] not in called
                         and HINTS[form].search(_tool_text(t))), key=_preference)
        if form == "text":
            hinted = [t for t in hinted if "outputSchema" not in t] or hinted
        if hinted:
            pick = hinted[0]
            chosen[form] = pick
            taken.add(pick["name"])
            guessed.append(f"tools.{form}: {pick['name']} chosen by its name or description; "
                           f"check that its result really is {_FORM_WORDS[form]}")
    missing = [f for f in ("text", "structured", "embedded", "link") if f not in chosen]
    for form in missing:
        guessed.append(f"tools.{form}: no tool's result had it, and none looked like it; its rows stay "
                       "UNOBTAINABLE until one is named")
    return chosen, guessed


_FORM_WORDS = {"text": "a text item holding JSON", "embedded": "an embedded resource",
               "link": "a resource_link", "structured": "structuredContent"}


def guess_arguments(tool: dict) -> tuple[dict, list[str]]:
    """Arguments for the required properties of the tool's inputSchema, and what was guessed."""
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return {}, []
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    args: dict[str, Any] = {}
    guessed: list[str] = []
    for name in required:
        prop = props.get(name) if isinstance(props.get(name), dict) else {}
        value, certain = _value_for(prop)
        if value is None and not certain and prop.get("type") != "null":
            value = placeholder(name)
        args[name] = value
        if not certain:
            guessed.append(f"tools.*.arguments.{name} of {tool['name']}: placeholder {value!r}")
    return args, guessed


def _value_for(prop: dict) -> tuple[Any, bool]:
    if "const" in prop:
        return prop["const"], True
    if "default" in prop:
        return prop["default"], False
    examples = prop.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0], False
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0], False
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    # Many servers give their example in prose ("IANA timezone name (e.g., 'Europe/London')"):
    # a value the tool is meant to accept, where a made-up placeholder usually is not.
    described = EXAMPLE_IN_TEXT.search(prop.get("description") or "") \
        if isinstance(prop.get("description"), str) else None
    if kind == "string" and described:
        return described.group(1), False
    if kind in ("object", "array") or (kind == "string" and isinstance(prop.get("format"), str)):
        return None, False  # nothing to go by: a placeholder a person must replace
    return PLACEHOLDERS.get(kind, PLACEHOLDER_STRING), False


def guess_assertions(tool: dict | None) -> list[dict]:
    """``total == length(hits)`` where the outputSchema has an integer total and an array of hits."""
    schema = (tool or {}).get("outputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []
    total, hits = props.get("total"), props.get("hits")
    if isinstance(total, dict) and total.get("type") == "integer" and isinstance(hits, dict) \
            and hits.get("type") == "array":
        return [{"name": "total-matches-hits", "expr": "total == length(hits)"}]
    return []


def guess_unknown_uri(templates: list[str]) -> str:
    schemes = [urlsplit(t).scheme for t in templates if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", t)]
    scheme = schemes[0] if schemes else "mcp-accept"
    return f"{scheme}://mcp-accept-unknown/does-not-exist"


def profile_name(server_name: str | None) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", server_name or "").strip("-._")
    return name if name and name[0].isalnum() else "server"


def build_profile(found: Discovery) -> dict:
    chosen, guessed = choose_tools(found.tools, found.seen)
    tools: dict[str, dict] = {}
    for form in ("text", "structured", "embedded", "link"):
        tool = chosen.get(form)
        if tool is None:
            continue
        args, notes = guess_arguments(tool)
        tools[form] = {"name": tool["name"], "arguments": args}
        seen = found.seen.get(tool["name"])
        if seen is not None and seen.ok:
            # the call with these arguments gave a result of this form: nothing left to guess
            # of them, and a text or embedded body is JSON or not as it was seen
            if form in seen.json_bodies:
                if not seen.json_bodies[form]:
                    tools[form]["body"] = "text"
                continue
            if form == "structured":
                continue
        else:
            guessed += [n.replace("tools.*", f"tools.{form}") for n in notes]
        if form != "structured":  # tools/list says nothing of what a body holds
            guessed.append(f"tools.{form}.body: json assumed (the default); say body: text for prose, "
                           "body: bytes for a binary blob")
    assertions = guess_assertions(chosen.get("structured"))
    if assertions:
        guessed.append("assertions: total == length(hits) guessed from the outputSchema's total and hits")
    guessed.append("unknown_uri: made up; it must name a resource the server does not have")
    return {
        "profile": profile_name(found.server_name),
        "tools": tools,
        "reference": None,
        "twin": "json-equal",
        "assertions": assertions,
        "unknown_uri": guess_unknown_uri(found.templates),
        "guessed": guessed,
    }


def render(profile: dict, found: Discovery) -> str:
    """The profile as YAML, with a header saying where it came from and what to check."""
    from mcp_accept.inputs.files import _validator

    errors = sorted(_validator("profile").iter_errors(profile), key=lambda e: list(e.path))
    if errors:  # a bug here, not the user's input: say so plainly
        raise ValueError(f"generated profile is invalid: {errors[0].message}")
    head = [
        # the server's own name and version: one line each, whatever it sent (no key injected)
        f"# Starting profile for {_comment(found.server_name or 'an MCP server')}, written by "
        "`mcp-accept profile init`",
        f"# from its tools/list (protocol {_comment(found.version)}). Check every entry under `guessed:`,",
        "# then set `reference:` to the document the tools should return (null compares the",
        "# forms with each other) and remove `guessed:` once everything is checked. While a",
        "# tool's arguments or body kind are listed there, a refusal of them is UNOBTAINABLE, not FAIL.",
        "",
    ]
    # Short lists stay on one line ([q, limit]); the notes under guessed: are a block list, one
    # note a line, so a person can read them and delete each one once it is checked.
    rest = {key: value for key, value in profile.items() if key != "guessed"}
    body = "".join(line + ("  # profile init could not guess this argument: give a real value"
                           if PLACEHOLDER_MARK in line else "") + "\n"
                   for line in _dump(rest, flow=None).splitlines())
    if "guessed" in profile:
        body += _dump({"guessed": [_Note(note) for note in profile["guessed"]]}, flow=False)
    return "\n".join(head) + body


class _Note(str):
    """A note under guessed:, written in double quotes (its own quotes then need no doubling)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Note, lambda dumper, note: dumper.represent_scalar("tag:yaml.org,2002:str", str(note),
                                                                              style='"'))


def _dump(data: dict, *, flow: bool | None) -> str:
    options = dict(Dumper=_Dumper, sort_keys=False, default_flow_style=flow, width=1000)
    try:
        return yaml.dump(data, allow_unicode=True, **options)
    except UnicodeEncodeError:  # lone surrogates from the server: written as escapes
        return yaml.dump(data, allow_unicode=False, **options)


# YAML 1.1 ends a line at U+0085, U+2028 and U+2029 as well as at CR and LF: inside a
# comment any of them would start a new line of YAML (a key of the server's choosing).
_YAML_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\x85",
                              "\r": "\\r", "\n": "\\n"})


def _comment(text) -> str:
    """A server's text inside a ``#`` comment: one line of YAML, whatever it holds."""
    return yaml_comment(text).translate(_YAML_BREAKS)


def mapped_line(profile: dict, found: Discovery) -> str:
    """What was mapped and what not: ``mapped 3 of 5 forms: text → echo (seen), ...; none
    found for embedded, large``; "seen" where a call's result showed the form, else "guessed"."""
    forms = ("text", "structured", "embedded", "link", "large")
    tools = profile.get("tools") or {}
    mapped = [f"{form} → {tools[form]['name']} "
              f"({'seen' if form in getattr(found.seen.get(tools[form]['name']), 'forms', ()) else 'guessed'})"
              for form in forms if form in tools]
    none = [form for form in forms if form not in tools]
    calls = f"called {len(found.seen)} tool{'s' if len(found.seen) != 1 else ''}; "
    return (f"{calls}mapped {len(mapped)} of {len(forms)} forms: {', '.join(mapped) or 'none'}"
            + (f"; none found for {', '.join(none)}" if none else ""))


def init_profile(transport, *, protocol: str = "auto", timeout: float = 10.0,
                 call: tuple[str, ...] = ()) -> tuple[str, str]:
    """The profile's YAML, and the line saying what was mapped."""
    found = discover(transport, protocol=protocol, timeout=timeout, call=call)
    if not found.tools:
        raise ServerError("tools/list showed no tools: there is nothing to map")
    names = {t.get("name") for t in found.tools}
    unknown = [name for name in call if name not in names]
    if unknown:
        raise InputError(f"the server's tools/list has no tool {unknown[0]!r}", field="--call")
    destructive = [t["name"] for t in found.tools if t.get("name") in call and _annotation(t, "destructiveHint") is True]
    if destructive:
        raise InputError(f"{destructive[0]!r} is marked destructive (destructiveHint: true): profile init never "
                         "calls it", field="--call")
    profile = build_profile(found)
    return render(profile, found), mapped_line(profile, found)


def check_out(out: Path | None, force: bool) -> None:
    """Refuse, before the server is started, to write where we should not."""
    if out is None:
        return
    if out.exists() and out.is_dir():
        raise InputError("is a folder; give a file name", file=str(out), field="--out")
    if out.exists() and not force:
        raise InputError("exists already; give --force to replace it", file=str(out), field="--out")
    # A missing folder is made when the file is written, as a run makes its --out folder; the
    # nearest one that exists must be a folder this user may write in.
    above = out.absolute().parent
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        raise InputError(f"{above} is not a folder", file=str(out), field="--out")
    if not os.access(above, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in {above}", file=str(out), field="--out")
