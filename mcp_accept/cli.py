"""The command line: parse options, call the library, print, set the exit status.

Kept thin on purpose: each command turns its options into a call into the package
and maps what comes back (or an :class:`InputError`) to output and an exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from mcp_accept import __version__
from mcp_accept.errors import ExitStatus, InputError, ServerError

app = typer.Typer(
    name="mcp-accept",
    help="Acceptance tests for how an MCP server hands back tool results (text, structuredContent, "
         "embedded resource, resource_link), checked at three layers: wire, type and meaning.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mcp-accept {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """mcp-accept: acceptance-test runner for MCP tool results."""


def fail(error: Exception) -> "typer.Exit":
    """Print an error as one line on stderr and give the exit to raise."""
    text = error.one_line() if isinstance(error, InputError) else str(error)
    typer.echo(f"mcp-accept: error: {text}", err=True)
    return typer.Exit(int(getattr(error, "status", ExitStatus.BAD_INPUT)))


@app.command()
def run(
    server: Optional[str] = typer.Option(None, "--server", help="Command that starts the server (split like a shell would; no shell runs). Without --server and --url, the built-in fixture is driven."),
    protocol: str = typer.Option("auto", "--protocol", help="auto, 2026-07-28, 2025-11-25 or 2025-06-18. auto probes server/discover and falls back to initialize."),
    timeout: float = typer.Option(10.0, "--timeout", min=0.1, help="Seconds to wait for each answer."),
    run_timeout: float = typer.Option(300.0, "--run-timeout", min=1.0, help="Seconds the whole run may take."),
    out: Optional[Path] = typer.Option(None, "--out", help="Run folder to write (default: a new folder under ./mcp-accept-runs/)."),
    conditions: Optional[Path] = typer.Option(None, "--conditions", help="YAML file of execution conditions."),
    set_: List[str] = typer.Option([], "--set", help="KEY=VALUE for a condition, or ROW.option=VALUE (e.g. S02.mode=exact). Repeatable."),
    profile: Optional[Path] = typer.Option(None, "--profile", help="YAML profile mapping the rows onto the server's tools (default: the fixture's)."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="YAML sheet to run (default: the built-in sheet)."),
    schema_dir: Optional[Path] = typer.Option(None, "--schema-dir", help="Folder of official schemas as <version>/schema.json (also MCP_ACCEPT_SCHEMA_DIR)."),
    offline: bool = typer.Option(False, "--offline", help="Never fetch the official schemas; use the folder or the cache only."),
    max_bytes: int = typer.Option(64 * 1024 * 1024, "--max-bytes", min=1024, help="Largest message accepted from the server, in bytes."),
) -> None:
    """Drive a server through the sheet and write a filled run folder."""
    from mcp_accept.console import print_run
    from mcp_accept.execute import RunOptions, run as do_run

    from mcp_accept.schemas import VERSIONS

    if protocol not in ("auto", *VERSIONS):
        raise fail(InputError(f"must be auto or one of {', '.join(VERSIONS)}", field="--protocol"))
    opts = RunOptions(server=server, protocol=protocol, timeout=timeout, run_timeout=run_timeout,
                      out=out, conditions=conditions, sets=list(set_), profile=profile, sheet=sheet,
                      schema_dir=schema_dir, offline=offline, max_bytes=max_bytes)
    try:
        outcome = do_run(opts)
    except (InputError, ServerError) as exc:
        raise fail(exc)
    print_run(outcome.results, outcome.folder)
    raise typer.Exit(int(outcome.status))


@app.command()
def fixture(
    path: bool = typer.Option(False, "--path", help="Print where the fixture file lives."),
) -> None:
    """The built-in reference fixture: copy it out and run it with `python fixture.py`."""
    from mcp_accept.execute import fixture_path

    if path:
        typer.echo(str(fixture_path()))
        return
    typer.echo(f"{fixture_path()}\nRun it with: python {fixture_path().name} [--http PORT] "
               "[--break NAME] [--markers --log DIR]  (see python fixture.py --help)")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("mcp-accept: interrupted", err=True)
        sys.exit(int(ExitStatus.INTERRUPTED))
