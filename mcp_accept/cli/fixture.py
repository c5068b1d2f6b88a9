"""The built-in fixture: ``fixture`` (where it is, how to run it) and ``verify`` (its break
modes against the runner)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mcp_accept.cli.options import (json_option, number_option, offline_option, out_option, quiet_option,
                                    schema_dir_option, timeout_option)
from mcp_accept.cli.outcome import environment, fail
from mcp_accept.errors import InputError

def fixture(
    path: bool = typer.Option(False, "--path", help="Print where the fixture file lives."),
) -> None:
    """The built-in reference fixture: copy it out and run it with `python fixture.py`."""
    from mcp_accept.running.execute import fixture_path

    if path:
        typer.echo(str(fixture_path()))
        return
    typer.echo(f"{fixture_path()}\nRun it with: python {fixture_path().name} [--http PORT] "
               "[--break NAME] [--markers --log DIR]  (see python fixture.py --help)")


def verify(
    out: Optional[Path] = out_option("Folder for verify.md, verify.json and the run folders (default: a new folder under ./mcp-accept-runs/)."),
    timeout: float = timeout_option("Seconds to wait for each answer (the hang mode waits this long).", default=2.0, min=0.1, max=3600.0),
    jobs: int = number_option(int, 2, "--jobs", min=1, max=16, help="Runs to make at once."),
    schema_dir: Optional[Path] = schema_dir_option(),
    offline: bool = offline_option(),
    json_: bool = json_option("Print verify.json on stdout instead of the table."),
    quiet: bool = quiet_option(),
) -> None:
    """Run the fixture in every break mode and every protocol version (2026-07-28, 2025-11-25, 2025-06-18); show each check catches its defect."""
    from mcp_accept.output.console import Progress
    from mcp_accept.verify import VerifyOptions, print_verify, verify as do_verify

    env = environment(quiet)
    try:
        with Progress(env, "verify runs") as progress:
            outcome = do_verify(VerifyOptions(out=out, timeout=timeout, jobs=jobs, schema_dir=schema_dir,
                                              offline=offline, on_progress=progress.advance))
    except InputError as exc:
        raise fail(exc)
    if json_:
        env.print_json(outcome.report)
    elif quiet:
        s = outcome.report["summary"]
        env.echo(f"{len(outcome.report['conditions'])} conditions: {s['PASS']} hold, {s['FAIL']} do not. "
                 f"Report: {outcome.folder / 'verify.md'}")
    else:
        print_verify(outcome, console=env.console())
    raise typer.Exit(int(outcome.status))
