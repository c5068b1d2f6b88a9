"""From a server to row results: record every step once, then judge each row.

Recording and judging are apart: :func:`record` drives the server through the
fixed steps of a run and keeps what happened; :func:`judge` hands that recording
to the checks each sheet row names. Nothing in :func:`judge` talks to a server.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from mcp_accept.checks.base import (PASS, PENDING, UNOBTAINABLE, Context, Verdict, content_items, layer_summary, row_status)
from mcp_accept.checks.registry import run_check
from mcp_accept.checks import errors as probes  # also registers W03's checks
from mcp_accept.checks.errors import unfinished_round_trips
from mcp_accept.transport.session import DEFAULT_MAX_ROUNDS, Negotiation, Session
from mcp_accept.transport.base import Reply
from mcp_accept.reasons import Reason, reason as make_reason

MAX_PAGES = 50
# What the W03 probes send: a method no server has, a cursor no server handed out.
UNKNOWN_METHOD = "mcp-accept/no-such-method"
INVALID_CURSOR = "mcp-accept-invalid-cursor"


@dataclass
class StepRecord:
    name: str
    reply: Reply | None = None
    skipped: str | None = None  # why the step was not run
    seqs: list[int] = field(default_factory=list)  # wire.jsonl entries written during the step
    rounds: int = 1  # requests sent (more than one when input_required results were followed)
    incomplete: str | None = None  # why ``reply`` is not a final (complete) result
    incomplete_kind: str | None = None  # protocol.UNANSWERABLE or protocol.BOUNDED


@dataclass
class Recording:
    negotiation: Negotiation = field(default_factory=Negotiation)
    steps: dict[str, StepRecord] = field(default_factory=dict)
    entries: list[dict] = field(default_factory=list)  # the wire log, in order
    tools: dict[str, dict] = field(default_factory=dict)  # from tools/list, by name
    listed_uris: set[str] = field(default_factory=set)  # from resources/list, every page
    tools_whole: bool = False  # tools/list answered every page, to one without nextCursor
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
    # the reason as data where it is the run's rather than the row's verdicts' (a server never
    # reached, an interrupted run): ``reason`` is its English
    reason_data: Any = None


class Recorder:
    """Runs the steps in order, tagging every wire entry with the step it belongs to."""

    def __init__(self, session: Session, profile, *, deadline: float | None = None,
                 max_rounds: int = DEFAULT_MAX_ROUNDS):
        self.session = session
        self.profile = profile
        self.log = session.transport.log
        self.recording = Recording(entries=self.log.entries)
        self.deadline = deadline
        self.max_rounds = max_rounds

    def _step(self, name: str, method: str | None = None, params: dict | None = None,
              run=None) -> StepRecord:
        """Run one step; every round of it (input_required retries) is tagged with its name."""
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
            if run:
                step.reply = run()
            else:
                followed = self.session.follow(method, params, max_rounds=self.max_rounds, timeout=timeout)
                step.reply, step.rounds = followed.reply, len(followed.replies)
                step.incomplete, step.incomplete_kind = followed.why, followed.stop
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

    def run_steps(self, listed=None) -> Recording:
        """Every step in order. ``listed(recording)`` is called once tools/list has been read,
        before any tool is called: it may stop the run by raising."""
        rec = self.recording
        self._list_tools()
        if listed is not None:
            listed(rec)
        for result in self._pages("resources/list"):
            for res in result.get("resources") or []:
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
        self._probes()
        return rec

    def _probes(self) -> None:
        """W03: requests that must be refused as JSON-RPC errors, then one that must still work.
        None reads a resource or calls a profile's tool, so no other row counts them."""
        unknown = "mcp-accept-no-such-tool"
        while unknown in self.recording.tools:
            unknown += "-x"
        self._step(probes.UNKNOWN_TOOL, "tools/call", {"name": unknown, "arguments": {}})
        self._step(probes.UNKNOWN_METHOD, UNKNOWN_METHOD, {})
        self._step(probes.NO_NAME, "tools/call", {"arguments": {}})
        self._step(probes.BAD_CURSOR, "tools/list", {"cursor": INVALID_CURSOR})
        self._step(probes.STILL_ANSWERS, "tools/list", {})

    def _list_tools(self) -> None:
        for result in self._pages("tools/list"):
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    self.recording.tools.setdefault(tool["name"], tool)
            self.session.transport.tools = self.recording.tools

    def _pages(self, method: str):
        """Each page's result of a list method, following ``nextCursor`` (MAX_PAGES at most).

        An empty string is a cursor like any other; only an absent one ends the list
        (server/utilities/pagination.mdx#implementation-guidelines: an empty string MUST NOT
        be taken to mean the list is over). A cursor seen before ends it too.
        """
        cursor, seen = None, set()
        for page in range(MAX_PAGES):
            params = {"cursor": cursor} if cursor is not None else {}
            step = self._step(method if page == 0 else f"{method}#{page + 1}", method, params)
            result = step.reply.result if step.reply else None
            if not isinstance(result, dict):
                return
            yield result
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                if method == "tools/list":
                    self.recording.tools_whole = True
                return
            if cursor in seen:
                return
            seen.add(cursor)

    def _link_uri(self) -> str | None:
        step = self.recording.steps.get("call:link")
        if step is None or step.reply is None or not isinstance(step.reply.result, dict):
            return None
        links = content_items(step.reply.result, "resource_link")
        return links[0].get("uri") if links and isinstance(links[0].get("uri"), str) else None


def judge(sheet, recording: Recording, profile, store, row_options: dict[str, dict] | None = None,
          only_unfinished_reason: str | None = None, sdk_off: Reason | None = None) -> list[RowResult]:
    """Every row of the sheet, judged from the recording (manual rows stay PENDING).
    ``sdk_off``: why the run has no sdk layer (its checks say so); None replays."""
    from mcp_accept.running.sdk_replay import not_replayed, replay

    row_options = row_options or {}
    # The sdk checks ask for the replay only when they first need it: a replay process has
    # until then, while the rows before them are judged, to answer.
    if sdk_off is None:
        recording.sdk_replay = lambda: replay(recording)
    else:
        recording.sdk_replay = lambda: not_replayed(sdk_off)
    results = []
    for row in sheet.rows:
        if not row.automated:
            results.append(RowResult(row.id, row.kind, row.title, PENDING, None))
            continue
        if row.id in getattr(profile, "rows_off", {}):
            off = make_reason("row.off", row=row.id)
            results.append(RowResult(row.id, row.kind, row.title, UNOBTAINABLE, off.english(), reason_data=off))
            continue
        options = {**row.options, **row_options.get(row.id, {})}
        ctx = Context(recording, profile, store, options)
        verdicts: list[Verdict] = []
        for item in row.checks:
            verdicts += run_check(item.check, ctx)
        stuck = unfinished_round_trips(ctx, [name for name in row.steps if name != "all"])
        if stuck:
            # The row rests on a request that never reached a complete result: there is no
            # final result for its checks to judge, only how the round trips ended.
            verdicts = stuck
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
