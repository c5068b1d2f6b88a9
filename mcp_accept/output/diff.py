"""``mcp-accept diff BASE_RUN CURRENT_RUN``: what changed between two runs, row by row.

A regression is a row that was PASS in the base run and is anything else now (FAIL,
UNOBTAINABLE, PENDING, or gone from the sheet): the one change CI should stop on.
Every other change is shown but does not fail, with one exception: a current run that
tested nothing (its server could not be started or reached) shows nothing holding, so each
of its automated rows that was not already a regression is ``untested`` and counts as one,
and the cause is said before the table. Diffing two runs that never reached their server is
never clean.

Reasons are server text: they go to the console as rich ``Text``, never as markup, so
``wire [must]: ...`` keeps its rule kind and ``[/italic]`` in a server's message is shown,
not parsed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ABSENT = "—"
REGRESSIONS = ("regression", "untested")


@dataclass
class RowChange:
    id: str
    base: str  # status in the base run, or ABSENT
    current: str
    change: str  # regression, untested, fixed, changed, same, new, removed
    reason: str = ""  # the current reason (or the base one for a removed row)


@dataclass
class DiffOutcome:
    base: Path
    current: Path
    rows: list[RowChange] = field(default_factory=list)
    base_untested: str | None = None  # why the base run tested nothing, when it did
    current_untested: str | None = None  # why the current run tested nothing, when it did
    # what differs between the two runs' invocation records (server, profile, sheet, options):
    # a row's change may then come from the inputs, not from the server's code
    input_differences: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[RowChange]:
        return [r for r in self.rows if r.change in REGRESSIONS]


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
    from mcp_accept.inputs.results import untested_cause

    untested = untested_cause(current) is not None
    before = {row["id"]: row for row in base["rows"]}
    now = {row["id"]: row for row in current["rows"]}
    changes = []
    for rid in list(now) + [rid for rid in before if rid not in now]:
        old, new = before.get(rid), now.get(rid)
        b = old["status"] if old else ABSENT
        c = new["status"] if new else ABSENT
        reason = ((new or old).get("reason") or "") if (new or old) else ""
        change = classify(b, c)
        if (untested and change not in REGRESSIONS and new is not None and c == "UNOBTAINABLE"
                and new.get("filled_by", "runner") == "runner"):
            change = "untested"
        changes.append(RowChange(rid, b, c, change, reason))
    return changes


def diff_runs(base: Path, current: Path) -> DiffOutcome:
    """Load and validate both runs (their folders or results.json files) and compare them."""
    from mcp_accept.inputs.results import invocation_differences, untested_cause
    from mcp_accept.output.runs import load_runs

    (base_run,) = load_runs([Path(base)])
    (current_run,) = load_runs([Path(current)])
    return DiffOutcome(Path(base), Path(current), diff_results(base_run.results, current_run.results),
                       base_untested=untested_cause(base_run.results),
                       current_untested=untested_cause(current_run.results),
                       input_differences=invocation_differences(base_run.results.get("invocation"),
                                                                current_run.results.get("invocation")))


def input_warning(differences: list[str]) -> str:
    return ("mcp-accept: warning: the two runs are of different servers or inputs (they differ in "
            f"{', '.join(differences)}): a change below may come from that, not from the server")


STYLES = {"regression": "bold red", "untested": "bold red", "fixed": "green", "changed": "yellow",
          "new": "cyan", "removed": "magenta", "same": "dim"}
REASON_CAP = 160  # characters of a reason in the table; the whole of it is in results.json


def print_diff(outcome: DiffOutcome, console=None) -> None:
    """The rows that changed and the verdict. On a terminal (or the ``console`` given) a rich
    table; piped, plain columns whose reasons wrap at spaces, never inside a word or a path."""
    from mcp_accept.output.console import counted, default_environment, plain_columns, shorten, wrap_cells
    from mcp_accept.untrusted import plain_line

    counts: dict[str, int] = {}
    for row in outcome.rows:
        counts[row.change] = counts.get(row.change, 0) + 1
    parts = ", ".join(f"{n} {change}" for change, n in sorted(counts.items()))
    verdict = (f"{counted(len(outcome.regressions), 'regression')}: "
               + ", ".join(r.id for r in outcome.regressions)) if outcome.regressions else "no regression"
    if outcome.current_untested:
        verdict += " (the current run tested nothing)"
    notes = []
    if outcome.current_untested:
        notes.append((f"mcp-accept: error: the current run tested nothing: {outcome.current_untested}", "bold red"))
    if outcome.base_untested:
        notes.append((f"mcp-accept: warning: the base run tested nothing: {outcome.base_untested}", "yellow"))
    if outcome.input_differences:
        notes.append((input_warning(outcome.input_differences), "yellow"))
    title = f"mcp-accept diff: {outcome.base} -> {outcome.current}"
    closing = f"{counted(len(outcome.rows), 'row')}: {parts}. {verdict}."
    env = None if console is not None else default_environment()
    if env is not None and not env.stdout_isatty:
        rows = [("id", "base", "current", "change", "reason now")]
        rows += [tuple(plain_line(x) for x in (r.id, r.base, r.current, r.change, shorten(r.reason, REASON_CAP)))
                 for r in outcome.rows]
        lines = [plain_line(note) for note, _ in notes]  # an error or a warning stays one line
        lines += [plain_line(title), *plain_columns(rows, env.width)]
        lines += wrap_cells(plain_line(closing), env.width, cut=False)
        env.stdout.write("".join(line + "\n" for line in lines))
        return
    from rich.table import Table
    from rich.text import Text

    def text(value, style: str = "") -> Text:  # a value as it is: no markup, no emoji codes
        return Text(plain_line(value), style=style)

    console = console or env.console()
    for note, style in notes:
        console.print(text(note, style), soft_wrap=True)
    table = Table(title=text(title))
    table.add_column("id", no_wrap=True)
    table.add_column("base", no_wrap=True)
    table.add_column("current", no_wrap=True)
    table.add_column("change", no_wrap=True)
    table.add_column("reason now", overflow="fold")
    for row in outcome.rows:
        table.add_row(text(row.id), text(row.base), text(row.current),
                      text(row.change, STYLES.get(row.change, "")), text(shorten(plain_line(row.reason), REASON_CAP)))
    console.print(table)
    console.print(text(closing), soft_wrap=True)
