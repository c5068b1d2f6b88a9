"""What the stand-in model does, whatever API carries it.

A host sends its model the whole conversation each turn: the tools it offers, and every tool
call the model made so far with the result the host handed back. The script is a list of
steps; the next step is the first one not yet called, found under the name the host gives the
server's tools (its ``ToolNaming``: ``mcp__{server}__{tool}``, ``mcp_{server}_{tool}``, a
namespace, ...), never under a name of the host's own: a server tool called ``run_shell_command``
or ``Bash`` must never make the stand-in call the host's shell. When every step has a result the
model says a short final text.
Nothing here is random: the same requests get the same answers, except that a step is
called at most twice, and never again once a later step was called (a host that compacted
its conversation, dropping calls, gets the final text instead of the same calls again).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

FINAL_TEXT = "done"
SEPARATORS = "_.-/:"


def items(value: Any) -> list:
    """A request's list, or no items where a client sent something else in its place: a request
    of any shape is read, recorded and answered, never a crash."""
    return value if isinstance(value, list) else []


def fields(value: Any) -> dict:
    """A request's object, or no fields where a client sent something else in its place."""
    return value if isinstance(value, dict) else {}


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class ToolOffer:
    """A tool in the request's tool list: its name as the model must call it, and the group
    it sits in where the API has one (Codex's ``namespace``)."""

    name: str
    namespace: str | None = None
    description: str = ""

    @property
    def shown(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @classmethod
    def declared(cls, declaration: Any, namespace: str | None = None) -> ToolOffer | None:
        """The offer a request's tool declaration makes (every API names it ``name`` and may
        describe it in ``description``), or None where it is not an object with a string name."""
        if not (isinstance(declaration, dict) and isinstance(declaration.get("name"), str)):
            return None
        return cls(declaration["name"], namespace, str(declaration.get("description") or ""))

    @staticmethod
    def collect(offers: list[ToolOffer], declarations: Any, namespace: str | None = None) -> None:
        """Append to ``offers`` what each of ``declarations`` offers, passing over the malformed."""
        for declaration in declarations:
            offer = ToolOffer.declared(declaration, namespace)
            if offer is not None:
                offers.append(offer)


@dataclass
class Exchange:
    """A tool call the model made earlier in the conversation, and what the host handed back."""

    call_id: str
    name: str
    arguments: Any
    result: Any = None  # the result block exactly as the host sent it (a JSON value)
    answered: bool = False
    # what the host put beside the result, in the same turn: a user message after it (fast-agent
    # hands an embedded resource that way), a block beside it in its message
    beside: list = field(default_factory=list)


@dataclass
class Turn:
    """One request of the host, read by its API."""

    api: str
    model: str | None
    stream: bool
    offers: list[ToolOffer] = field(default_factory=list)
    calls: list[Exchange] = field(default_factory=list)
    side: str | None = None  # why this is no turn of the conversation (token count, a classifier)
    schema: Any = None  # the JSON Schema a side call asks its answer to follow
    # what the request lets the model do with its tools: "auto", "none" (it must not call one),
    # "required" (it must call one), or "tool:NAME" (it must call that one)
    tool_choice: str = "auto"
    # the results handed since the model last spoke: what the host adds before it speaks again
    # stands beside them
    _open: list = field(default_factory=list, repr=False)

    def called(self, call_id: str, name: str, arguments: Any) -> None:
        """The conversation holds the model's call ``call_id`` of tool ``name``."""
        self.calls.append(Exchange(call_id, name, arguments))
        self._open = []

    def answered(self, call_id: str, result: Any) -> None:
        """The conversation holds the host's ``result`` for call ``call_id`` (the latest call
        of that id before it); a result for no call is left out."""
        exchange = next((e for e in reversed(self.calls) if e.call_id == call_id), None)
        if exchange is not None:
            self.handed(exchange, result)

    def handed(self, exchange: Exchange, result: Any) -> None:
        """The host handed ``result`` back for ``exchange``."""
        exchange.result, exchange.answered = result, True
        self._open.append(exchange)

    def added(self, block: Any) -> None:
        """The host added ``block`` to the conversation after results and before the model spoke
        again: it stands beside each of them."""
        for exchange in self._open:
            exchange.beside.append(block)

    def spoke(self) -> None:
        """The model spoke (a message with no tool call): nothing after it stands beside a result."""
        self._open = []


def tool_choice(mode: Any, name: Any = None) -> str:
    """A request's tool choice in the script's words, from an API's mode (OpenAI's and
    Anthropic's ``none``/``auto``/``required``/``any``/``tool``/``function``, Gemini's
    ``NONE``/``AUTO``/``ANY``/``VALIDATED``) and the tool it names, if any."""
    mode = str(mode).lower() if isinstance(mode, str) else ""
    if mode == "none":
        return "none"
    if isinstance(name, str) and name:
        return f"tool:{name}"
    if mode in ("required", "any"):
        return "required"
    return "auto"


@dataclass
class CallTool:
    call_id: str
    offer: ToolOffer
    arguments: dict
    step: str


@dataclass
class Say:
    text: str


# Characters a host may replace in a server's tool name to make a valid function name for its
# model API (Claude Code, Gemini CLI, Codex replace them with "_").
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


def _canonical(name: str) -> str:
    return _NOT_NAME.sub("_", name)


@dataclass(frozen=True)
class ToolNaming:
    """How a host names one MCP server's tools for its model. ``scheme`` holds ``{server}`` and
    ``{tool}``, with a namespace written as ``NAMESPACE/NAME`` (``ToolOffer.shown``). A scheme
    without ``{server}`` (a host that hands MCP tools over under their own names) cannot tell a
    server tool from a tool of the host's own with the same name: ``own_tools`` lists the host's
    tools, and such a name is refused rather than called."""

    server: str = ""
    scheme: str = "{tool}"
    product: str = "the host"
    own_tools: frozenset = frozenset()
    # A host that offers a server's tools only as functions of a code tool of its own: the offer
    # of that tool and its arguments that call the server's ``tool`` with ``arguments``, or None.
    sandbox: "Callable[[list[ToolOffer], str, dict], tuple[ToolOffer, dict] | None] | None" = None

    def shown(self, tool: str) -> str:
        return self.scheme.replace("{server}", self.server).replace("{tool}", tool)

    def find(self, offers: list[ToolOffer], tool: str) -> "tuple[ToolOffer | None, Refusal | None]":
        """The offer that is the server's ``tool`` under this naming, else why not: (None, None)
        where the host simply does not offer it, (None, refusal) where calling it could reach
        a tool of the host's own."""
        if not tool:
            return None, None
        if "{server}" not in self.scheme and tool in self.own_tools:
            return None, Refusal("own-tool-name", {"tool": tool, "product": self.product})
        wanted = self.shown(tool)
        found = [o for o in offers if o.shown == wanted]
        if not found:
            # a host that rewrote characters its model API refuses in a name
            found = [o for o in offers if _canonical(o.shown) == _canonical(wanted)]
        if len(found) > 1:
            return None, Refusal("ambiguous-tool-name", {"tool": tool, "offered": found[0].shown,
                                                          "count": len(found)})
        return (found[0], None) if found else (None, None)


@dataclass(frozen=True)
class Refusal:
    """Why the stand-in did not call a step's tool although the host offered one by that name:
    an id and its parameters, rendered by ``Refusal.text``."""

    id: str
    params: dict

    def text(self) -> str:
        if self.id == "own-tool-name":
            return (f"not called: the server's tool {self.params['tool']!r} has the name of a tool of "
                    f"{self.params['product']}'s own, and {self.params['product']} offers MCP tools "
                    "under their bare names, so the two cannot be told apart")
        if self.id == "ambiguous-tool-name":
            return (f"not called: {self.params['count']} tools are offered as "
                    f"{self.params['offered']!r}, so which is the server's {self.params['tool']!r} "
                    "cannot be told")
        return f"not called: {self.id}"

    def record(self) -> dict:
        return {"id": self.id, **self.params, "reason": self.text()}


@dataclass
class Step:
    """One tool call of the script. ``tool`` is the server's tool name; ``host_tool`` instead
    picks a tool of the host's own (e.g. one that reads an MCP resource) and its arguments
    from what is offered, or None when the host offers none; ``chosen`` picks a step from what
    the host handed back so far: its key, the tool offered and its arguments, or None (no call)."""

    key: str
    tool: str | None = None
    arguments: dict = field(default_factory=dict)
    host_tool: Callable[[list[ToolOffer], "Turn"], "tuple[ToolOffer, dict] | None"] | None = None
    chosen: Callable[[list[ToolOffer], "Turn"], "tuple[str, ToolOffer, dict] | None"] | None = None

    def resolve(self, offers: list[ToolOffer], turn: "Turn",
                naming: ToolNaming) -> "tuple[str, ToolOffer, dict] | Refusal | None":
        if self.chosen is not None:
            return self.chosen(offers, turn)
        if self.host_tool is not None:
            found = self.host_tool(offers, turn)
            return (self.key, *found) if found else None
        offer, refusal = naming.find(offers, self.tool or "")
        if refusal is not None:
            return refusal
        if offer is None and self.tool and naming.sandbox is not None:
            found = naming.sandbox(offers, self.tool, dict(self.arguments))
            return (self.key, *found) if found else None
        return (self.key, offer, dict(self.arguments)) if offer else None


def name_scheme(offer: ToolOffer, tool: str) -> str:
    """How the host names a server's tool, with the tool's own name as ``{tool}``."""
    shown = offer.shown
    return shown[: len(shown) - len(tool)] + "{tool}" if shown.endswith(tool) else shown


def call_id(index: int) -> str:
    return f"call_mcpaccept_{index:02d}"


_OUR_ID = re.compile(r"call_mcpaccept_(\d+)")


@dataclass
class Script:
    steps: list[Step]
    naming: ToolNaming = field(default_factory=ToolNaming)
    final_text: str = FINAL_TEXT
    # how often each step (by position) was called: a host that compacts its conversation
    # sends back fewer calls than were made, and calling those again would go round in circles
    issued: list[int] = field(default_factory=list, init=False, repr=False)
    # the steps whose tool was offered but not called, and why (the first time it was seen)
    refused: dict[str, Refusal] = field(default_factory=dict, init=False, repr=False)

    def plan(self, turn: Turn) -> list[tuple[str, ToolOffer, dict]]:
        """(step key, tool offered, arguments) of each step the host's offers allow, in order."""
        planned = []
        for step in self.steps:
            found = step.resolve(turn.offers, turn, self.naming)
            if isinstance(found, Refusal):
                self.refused.setdefault(step.key, found)
            elif found is not None:
                planned.append(found)
        return planned

    def next_action(self, turn: Turn) -> CallTool | Say:
        """The next step not yet called, else the final text. A call is ours when its id is
        one this script gave; a host that renames ids is counted by its calls instead."""
        planned = self.plan(turn)
        done = len(turn.calls)
        ours = [int(m.group(1)) for c in turn.calls if (m := _OUR_ID.fullmatch(c.call_id or ""))]
        if ours and len(ours) == len(turn.calls):
            done = max(ours) + 1
        if turn.calls and not turn.calls[-1].answered:
            # the host has not handed back the last call's result: say so rather than call again
            return Say(self.final_text)
        if done < len(self.issued) - 1 or (done < len(self.issued) and self.issued[done] >= 2):
            # calls already made were dropped from the conversation: only the latest step is
            # called once more (a host that retries the same request), else the final text
            return Say(self.final_text)
        if done < len(planned):
            key, offer, arguments = planned[done]
            self.issued += [0] * (done + 1 - len(self.issued))
            self.issued[done] += 1
            return CallTool(call_id(done), offer, arguments, key)
        return Say(self.final_text)


def value_for_schema(schema: Any, depth: int = 0) -> Any:
    """A small value that a JSON Schema accepts, for side calls that ask for JSON of a given
    shape (classifiers, routers, "who speaks next"). Enums take ``user`` where offered (the
    answer that hands the turn back), else their first value."""
    if not isinstance(schema, dict) or depth > 8:
        return {}
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return value_for_schema(schema[key][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    kind = str(kind).lower() if kind else None
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: value_for_schema(sub, depth + 1) for name, sub in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 1))
        high = schema.get("maximum", schema.get("exclusiveMaximum", low))
        try:
            middle = (float(low) + float(high)) / 2
        except (TypeError, ValueError):
            middle = 1
        return int(middle) if kind == "integer" else middle
    if kind == "boolean":
        return False
    if kind == "string":
        return "ok"
    return {}


def reply_text(turn: Turn, action: "Say | None") -> str:
    """The text of an answer that calls no tool: JSON of the schema a side call asks for, else
    the script's words (``ok`` for a side call that asks for none)."""
    if turn.schema is not None:
        return json.dumps(value_for_schema(turn.schema))
    return action.text if action else "ok"
