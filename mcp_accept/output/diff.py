"""``mcp-accept diff BASE_RUN CURRENT_RUN``: what changed between two runs, row by row.

A regression is a row that was PASS in the base run and is anything else now (FAIL,
UNOBTAINABLE, PENDING, or gone from the sheet): the one change CI should stop on.
Every other change is shown but does not fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ABSENT = "—"


@dataclass
class RowChange:
    id: str
    base: str  # status in the base run, or ABSENT
    current: str
    change: str  # regression, fixed, changed, same, new, removed
    reason: str = ""  # the current reason (or the base one for a removed row)


@dataclass
class DiffOutcome:
    base: Path
    current: Path
    rows: list[RowChange] = field(default_factory=list)

    @property
    def regressions(self) -> list[RowChange]:
        return [r for r in self.rows if r.change == "regression"]


def classify(base: str, current: str) -> str:
    if base == "PASS" and current != "PASS":
        return "regression"
    if base == ABSENT:
        return "new"
    if current == ABSENT:
        return "removed"
    if current == "PASS" and base != "PASS":
        return "fixed"
    return "same" if base == current else "changed"


def diff_results(base: dict, current: dict) -> list[RowChange]:
    """Row by row, in the current run's order, then rows only the base run has."""
    before = {row["id"]: row for row in base["rows"]}
    now = {row["id"]: row for row in current["rows"]}
    changes = []
    for rid in list(now) + [rid for rid in before if rid not in now]:
        old, new = before.get(rid), now.get(rid)
        b = old["status"] if old else ABSENT
        c = new["status"] if new else ABSENT
        reason = ((new or old).get("reason") or "") if (new or old) else ""
        changes.append(RowChange(rid, b, c, classify(b, c), reason))
    return changes


def diff_runs(base: Path, current: Path) -> DiffOutcome:
    """Load and validate both runs (their folders or results.json files) and compare them."""
    from mcp_accept.output.runs import load_runs

    (base_run,) = load_runs([Path(base)])
    (current_run,) = load_runs([Path(current)])
    return DiffOutcome(Path(base), Path(current), diff_results(base_run.results, current_run.results))


STYLES = {"regression": "bold red", "fixed": "green", "changed": "yellow", "new": "cyan",
          "removed": "magenta", "same": "dim"}


def print_diff(outcome: DiffOutcome, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    table = Table(title=f"mcp-accept diff: {outcome.base} -> {outcome.current}")
    table.add_column("id", no_wrap=True)
    table.add_column("base", no_wrap=True)
    table.add_column("current", no_wrap=True)
    table.add_column("change", no_wrap=True)
    table.add_column("reason now", overflow="fold")
    for row in outcome.rows:
        reason = row.reason if len(row.reason) <= 160 else row.reason[:157] + "..."
        table.add_row(row.id, row.base, row.current, f"[{STYLES[row.change]}]{row.change}[/]", reason)
    console.print(table)
    counts: dict[str, int] = {}
    for row in outcome.rows:
        counts[row.change] = counts.get(row.change, 0) + 1
    parts = ", ".join(f"{n} {change}" for change, n in sorted(counts.items()))
    verdict = (f"{len(outcome.regressions)} regression(s): "
               + ", ".join(r.id for r in outcome.regressions)) if outcome.regressions else "no regression"
    console.print(f"{len(outcome.rows)} rows: {parts}. {verdict}.", highlight=False, soft_wrap=True)
