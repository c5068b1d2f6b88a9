"""``report`` (runs rendered as one report) and ``diff`` (two runs compared row by row)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from mcp_accept.cli.options import json_option, lang_option, out_option
from mcp_accept.cli.outcome import fail
from mcp_accept.errors import ExitStatus, InputError

def report(
    run_dirs: List[Path] = typer.Argument(..., metavar="RUN_DIR", help="Run folders (or their results.json files), or fleet folders of run --targets: give every shard's to merge them."),
    out: Optional[Path] = out_option("File to write (default: standard output)."),
    lang: str = lang_option("Language of the labels: en or ja."),
    format_: str = typer.Option("markdown", "--format", help="markdown, junit, json, html (one self-contained page), sarif (SARIF 2.1.0), github (workflow-command annotations), or hosts / hosts-html (the per-host table of `host test` folders: what each host handed its model)."),
    template: Optional[Path] = typer.Option(None, "--template", help="A Jinja template of your own for the markdown report."),
    json_: bool = json_option("The same as --format json: one JSON document (every run's results and the summary by host)."),
) -> None:
    """Render runs as one report: every filled sheet and a summary table by host."""
    from mcp_accept.output.report import build_report, print_text

    if json_:
        if format_ not in ("markdown", "json"):
            raise fail(InputError(f"--json is --format json: not with --format {format_}", field="--json"))
        format_ = "json"
    try:
        text = build_report(list(run_dirs), out=out, lang=lang, fmt=format_, template=template)
    except InputError as exc:
        raise fail(exc)
    if out is None:
        print_text(text)
    else:
        typer.echo(f"Wrote {out}", err=True)


def diff(
    base_run: Path = typer.Argument(..., metavar="BASE_RUN", help="Run folder to compare against (e.g. the main branch's)."),
    current_run: Path = typer.Argument(..., metavar="CURRENT_RUN", help="Run folder of the change."),
) -> None:
    """Compare two runs row by row; exit 1 when a row PASS in BASE_RUN is not PASS now."""
    from mcp_accept.output.diff import diff_runs, print_diff

    try:
        outcome = diff_runs(base_run, current_run)
    except InputError as exc:
        raise fail(exc)
    print_diff(outcome)
    raise typer.Exit(int(ExitStatus.FAILED) if outcome.regressions else 0)
