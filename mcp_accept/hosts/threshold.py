"""``--find-threshold``: the size at which a host stops handing a large result whole, to the
byte, found by the stand-in model while the host runs.

After the fixed sizes (``--large-sizes``) the stand-in asks for more large results, each size
halfway between the largest handed whole and the smallest not handed whole so far, until the
two are one byte apart or ``--threshold-calls`` extra calls were made. Whether a result was
handed whole is judged as H03 judges it afterwards (:func:`model_view.size_handling`), from
what the host put in the conversation: by the fixture's tokens (``fixture-log/markers.json``),
else by the two ends of the text the server answered, read from the recording proxy's
``wire.jsonl`` as it is written. The row is then judged from ``model.jsonl`` alone, so what the
search decided and what the row says can be compared.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from mcp_accept.evidence.wirelog import read_entries
from mcp_accept.hosts.server_bodies import answered_text, wire_exchanges
from mcp_accept.hosts import model_view
from mcp_accept.hosts.job import with_size
from mcp_accept.model.script import Step, ToolNaming, ToolOffer, Turn



def next_size(sizes: list[int], wholes: list[bool | None]) -> int | None:
    """The size halfway across the bracket ``sizes`` and their judgements leave, or None where
    there is none to narrow (every size whole, one byte apart) or a result could not be judged."""
    if any(whole is None for whole in wholes):
        return None
    not_whole = [s for s, whole in zip(sizes, wholes) if not whole]
    if not not_whole:
        return None
    high = min(not_whole)
    low = max((s for s, whole in zip(sizes, wholes) if whole and s < high), default=0)
    return (low + high) // 2 if high - low > 1 else None


class ThresholdSearch:
    """The extra steps of the stand-in's script, and the judgement of each large result they
    rest on (made once per call, kept: the host sends the whole conversation every turn)."""

    def __init__(self, folder: Path, tool: str, arguments: Any, fixed: list[int], bound: int,
                 naming: ToolNaming, fixture: bool):
        self.folder, self.tool, self.arguments = folder, tool, arguments
        self.fixed, self.bound, self.naming, self.fixture = list(fixed), bound, naming, fixture
        self._judged: dict[tuple[int, int], bool | None] = {}
        self._lock = threading.Lock()

    def steps(self) -> list[Step]:
        return [Step(f"threshold-{index}", chosen=self._chooser(index)) for index in range(self.bound)]

    def _chooser(self, index: int):
        def choose(offers: list[ToolOffer], turn: Turn):
            offer, _refused = self.naming.find(offers, self.tool)
            if offer is None and self.naming.sandbox is None:
                return None
            calls = self.large_calls(offers, turn, offer)
            if calls is None:
                return None
            # each result is judged as the request that first holds it hands it, as H03 judges
            # it: a host may replace older results later in the conversation
            for position, call in enumerate(calls[:len(self.fixed)]):
                if call.answered:
                    self.judge(position, self.fixed[position], call)
            size = self.size_of(len(self.fixed) + index, calls)
            if size is None:
                return None
            if offer is not None:
                return f"large-{size}", offer, with_size(self.arguments, size)
            found = self.naming.sandbox(offers, self.tool, with_size(self.arguments, size))
            return (f"large-{size}", *found) if found else None
        return choose

    def large_calls(self, offers: list[ToolOffer], turn: Turn, offer: ToolOffer | None) -> list | None:
        """The large calls of the conversation so far, in order; None where the host offers the
        tool by no route. Offered as a tool, they are the calls of that tool. Offered only inside
        a code tool of the host's (Mistral Vibe's ``run_typescript``), every step calls that one
        tool: a large call is one whose arguments are the program that asks for the size due at
        its place (the fixed sizes, then each one the judgements before it give)."""
        if offer is not None:
            return [c for c in turn.calls if c.name == offer.name]
        sizes, found = list(self.fixed), []
        for call in turn.calls:
            position = len(found)
            if position >= len(sizes):
                size = next_size(sizes, [self.judge(k, sizes[k], found[k]) for k in range(position)])
                if size is None:
                    break
                sizes.append(size)
            wanted = self.naming.sandbox(offers, self.tool, with_size(self.arguments, sizes[position]))
            if wanted is None:
                return None
            if call.name == wanted[0].name and call.arguments == wanted[1]:
                found.append(call)
        return found

    def size_of(self, position: int, calls: list) -> int | None:
        """The size the large call at ``position`` asks for, from the judgements of the calls
        before it; None where no call is due there (the conversation does not hold them yet,
        or the bracket is closed)."""
        if len(calls) < position:
            return None
        sizes = list(self.fixed[:position])
        for at in range(len(self.fixed), position + 1):
            wholes = [self.judge(k, sizes[k], calls[k]) for k in range(at)]
            size = next_size(sizes, wholes)
            if size is None:
                return None
            sizes.append(size)
        return sizes[position]

    def judge(self, position: int, size: int, call) -> bool | None:
        """Whether the large result of ``size`` (the ``position``-th large call) was handed whole;
        None where it cannot be told (not handed back, nothing to look for)."""
        with self._lock:
            key = (position, size)
            if key not in self._judged:
                self._judged[key] = self._judge(size, call)
            return self._judged[key]

    def _judge(self, size: int, call) -> bool | None:
        if not call.answered:
            return None
        handed = model_view.Handed(step=f"large-{size}", tool=call.name, answered=True, block=call.result,
                                   text=json.dumps(call.result, ensure_ascii=False))
        heads, tails, body = {}, {}, None
        if self.fixture:
            markers = self.folder / "fixture-log" / "markers.json"
            if not markers.is_file():
                return None
            heads, tails = model_view.tokens(json.loads(markers.read_text(encoding="utf-8")))
        else:
            body = self._body(size)
            if body is None:
                return None
        found = model_view.size_handling(handed, size, heads, tails, body,
                                         [self.folder / "home", self.folder / "work"])
        return found.get("handling") == "whole"

    def _body(self, size: int) -> str | None:
        """The text the server answered to the large call of ``size``, from the proxy's wire."""
        wanted = with_size(self.arguments, size)
        for wire in sorted((self.folder / "proxy").glob("*/wire.jsonl")):
            exchanges = wire_exchanges(read_entries(wire))
            found = answered_text(exchanges, self.tool, wanted)
            if found is not None:
                return found
        return None
