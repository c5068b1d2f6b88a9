"""What a run prints: a table of the rows and a one-line summary."""

from __future__ import annotations

from pathlib import Path

STYLES = {"PASS": "green", "FAIL": "bold red", "UNOBTAINABLE": "yellow", "PENDING": "dim"}


def print_run(results: dict, folder: Path, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    table = Table(title=f"mcp-accept: {results['conditions'].get('server_name') or 'server'} "
                        f"({results['conditions'].get('transport')}, "
                        f"{results['conditions'].get('protocol_version_on_wire') or 'no version'})")
    table.add_column("id", no_wrap=True)
    table.add_column("kind")
    table.add_column("status", no_wrap=True)
    table.add_column("reason", overflow="fold")
    for row in results["rows"]:
        reason = row.get("reason") or ""
        if len(reason) > 160:
            reason = reason[:157] + "..."
        table.add_row(row["id"], row["kind"], f"[{STYLES.get(row['status'], '')}]{row['status']}[/]",
                      reason, )
    console.print(table)
    console.print(summary_line(results, folder), highlight=False, soft_wrap=True)


def summary_line(results: dict, folder: Path) -> str:
    counts = results["summary"]
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    state = " (interrupted)" if results.get("interrupted") else ""
    rules = results.get("failures_by_rule")
    broken = ""
    if rules and counts.get("FAIL"):
        broken = (f" Spec violations: {rules['must']} MUST, {rules['should']} SHOULD; "
                  f"rules of the sheet or profile: {rules['app']}.")
    return f"{len(results['rows'])} rows: {parts}{state}.{broken} Evidence: {folder}"


def print_progress(result, done: int, total: int) -> None:
    """One line on stderr as each target of a fleet ends."""
    import sys

    counts = result.summary or {}
    told = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or (result.error or "no rows")
    sys.stderr.write(f"[{done}/{total}] {result.name}: exit {result.exit} ({told}) in {result.seconds:.1f}s\n")
    sys.stderr.flush()


def print_fleet(fleet, console=None) -> None:
    """The fleet's summary: one line per target, then the totals."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    table = Table(title=f"mcp-accept fleet: {len(fleet.results)} targets, {fleet.jobs} at a time")
    for name in ("target", "server", "transport", "protocol", "PASS", "FAIL", "UNOBTAINABLE", "PENDING",
                 "exit", "seconds", "folder / problem"):
        table.add_column(name, overflow="fold", no_wrap=name in ("target", "exit"))
    for r in fleet.results:
        counts = r.summary or {}
        cells = [str(counts.get(s, "")) if r.summary is not None else "" for s in
                 ("PASS", "FAIL", "UNOBTAINABLE", "PENDING")]
        if counts.get("FAIL"):
            cells[1] = f"[{STYLES['FAIL']}]{cells[1]}[/]"
        where = r.folder if not r.error else f"{r.folder}: {r.error}"
        table.add_row(r.name, r.server_name or "", r.transport or "", r.protocol or "", *cells,
                      str(r.exit), f"{r.seconds:.1f}", where)
    console.print(table)
    console.print(fleet_line(fleet), highlight=False, soft_wrap=True)


def fleet_line(fleet) -> str:
    ok = sum(1 for r in fleet.results if r.exit == 0)
    failed = sum(1 for r in fleet.results if r.exit == 1)
    other = len(fleet.results) - ok - failed
    state = " (interrupted)" if fleet.interrupted else ""
    return (f"{len(fleet.results)} targets: {ok} passed, {failed} with failing rows, {other} not tested "
            f"to the end, in {fleet.seconds:.1f}s{state}. Runs: {fleet.folder} (index: fleet.json)")
