"""What a host handed its model, read from the stand-in's record (``model.jsonl``), and the host
rows H01-H03 judged from it. Pure functions over recorded entries: nothing here runs a host.

For each step of the script the stand-in called a tool; the host's next request carries that
call's result block as the host rendered it. The block is searched for what the server sent:
with the fixture in marker mode, each body's head and tail tokens (``markers.json``); with any
other server, the bodies the proxy recorded on the MCP wire, looked for as text and, for JSON,
as values (whatever the host's serialisation: keys re-ordered, indented, wrapped).

Statuses, as the sheet defines them for observation rows: PASS where the form's document
reached the model whole (H02: by any route the host offers), FAIL where the evidence shows it
did not (cut, replaced, or never handed), UNOBTAINABLE where it cannot be told (the tool was not
offered, not called, or its result never came back). They are facts about the host, not rules
of the MCP specification (the spec leaves what a host shows its model to the host).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from mcp_accept.hosts.body_search import (NEEDLE_HEAD, NO_TOKENS, Body, block_text, find_in, json_values_in, reach,
                                          searchable_text)
from mcp_accept.hosts.cost import cost
from mcp_accept.hosts.job import with_size
from mcp_accept.hosts.server_bodies import WireExchange, answered_text
from mcp_accept.model.script import Exchange, Turn
from mcp_accept.model.server import FORGED, WRONG_API, bare_path, dialect_named

PASS, FAIL, UNOBTAINABLE = "PASS", "FAIL", "UNOBTAINABLE"
QUOTE_LIMIT = 2000  # characters of a result block quoted in a reason's evidence
EXACT_LIMIT = 256 * 1024  # characters of a result block kept as the host sent it in a row file
POSITION = re.compile(r"\[@(\d+)\]")
URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>\]\)\\]+")  # a URI as a host writes it in text
PATH = re.compile(r"(/[\w.@%+=:,~-]+(?:/[\w.@%+=:,~-]+)+)")


@dataclass
class Handed:
    """One step: what the model asked for and what the host handed back."""

    step: str
    tool: str | None
    arguments: Any = None
    answered: bool = False
    block: Any = None  # the result block as the host first sent it
    text: str = ""  # the block as text (its JSON), where tokens are looked for
    request_seq: int | None = None  # the request that first held the result
    later_seq: int | None = None  # the last request, where it holds another block in its place
    later_characters: int | None = None  # that block's length, as text (block_text)
    beside: list = field(default_factory=list)  # what the host added beside the result in its turn


@dataclass
class ModelView:
    api: str | None = None
    requests: int = 0
    side_calls: list[dict] = field(default_factory=list)
    offers: list[str] = field(default_factory=list)
    steps: dict[str, Handed] = field(default_factory=dict)
    # steps whose tool the stand-in would not call (a name it shares with a tool of the host's
    # own), with why: ``{step: {"id", "tool", ..., "reason"}}``
    refused: dict[str, dict] = field(default_factory=dict)
    final_text_seen: bool = False
    forged: list[dict] = field(default_factory=list)  # requests without the run's key, refused
    models: list[str] = field(default_factory=list)  # the model names the host asked for, in order
    last_request: str = ""  # the last main request as text: media a host attaches beside a result
    asked_at: dict[str, str] = field(default_factory=dict)  # step -> when the stand-in first asked for it
    # requests of another API than the one the run answers (``host test --client --api``): refused
    wrong_api: list[dict] = field(default_factory=list)
    # requests no model API is at, or whose body is no JSON object: answered with an error
    unanswered: list[dict] = field(default_factory=list)


def _model_asked(message: Any, path: str) -> str | None:
    """The model a request asks for: its ``model`` field, or Gemini's ``/models/NAME:method``."""
    if isinstance(message, dict) and isinstance(message.get("model"), str):
        return message["model"][:200]
    found = re.search(r"/models/([^/:?]+):", path)
    return found.group(1)[:200] if found else None


def read_view(entries: Iterable[dict]) -> ModelView:
    """The stand-in's entries (``model.jsonl``, as :func:`~mcp_accept.evidence.wirelog.read_entries`
    reads it) as steps, in one pass. The k-th tool call in a request is the k-th call the
    stand-in made (hosts may give calls ids of their own). A result is judged as the first
    request that held it handed it: a host may replace an earlier result later in the
    conversation (Gemini CLI masks older tool output once the history grows), which the last
    request shows (``later_seq``)."""
    view = ModelView()
    actions: list[dict] = []
    last_turn: Turn | None = None
    last_seq = None
    first: dict[int, tuple[Exchange, int]] = {}  # call index -> the exchange first answered, its request
    for entry in entries:
        http = entry.get("http") or {}
        if entry.get("dir") == "event" and entry.get("event") == FORGED:
            view.forged.append({"seq": entry.get("seq"), "method": http.get("method"), "path": http.get("path")})
        elif entry.get("dir") == "in":
            view.requests += 1
            asked = _model_asked(entry.get("message"), http.get("path") or "")
            if asked and asked not in view.models:
                view.models.append(asked)
            dialect = dialect_named(http.get("api") or "")
            if dialect is None or not isinstance(entry.get("message"), dict):
                continue
            turn = dialect.parse(bare_path(http.get("path") or ""), entry["message"])
            turn.calls = _once_each(turn.calls)
            if turn.side is None and (last_turn is None or len(turn.calls) >= len(last_turn.calls)):
                last_turn, last_seq = turn, entry["seq"]
                for index, exchange in enumerate(turn.calls):
                    if exchange.answered and index not in first:
                        first[index] = (exchange, entry["seq"])
                view.last_request = json.dumps(entry["message"], ensure_ascii=False)
        elif entry.get("dir") == "out":
            if isinstance(http.get(WRONG_API), dict):
                view.wrong_api.append({"seq": entry.get("seq"), "path": http.get("path"), **http[WRONG_API]})
                continue
            if not http.get("api") and isinstance(http.get("status"), int) and http["status"] >= 400:
                view.unanswered.append({"seq": entry.get("seq"), "path": http.get("path"), "status": http["status"]})
            view.api = view.api or http.get("api")
            action = http.get("action") or {}
            if http.get("side"):
                view.side_calls.append({"seq": entry["seq"], "kind": http["side"], "path": http.get("path")})
            if action.get("call"):
                actions.append(action)
            if action.get("step"):
                view.asked_at.setdefault(action["step"], entry.get("t"))
            if action.get("say"):
                view.final_text_seen = True
            if http.get("offers") and not view.offers:
                view.offers = list(http["offers"])
            if isinstance(http.get("refused"), dict):
                for key, why in http["refused"].items():
                    view.refused.setdefault(key, why)
    calls: list[Exchange] = last_turn.calls if last_turn else []
    for index, action in enumerate(actions):
        handed = Handed(step=action.get("step"), tool=action.get("call"), arguments=action.get("arguments"))
        if index in first:
            exchange, handed.request_seq = first[index]
            handed.answered, handed.block, handed.beside = True, exchange.result, list(exchange.beside)
            handed.text = json.dumps(exchange.result, ensure_ascii=False)
            last = calls[index] if index < len(calls) else None
            if last is not None and last.answered and last.result != exchange.result:
                handed.later_seq, handed.later_characters = last_seq, len(block_text(last.result))
        elif index < len(calls):
            handed.request_seq = last_seq
        view.steps.setdefault(handed.step, handed)
    return view


def _once_each(calls: list[Exchange]) -> list[Exchange]:
    """The conversation's exchanges, an exchange the host sent twice counted once: the stand-in
    names each call anew (``call_mcpaccept_NN``), and Claude Code 1.0.44 repeats its first call and
    result in every later request, which would shift each later call onto its neighbour's result."""
    seen: set[str] = set()
    out = []
    for exchange in calls:
        if exchange.call_id and exchange.call_id in seen:
            continue  # an exchange without an id (a host that drops them) is never a repeat
        seen.add(exchange.call_id)
        out.append(exchange)
    return out


def handed_text(handed: Handed) -> str:
    """The result as text, and what the host added beside it."""
    text = block_text(handed.block)
    return text + "\n" + block_text(handed.beside) if handed.beside else text


def reach_handed(handed: Handed, heads: set[str], tails: set[str]) -> tuple[str, str | None]:
    """:func:`reach` over the result, else over what the host added beside it (then ``BESIDE``)."""
    best = reach(handed.text, heads, tails)
    if best != "whole" and handed.beside:
        beside = reach(json.dumps(handed.beside, ensure_ascii=False), heads, tails)
        if beside == "whole" or (beside == "cut" and best == "absent"):
            return beside, BESIDE
    return best, None


def quote(handed: Handed) -> str:
    text = handed_text(handed)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + f"… ({len(text)} characters in all)"


def exact(handed: Handed) -> dict:
    """Where the model's input holds this result (the request's seq in ``model.jsonl``) and the
    result block exactly as the host put it there, as JSON, unless it is too large for a row
    file (then its size, and ``model.jsonl`` holds it)."""
    raw = json.dumps(handed.block, ensure_ascii=False)
    found: dict[str, Any] = {"model_jsonl_seq": handed.request_seq, "block_json_characters": len(raw)}
    if len(raw) <= EXACT_LIMIT:
        found["block"] = handed.block
    return found


# --------------------------------------------------------------------------- tokens

def tokens(markers: dict | None) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """form -> every head token, and every tail token, of every start of the fixture."""
    heads: dict[str, set[str]] = {}
    tails: dict[str, set[str]] = {}
    # every start of the fixture; the host tools' tokens (large, image, blob) are kept apart
    starts = ((markers or {}).get("history") or ([markers] if markers else [])) + \
        list((markers or {}).get("host_tools_history") or [])
    for start in starts:
        for form, token in (start.get("markers") or {}).items():
            heads.setdefault(form, set()).add(token)
        for form, token in (start.get("tails") or {}).items():
            tails.setdefault(form, set()).add(token)
    return heads, tails


# --------------------------------------------------------------------------- rows

@dataclass
class RowVerdict:
    status: str
    reason: str
    observed: dict


def _missing(handed: Handed | None, what: str, view: "ModelView | None" = None) -> str | None:
    refused = (view.refused.get(what) if view is not None else None) or {}
    if handed is None and refused.get("reason"):
        return f"{what}: {refused['reason']}"
    if handed is None:
        return f"{what}: the host offered no such tool, or the model never called it"
    if not handed.answered:
        return f"{what}: the host never handed back a result for the call"
    return None


def _structured_by_body(handed: Handed, body: "Body") -> dict:
    """Which of structuredContent and its text twin a server's own bodies show in what was handed."""
    from mcp_accept.checks.base import same_json

    text = searchable_text(handed.block)
    value = body.values[0] if body.values else None
    twins = body.texts
    twin_values = []
    for twin in twins:
        try:
            twin_values.append(json.loads(twin))
        except ValueError:
            pass
    twin_verbatim = any(t and t in text for t in twins)
    as_value = bool(body.values) and any(same_json(v, value) for v in json_values_in(text))
    same_document = any(same_json(v, value) for v in twin_values)
    if twin_verbatim and not same_document:
        seen = ["text twin"] + (["structuredContent"] if as_value else [])
    elif as_value and not same_document:
        seen = ["structuredContent"]
    elif as_value or twin_verbatim:
        seen = ["structuredContent or its text twin (the same document)"]
    else:
        seen = []
    head = [t for t in twins if len(t) > NEEDLE_HEAD and t[:NEEDLE_HEAD] in text]
    reached = "whole" if seen else ("cut" if head else "absent")
    how = "as a JSON value" if as_value else ("as text" if twin_verbatim else None)
    return {"reached": reached, "model_saw": seen or ["neither"], "found": "the server's own bodies",
            "how": how, "quote": quote(handed)}


# where a body was found when the host handed it in a message of its own after the result
BESIDE = "beside the result, in what the host added after it"


def h01(view: ModelView, heads: dict, tails: dict, bodies: dict | None = None, folders: list | None = None) -> RowVerdict:
    """``folders``: the run's private folders, where a host may have saved a body it did not hand."""
    bodies = bodies or {}
    forms: dict[str, dict] = {}
    parts, statuses = [], []
    for form in ("text", "structured", "embedded"):
        handed = view.steps.get(form)
        missing = _missing(handed, form, view)
        if missing:
            forms[form] = {"reached": "unobtainable", "why": missing}
            parts.append(missing)
            statuses.append(UNOBTAINABLE)
            continue
        if heads.get(form if form != "structured" else "structured"):
            if form == "structured":
                as_sc = reach(handed.text, heads.get("structured", set()), tails.get("structured", set()))
                as_twin = reach(handed.text, heads.get("twin", set()), tails.get("twin", set()))
                seen = [n for n, how in (("structuredContent", as_sc), ("text twin", as_twin)) if how != "absent"]
                best = "whole" if "whole" in (as_sc, as_twin) else ("cut" if "cut" in (as_sc, as_twin) else "absent")
                forms[form] = {"reached": best, "structuredContent": as_sc, "text_twin": as_twin,
                               "model_saw": seen or ["neither"], "found": "marker tokens", "quote": quote(handed)}
                parts.append(f"structured: {best}; the model saw {' and '.join(seen) if seen else 'neither'}"
                             f" (structuredContent {as_sc}, text twin {as_twin})")
            else:
                best, where = reach_handed(handed, heads.get(form, set()), tails.get(form, set()))
                forms[form] = {"reached": best, "found": "marker tokens", "quote": quote(handed)}
                if where:
                    forms[form]["where"] = where
                parts.append(f"{form}: {best}" + (f" ({where})" if where else ""))
        elif form in bodies:
            if form == "structured":
                forms[form] = _structured_by_body(handed, bodies[form])
                best = forms[form]["reached"]
                parts.append(f"structured: {best}; the model saw {' and '.join(forms[form]['model_saw'])}"
                             " (found by the server's own bodies)")
            else:
                best, how = find_body(handed, bodies[form])
                forms[form] = {"reached": best, "found": f"the server's own body, {how}", "quote": quote(handed)}
                saved = _saved_instead(handed, folders, bodies[form]) if best == "absent" else None
                if saved is not None:
                    # the host wrote the body to a file and handed the model its path (Claude Code
                    # does so with a blob)
                    best = forms[form]["reached"] = "saved to a file"
                    forms[form]["saved_to"], forms[form]["saved_file_whole"] = saved
                    parts.append(f"{form}: saved to a file ({saved[0]}), a path the model is handed in its place")
                else:
                    parts.append(f"{form}: {best} (found {how})")
        else:
            forms[form] = {"reached": NO_TOKENS, "quote": quote(handed)}
            parts.append(f"{form}: nothing to look for (no marker tokens, and the proxy recorded no body)")
            statuses.append(UNOBTAINABLE)
            continue
        statuses.append(PASS if best == "whole" else FAIL)
    for form, entry in forms.items():
        handed = view.steps.get(form)
        if handed is not None and handed.answered:
            entry["exact"] = exact(handed)
            entry["cost"] = cost([handed_text(handed)], 1 if entry.get("reached") in ("whole", "cut") else None)
    status = FAIL if FAIL in statuses else (UNOBTAINABLE if UNOBTAINABLE in statuses else PASS)
    return RowVerdict(status, "; ".join(parts), {"forms": forms})


def h02(view: ModelView, heads: dict, tails: dict, link_reads: list[dict], read_tool: str | None,
        bodies: dict | None = None, folders: list | None = None) -> RowVerdict:
    """``folders``: the run's private folders, where a read tool may have saved the body."""
    handed = view.steps.get("link")
    missing = _missing(handed, "link", view)
    if missing:
        return RowVerdict(UNOBTAINABLE, missing, {})
    link_heads, link_tails = heads.get("link", set()), tails.get("link", set())
    body = (bodies or {}).get("link")
    read = view.steps.get("link-read")
    if link_heads:
        inline = reach_handed(handed, link_heads, link_tails)[0]
        via_tool = reach(read.text, link_heads, link_tails) if read is not None and read.answered else None
    elif body is not None:
        inline = find_body(handed, body)[0]
        via_tool = find_body(read, body)[0] if read is not None and read.answered else None
    elif not link_reads:
        # the body is the server's to give: with no resources/read of the link, neither the host
        # nor a read tool had it to hand
        return RowVerdict(FAIL, "the body never reached the model: nothing read the link (no "
                          f"resources/read on the MCP wire); read tool offered: {read_tool or 'none'}; "
                          f"handed: {quote(handed)[:200]!r}",
                          {"handed": quote(handed), "host_reads": [], "body_in_link_result": "absent",
                           "host_read_by_itself": False, "read_tool_offered": read_tool,
                           "body_via_read_tool": None})
    else:
        return RowVerdict(UNOBTAINABLE, "nothing to look for: no marker tokens, and no resources/read of "
                          f"the link was recorded; handed: {quote(handed)[:200]!r}", {"handed": quote(handed)})
    by_itself = [r for r in link_reads if r.get("before_model_asked")]
    observed = {"handed": quote(handed), "body_in_link_result": inline,
                "host_read_by_itself": bool(by_itself), "host_reads": link_reads,
                "read_tool_offered": read_tool, "body_via_read_tool": via_tool}
    if read is not None and read.answered:
        observed["read_tool_result"] = quote(read)
        saved = _saved_instead(read, folders, body) if via_tool == "absent" and body else None
        if saved is not None:
            # the read tool wrote the body to a file and handed the model its path (Claude Code
            # does so with a blob): not the body, and said as what it is
            via_tool = observed["body_via_read_tool"] = "saved to a file"
            observed["read_tool_saved_to"], observed["read_tool_saved_file_whole"] = saved
    # the link's result, and the read tool's when the body came only through it: two turns
    through_tool = inline not in ("whole", "cut") and read is not None and read.answered \
        and via_tool in ("whole", "cut")
    observed["cost"] = cost([handed_text(handed)] + ([block_text(read.block)] if through_tool else []),
                            2 if through_tool else (1 if inline in ("whole", "cut") else None))
    route = []
    if inline == "whole":
        route.append("the host put the body in the link's result")
    if via_tool == "whole":
        route.append(f"the model read it with the host's {read_tool}")
    facts = (f"handed: {quote(handed)[:200]!r}; host read the link by itself: {'yes' if by_itself else 'no'}; "
             f"read tool offered: {read_tool or 'none'}"
             + (f"; body through it: {via_tool}" if via_tool else "")
             + (f" ({observed['read_tool_saved_to']}), a path the model is handed in its place"
                if "read_tool_saved_to" in observed else ""))
    if route:
        return RowVerdict(PASS, f"the body reached the model ({'; '.join(route)}); {facts}", observed)
    if read_tool and read is None and not URI.search(handed_text(handed)):
        return RowVerdict(FAIL, f"the body never reached the model: the host handed it no URI to read "
                          f"with {read_tool}; {facts}", observed)
    if read_tool and (read is None or not read.answered):
        return RowVerdict(UNOBTAINABLE, f"the model's read through {read_tool} got no result; {facts}", observed)
    return RowVerdict(FAIL, f"the body never reached the model; {facts}", observed)


def saved_file(text: str, folders: list) -> tuple[str, bytes | None] | None:
    """The last file named in ``text`` that lies in one of the run's private ``folders`` (only
    such a file is the host's doing): its path from the run folder, and its bytes (None: gone)."""
    from pathlib import Path

    found = None
    for candidate in PATH.findall(text):
        target = Path(candidate.rstrip(".,)"))
        for folder in folders:
            base = Path(folder).resolve()
            if str(target).startswith(str(base) + "/"):
                try:
                    data = target.read_bytes() if target.is_file() else None
                except OSError:
                    data = None
                found = (str(target.relative_to(base.parent)), data)
    return found


def _saved_instead(handed: Handed, folders: list | None, body: Body) -> tuple[str, bool | None] | None:
    """Where a host saved a server's body in place of handing it (:func:`saved_file` over what it
    handed), and whether that file holds the body (None: the file is gone); None where it names
    no file of the run's."""
    saved = saved_file(block_text(handed.block), folders or [])
    return None if saved is None else (saved[0], _holds_body(saved[1], body))


def _holds_body(data: bytes | None, body: Body) -> bool | None:
    """Whether a file's bytes are the body (a blob's decoded bytes, or a text of it); None: gone."""
    if data is None:
        return None
    for text in body.texts:
        try:
            if base64.b64decode(text, validate=True) == data:
                return True
        except (binascii.Error, ValueError):
            pass
        if text.encode("utf-8") in data:
            return True
    return False


def _position(text: str) -> int | None:
    found = [int(m.group(1)) for m in POSITION.finditer(text)]
    return max(found) if found else None


def large_handling(handed: Handed, heads: set[str], tails: set[str], size: int, folders: list,
                   body_characters: int | None = None) -> dict:
    """What the host did with one large result: whole, cut (and where), saved to a file with a
    preview (the file is found on disk inside the run's private folders), or replaced.
    ``body_characters``: the server's own body was the needle (another server than the fixture):
    its length, and the head and tail are looked for with the host's escaping undone."""
    how = reach(searchable_text(handed.block) if body_characters is not None else handed.text, heads, tails)
    out: dict[str, Any] = {"bytes": size, "reached": how}
    text = block_text(handed.block)
    out["handed_characters"] = len(text)
    if how == "cut":
        out["cut_after_position"] = _position(text)
    elif how == "whole":
        # head and tail can both survive a cut in the middle (Codex keeps both ends): the
        # position markers, one every 1024 bytes, show which stretch is gone
        offsets = sorted({int(m.group(1)) for m in POSITION.finditer(text)})
        gaps = [(a, b) for a, b in zip(offsets, offsets[1:]) if b - a > 1024]
        if gaps or len(text) < (body_characters if body_characters is not None else size) * 0.9:
            out["reached"] = how = "cut in the middle"
            if gaps:
                out["missing_between_positions"] = [gaps[0][0], gaps[-1][1]]
    if how != "whole":  # what the host put in the result's place, as the model read it
        out["handed_quote"] = text[:QUOTE_LIMIT]
    saved = saved_file(text, folders)
    if saved is not None:
        out["saved_to"], data = saved
        # a host may delete its saved results when it exits: then the name is the evidence
        out["saved_file_whole"] = None if data is None else \
            reach(data.decode("utf-8", errors="replace"), heads, tails) == "whole"
    error = bool(re.search(r"(?i)error|exceed", text))
    if how == "whole":
        out["handling"] = "whole"
    elif "saved_to" in out:
        out["handling"] = {"cut": "saved to a file with a preview",
                           "cut in the middle": "saved to a file with a head-and-tail preview"}.get(
            how, "replaced by an error, saved to a file" if error else "saved to a file")
    elif how in ("cut", "cut in the middle"):
        out["handling"] = how
    else:
        out["handling"] = "replaced" + (" by an error" if error else "")
    return out


# The stretch of a server's own large body looked for at each end: long enough to be its own.
END_CHARACTERS = 64


def _spellings(text: str) -> set[str]:
    """``text`` as it is, and as it reads inside a JSON string (with and without ``\\u``
    escapes): a host may hand, preview or save a result as the JSON of its content."""
    return {text, json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]}


def size_handling(handed: Handed, size: int, heads: dict, tails: dict, body: str | None, folders: list) -> dict:
    """What the host did with the large result of ``size`` (``large_handling``): found by the
    fixture's tokens, else by the two ends of ``body``, the text the server answered."""
    if not handed.answered:
        return {"bytes": size, "handling": "never handed to the model"}
    if heads.get("large"):
        found = large_handling(handed, heads["large"], tails.get("large", set()), size, folders)
    elif body:
        found = large_handling(handed, _spellings(body[:END_CHARACTERS]), _spellings(body[-END_CHARACTERS:]),
                               size, folders, body_characters=len(body))
    else:
        return {"bytes": size, "handling": "the server answered no text"}
    if handed.later_seq is not None:
        # handed one way, then replaced in the conversation's later requests
        found["later_replaced"] = {"model_jsonl_seq": handed.later_seq, "handed_characters": handed.later_characters}
    return found


def bracket_of(results: list[dict]) -> list | None:
    """[the largest size handed whole below the smallest not handed whole (None: none), that
    smallest], or None where every size was handed whole. A result the host never handed back
    did not reach its model either (Continue CLI drops one past its context limit and carries
    on from a summary)."""
    whole = [r["bytes"] for r in results if r.get("handling") == "whole"]
    not_whole = [r["bytes"] for r in results if r.get("handling") != "whole"]
    if not not_whole:
        return None
    below = [b for b in whole if b < min(not_whole)]
    return [max(below) if below else None, min(not_whole)]


# Characters of what the host put in a large result's place, quoted in H03's reason.
REASON_QUOTE = 240


def threshold_search(results: list[dict], search: dict) -> dict:
    """What ``--find-threshold`` did: the sizes it tried beyond ``search["fixed"]`` (in the order
    the stand-in asked for them), the bracket they narrowed and whether it closed to one byte."""
    tried = [r["bytes"] for r in results if r["bytes"] not in search["fixed"]]
    bracket = bracket_of(results)
    low, high = (bracket[0] or 0, bracket[1]) if bracket else (None, None)
    found = bracket is not None and high - low == 1
    unjudged = [r["bytes"] for r in results if r.get("handling") in ("never handed to the model",
                                                                      "the server answered no text")]
    if found:
        ended = "found"
    elif bracket is None:
        ended = "every size was handed whole: nothing to narrow"
    elif len(tried) >= search["bound"]:
        ended = f"the bound of {search['bound']} extra calls was reached"
    elif unjudged:
        ended = f"the result of {unjudged[-1]} bytes could not be judged: the search stopped there"
    else:
        ended = "the host ended the conversation before the bracket closed"
    return {"bound_calls": search["bound"], "extra_calls": len(tried), "tried_bytes": tried,
            "whole_up_to_bytes": low, "not_whole_from_bytes": high, "found": found, "ended": ended}


def h03(view: ModelView, heads: dict, tails: dict, folders: list, bodies: dict[str, str] | None = None,
        search: dict | None = None) -> RowVerdict:
    """``bodies``: step (``large-N``) -> the text the server answered, from the MCP wire, for a
    server that is not the fixture in marker mode. ``search``: the sizes asked for first
    (``fixed``) and the bound of extra calls (``bound``) of ``--find-threshold``."""
    # in the order the stand-in asked: a threshold search's sizes follow the fixed ones
    asked = [(int(k.split("-", 1)[1]), k, h) for k, h in view.steps.items() if k.startswith("large-")]
    sizes = sorted(asked, key=lambda item: item[0])
    if not sizes:
        return RowVerdict(UNOBTAINABLE, "no large-result tool was called (the fixture in marker mode offers "
                          "search_large; for another server, name one in the profile as tools.large, its "
                          "arguments holding \"{bytes}\" where the size goes)", {})
    bodies = bodies or {}
    if not heads.get("large") and not bodies:
        return RowVerdict(UNOBTAINABLE, "nothing to look for: no marker tokens, and the proxy recorded none of "
                          "the large results", {})
    results = [size_handling(handed, size, heads, tails, bodies.get(step), folders) for size, step, handed in sizes]
    bracket = bracket_of(results)
    fixed = search["fixed"] if search else [r["bytes"] for r in results]
    steps = "; ".join(f"{r['bytes']} B: {r.get('handling')}"
                      + (f" after position {r['cut_after_position']}" if r.get("cut_after_position") else "")
                      for r in results if r["bytes"] in fixed)
    observed: dict[str, Any] = {"sizes": results, "threshold_bracket_bytes": bracket}
    searched = None
    if search:
        by_size = {r["bytes"]: r for r in results}
        observed["threshold_search"] = searched = threshold_search([by_size[size] for size, _, _ in asked], search)
        steps += (f"; then {searched['extra_calls']} extra calls of at most {searched['bound_calls']}, "
                  f"sizes {', '.join(map(str, searched['tried_bytes'])) or 'none'}: {searched['ended']}")
    if bracket is None:
        return RowVerdict(PASS, f"every size reached the model whole ({steps})", observed)
    if bracket is not None:
        if searched and searched["found"]:
            where = f"at {bracket[1]} bytes, to the byte: {bracket[1] - 1} bytes reached the model whole"
        else:
            where = (f"between {bracket[0]} and {bracket[1]} bytes" if bracket[0] else f"at or below {bracket[1]} bytes")
        first = next(r for r in results if r["bytes"] == bracket[1])
        instead = first.get("handling")
        if first.get("handed_quote") is not None:
            quoted = first["handed_quote"][:REASON_QUOTE] + ("…" if len(first["handed_quote"]) > REASON_QUOTE else "")
            instead = f"{instead}: {json.dumps(quoted, ensure_ascii=False)}"
        return RowVerdict(FAIL, f"the host stops handing a result whole {where} ({steps}); at {bracket[1]} bytes "
                          f"the model read, in the result's place: {instead}", observed)
    return RowVerdict(UNOBTAINABLE, f"no large result came back ({steps})", observed)


# --------------------------------------------------------------------------- any server: its own bodies

def large_bodies(exchanges: list[WireExchange], view: ModelView, tool: str, arguments: dict) -> dict[str, str]:
    """step (``large-N``) -> the text the server answered to the stand-in's call of that step,
    matched by tool name and the arguments the step asks the server for (``arguments`` with N in
    place of ``"{bytes}"``; :func:`answered_text`). Those, not the arguments the model passed: a
    host that offers the server's tools inside a code tool of its own is handed code."""
    found: dict[str, str] = {}
    for step in view.steps:
        if step.startswith("large-") and step[6:].isdigit():
            text = answered_text(exchanges, tool, with_size(arguments, int(step[6:])))
            if text is not None:
                found[step] = text
    return found


def find_body(handed: Handed, body: Body) -> tuple[str, str]:
    """(``whole`` | ``cut`` | ``absent``, how it was found) for a server's body in what was handed:
    in the result, else in what the host added beside it."""
    found = find_in(searchable_text(handed.block), body)
    if found[0] != "whole" and handed.beside:
        beside = find_in(searchable_text(handed.beside), body)
        if beside[0] == "whole" or (beside[0] == "cut" and found[0] == "absent"):
            return beside[0], f"{beside[1]}, {BESIDE}"
    return found
