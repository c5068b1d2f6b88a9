"""The command line: parse options, call the library, print, set the exit status.

Kept thin on purpose: each command turns its options into a call into the package
and maps what comes back (or an :class:`InputError`) to output and an exit code.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import List, Optional

import typer

from mcp_accept import __version__
from mcp_accept.errors import DiskFull, ExitStatus, InputError, InternalError, ServerError, disk_full_within
from mcp_accept.protocol import MODERN, VERSIONS, VERSIONS_IN_WORDS

class _PlainUsage(typer.core.TyperCommand):
    """A usage line in the usual Unix shape (``RUN_DIR...``, ``[ROW]``): Typer 0.29 wraps
    every required argument in braces (``{RUN_DIR}``), which reads like a set of choices."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                pieces.extend(param.get_usage_pieces(ctx))
                continue
            name = param.metavar or (param.name or "").upper()
            name = name if param.required else f"[{name}]"
            pieces.append(name + ("..." if param.nargs != 1 else ""))
        return pieces


class _Typer(typer.Typer):
    """Every command of mcp-accept takes the plain usage line."""

    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or _PlainUsage, **kwargs)


# Upper bounds of the numeric options: far above any real need, low enough that every
# value is a finite number the clocks and buffers below can hold (inf, nan and 10**30 are
# refused where the option is read, not found out as a crash deep in a run).
MAX_WAIT = 86400.0  # one answer may take a day
MAX_RUN = 7 * 86400.0  # one run may take a week
MAX_BYTES = 1 << 32  # one message of 4 GiB


class _Number:
    """Reads a number option's value in click's words (``'x' is not a valid integer.``,
    ``0.0 is not in the range x>=0.1.``), which the options' errors have always used: typer
    from 0.29 on words them as pydantic does (``Input should be greater than or equal to
    0.1``). Given as the option's ``parser``; its ``min`` and ``max`` are still given to
    typer, which shows them in the help."""

    def __init__(self, kind: type, low: float | None, high: float | None):
        self.kind, self.low, self.high = kind, low, high

    def __call__(self, value):
        shown = repr(value) if len(str(value)) <= 40 else repr(f"{str(value)[:20]}...{str(value)[-8:]}")
        ranged = self.low is not None or self.high is not None
        try:
            number = self.kind(value)
        except (TypeError, ValueError):
            name = {(int, True): "int range", (float, True): "float range", (int, False): "integer",
                    (float, False): "float"}[self.kind, ranged]
            raise typer.BadParameter(f"{shown} is not a valid {name}.") from None
        if self.kind is float and not math.isfinite(number):
            raise typer.BadParameter(f"{shown} is not a finite number.")
        low, high = self.low, self.high
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = f"x<={high}" if low is None else f"x>={low}" if high is None else f"{low}<=x<={high}"
            raise typer.BadParameter(f"{shown if len(str(number)) > 40 else number} is not in the range {bounds}.")
        return number


def number_option(kind: type, default, *names: str, min: float | None = None, max: float | None = None,
                  **options):
    """A ``typer.Option`` for a number, read by :class:`_Number`."""
    return typer.Option(default, *names, min=min, max=max, parser=_Number(kind, min, max), **options)


app = _Typer(
    name="mcp-accept",
    help="Acceptance tests for how an MCP server hands back tool results (text, structuredContent, "
         "embedded resource, resource_link), checked at three layers: wire, type and meaning.",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: formatting it with rich costs 0.15 s of imports per --help
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


def environment(quiet: bool = False, verbose: bool = False):
    """The streams to print to and what they are (see mcp_accept.output.console.Environment)."""
    from mcp_accept.output.console import NORMAL, QUIET, VERBOSE, Environment

    if quiet and verbose:
        raise fail(InputError("-q and -v contradict each other: give one", field="--quiet"))
    return Environment(verbosity=QUIET if quiet else VERBOSE if verbose else NORMAL)


def fail(error: Exception) -> "typer.Exit":
    """Print an error as one line on stderr and give the exit to raise.

    A full disk (or the file size limit) behind the error, whichever command met it and
    however it was reported on the way, gives its own status (NO_SPACE) and names the file."""
    error = as_disk_full(error)
    text = error.one_line() if isinstance(error, (InputError, InternalError)) else str(error)
    typer.echo(f"mcp-accept: error: {console_safe(text)}", err=True)
    return typer.Exit(int(getattr(error, "status", ExitStatus.BAD_INPUT)))


@app.command()
def run(
    server: Optional[str] = typer.Option(None, "--server", help="Command that starts the server (split like a shell would; no shell runs). Without --server and --url, the built-in fixture is driven."),
    url: Optional[str] = typer.Option(None, "--url", help="Streamable HTTP endpoint of the server, e.g. http://127.0.0.1:8765/mcp. With --server too, the server is started first and the run waits until the URL answers."),
    header: List[str] = typer.Option([], "--header", help="\"Name: value\" sent with every HTTP request (e.g. auth); value may be env:VAR to read it from the environment. Values never reach the evidence. Repeatable."),
    protocol: str = typer.Option("auto", "--protocol", help=f"auto, all, {VERSIONS_IN_WORDS}. auto probes server/discover and falls back to initialize; all runs the sheet once per version the server speaks, each in its own subfolder of --out, with one combined summary (all.json)."),
    timeout: float = number_option(float, 10.0, "--timeout", min=0.1, max=MAX_WAIT, help="Seconds to wait for each answer."),
    max_rounds: int = number_option(int, 5, "--max-rounds", min=1, max=1000, help=f"Requests one step may send while following {MODERN} input_required results (the first one included); a step still asking for input then is UNOBTAINABLE."),
    run_timeout: float = number_option(float, 300.0, "--run-timeout", min=1.0, max=MAX_RUN, help="Seconds the whole run may take."),
    out: Optional[Path] = typer.Option(None, "--out", help="Run folder to write (default: a new folder under ./mcp-accept-runs/)."),
    conditions: Optional[Path] = typer.Option(None, "--conditions", help="YAML file of execution conditions."),
    set_: List[str] = typer.Option([], "--set", help="KEY=VALUE for a condition, or ROW.option=VALUE (e.g. S02.mode=exact). Repeatable."),
    profile: Optional[Path] = typer.Option(None, "--profile", help="YAML profile mapping the rows onto the server's tools (default: the fixture's)."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="YAML sheet to run (default: the built-in sheet)."),
    schema_dir: Optional[Path] = typer.Option(None, "--schema-dir", help="Folder of official schemas as <version>/schema.json (also MCP_ACCEPT_SCHEMA_DIR)."),
    offline: bool = typer.Option(False, "--offline", help="Never download an official schema (also MCP_ACCEPT_OFFLINE=1). Every protocol version this release pins ships inside it, so a run downloads nothing anyway; this matters only for a pin with no bundled copy, whose schema checks are then UNOBTAINABLE instead of fetched."),
    max_bytes: int = number_option(int, 64 * 1024 * 1024, "--max-bytes", min=1024, max=MAX_BYTES, help="Largest message accepted from the server, in bytes."),
    targets: Optional[Path] = typer.Option(None, "--targets", help="YAML file listing many servers (command or URL, each with its profile, conditions and protocol): each runs in its own folder under --out, and one summary is printed. Not with --server or --url."),
    jobs: Optional[int] = number_option(int, None, "--jobs", min=1, max=256, help="With --targets: how many servers run at once (default: the number of CPUs)."),
    shard: Optional[str] = typer.Option(None, "--shard", help="With --targets: run shard K/N of the targets (round-robin over the file's order; every target is in exactly one shard). auto reads MCP_ACCEPT_SHARD=K/N, else GitLab's CI_NODE_INDEX/CI_NODE_TOTAL."),
    fail_on: str = typer.Option("app", "--fail-on", help="What makes exit code 1: must (a MUST of the MCP spec broken), should (a MUST or SHOULD), or app (any FAIL, rules of the sheet or profile included; the default)."),
    lang: str = typer.Option("en", "--lang", help="Language of sheet.md: en or ja (titles, what each row establishes, and the reasons)."),
    json_: bool = typer.Option(False, "--json", help="Print results.json (with --targets: fleet.json; with --protocol all: all.json) on stdout instead of the table."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print only the summary line (and errors)."),
    verbose: bool = typer.Option(False, "-v", "--verbose", help="Show each row's checks, with rule kind and spec source, below it."),
) -> None:
    """Drive a server through the sheet and write a filled run folder."""
    from mcp_accept.running.execute import RunOptions, check_options, run as do_run

    env = environment(quiet, verbose)
    opts = RunOptions(server=server, url=url, headers=list(header), protocol=protocol, timeout=timeout,
                      run_timeout=run_timeout, out=out, conditions=conditions, sets=list(set_),
                      profile=profile, sheet=sheet, schema_dir=schema_dir, offline=offline,
                      max_bytes=max_bytes, fail_on=fail_on, max_rounds=max_rounds, lang=lang)
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


@app.command()
def rerun(
    run_dir: Path = typer.Argument(..., metavar="RUN_DIR", help="Run folder written by `mcp-accept run` (its results.json records how it was run)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Run folder to write (default: a new folder under ./mcp-accept-runs/); never RUN_DIR itself."),
    header: List[str] = typer.Option([], "--header", help="\"Name: value\" for a header the run sent: values are never recorded, so each one not read from env:VAR must be given again. Repeatable."),
    url: Optional[str] = typer.Option(None, "--url", help="The run's URL again, when its recorded form had a secret masked (or the server now listens elsewhere)."),
    server: Optional[str] = typer.Option(None, "--server", help="The run's server command again, when its recorded form had a secret masked."),
    json_: bool = typer.Option(False, "--json", help="Print the new results.json on stdout instead of the table."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print only the summary line (and errors)."),
    verbose: bool = typer.Option(False, "-v", "--verbose", help="Show each row's checks, with rule kind and spec source, below it."),
) -> None:
    """Run again what RUN_DIR records: the same server, options, profile and sheet (as they were then)."""
    from mcp_accept.running.rerun import rerun as do_rerun
    from mcp_accept.untrusted import console_text

    env = environment(quiet, verbose)
    try:
        with env.waiting(lambda: f"running {console_text(str(run_dir))} again..."):
            again = do_rerun(run_dir, out=out, headers=list(header), url=url, server=server)
    except (InputError, ServerError, InternalError) as exc:
        raise fail(exc)
    for warning in again.warnings:
        typer.echo(f"mcp-accept: warning: {console_safe(warning)}", err=True)
    show_run(again.outcome, env, json_)


@app.command()
def proxy(
    server: Optional[str] = typer.Option(None, "--server", help="stdio: the real server's command (split like a shell would). A host launches `mcp-accept proxy --server CMD` as its MCP server."),
    url: Optional[str] = typer.Option(None, "--url", help="Streamable HTTP: the real server's endpoint; the host connects to --listen instead."),
    listen: str = typer.Option("127.0.0.1:0", "--listen", help="With --url: HOST:PORT to listen on, a loopback address (port 0: any free port; the URL is printed)."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="With --url: allow a --listen address that is not loopback (a warning is printed; requests still need a Host naming the proxy)."),
    header: List[str] = typer.Option([], "--header", help="With --url: \"Name: value\" added to every upstream request; value may be env:VAR. Never recorded. Repeatable."),
    max_bytes: int = number_option(int, 64 * 1024 * 1024, "--max-bytes", min=1024, max=MAX_BYTES, help="Largest message held whole, in bytes: a stdio line or an HTTP request body over it is not forwarded (the host gets a JSON-RPC error); an HTTP answer over it is forwarded but not recorded."),
    write_timeout: float = number_option(float, 30.0, "--write-timeout", min=0.1, max=MAX_WAIT, help="Seconds a write may wait for its reader to take a byte: a server that stops reading its stdin (the host's request gets a JSON-RPC error), a host that stops reading its stdout (the session ends) or an HTTP answer, and an HTTP request body that stops arriving. Each is recorded as an event."),
    out: Optional[Path] = typer.Option(None, "--out", help="Folder under which each start writes a run folder of its own (default: ./mcp-accept-runs/proxy)."),
    name: Optional[str] = typer.Option(None, "--name", help="Label for the run folders' names (e.g. the server's name)."),
    set_: List[str] = typer.Option([], "--set", help="KEY=VALUE for an execution condition the wire cannot show (e.g. model_and_settings). Repeatable."),
) -> None:
    """Record what a real host does with a real server: forward every message unchanged, record both directions."""
    from mcp_accept.hosts.proxy.folder import DEFAULT_OUT, new_run_folder

    try:
        if bool(server) == bool(url):
            raise InputError("give --server CMD (stdio) or --url URL (Streamable HTTP), one of them",
                             field="--server")
        if url or header:
            from mcp_accept.running.execute import RunOptions, check_target

            headers, redactor = check_target(RunOptions(server=server, url=url, headers=list(header)))
        else:  # a host waits for this start: the run's machinery is not imported for a stdio proxy
            from mcp_accept.server_command import command_words

            command_words(server)
        given = {}
        if set_:
            from mcp_accept.hosts.observe import given_conditions

            given = given_conditions(None, None, list(set_))
        if url:
            from mcp_accept.hosts.proxy.http import listen_address, serve_http_proxy

            address = listen_address(listen, allow_remote)
        base = out or DEFAULT_OUT
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot write the output folder: {exc.strerror or exc}", file=str(base),
                             field="--out") from None
        if server:
            from mcp_accept.hosts.proxy.stdio import run_stdio_proxy

            run_stdio_proxy(server, base, name, given=given, max_bytes=max_bytes, write_timeout=write_timeout)
            return
        try:
            folder = new_run_folder(base, name)
            serve_http_proxy(url, address, folder, headers=headers, redactor=redactor, given=given,
                             max_bytes=max_bytes, write_timeout=write_timeout,
                             say=lambda text: typer.echo(text) or sys.stdout.flush())
        except OSError as exc:
            raise InputError(f"cannot listen: {exc.strerror or exc}", field="--listen") from None
    except (InputError, ServerError) as exc:
        raise fail(exc)


host_app = _Typer(help="Hosts: how to make one launch the recording proxy.",
                       no_args_is_help=True, rich_markup_mode=None)
app.add_typer(host_app, name="host")


@host_app.command("config")
def host_config(
    host: str = typer.Argument(..., metavar="HOST", help="claude-code, vscode, claude-desktop or cursor."),
    server: Optional[str] = typer.Option(None, "--server", help="The real server's command."),
    out: Path = typer.Option(Path("mcp-accept-runs") / "proxy", "--out", help="Folder the proxy writes its run folders under (made absolute)."),
    name: str = typer.Option("mcp-accept-proxy", "--name", help="Name the host shows for the server."),
    markers: bool = typer.Option(False, "--markers", help="Point the host at the fixture in marker mode (its log under OUT/fixture-log); not with --server."),
) -> None:
    """Print the snippet or command that makes HOST launch `mcp-accept proxy`."""
    from mcp_accept.hosts.config import config

    try:
        typer.echo(config(host, server, out, name=name, markers=markers), nl=False)
    except InputError as exc:
        raise fail(exc)


@host_app.command("test")
def host_test(
    host: str = typer.Argument(..., metavar="HOST", help="claude-code, codex, gemini-cli, qwen-code, opencode, continue or fast-agent."),
    server: Optional[str] = typer.Option(None, "--server", help="The MCP server's command (default: the built-in fixture in marker mode). With --url: started first, then reached at the URL."),
    url: Optional[str] = typer.Option(None, "--url", help="The MCP server's Streamable HTTP endpoint; the host reaches it through the recording proxy."),
    profile: Optional[Path] = typer.Option(None, "--profile", help="YAML profile naming the server's tools for each form (default: the fixture's)."),
    host_bin: Optional[str] = typer.Option(None, "--host-bin", help="The host's executable (default: found on PATH)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Run folder to write (default: a new folder under ./mcp-accept-runs/)."),
    transport: str = typer.Option("stdio", "--transport", help="With the built-in fixture: stdio, or http (the fixture over Streamable HTTP behind the proxy)."),
    timeout: float = number_option(float, 180.0, "--timeout", min=5.0, max=3600.0, help="Seconds the host may take before it is stopped."),
    json_: bool = typer.Option(False, "--json", help="Print results.json on stdout instead of the table."),
    no_proxy: bool = typer.Option(False, "--no-proxy", help="For measuring the proxy's cost: the host reaches the server directly; the H rows still come from model.jsonl, the wire facts are left unknown."),
    replace: bool = typer.Option(False, "--replace", help="--out names an earlier run's folder: empty it first (without this, a folder that is not empty is refused)."),
) -> None:
    """Run a real host headless against a stand-in model on 127.0.0.1 and fill H01-H03 from what its model was handed."""
    from mcp_accept.hosts.harness import HostTestOptions, host_test as run_host_test
    from mcp_accept.output.host_run import print_host_test

    try:
        if transport not in ("stdio", "http"):
            raise InputError(f"must be stdio or http (found {transport!r})", field="--transport")
        outcome = run_host_test(HostTestOptions(host=host, server=server, url=url,
                                                profile=str(profile) if profile else None, host_bin=host_bin,
                                                out=str(out) if out else None, transport=transport,
                                                timeout=timeout, proxy=not no_proxy, replace=replace))
    except (InputError, ServerError) as exc:
        raise fail(exc)
    if json_:
        typer.echo(json.dumps(outcome.results, ensure_ascii=False, indent=2))
    else:
        print_host_test(outcome, environment())
    if outcome.not_measured:
        typer.echo(f"mcp-accept: the host run measured nothing: {outcome.not_measured} "
                   f"(evidence: {outcome.folder})", err=True)
    raise typer.Exit(int(outcome.status))


@host_app.command("matrix")
def host_matrix(
    hosts: Optional[str] = typer.Option(None, "--hosts", help="Comma-separated hosts to run (default: every host mcp-accept has an adapter for; one not installed is a row that says so)."),
    server: Optional[str] = typer.Option(None, "--server", help="The MCP server's command (default: the built-in fixture in marker mode)."),
    url: Optional[str] = typer.Option(None, "--url", help="The MCP server's Streamable HTTP endpoint."),
    profile: Optional[Path] = typer.Option(None, "--profile", help="YAML profile naming the server's tools for each form."),
    out: Optional[Path] = typer.Option(None, "--out", help="Folder for matrix.json, matrix.md, matrix.html (and .ja versions) and one host-test folder per host (default: a new folder under ./mcp-accept-runs/)."),
    jobs: int = number_option(int, 1, "--jobs", min=1, max=16, help="Hosts to run at once."),
    transport: str = typer.Option("stdio", "--transport", help="With the built-in fixture: stdio or http."),
    timeout: float = number_option(float, 180.0, "--timeout", min=5.0, max=3600.0, help="Seconds each host may take."),
    lang: str = typer.Option("en", "--lang", help="Language of the table printed: en or ja (both are written)."),
    json_: bool = typer.Option(False, "--json", help="Print matrix.json instead of the Markdown table."),
    replace: bool = typer.Option(False, "--replace", help="--out names an earlier matrix's folder: empty it first (without this, a folder that is not empty is refused)."),
) -> None:
    """Run `host test` for every installed host and write one table of what each hands its model."""
    import time

    from mcp_accept.hosts.harness import HostTestOptions
    from mcp_accept.hosts.matrix import pick_hosts, run_matrix
    from mcp_accept.output.host_matrix import render_markdown
    from mcp_accept.output.render import check_lang

    try:
        check_lang(lang)
        if transport not in ("stdio", "http"):
            raise InputError(f"must be stdio or http (found {transport!r})", field="--transport")
        chosen = pick_hosts(hosts)
        if profile:
            from mcp_accept.inputs.profile import load_profile

            load_profile(profile)
        folder = out or Path("mcp-accept-runs") / time.strftime("matrix-%Y%m%dT%H%M%SZ", time.gmtime())
        matrix = run_matrix(HostTestOptions(host=chosen[0], server=server, url=url,
                                            profile=str(profile) if profile else None, transport=transport,
                                            timeout=timeout, replace=replace), chosen, folder, jobs)
    except (InputError, ServerError) as exc:
        raise fail(exc)
    typer.echo(json.dumps(matrix, ensure_ascii=False, indent=2) if json_ else render_markdown(matrix, lang))
    measured = [r for r in matrix["rows"] if not r.get("error")]
    raise typer.Exit(int(ExitStatus.OK if measured else ExitStatus.SERVER))


@app.command()
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


@app.command()
def verify(
    out: Optional[Path] = typer.Option(None, "--out", help="Folder for verify.md, verify.json and the run folders (default: a new folder under ./mcp-accept-runs/)."),
    timeout: float = number_option(float, 2.0, "--timeout", min=0.1, max=3600.0, help="Seconds to wait for each answer (the hang mode waits this long)."),
    jobs: int = number_option(int, 2, "--jobs", min=1, max=16, help="Runs to make at once."),
    schema_dir: Optional[Path] = typer.Option(None, "--schema-dir", help="Folder of official schemas as <version>/schema.json (also MCP_ACCEPT_SCHEMA_DIR)."),
    offline: bool = typer.Option(False, "--offline", help="Never download an official schema (also MCP_ACCEPT_OFFLINE=1). Every protocol version this release pins ships inside it, so a run downloads nothing anyway; this matters only for a pin with no bundled copy, whose schema checks are then UNOBTAINABLE instead of fetched."),
    json_: bool = typer.Option(False, "--json", help="Print verify.json on stdout instead of the table."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print only the summary line (and errors)."),
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


@app.command()
def observe(
    run_dir: Path = typer.Argument(..., metavar="RUN_DIR", help="Run folder written by `mcp-accept run`."),
    row: Optional[str] = typer.Argument(None, metavar="ROW", help="Row to fill by hand (e.g. H03); with --answer, only that marker row."),
    status: Optional[str] = typer.Option(None, "--status", help="PASS, FAIL or UNOBTAINABLE (filling one row by hand)."),
    evidence: Optional[Path] = typer.Option(None, "--evidence", help="File backing the row; copied into RUN_DIR/evidence/ when it lies outside the run folder."),
    note: Optional[str] = typer.Option(None, "--note", help="What was seen, in a few words (the reason of a row filled by hand)."),
    answer: Optional[str] = typer.Option(None, "--answer", help="Marker mode: the model's answer or a host's debug trace (a file, or - for standard input)."),
    fixture_log: Optional[Path] = typer.Option(None, "--fixture-log", help="Marker mode: the folder given to fixture.py --log (default: RUN_DIR/fixture-log)."),
    host: Optional[str] = typer.Option(None, "--host", help="Host product observed, e.g. \"Claude Code\" (condition host_product)."),
    host_version: Optional[str] = typer.Option(None, "--host-version", help="Version of that host (condition host_version)."),
    set_: List[str] = typer.Option([], "--set", help="KEY=VALUE for an execution condition. Repeatable."),
    sheet: Optional[Path] = typer.Option(None, "--sheet", help="The sheet the run used, when not the built-in one."),
    transcript: Optional[str] = typer.Option(None, "--transcript", help="Marker mode: a host's debug transcript (a file, or -); its tool results are what the model was handed. Needs --format."),
    format_: Optional[str] = typer.Option(None, "--format", help="The transcript's format: claude-code-stream-json (claude -p --output-format stream-json --verbose)."),
) -> None:
    """Fill host observation rows: one row by hand, or H01/H02 from a marker answer or a host's transcript."""
    from mcp_accept.hosts import observe as obs

    try:
        if transcript is not None or format_ is not None:
            if transcript is None or format_ is None:
                raise InputError("--transcript FILE and --format NAME go together",
                                 field="--transcript" if transcript is None else "--format")
            if answer is not None or status is not None or evidence is not None:
                raise InputError("--transcript fills the marker rows by itself; not with --answer, "
                                 "--status or --evidence", field="--transcript")
            filled = obs.fill_from_markers(run_dir, transcript, fixture_log=fixture_log, row_id=row,
                                           note=note, host=host, host_version=host_version,
                                           sets=list(set_), sheet_path=sheet, transcript_format=format_)
        elif answer is not None:
            if status is not None or evidence is not None:
                raise InputError("--answer fills the marker rows by itself; --status and "
                                 "--evidence are for one row filled by hand", field="--answer")
            filled = obs.fill_from_markers(run_dir, answer, fixture_log=fixture_log, row_id=row,
                                           note=note, host=host, host_version=host_version,
                                           sets=list(set_), sheet_path=sheet)
        elif row is None or status is None:
            raise InputError("give ROW --status STATUS --evidence FILE, or --answer FILE "
                             "(see mcp-accept observe --help)", field="ROW" if row is None else "--status")
        else:
            filled = obs.fill_manual(run_dir, row, status, evidence, note=note, host=host,
                                     host_version=host_version, sets=list(set_))
    except InputError as exc:
        raise fail(exc)
    for entry in filled.rows:
        typer.echo(console_safe(f"{entry['id']} {entry['status']}: {entry['reason']} (evidence: {entry['evidence']})"))
    for change in filled.changed:
        typer.echo(f"condition changed: {change}")
    typer.echo(f"Updated {filled.folder / 'results.json'} and sheet.md")


@app.command()
def report(
    run_dirs: List[Path] = typer.Argument(..., metavar="RUN_DIR", help="Run folders (or their results.json files), or fleet folders of run --targets: give every shard's to merge them."),
    out: Optional[Path] = typer.Option(None, "--out", help="File to write (default: standard output)."),
    lang: str = typer.Option("en", "--lang", help="Language of the labels: en or ja."),
    format_: str = typer.Option("markdown", "--format", help="markdown, junit, json, html (one self-contained page), sarif (SARIF 2.1.0), github (workflow-command annotations), or hosts / hosts-html (the per-host table of `host test` folders: what each host handed its model)."),
    template: Optional[Path] = typer.Option(None, "--template", help="A Jinja template of your own for the markdown report."),
    json_: bool = typer.Option(False, "--json", help="The same as --format json: one JSON document (every run's results and the summary by host)."),
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


@app.command()
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


schemas_app = _Typer(help="The official MCP schemas: where they come from, and fetching them.",
                           no_args_is_help=True, rich_markup_mode=None)
app.add_typer(schemas_app, name="schemas")


@schemas_app.command("list")
def schemas_list(
    schema_dir: Optional[Path] = typer.Option(None, "--schema-dir", help="Folder of official schemas as <version>/schema.json (also MCP_ACCEPT_SCHEMA_DIR)."),
) -> None:
    """Show each pinned version, its SHA-256, and where its schema would be read from."""
    from mcp_accept.schemas import SchemaStore

    from mcp_accept.schemas import require_dir

    try:
        require_dir(schema_dir)
    except InputError as exc:
        raise fail(exc)
    problems = 0
    for item in SchemaStore(schema_dir, allow_fetch=False).status():
        where = item["source"] or f"unavailable: {item['problem']}"
        problems += item["source"] is None
        typer.echo(f"{item['version']}  sha256:{item['sha256']}  {where}")
    raise typer.Exit(0 if not problems else int(ExitStatus.FAILED))


@schemas_app.command("fetch")
def schemas_fetch(
    dir_: Path = typer.Option(..., "--dir", help="Folder to write <version>/schema.json into."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="A mirror laid out as BASE/<version>/schema.json instead of the pinned URLs; hashes are checked all the same."),
) -> None:
    """Download every pinned official schema, check its SHA-256, and write it into a folder."""
    from mcp_accept.schemas import SchemaStore, SchemaUnavailable

    try:
        done = SchemaStore(allow_fetch=True).fetch_all(dir_, base_url=base_url)
    except SchemaUnavailable as exc:
        # runs never need this: say so, and how to use copies of one's own
        typer.echo(f"mcp-accept: error: {console_safe(str(exc))}; runs do not need it: the pinned schemas "
                   "ship with mcp-accept (see `mcp-accept schemas list`); to use copies of your own, "
                   "put them in a folder as <version>/schema.json and give --schema-dir", err=True)
        raise typer.Exit(int(ExitStatus.FETCH))
    except OSError as exc:
        raise fail(InputError(f"cannot write: {exc.strerror or exc}", file=str(dir_), field="--dir"))
    for item in done:
        typer.echo(f"{item['version']}  sha256:{item['sha256']}  {item['path']}")


profile_app = _Typer(help="Profiles: how the sheet's rows map onto a server's tools.",
                          no_args_is_help=True, rich_markup_mode=None)
app.add_typer(profile_app, name="profile")


@profile_app.command("init")
def profile_init(
    server: Optional[str] = typer.Option(None, "--server", help="Command that starts the server (stdio; with --url, the server to start before connecting)."),
    url: Optional[str] = typer.Option(None, "--url", help="Streamable HTTP endpoint of the server."),
    header: List[str] = typer.Option([], "--header", help="\"Name: value\" sent with every HTTP request; value may be env:VAR. Repeatable."),
    protocol: str = typer.Option("auto", "--protocol", help=f"auto, {VERSIONS_IN_WORDS}."),
    timeout: float = number_option(float, 10.0, "--timeout", min=0.1, max=MAX_WAIT, help="Seconds to wait for each answer."),
    out: Optional[Path] = typer.Option(None, "--out", help="File to write the profile to (default: print it)."),
    force: bool = typer.Option(False, "--force", help="Replace the --out file if it exists."),
    json_: bool = typer.Option(False, "--json", help="Print the profile as JSON (the same data as the YAML, without its comments) instead of YAML."),
) -> None:
    """Write a starting profile from the server's tools/list, marking what had to be guessed."""
    from mcp_accept.evidence.files import atomic_write_text
    from mcp_accept.running.execute import RunOptions, check_target
    from mcp_accept.inputs.profile_init import check_out, init_profile
    from mcp_accept.transport.factory import make_probe_transport

    if not server and not url:
        raise fail(InputError("give --server CMD or --url URL", field="--server"))
    if protocol not in ("auto", *VERSIONS):
        raise fail(InputError(f"must be auto or one of {', '.join(VERSIONS)}", field="--protocol"))
    try:
        headers, redactor = check_target(RunOptions(server=server, url=url, headers=list(header)))
        check_out(out, force)
    except InputError as exc:
        raise fail(exc)
    try:
        transport = make_probe_transport(server=server, url=url, headers=headers, redactor=redactor)
        text = redactor.text(init_profile(transport, protocol=protocol, timeout=timeout))
    except (InputError, ServerError) as exc:
        raise fail(type(exc)(redactor.text(str(exc))) if isinstance(exc, ServerError) else exc)
    if json_:
        import yaml

        text = json.dumps(yaml.safe_load(text), ensure_ascii=False, indent=2) + "\n"
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        atomic_write_text(out, text)
    except OSError as exc:
        raise fail(InputError(f"cannot write: {exc.strerror or exc}", file=str(out), field="--out"))
    typer.echo(f"wrote {out}")


def as_disk_full(error: BaseException) -> BaseException:
    """``error`` as :class:`DiskFull` when a full disk is behind it (or behind the exception
    being handled where it was made); else ``error`` unchanged."""
    if isinstance(error, DiskFull):
        return error
    cause = disk_full_within(error, sys.exc_info()[1])
    if cause is None:
        return error
    return DiskFull(cause, getattr(error, "file", None) or cause.filename, run_folder=False)


def console_safe(text: str) -> str:
    """A line of ours quoting a server's or a user's text, for typer.echo (no markup): one
    line, every control character and escape made visible."""
    from mcp_accept.untrusted import plain_line

    return plain_line(text)


def _internal_error(exc: BaseException) -> None:
    """A fault of mcp-accept itself: one line, a crash report file, exit 70 (not 1, 2 or 3)."""
    import tempfile

    from mcp_accept.evidence.files import write_crash_report

    report = write_crash_report(tempfile.mkdtemp(prefix="mcp-accept-crash-"), exc)
    typer.echo(f"mcp-accept: error: {console_safe(InternalError(f'{type(exc).__name__}: {exc}', report).one_line())}",
               err=True)
    sys.exit(int(ExitStatus.INTERNAL))


def _only_the_invoked(argv: list[str]) -> typer.Typer:
    """The application with only the command (or group) named first on the command line: typer
    builds the click command of every function it holds before parsing (40 ms for all of
    them), and only that one is parsed. Anything else (no command, an option first, a name
    that is not a command) gets the whole application, for its help and its suggestions."""
    import copy

    from typer.main import get_command_name

    name = argv[0] if argv else ""
    commands = [c for c in app.registered_commands
                if (c.name or get_command_name(c.callback.__name__)) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only


def main() -> None:
    try:
        code = _only_the_invoked(sys.argv[1:])(standalone_mode=False, prog_name="mcp-accept")
    except KeyboardInterrupt:
        typer.echo("mcp-accept: interrupted", err=True)
        sys.exit(int(ExitStatus.INTERRUPTED))
    except typer.Abort:
        typer.echo("mcp-accept: aborted", err=True)
        sys.exit(1)
    except Exception as exc:
        if disk_full_within(exc) is not None:  # not a fault of the tool: no crash report, no room for one
            raise SystemExit(fail(exc).exit_code) from None
        # A wrong command line (unknown option, a value of the wrong type...): one line,
        # like every other input error, instead of the usage box.
        describe, status = getattr(exc, "format_message", None), getattr(exc, "exit_code", None)
        if not callable(describe) or not isinstance(status, int):
            _internal_error(exc)
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare command: its help, as --help shows it
            typer.echo(exc.ctx.get_help() if getattr(exc, "ctx", None) else describe())
            sys.exit(0)
        message = " ".join(str(describe()).split())
        if message:  # asking for help with no arguments has printed the help already
            typer.echo(f"mcp-accept: error: {message}", err=True)
        sys.exit(status)
    sys.exit(code if isinstance(code, int) else 0)
