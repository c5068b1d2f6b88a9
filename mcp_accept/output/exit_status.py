"""The one rule from a written ``results.json`` to the exit status CI reads, for ``run`` (and
``rerun``, which is a run) and ``host test``; and which FAIL rows make that status.

Worst first: an interrupted run; a run that tested nothing (its server could not be started
or spoken to, or a host that handed its model no result); a FAIL the runner found that
breaks ``--fail-on`` and that the baseline does not expect; else OK. By default
(``--fail-on profile``) a run fails on what the user asked for: a MUST of the spec and the
rules of the user's own profile; a SHOULD and the sheet's advice are shown as FAIL with
their kind, and fail the run only under ``--fail-on should`` or ``app``. Rows a person filled
with ``observe`` never decide it: the exit status says what this command found.
"""

from __future__ import annotations

from mcp_accept.checks.base import APP, DEFAULT_FAIL_ON, FAIL, breaks_threshold
from mcp_accept.errors import ExitStatus
from mcp_accept.inputs.results import untested_cause


def _breaking_checks(row: dict, fail_on: str) -> set[str | None]:
    """The checks of a FAIL row whose rule is within ``fail_on`` (None stands for the row
    itself where it lists no checks)."""
    checks = [c for c in row.get("checks") or () if isinstance(c, dict) and c.get("status") == FAIL]
    if not checks:
        return {None} if breaks_threshold(row.get("failed_rule") or APP, fail_on) else set()
    return {c.get("check") for c in checks if breaks_threshold(c.get("rule") or APP, fail_on)}


def row_gates(row: dict, fail_on: str, expected: dict[str, set[str] | None] | None = None) -> bool:
    """Whether a row makes the run fail: a FAIL of the runner's, breaking a rule within
    ``fail_on``, not wholly expected by the baseline (``expected``: row id to the checks it
    expects to fail, None for the whole row)."""
    if row.get("status") != FAIL or row.get("filled_by", "runner") != "runner":
        return False
    breaking = _breaking_checks(row, fail_on)
    if expected and row.get("id") in expected:
        allowed = expected[row["id"]]
        if allowed is None:
            return False
        breaking -= allowed
    return bool(breaking)


def expected_failures(results: dict) -> dict[str, set[str] | None]:
    """The baseline recorded in ``results.json``, as :func:`row_gates` reads it."""
    expected: dict[str, set[str] | None] = {}
    for entry in (results.get("baseline") or {}).get("entries") or ():
        row, check = entry.get("row"), entry.get("check")
        if check is None:
            expected[row] = None
        elif row not in expected or expected[row] is not None:
            expected.setdefault(row, set()).add(check)
    return expected


def apply_baseline(results: dict, entries: list[dict], file: str) -> None:
    """Record the baseline in ``results``: each entry with whether it still fails (an entry
    that no longer does is stale), and on each expected row why it is expected."""
    rows = {row.get("id"): row for row in results.get("rows") or ()}
    recorded = []
    for entry in entries:
        row = rows.get(entry["row"])
        failing = row is not None and row.get("status") == FAIL
        if failing and entry.get("check") is not None:
            failing = any(c.get("check") == entry["check"] and c.get("status") == FAIL
                          for c in row.get("checks") or ())
        recorded.append({**entry, "still_fails": failing})
        if failing:
            row["expected_failure"] = entry["reason"]
    results["baseline"] = {"file": file, "entries": recorded}


def stale_entries(results: dict) -> list[dict]:
    """The baseline's entries that no longer fail."""
    return [e for e in (results.get("baseline") or {}).get("entries") or () if not e.get("still_fails")]


def mark_gates(results: dict, fail_on: str) -> None:
    """Say on each FAIL row whether it makes the run fail, and under which ``--fail-on``."""
    expected = expected_failures(results)
    results["fail_on"] = fail_on
    for row in results.get("rows") or ():
        if row.get("status") == FAIL and row.get("filled_by", "runner") == "runner":
            row["gates"] = row_gates(row, fail_on, expected)


def exit_status(results: dict, *, fail_on: str = DEFAULT_FAIL_ON, not_measured: str | None = None) -> ExitStatus:
    """``not_measured``: why a host run measured nothing (``host-run.json``'s
    ``outcome.not_measured``), which counts as a server that could not be reached."""
    if results.get("interrupted"):
        return ExitStatus.INTERRUPTED
    if not_measured or untested_cause(results):
        return ExitStatus.SERVER
    expected = expected_failures(results)
    failed = any(row_gates(row, fail_on, expected) for row in results["rows"])
    return ExitStatus.FAILED if failed else ExitStatus.OK
