"""The one writer of a run folder's results: ``results.json`` (the contract other tools read),
``rows/<ID>.json`` and ``sheet.md``. ``run``, ``rerun``, ``observe``, ``host test`` and the
recording proxy each fill their rows in their own way and hand them here, so the document's
shape, its counts and the order its files are written in are the same whoever writes it.
Reading a results.json back is :mod:`mcp_accept.inputs.results`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from mcp_accept import __version__
from mcp_accept.checks.base import (ADVISORY_LAYERS, FAIL, PASS, PENDING, RULES, UNOBTAINABLE, row_reason,
                                    strongest_failed_rule)
from mcp_accept.evidence.files import atomic_write_json, atomic_write_text, durable_only
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.output.render import render_run

FORMAT = "mcp-accept/results/1"
STATUSES = (PASS, FAIL, UNOBTAINABLE, PENDING)
INLINE_LIMIT = 64 * 1024  # messages larger than this stay in wire.jsonl only


def row_evidence_path(row_id: str) -> str:
    return f"rows/{row_id}.json"


def summary(rows: list[dict]) -> dict[str, int]:
    counts = {s: 0 for s in STATUSES}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    return counts


def failures_by_rule(rows: list[dict]) -> dict[str, int]:
    """Failed checks counted by the rule each one broke: a row that fails a MUST and a rule of
    the sheet counts once under each, so no failure hides behind a stronger one on its row. A
    check that failed two rules (its verdicts differ) counts under both. A FAIL row filled by
    hand, without checks, counts as one app failure."""
    counts = {rule: 0 for rule in RULES}
    for row in rows:
        if row["status"] != FAIL:
            continue
        broken = {(c.get("check"), c.get("rule") or "app") for c in row.get("checks") or ()
                  if c.get("status") == FAIL and c.get("layer") not in ADVISORY_LAYERS}
        if not broken:
            broken = {(None, row.get("failed_rule") or "app")}
        for _check, rule in broken:
            counts[rule if rule in counts else "app"] += 1
    return counts


def row_entry(result, *, filled_by: str = "runner") -> dict:
    entry: dict[str, Any] = {
        "id": result.id,
        "kind": result.kind,
        "title": result.title,
        "status": result.status,
        "reason": result.reason,
        "evidence": row_evidence_path(result.id) if result.status != PENDING else None,
        "filled_by": filled_by,
    }
    if result.layers:
        entry["layers"] = result.layers
    if result.verdicts:
        deciding = [v for v in result.verdicts if v.layer not in ADVISORY_LAYERS]
        entry["failed_rule"] = strongest_failed_rule(deciding)
        entry["checks"] = [{"check": v.check, "layer": v.layer, "rule": v.rule, "source": v.source,
                            "status": v.status, **(v.reason.as_json() if v.reason else {})} for v in result.verdicts]
        said = row_reason(result.verdicts)
        if said.english() == result.reason:  # the row's reason is its verdicts' (not the run's)
            entry.update(said.as_json())
    data = getattr(result, "reason_data", None)
    if data is not None and data.english() == result.reason:  # the run's reason, given as data
        entry.update(data.as_json())
    return entry


def row_seconds(result, entries: list[dict]) -> float | None:
    """How long the row's exchanges took on the wire: for each step the row rests on, from
    its first message sent to its last one received (``ms`` in wire.jsonl), summed. None when
    no message of those steps was recorded (a manual row, a server never reached)."""
    steps = set(result.steps or ())
    every = "all" in steps  # a row over the whole wire (W01, W02)
    spans: dict[str, list[float]] = {}
    for entry in entries:
        step = entry.get("step")
        if step is None or not (every or step in steps) or entry.get("dir") not in ("in", "out"):
            continue
        if isinstance(entry.get("ms"), (int, float)):
            span = spans.setdefault(str(step), [entry["ms"], entry["ms"]])
            span[0], span[1] = min(span[0], entry["ms"]), max(span[1], entry["ms"])
    if not spans:
        return None
    return round(sum(last - first for first, last in spans.values()) / 1000, 3)


def larger_than(value: Any, limit: int) -> bool:
    """Whether ``value`` serialises to more than about ``limit`` bytes. It stops counting as
    soon as the limit is passed, so a 16 MiB result costs no more than a small one (a full
    ``json.dumps`` per row would serialise the large message again for every row citing it)."""
    budget = limit
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            budget -= len(item) + 2
        elif isinstance(item, dict):
            budget -= 2 + 4 * len(item) + sum(len(k) for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            budget -= 2 + len(item)
            stack.extend(item)
        else:
            budget -= 8
        if budget < 0:
            return True
    return False


def row_evidence(result, entries: list[dict]) -> dict:
    """The row's own evidence: its checks, and the wire entries they rest on."""
    wanted: set[int] = set()
    for verdict in result.verdicts:
        wanted.update(verdict.seqs)
    messages = []
    for entry in entries:
        if entry["seq"] not in wanted:
            continue
        if "message" in entry and larger_than(entry["message"], INLINE_LIMIT):
            entry = {k: v for k, v in entry.items() if k != "message"}
            entry["message_omitted"] = f"larger than {INLINE_LIMIT} bytes: see wire.jsonl seq {entry['seq']}"
        messages.append(entry)
    return {
        "id": result.id,
        "kind": result.kind,
        "title": result.title,
        "status": result.status,
        "reason": result.reason,
        "steps": list(result.steps),
        "checks": [v.as_dict() for v in result.verdicts],
        "wire_log": "wire.jsonl",
        "messages": messages,
    }


def assemble(*, sheet, profile, conditions: dict, rows: list[dict], schemas: list[dict],
             started_at: str, finished_at: str | None, interrupted: bool = False) -> dict:
    """``results.json`` of a run folder, from the rows each command filled in its own way."""
    rows = [with_sheet_texts(row, sheet) for row in rows]
    return {
        "format": FORMAT,
        "tool": {"name": "mcp-accept", "version": __version__},
        "sheet": {"name": sheet.name, "version": sheet.version, **_texts(title=sheet.title)},
        "profile": profile.name if profile is not None else None,
        "conditions": conditions,
        "schemas": schemas,
        "rows": rows,
        "summary": summary(rows),
        "failures_by_rule": failures_by_rule(rows),
        "started_at": started_at,
        "finished_at": finished_at,
        "interrupted": interrupted,
    }


def _texts(**texts) -> dict:
    """Sheet texts as results.json carries them: both languages (English stands in for a
    missing Japanese text), absent when the sheet has none."""
    out = {}
    for key, text in texts.items():
        if isinstance(text, dict) and text.get("en"):
            out[key] = {**text, "ja": text.get("ja") or text["en"]}
    return out


def with_sheet_texts(row: dict, sheet) -> dict:
    """A row carries what it establishes (and a manual row its procedure), so a reader of
    results.json alone can tell what each status means."""
    try:
        source = sheet.row(row["id"])
    except (KeyError, LookupError, ValueError):
        return row
    return {**row, **_texts(establishes=source.establishes, procedure=source.procedure)}


def keep_observed(rows: list[dict], previous: dict | None) -> list[dict]:
    """Rows filled by hand in an earlier ``observe`` survive a new automated run."""
    if not previous:
        return rows
    observed = {r["id"]: r for r in previous.get("rows", []) if r.get("filled_by") == "observe"}
    return [observed.get(row["id"], row) if row["status"] == PENDING else row for row in rows]


def run_row_files(row_results, entries: list[dict]):
    """``rows/<ID>.json`` of each judged row, for :func:`write_results`: made one at a time
    as they are written, so no two large exchanges are held at once."""
    for result in row_results:
        if result.status != PENDING:
            yield row_evidence_path(result.id), row_evidence(result, entries)


def write_results(folder: Path, results: dict, *, row_files: Iterable[tuple[str, dict]] = (),
                  redactor: Redactor | None = None, lang: str | None = None) -> dict:
    """Write each of ``row_files`` (its path in the folder, its body), then results.json and
    sheet.md; give the results as written.

    The summary and the failures by rule are counted here from the rows, so no writer can
    leave them out of step. The results are masked before sheet.md is rendered from them:
    a Markdown cell escapes "|", which would hide a secret from masking afterwards. sheet.md
    keeps the language it was first written in (``sheet.lang``), so a later ``observe``
    does not switch it. results.json, written after the row files, is the file that says
    the folder is complete: it alone is fsynced (see evidence.files.durable_only)."""
    results["summary"] = summary(results["rows"])
    results["failures_by_rule"] = failures_by_rule(results["rows"])
    if lang is not None:
        results["sheet"]["lang"] = lang
    if redactor is not None:
        results = json.loads(redactor.text(json.dumps(results, ensure_ascii=False)))
    folder = Path(folder)
    with durable_only("results.json"):
        for path, body in row_files:
            atomic_write_json(folder / path, body, redactor)
        atomic_write_json(folder / "results.json", results, redactor)
        shown = (results.get("sheet") or {}).get("lang") or "en"
        atomic_write_text(folder / "sheet.md", (redactor or Redactor()).text(render_run(results, lang=shown)))
    return results
