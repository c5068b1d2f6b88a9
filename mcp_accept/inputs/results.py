"""``results.json`` (the contract other tools read), ``rows/<ID>.json`` and ``sheet.md``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_accept import __version__
from mcp_accept.checks.base import (ADVISORY_LAYERS, FAIL, PASS, PENDING, RULES, UNOBTAINABLE, row_reason,
                                    strongest_failed_rule)
from mcp_accept.evidence.credentials import check_condition_value
from mcp_accept.errors import InputError
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.files import atomic_write_json, check_plain
from mcp_accept.inputs.files import Index, _line, _require_mapping, _validate, format_path, read_json

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


def _larger_than(value: Any, limit: int) -> bool:
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
        if "message" in entry and _larger_than(entry["message"], INLINE_LIMIT):
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


def build(*, sheet, profile, conditions: dict, rows: list[dict], schemas: list[dict],
          started_at: str, finished_at: str | None, interrupted: bool = False) -> dict:
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


def load_previous(folder: Path) -> dict | None:
    path = folder / "results.json"
    if not path.is_file():
        return None
    return validate_results(path)


def keep_observed(rows: list[dict], previous: dict | None) -> list[dict]:
    """Rows filled by hand in an earlier ``observe`` survive a new automated run."""
    if not previous:
        return rows
    observed = {r["id"]: r for r in previous.get("rows", []) if r.get("filled_by") == "observe"}
    return [observed.get(row["id"], row) if row["status"] == PENDING else row for row in rows]


def write_row_files(folder: Path, row_results, entries: list[dict], redactor: Redactor | None = None) -> None:
    for result in row_results:
        if result.status == PENDING:
            continue
        atomic_write_json(folder / row_evidence_path(result.id), row_evidence(result, entries), redactor)


# --------------------------------------------------------------------------- reading results.json

# Conditions a run fills from what it saw (mcp_accept.running.execute.observed_conditions):
# the server's own name among them. They were written by mcp-accept, masked as wire.jsonl is,
# so reading them back is no person handing over a credential; a value given by a person was
# checked when it was given.
OBSERVED_CONDITIONS = frozenset({
    "transport", "protocol_version_on_wire", "client_sdk_and_version", "executed_at_utc",
    "evidence_path_or_id", "resource_read_route", "server_name", "result_size_utf8_bytes"})


def _check_results(data: dict, index: Index, shown: str) -> None:
    for key, value in data["conditions"].items():
        if key in OBSERVED_CONDITIONS:
            continue
        check_condition_value(f"conditions.{key}", value, source=shown,
                              line=_line(index, ("conditions", key)))
    counts = {status: 0 for status in data["summary"]}
    first: dict[str, int] = {}
    for i, row in enumerate(data["rows"]):
        if row["id"] in first:
            where = ("rows", i, "id")
            raise InputError(f"duplicate row id {row['id']} (first at rows[{first[row['id']]}])",
                             file=shown, line=_line(index, where), field=format_path(where))
        first[row["id"]] = i
        counts[row["status"]] += 1
    for status, count in data["summary"].items():
        if count != counts[status]:
            where = ("summary", status)
            raise InputError(f"says {count} but the rows hold {counts[status]}", file=shown,
                             line=_line(index, where), field=format_path(where))


# How a run that never reached its server points every automated row at its "cause"
# (mcp_accept.running.execute: SEE_RUN_STARTED, SEE_RUN_SPOKEN); tests/test_nothing_tested.py
# keeps the two in step.
UNREACHED_REASON_PREFIX = "see run: the server could not be "


def untested_cause(results: dict) -> str | None:
    """Why a run tested nothing: the server could not be started or spoken to. None when it
    was reached. Every consumer of results.json (the reports, ``diff``, the pytest plugin)
    reads that fact here and nowhere else, so none of them can show such a run as clean.

    The run says it in ``cause``, once. A file without it (edited by hand, or written by a
    tool that dropped the key) tested nothing all the same when every automated row is
    UNOBTAINABLE pointing at the run; that pointer then stands in for the cause. The text is
    the server's and the user's, unescaped: each format makes it inert for itself."""
    cause = results.get("cause")
    if isinstance(cause, str) and cause.strip():
        return " ".join(cause.split())
    automated = [row for row in results.get("rows") or []
                 if row.get("filled_by", "runner") == "runner" and row.get("status") != PENDING]
    if automated and all(row.get("status") == UNOBTAINABLE
                         and (row.get("reason") or "").startswith(UNREACHED_REASON_PREFIX)
                         for row in automated):
        return automated[0]["reason"].removeprefix("see run: ")
    return None


def validate_results(path: str | Path) -> dict:
    """Load a results.json and check it against ``results.schema.json``, and that its
    summary counts its rows, no row id repeats and no condition holds a credential.
    Returns the parsed document. A results.json that is a link, a FIFO or device, or a hard
    link is refused by name before it is opened (evidence.files.check_plain)."""
    check_plain(Path(path))
    data, index, shown = read_json(path)
    _require_mapping(data, index, shown)
    _validate(data, index, "results", shown)
    _check_results(data, index, shown)
    return data


# --------------------------------------------------------------------------- fleet folders

def fleet_entries(folder: Path) -> list[tuple[int, Path]]:
    """(position in the targets file, run folder) of each target of a fleet folder that left a
    results.json (a target stopped before it started has none). Raises InputError on a
    damaged fleet.json."""
    index_file = folder / "fleet.json"
    try:
        data = json.loads(index_file.read_text(encoding="utf-8"))
        targets = data["targets"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable fleet index ({type(exc).__name__})", file=str(index_file)) from None
    found = []
    for n, entry in enumerate(targets):
        try:
            position = int(entry.get("index", n))
            run = Path(entry["folder"])
        except (AttributeError, KeyError, TypeError, ValueError):
            raise InputError("a target entry has no folder", file=str(index_file), field=f"targets[{n}]") from None
        run = run if run.is_absolute() else folder / run
        if (run / "results.json").is_file():
            found.append((position, run))
    return found


def expand_run_dirs(paths: list[Path]) -> list[Path]:
    """Run folders as given, with every fleet folder (a fleet.json, no results.json) replaced by
    its targets' run folders. The targets of all fleet folders are merged in the targets file's
    order and stand where the first fleet folder stood: N shards read like one unsharded run."""
    out: list[Path] = []
    merged: list[tuple[int, int, Path]] = []
    slot = None
    for order, given in enumerate(paths):
        path = Path(given)
        if path.is_dir() and not (path / "results.json").exists() and (path / "fleet.json").is_file():
            if slot is None:
                slot = len(out)
            merged += [(position, order, run) for position, run in fleet_entries(path)]
        else:
            out.append(path)
    if slot is not None:
        out[slot:slot] = [run for _, _, run in sorted(merged, key=lambda item: (item[0], item[1]))]
    return out


# --------------------------------------------------------------------------- the invocation record

# What makes two runs "of the same server and inputs": each entry names the difference as a
# person would say it and where it is read in ``invocation`` (mcp_accept.running.invocation).
INVOCATION_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("server command", ("target", "server")),
    ("URL", ("target", "url")),
    ("headers sent", ("target", "headers")),
    ("profile (SHA-256)", ("profile", "sha256")),
    ("profile reference files", ("profile", "references")),
    ("sheet (SHA-256)", ("sheet", "sha256")),
    ("conditions file (SHA-256)", ("conditions_file", "sha256")),
    ("--protocol", ("options", "protocol")),
    ("--fail-on", ("options", "fail_on")),
    ("--timeout", ("options", "timeout")),
    ("--run-timeout", ("options", "run_timeout")),
    ("--max-bytes", ("options", "max_bytes")),
    ("--max-rounds", ("options", "max_rounds")),
    ("--set", ("options", "sets")),
    ("--schema-dir", ("options", "schema_dir")),
)


def _at(record: dict, path: tuple[str, ...]):
    value = record
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if path[-1] == "references" and isinstance(value, list):  # the documents, not their spelling
        return [entry.get("sha256") for entry in value if isinstance(entry, dict)]
    if path[-1] == "headers" and isinstance(value, list):
        return sorted(str(entry.get("name", "")).lower() for entry in value if isinstance(entry, dict))
    return value


def invocation_differences(first: dict | None, second: dict | None) -> list[str]:
    """What differs between two ``invocation`` records, named as a person would (``--timeout``,
    ``profile (SHA-256)``); empty when either run has none (nothing to tell)."""
    if not isinstance(first, dict) or not isinstance(second, dict):
        return []
    return [name for name, path in INVOCATION_KEYS if _at(first, path) != _at(second, path)]
