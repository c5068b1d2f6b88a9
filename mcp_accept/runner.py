"""From a server to row results: record every step once, then judge each row.

Recording and judging are apart: :func:`record` drives the server through the
fixed steps of a run and keeps what happened; :func:`judge` hands that recording
to the checks each sheet row names. Nothing in :func:`judge` talks to a server.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from mcp_accept.checks import (PASS, PENDING, UNOBTAINABLE, Context, Verdict, content_items,
                               layer_summary, row_status, run_check)
from mcp_accept.protocol import Negotiation, Session
from mcp_accept.transport.base import Reply

MAX_PAGES = 50


@dataclass
class StepRecord:
    name: str
    reply: Reply | None = None
    skipped: str | None = None  # why the step was not run
    seqs: list[int] = field(default_factory=list)  # wire.jsonl entries written during the step


@dataclass
class Recording:
    negotiation: Negotiation = field(default_factory=Negotiation)
    steps: dict[str, StepRecord] = field(default_factory=dict)
    entries: list[dict] = field(default_factory=list)  # the wire log, in order
    tools: dict[str, dict] = field(default_factory=dict)  # from tools/list, by name
    listed_uris: set[str] = field(default_factory=set)  # from resources/list
    unfinished: str | None = None  # set when the run stopped before all steps

    @property
    def version(self) -> str | None:
        return self.negotiation.version


@dataclass
class RowResult:
    id: str
    kind: str
    title: dict
    status: str
    reason: str | None
    verdicts: list[Verdict] = field(default_factory=list)
    steps: tuple[str, ...] = ()
    layers: dict[str, Any] = field(default_factory=dict)


class Recorder:
    """Runs the steps in order, tagging every wire entry with the step it belongs to."""

    def __init__(self, session: Session, profile, *, deadline: float | None = None):
        self.session = session
        self.profile = profile
        self.log = session.transport.log
        self.recording = Recording(entries=self.log.entries)
        self.deadline = deadline

    def _step(self, name: str, method: str | None = None, params: dict | None = None,
              run=None) -> StepRecord:
        step = StepRecord(name)
        self.recording.steps[name] = step
        if self.recording.unfinished:
            step.skipped = self.recording.unfinished
            return step
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            self.recording.unfinished = "the run's time limit was reached"
            step.skipped = self.recording.unfinished
            return step
        self.log.step = name
        first = len(self.log.entries)
        try:
            timeout = min(self.session.timeout, remaining) if remaining else None
            step.reply = run() if run else self.session.send(method, params, timeout=timeout)
        finally:
            self.log.step = None
            step.seqs = [e["seq"] for e in self.log.entries[first:]]
        return step

    def negotiate(self, protocol: str) -> Negotiation:
        self.log.step = "discover"
        first = len(self.log.entries)
        try:
            self.recording.negotiation = self.session.negotiate(protocol)
        finally:
            self.log.step = None
        step = StepRecord("discover", seqs=[e["seq"] for e in self.log.entries[first:]])
        self.recording.steps["discover"] = step
        return self.recording.negotiation

    def run_steps(self) -> Recording:
        rec = self.recording
        self._list_tools()
        listing = self._step("resources/list", "resources/list", {})
        if listing.reply and isinstance(listing.reply.result, dict):
            for res in listing.reply.result.get("resources") or []:
                if isinstance(res, dict) and isinstance(res.get("uri"), str):
                    rec.listed_uris.add(res["uri"])
        for form in ("text", "structured", "embedded", "link"):
            ref = self.profile.tools.get(form)
            if ref is None:
                rec.steps[f"call:{form}"] = StepRecord(f"call:{form}", skipped="the profile names no tool")
                continue
            self._step(f"call:{form}", "tools/call", {"name": ref.name, "arguments": dict(ref.arguments)})
        uri = self._link_uri()
        if uri is None:
            rec.steps["read:link"] = StepRecord("read:link", skipped="no resource_link URI to read")
        else:
            self._step("read:link", "resources/read", {"uri": uri})
        self._step("read:unknown", "resources/read", {"uri": self.profile.unknown_uri})
        return rec

    def _list_tools(self) -> None:
        cursor, seen = None, set()
        for page in range(MAX_PAGES):
            params = {"cursor": cursor} if cursor else {}
            step = self._step("tools/list" if page == 0 else f"tools/list#{page + 1}", "tools/list", params)
            result = step.reply.result if step.reply else None
            if not isinstance(result, dict):
                return
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    self.recording.tools.setdefault(tool["name"], tool)
            self.session.transport.tools = self.recording.tools
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                return
            seen.add(cursor)

    def _link_uri(self) -> str | None:
        step = self.recording.steps.get("call:link")
        if step is None or step.reply is None or not isinstance(step.reply.result, dict):
            return None
        links = content_items(step.reply.result, "resource_link")
        return links[0].get("uri") if links and isinstance(links[0].get("uri"), str) else None


def judge(sheet, recording: Recording, profile, store, row_options: dict[str, dict] | None = None,
          only_unfinished_reason: str | None = None) -> list[RowResult]:
    """Every row of the sheet, judged from the recording (manual rows stay PENDING)."""
    row_options = row_options or {}
    results = []
    for row in sheet.rows:
        if not row.automated:
            results.append(RowResult(row.id, row.kind, row.title, PENDING, None))
            continue
        options = {**row.options, **row_options.get(row.id, {})}
        ctx = Context(recording, profile, store, options)
        verdicts: list[Verdict] = []
        for item in row.checks:
            verdicts += run_check(item.check, ctx)
        status, reason = row_status(verdicts)  # the sdk layer reports; it does not decide
        if recording.unfinished and status != PASS and _touches_unrun(row, recording):
            status, reason = UNOBTAINABLE, f"{recording.unfinished}: {reason}"
        results.append(RowResult(row.id, row.kind, row.title, status, reason, verdicts, row.steps,
                                 layer_summary(verdicts)))
    return results


def _touches_unrun(row, recording: Recording) -> bool:
    """Whether the row rests on a step that the run never got to (an interrupted run)."""
    for name in row.steps:
        if name == "all":
            return True
        step = recording.steps.get(name)
        if step is None or (step.reply is None and step.skipped == recording.unfinished):
            return True
    return False
