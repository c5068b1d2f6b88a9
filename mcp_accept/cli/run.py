"""``run`` and ``rerun``: drive a server through the sheet, or run again what a run folder records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from mcp_accept.cli.options import (MAX_RUN, env_option, header_option, inherit_env_option, json_option, lang_option, max_bytes_option,
                                    number_option, offline_option, out_option, profile_option, protocol_option,
                                    quiet_option, schema_dir_option, sdk_option, server_option, set_option,
                                    timeout_option, url_option, verbose_option)
from mcp_accept.cli.outcome import console_safe, environment, fail
from mcp_accept.errors import InputError, InternalError, ServerError
from mcp_accept.protocol import MODERN, VERSIONS_IN_WORDS


def run(
    server: Optional[str] = server_option("Command that starts the server (split like a shell would; no shell runs). Without --server and --url, the built-in fixture is driven."),
    url: Optional[str] = url_option("Streamable HTTP endpoint of the server, e.g. http://127.0.0.1:8765/mcp. With --server too, the server is started first and the run waits until the URL answers."),
    header: List[str] = header_option("\"Name: value\" sent with every HTTP request (e.g. auth); value may be env:VAR to read it from the environment. Values never reach the evidence. Repeatable."),
    env_items: List[str] = env_option(),
    inherit_env: bool = inherit_env_option(),
    protocol: str = protocol_option(f"auto, all, {VERSIONS_IN_WORDS}. auto probes server/discover and falls back to initialize; all runs the sheet once per version the server speaks, each in its own subfolder of --out, with one combined summary (all.json)."),
    timeout: float = timeout_option(),
    max_rounds: int = number_option(int, 5, "--max-rounds", min=1, max=1000, help=f"Requests one step may send while following {MODERN} input_required results (the first one included); a step still asking for input then is UNOBTAINABLE."),
    run_timeout: float = number_option(float, 300.0, "--run-timeout", min=1.0, max=MAX_RUN, help="Seconds the whole run may take."),
    out: Optional[Path] = out_option(),
    conditions: Optional[Path] = typer.Option(None, "--conditions", help="YAML file of execution conditions."),
    set_: List[str] = set_option("KEY=VALUE for a condition, or ROW.option=VALUE (e.g. S02.mode=exact). Repeatable."),
    profile: Optional[Path] = profile_option("YAML profile mapping the rows onto the server's tools (default: the fixture's)."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="YAML sheet to run (default: the built-in sheet)."),
    schema_dir: Optional[Path] = schema_dir_option(),
    offline: bool = offline_option(),
    max_bytes: int = max_bytes_option("Largest message accepted from the server, in bytes."),
    sdk: Optional[bool] = sdk_option(),
    targets: Optional[Path] = typer.Option(None, "--targets", help="YAML file listing many servers (command or URL, each with its profile, conditions and protocol): each runs in its own folder under --out, and one summary is printed. Not with --server or --url."),
    jobs: Optional[int] = number_option(int, None, "--jobs", min=1, max=256, help="With --targets: how many servers run at once (default: the number of CPUs)."),
    shard: Optional[str] = typer.Option(None, "--shard", help="With --targets: run shard K/N of the targets (round-robin over the file's order; every target is in exactly one shard). auto reads MCP_ACCEPT_SHARD=K/N, else GitLab's CI_NODE_INDEX/CI_NODE_TOTAL."),
    fail_on: str = typer.Option("profile", "--fail-on", help="What makes exit code 1: must (a MUST of the MCP spec broken), profile (a MUST, or a rule you wrote in your profile: its reference documents, mime types and assertions; the default), should (those or a SHOULD), or app (any FAIL, the sheet's own advice included). Every FAIL is shown with its rule kind whatever this says."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="YAML or JSON file of expected failures (expected_failures: a list of row, optional check, reason): they are shown FAIL and marked expected, and do not make exit code 1; an entry that no longer fails is reported stale."),
    lang: str = lang_option("Language of sheet.md: en or ja (titles, what each row establishes, and the reasons)."),
    json_: bool = json_option("Print results.json (with --targets: fleet.json; with --protocol all: all.json) on stdout instead of the table."),
    quiet: bool = quiet_option(),
    verbose: bool = verbose_option(),
) -> None:
    """Drive a server through the sheet and write a filled run folder."""
    from mcp_accept.running.execute import RunOptions, check_options, run as do_run

    env = environment(quiet, verbose)
    opts = RunOptions(server=server, url=url, headers=list(header), env=list(env_items), inherit_env=inherit_env,
                      protocol=protocol, timeout=timeout,
                      run_timeout=run_timeout, out=out, conditions=conditions, sets=list(set_),
                      profile=profile, sheet=sheet, schema_dir=schema_dir, offline=offline,
                      max_bytes=max_bytes, fail_on=fail_on, max_rounds=max_rounds, lang=lang, sdk=sdk,
                      baseline=baseline)
    try:
        check_options(opts, every_version=True)
    except InputError as exc:
        raise fail(exc)
    if protocol == "all" and targets is not None:
        raise fail(InputError("all runs one server: not with --targets", field="--protocol"))
    if targets is not None and (server or url):
        raise fail(InputError("--targets names the servers itself: give --server and --url in the file, "
                              "not beside it", field="--targets"))
    if jobs is not None and targets is None:
        raise fail(InputError("--jobs goes with --targets", field="--jobs"))
    if shard is not None and targets is None:
        raise fail(InputError("--shard goes with --targets", field="--shard"))
    if protocol == "all":
        from mcp_accept.running.eras import print_all, run_all

        try:
            with env.waiting("running the sheet once per protocol version..."):
                every = run_all(opts)
        except (InputError, ServerError) as exc:
            raise fail(exc)
        if json_:
            env.print_json(every.summary)
        elif quiet:
            env.echo(f"{len(every.summary['runs'])} versions run; exit {int(every.status)}. Evidence: {every.folder}")
        else:
            print_all(every, console=env.console())
        raise typer.Exit(int(every.status))
    if targets is not None:
        from mcp_accept.output.console import FleetProgress, print_fleet
        from mcp_accept.running.fleet import run_fleet
        from mcp_accept.running.shard import resolve_shard

        try:
            with FleetProgress(env) as progress:
                fleet = run_fleet(targets, opts, jobs=jobs, on_result=progress,
                                  shard=resolve_shard(shard))
        except InputError as exc:
            raise fail(exc)
        if json_:
            env.print_json(json.loads((fleet.folder / "fleet.json").read_text(encoding="utf-8")))
        else:
            from mcp_accept.untrusted import plain_line

            for r in fleet.results:  # servers' names and errors: one line, printable (escaped for rich there)
                r.server_name = plain_line(r.server_name) if r.server_name else r.server_name
                r.error = plain_line(r.error) if r.error else r.error
                r.name, r.folder = plain_line(r.name), plain_line(r.folder)
            print_fleet(fleet, env)
        raise typer.Exit(int(fleet.status))
    try:
        from mcp_accept.evidence.redaction import Redactor
        from mcp_accept.running.execute import url_secrets
        from mcp_accept.untrusted import console_text

        shown = Redactor(url_secrets(url)).text(url) if url else None  # no password or token on screen
        with env.waiting(lambda: f"running the sheet against {console_text(shown or server or 'the built-in fixture')}..."):
            outcome = do_run(opts)
    except (InputError, ServerError, InternalError) as exc:
        raise fail(exc)
    show_run(outcome, env, json_)


def show_run(outcome, env, json_: bool) -> None:
    """Print a finished run (its warnings, its cause or its table) and exit with its status."""
    from mcp_accept.output.console import print_run
    from mcp_accept.running.execute import condition_warnings

    for warning in condition_warnings(outcome.results):
        typer.echo(f"mcp-accept: warning: {console_safe(warning)}", err=True)
    if outcome.results.get("cause"):  # nothing could be tested: say why, once
        typer.echo(f"mcp-accept: error: {console_safe(outcome.results['cause'])} "
                   f"(evidence: {console_safe(str(outcome.folder))})", err=True)
    if json_:
        env.print_json(outcome.results)
    elif not outcome.results.get("cause"):
        print_run(outcome.results, str(outcome.folder), env)
    raise typer.Exit(int(outcome.status))



def rerun(
    run_dir: Path = typer.Argument(..., metavar="RUN_DIR", help="Run folder written by `mcp-accept run` (its results.json records how it was run)."),
    out: Optional[Path] = out_option("Run folder to write (default: a new folder under ./mcp-accept-runs/); never RUN_DIR itself."),
    header: List[str] = header_option("\"Name: value\" for a header the run sent: values are never recorded, so each one not read from env:VAR must be given again. Repeatable."),
    url: Optional[str] = url_option("The run's URL again, when its recorded form had a secret masked (or the server now listens elsewhere)."),
    server: Optional[str] = server_option("The run's server command again, when its recorded form had a secret masked."),
    env_items: List[str] = env_option("NAME=VALUE for each variable the run set for its server: values are never recorded, so each must be given again (those passed by name are read again from this environment). Repeatable."),
    sdk: Optional[bool] = sdk_option("Whether the run again has the sdk layer (see run --sdk). Default: on when the recorded run had it, else as for a run (MCP_ACCEPT_SDK=on or off, else off)."),
    json_: bool = json_option("Print the new results.json on stdout instead of the table."),
    quiet: bool = quiet_option(),
    verbose: bool = verbose_option(),
) -> None:
    """Run again what RUN_DIR records: the same server, options, profile and sheet (as they were then)."""
    from mcp_accept.running.rerun import rerun as do_rerun
    from mcp_accept.untrusted import console_text

    env = environment(quiet, verbose)
    try:
        with env.waiting(lambda: f"running {console_text(str(run_dir))} again..."):
            again = do_rerun(run_dir, out=out, headers=list(header), url=url, server=server, sdk=sdk,
                             env=list(env_items))
    except (InputError, ServerError, InternalError) as exc:
        raise fail(exc)
    for warning in again.warnings:
        typer.echo(f"mcp-accept: warning: {console_safe(warning)}", err=True)
    show_run(again.outcome, env, json_)
