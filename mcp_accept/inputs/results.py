"""``results.json`` and fleet folders read back: checked against their schema, the cause of a
run that tested nothing, the targets of a fleet folder, and what differs between two runs'
``invocation`` records. They are assembled and written in one place,
:mod:`mcp_accept.output.results_writer`.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_accept.checks.base import PENDING, UNOBTAINABLE
from mcp_accept.evidence.credentials import check_condition_value
from mcp_accept.errors import InputError
from mcp_accept.evidence.files import check_plain
from mcp_accept.inputs.files import Index, _line, _require_mapping, _validate, format_path, read_json


def load_previous(folder: Path) -> dict | None:
    path = folder / "results.json"
    if not path.is_file():
        return None
    return validate_results(path)


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
    ("--inherit-env", ("target", "environment", "inherited")),
    ("--env NAME", ("target", "environment", "passed")),
    ("--env NAME=VALUE", ("target", "environment", "set")),
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
    ("--sdk", ("options", "sdk")),
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
