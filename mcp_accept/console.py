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
    return f"{len(results['rows'])} rows: {parts}{state}. Evidence: {folder}"
