"""What hosts do: ``proxy`` (record a real host with a real server), ``observe`` (fill the
host rows of a run folder) and the ``host`` group (``config``, ``test``, ``matrix``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from mcp_accept.cli.options import (MAX_WAIT, CommandGroup, ServerTarget, find_threshold_option, header_option, json_option,
                                    lang_option, large_sizes_option, max_bytes_option, max_run_bytes_option,
                                    number_option, out_option, server_option, set_option, threshold_calls_option,
                                    timeout_option, url_option, with_server_target)
from mcp_accept.cli.outcome import console_safe, environment, fail
from mcp_accept.errors import ExitStatus, InputError, ServerError

def proxy(
    server: Optional[str] = server_option("stdio: the real server's command (split like a shell would). A host launches `mcp-accept proxy --server CMD` as its MCP server; the server is given the environment the host gave the proxy."),
    url: Optional[str] = url_option("Streamable HTTP: the real server's endpoint; the host connects to --listen instead."),
    listen: str = typer.Option("127.0.0.1:0", "--listen", help="With --url: HOST:PORT to listen on, a loopback address (port 0: any free port; the URL is printed)."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="With --url: allow a --listen address that is not loopback (a warning is printed; requests still need a Host naming the proxy)."),
    header: List[str] = header_option("With --url: \"Name: value\" added to every upstream request; value may be env:VAR. Never recorded. Repeatable."),
    max_bytes: int = max_bytes_option("Largest message held whole, in bytes: a stdio line or an HTTP request body over it is not forwarded (the host gets a JSON-RPC error); an HTTP answer over it is forwarded but not recorded."),
    write_timeout: float = number_option(float, 30.0, "--write-timeout", min=0.1, max=MAX_WAIT, help="Seconds a write may wait for its reader to take a byte: a server that stops reading its stdin (the host's request gets a JSON-RPC error), a host that stops reading its stdout (the session ends) or an HTTP answer, and an HTTP request body that stops arriving. Each is recorded as an event."),
    out: Optional[Path] = out_option("Folder under which each start writes a run folder of its own (default: ./mcp-accept-runs/proxy)."),
    name: Optional[str] = typer.Option(None, "--name", help="Label for the run folders' names (e.g. the server's name)."),
    set_: List[str] = set_option("KEY=VALUE for an execution condition the wire cannot show (e.g. model_and_settings). Repeatable."),
    ready_file: Optional[Path] = typer.Option(None, "--ready-file", help="With --url: once listening, write JSON {url, folder, pid} to this file (for a program that starts the proxy)."),
    isolate: bool = typer.Option(False, "--isolate", help="With --server: run the server in network and PID namespaces of its own (Linux, unshare): it reaches no network, not even this machine's loopback, and sees no other process. host test uses it to keep the server away from the stand-in model."),
    mask_socket: Optional[Path] = typer.Option(None, "--mask-socket", help="A Unix socket that serves the values host test --env hands the server (hosts/server_env.py): the proxy asks it once as it starts and masks each value wherever it would write or print it."),
    upstream_socket: Optional[Path] = typer.Option(None, "--upstream-socket", help="With --url: open each connection to the upstream through this Unix socket, which carries it on to the URL's host and port (TLS still ends at the proxy). host test uses it to reach a server outside the run's network namespace; the proxy connects once as it starts, so that the socket serves it alone."),
) -> None:
    """Record what a real host does with a real server: forward every message unchanged, record both directions."""
    from mcp_accept.hosts.proxy.folder import DEFAULT_OUT, new_run_folder

    try:
        if bool(server) == bool(url):
            raise InputError("give --server CMD (stdio) or --url URL (Streamable HTTP), one of them",
                             field="--server")
        if isolate and url:
            raise InputError("--isolate is for --server: a server reached by --url is not started by the proxy",
                             field="--isolate")
        if upstream_socket and not url:
            raise InputError("--upstream-socket is for --url: a server the proxy starts is reached on its stdin",
                             field="--upstream-socket")
        if url or header:
            from mcp_accept.running.execute import RunOptions, check_target

            headers, redactor = check_target(RunOptions(server=server, url=url, headers=list(header)))
        else:  # a host waits for this start: the run's machinery is not imported for a stdio proxy
            from mcp_accept.server_command import command_words

            command_words(server)
        secrets = []
        if mask_socket:
            from mcp_accept.hosts.env_gate import fetch_values

            try:
                secrets = list(fetch_values(str(mask_socket)).values())
            except (OSError, ValueError) as exc:
                raise InputError(f"the values to mask could not be had: {exc}", field="--mask-socket") from None
            if url or header:
                for value in secrets:
                    redactor.add(value)
        given = {}
        if set_:
            from mcp_accept.hosts.observe import given_conditions

            given = given_conditions(None, None, list(set_))
        if url:
            from mcp_accept.hosts.proxy.http import listen_address, serve_http_proxy

            address = listen_address(listen, allow_remote)
        from mcp_accept.evidence.files import make_folder

        base = make_folder(out or DEFAULT_OUT)
        if server:
            from mcp_accept.hosts.proxy.stdio import run_stdio_proxy

            run_stdio_proxy(server, base, name, given=given, max_bytes=max_bytes, write_timeout=write_timeout,
                            isolate=isolate, secrets=secrets)
            return
        try:
            folder = new_run_folder(base, name)
            serve_http_proxy(url, address, folder, headers=headers, redactor=redactor, given=given,
                             max_bytes=max_bytes, write_timeout=write_timeout,
                             say=lambda text: typer.echo(text) or sys.stdout.flush(), ready_file=ready_file,
                             upstream_socket=str(upstream_socket) if upstream_socket else None)
        except OSError as exc:
            raise InputError(f"cannot listen: {exc.strerror or exc}", field="--listen") from None
    except (InputError, ServerError) as exc:
        raise fail(exc)



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
    set_: List[str] = set_option("KEY=VALUE for an execution condition. Repeatable."),
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



def host_cache_option():
    return typer.Option(None, "--host-cache", help="Folder HOST@VERSION installs published host versions into and reuses them from (default: $MCP_ACCEPT_HOST_CACHE, else mcp-accept/hosts in your user cache folder); never your project's or global packages.")


def host_cache_max_option():
    return typer.Option(None, "--host-cache-max", metavar="SIZE", help="The host cache's bound, in bytes or with a unit (500MiB, 5GiB; default: $MCP_ACCEPT_HOST_CACHE_MAX, else 5GiB): once an install passes it, the least recently used versions are removed, never one a run is using.")


def cache_limit(given: Optional[str]) -> Optional[int]:
    from mcp_accept.hosts.versions import cache_max

    return cache_max(given) if given else None


host_app = CommandGroup(help="Real hosts: host test, host matrix, host config. `host test` runs one agent host "
                            "headless against a server and a stand-in model, `host matrix` every installed "
                            "host side by side; `host config` makes a host launch the recording proxy.",
                       no_args_is_help=True, rich_markup_mode=None)


@host_app.command("config")
def host_config(
    host: str = typer.Argument(..., metavar="HOST", help="claude-code, cline, copilot-cli, kilo-code, mistral-vibe, vscode, claude-desktop or cursor."),
    server: Optional[str] = server_option("The real server's command."),
    out: Path = out_option("Folder the proxy writes its run folders under (made absolute).", default=Path("mcp-accept-runs") / "proxy"),
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
@with_server_target(
    "The MCP server's command (default: the built-in fixture in marker mode). With --url: started first, then "
    "reached at the URL.",
    "The MCP server's Streamable HTTP endpoint, on this machine or not; the host reaches it through the recording "
    "proxy (a server this run does not start is reached from outside the run's network namespace, by the proxy "
    "alone).",
    "YAML profile naming the server's tools for each form (default: the fixture's).")
def host_test(
    host: Optional[str] = typer.Argument(None, metavar="HOST", help="claude-code, cline, codex, continue, copilot-cli, fast-agent, gemini-cli, kilo-code, mistral-vibe, opencode, qwen-code, openai-agents, pydantic-ai, langchain, google-adk, ai-sdk, openai-agents-js or mastra; with @VERSION (e.g. claude-code@2.0.21), that published version, installed from the host's registry into the host cache and reused."),
    client: Optional[str] = typer.Option(None, "--client", help="Your own program as the host, instead of HOST (its words split like a shell would, no shell); it finds the model and the MCP server in its environment (docs/hosts.md, \"Your own client\"). Needs --api."),
    api: Optional[str] = typer.Option(None, "--api", help="With --client: the model API the program speaks, anthropic, openai-chat, openai-responses or gemini; a request of another is refused and the run says so."),
    target: ServerTarget = None,
    host_bin: Optional[str] = typer.Option(None, "--host-bin", help="The host's executable (default: found on PATH)."),
    out: Optional[Path] = out_option(),
    transport: str = typer.Option("stdio", "--transport", help="With the built-in fixture: stdio, or http (the fixture over Streamable HTTP behind the proxy)."),
    timeout: float = timeout_option("Seconds the host may take before it is stopped.", default=180.0, min=5.0, max=3600.0),
    max_run_bytes: int = max_run_bytes_option(),
    json_: bool = json_option("Print results.json on stdout instead of the table."),
    no_proxy: bool = typer.Option(False, "--no-proxy", help="For measuring the proxy's cost: the host reaches the server directly; the H rows still come from model.jsonl, the wire facts are left unknown."),
    replace: bool = typer.Option(False, "--replace", help="--out names an earlier run's folder: empty it first (without this, a folder that is not empty is refused)."),
    sizes: Optional[str] = large_sizes_option(),
    find_threshold: bool = find_threshold_option(),
    threshold_calls: int = threshold_calls_option(),
    model_kind: Optional[str] = typer.Option(None, "--model-kind", help="Which model the host is configured with, where what the host hands its model depends on it: opencode, kilo-code declare it (vision, the default, takes images and PDFs; text takes text only); fast-agent and qwen-code decide from the model's name (fast-agent: vision openai.gpt-4.1, text openai.o3-mini, by default anthropic.claude-sonnet-4-0; qwen-code: text qwen3-coder-plus, the default, vision qwen3-vl-plus). host-run.json records it under model_declared."),
    host_cache: Optional[Path] = host_cache_option(),
    host_cache_max: Optional[str] = host_cache_max_option(),
) -> None:
    """Run a real host headless against a stand-in model on 127.0.0.1 and fill H01-H03 from what its model was handed."""
    from mcp_accept.hosts.harness import HostRunInterrupted, host_test as run_host_test
    from mcp_accept.hosts.job import HostTestOptions, large_sizes
    from mcp_accept.output.host_run import print_host_test

    try:
        if transport not in ("stdio", "http"):
            raise InputError(f"must be stdio or http (found {transport!r})", field="--transport")
        host = own_client_options(host, client, api, host_bin)
        from mcp_accept.hosts.versions import split_host

        host, version = split_host(host)
        outcome = run_host_test(HostTestOptions(host=host, host_version=version, **target_options(target),
                                                host_cache=str(host_cache) if host_cache else None,
                                                host_cache_max=cache_limit(host_cache_max),
                                                client=client, api=api, host_bin=host_bin,
                                                out=str(out) if out else None, transport=transport,
                                                timeout=timeout, proxy=not no_proxy, replace=replace,
                                                max_run_bytes=max_run_bytes, large_sizes=large_sizes(sizes),
                                                threshold_calls=threshold_calls if find_threshold else 0,
                                                model_kind=model_kind))
    except (InputError, ServerError) as exc:
        raise fail(exc)
    except HostRunInterrupted as exc:
        typer.echo(f"mcp-accept: host test {exc}", err=True)
        raise typer.Exit(exc.status)
    if json_:
        typer.echo(json.dumps(outcome.results, ensure_ascii=False, indent=2))
    else:
        print_host_test(outcome, environment())
    if outcome.forged_requests:
        typer.echo(f"mcp-accept: {outcome.forged_requests} request(s) reached the stand-in model without the "
                   f"run's key, so not from the host: refused, each an event 'forged-request' in "
                   f"{outcome.folder / 'model.jsonl'}", err=True)
    if outcome.not_measured:
        typer.echo(f"mcp-accept: the host run measured nothing: {outcome.not_measured} "
                   f"(evidence: {outcome.folder})", err=True)
    raise typer.Exit(int(outcome.status))


def target_options(target: ServerTarget, check_profile: bool = False) -> dict:
    """The HostTestOptions fields of the server a host command names: --header and --env as the
    run is to hold them (hosts/job.py: a literal value never reaches job.json). ``check_profile``:
    a bad profile is said now, before any host runs."""
    from mcp_accept.hosts.job import env_templates, header_templates

    if check_profile and target.profile:
        from mcp_accept.inputs.profile import load_profile

        load_profile(target.profile)
    return {"server": target.server, "url": target.url, "profile": str(target.profile) if target.profile else None,
            "headers": header_templates(list(target.header)) if target.header else None,
            "server_env": env_templates(list(target.env)) if target.env else None}


def own_client_options(host: Optional[str], client: Optional[str], api: Optional[str],
                       host_bin: Optional[str]) -> str:
    """The host's name for a run: HOST, or ``client`` for --client, which needs --api."""
    from mcp_accept.hosts.own_client import NAME, client_words
    from mcp_accept.model.server import API_NAMES

    if client is None:
        if api is not None:
            raise InputError("--api is for --client (a known host speaks its own API)", field="--api")
        if host is None:
            raise InputError("give HOST (a known host) or --client CMD --api API (your own program)", field="HOST")
        return host
    if host is not None:
        raise InputError(f"give HOST or --client, not both (found {host!r} and --client)", field="HOST")
    if host_bin is not None:
        raise InputError("--host-bin is for HOST: --client names the program itself", field="--host-bin")
    if api is None:
        raise InputError(f"--client needs --api: one of {', '.join(API_NAMES)}", field="--api")
    if api not in API_NAMES:
        raise InputError(f"must be one of {', '.join(API_NAMES)} (found {api!r})", field="--api")
    client_words(client, ".")  # a command that cannot be split is said before anything starts
    return NAME


@host_app.command("matrix")
@with_server_target("The MCP server's command (default: the built-in fixture in marker mode).",
                    "The MCP server's Streamable HTTP endpoint.",
                    "YAML profile naming the server's tools for each form.")
def host_matrix(
    hosts: Optional[str] = typer.Option(None, "--hosts", help="Comma-separated hosts to run, each HOST or HOST@VERSION (a published version, installed into the host cache; e.g. claude-code@2.0.21,claude-code) (default: every host mcp-accept has an adapter for; one not installed is a row that says so)."),
    target: ServerTarget = None,
    out: Optional[Path] = out_option("Folder for matrix.json, matrix.md, matrix.html (and .ja versions) and one host-test folder per host (default: a new folder under ./mcp-accept-runs/)."),
    jobs: int = number_option(int, 1, "--jobs", min=1, max=16, help="Hosts to run at once."),
    transport: str = typer.Option("stdio", "--transport", help="With the built-in fixture: stdio or http."),
    timeout: float = timeout_option("Seconds each host may take.", default=180.0, min=5.0, max=3600.0),
    max_run_bytes: int = max_run_bytes_option(),
    lang: str = lang_option("Language of the table printed: en or ja (both are written)."),
    json_: bool = json_option("Print matrix.json instead of the Markdown table."),
    replace: bool = typer.Option(False, "--replace", help="--out names an earlier matrix's folder: empty it first (without this, a folder that is not empty is refused)."),
    sizes: Optional[str] = large_sizes_option(),
    find_threshold: bool = find_threshold_option(),
    threshold_calls: int = threshold_calls_option(),
    models: Optional[str] = typer.Option(None, "--models", metavar="KIND,...", help="Model kinds to measure, comma-separated (text, vision): a host whose handling depends on its model (opencode, kilo-code, fast-agent, qwen-code) is run once per kind, each a row of its own; any other host once."),
    host_cache: Optional[Path] = host_cache_option(),
    host_cache_max: Optional[str] = host_cache_max_option(),
) -> None:
    """Run `host test` for every installed host and write one table of what each hands its model."""
    import time

    from mcp_accept.hosts.job import HostTestOptions, large_sizes
    from mcp_accept.hosts.matrix import pick_hosts, pick_models, run_matrix
    from mcp_accept.output.host_matrix import render_markdown
    from mcp_accept.output.render import check_lang

    try:
        check_lang(lang)
        if transport not in ("stdio", "http"):
            raise InputError(f"must be stdio or http (found {transport!r})", field="--transport")
        chosen = pick_hosts(hosts)
        kinds = pick_models(models)
        server = target_options(target, check_profile=True)
        folder = out or Path("mcp-accept-runs") / time.strftime("matrix-%Y%m%dT%H%M%SZ", time.gmtime())
        matrix = run_matrix(HostTestOptions(host=chosen[0].split("@")[0], **server,
                                            host_cache=str(host_cache) if host_cache else None,
                                            host_cache_max=cache_limit(host_cache_max),
                                            transport=transport,
                                            timeout=timeout, replace=replace, max_run_bytes=max_run_bytes,
                                            large_sizes=large_sizes(sizes),
                                            threshold_calls=threshold_calls if find_threshold else 0),
                                            chosen, folder, jobs, kinds)
    except (InputError, ServerError) as exc:
        raise fail(exc)
    typer.echo(json.dumps(matrix, ensure_ascii=False, indent=2) if json_ else render_markdown(matrix, lang))
    if matrix["interrupted"]:
        import signal

        typer.echo(f"mcp-accept: host matrix interrupted by {matrix['interrupted']}: the hosts running are "
                   "stopped, each folder marked interrupted, and no other host was started; matrix.json is "
                   f"marked interrupted: {folder}", err=True)
        raise typer.Exit(128 + signal.Signals[matrix["interrupted"]])
    measured = [r for r in matrix["rows"] if not r.get("error")]
    raise typer.Exit(int(ExitStatus.OK if measured else ExitStatus.SERVER))


@host_app.command("diff")
def host_diff(
    a: Path = typer.Argument(..., metavar="A", help="A host matrix folder (its matrix.json) or a host test folder: the earlier one."),
    b: Path = typer.Argument(..., metavar="B", help="A folder of the same kind: the later one."),
    json_: bool = json_option("Print the changes as JSON instead of the table."),
) -> None:
    """What changed between two host matrix (or two host test) folders, cell by cell; exit 1 when something did."""
    from mcp_accept.output.host_diff import diff_hosts, render_table

    try:
        diff = diff_hosts(a, b)
    except InputError as exc:
        raise fail(exc)
    if json_:
        typer.echo(json.dumps(diff.as_json(), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_table(diff), nl=False)
    raise typer.Exit(int(ExitStatus.FAILED if diff.changed else ExitStatus.OK))


@host_app.command("history")
@with_server_target("The MCP server's command (default: the built-in fixture in marker mode).",
                    "The MCP server's Streamable HTTP endpoint.",
                    "YAML profile naming the server's tools for each form.")
def host_history(
    host: str = typer.Argument(..., metavar="HOST", help="A host with an adapter and a registry: claude-code, codex, continue, copilot-cli, fast-agent, gemini-cli, opencode, qwen-code or openai-agents."),
    versions: Optional[str] = typer.Option(None, "--versions", metavar="V1,V2,...", help="Published versions to run, comma-separated, each installed into the host cache (as HOST@VERSION) and reused. Not with --range."),
    range_: Optional[str] = typer.Option(None, "--range", metavar="A..B", help="The versions the host's registry has published from A to B, both included, in the registry's order (npm: semver; PyPI: PEP 440); stable releases only, unless A or B is a pre-release. Not with --versions."),
    max_versions: int = number_option(int, 12, "--max-versions", min=2, max=1000, help="With --range: the most versions it may hold (more is refused: narrow it, or --bisect)."),
    bisect: Optional[str] = typer.Option(None, "--bisect", metavar="CELL", help="With --range: run A and B, and where CELL (a cell of history.json, e.g. structured_seen) differs, find the first version with B's value by bisection, in about log2(n) runs; a version that cannot run is skipped for its neighbour. history.json holds the versions run and a bisect object."),
    target: ServerTarget = None,
    out: Optional[Path] = out_option("Folder for history.json, history.md, history.html, the matrix of the versions and one host-test folder per version (default: a new folder under ./mcp-accept-runs/)."),
    timeout: float = timeout_option("Seconds each version may take.", default=180.0, min=5.0, max=3600.0),
    json_: bool = json_option("Print history.json instead of the Markdown table."),
    replace: bool = typer.Option(False, "--replace", help="--out names an earlier history's folder: empty it first."),
    host_cache: Optional[Path] = host_cache_option(),
    host_cache_max: Optional[str] = host_cache_max_option(),
) -> None:
    """Run several published versions of one host and print a table: a column per version, a row per measured cell, changes marked."""
    import time

    from mcp_accept.hosts.job import HostTestOptions
    from mcp_accept.hosts.matrix import check_bisect_cell, pick_versions, run_bisect, run_history
    from mcp_accept.hosts.registry import ADAPTERS
    from mcp_accept.hosts.versions import cache_root, versions_in_range
    from mcp_accept.output.host_diff import render_history

    try:
        if bool(versions) == bool(range_):
            raise InputError("give --versions V1,V2,... or --range A..B, one of them", field="--versions")
        if bisect is not None and not range_:
            raise InputError("--bisect needs --range A..B: the versions it bisects", field="--bisect")
        if host not in ADAPTERS:
            raise InputError(f"must be one of {', '.join(ADAPTERS)} (found {host!r})", field="HOST")
        if bisect is not None:
            check_bisect_cell(bisect)
        server = target_options(target, check_profile=True)
        if range_:
            chosen = versions_in_range(ADAPTERS[host], range_, cache_root(str(host_cache) if host_cache else None),
                                       None if bisect else max_versions)
        else:
            chosen = pick_versions(versions)
        folder = out or Path("mcp-accept-runs") / time.strftime(f"history-{host}-%Y%m%dT%H%M%SZ", time.gmtime())
        base = HostTestOptions(host=host, **server, timeout=timeout, replace=replace, host_cache=str(host_cache) if host_cache else None,
                               host_cache_max=cache_limit(host_cache_max))
        if bisect is not None:
            say = None if json_ else (lambda text: typer.echo(console_safe(text), err=True))
            table = run_bisect(base, host, chosen, bisect, folder, say)
        else:
            table = run_history(base, host, chosen, folder)
    except (InputError, ServerError) as exc:
        raise fail(exc)
    typer.echo(json.dumps(table, ensure_ascii=False, indent=2) if json_ else render_history(table).rstrip("\n"))
    if table["interrupted"]:
        import signal

        raise typer.Exit(128 + signal.Signals[table["interrupted"]])
    found = table.get("bisect")
    if found is not None:  # no answer (an end not run, or every version between skipped): as a host not run
        answered = found.get("same_at_both_ends") or found.get("first_with_b_value")
        raise typer.Exit(int(ExitStatus.OK if answered else ExitStatus.SERVER))
    # no version measured (each one not installed, or its run not made): as host matrix, exit 3
    errors = next((c for c in table["cells"] if c["cell"] == "error"), None)
    raise typer.Exit(int(ExitStatus.SERVER if errors and all(errors["values"].values()) else ExitStatus.OK))


cache_app = CommandGroup(help="The host cache, where HOST@VERSION installs published host versions: list them, clear them.",
                         no_args_is_help=True, rich_markup_mode=None)
host_app.add_typer(cache_app, name="cache")


@cache_app.command("list")
def cache_list(
    host_cache: Optional[Path] = host_cache_option(),
    json_: bool = json_option("Print the versions as JSON."),
) -> None:
    """Each HOST/VERSION in the host cache, with its size and its last use, and the cache's total."""
    from mcp_accept.hosts.versions import cache_entries, cache_max, cache_root
    from mcp_accept.output.host_diff import render_cache

    try:
        root = cache_root(str(host_cache) if host_cache else None)
        entries = cache_entries(root)
        limit = cache_max()
    except InputError as exc:
        raise fail(exc)
    if json_:
        typer.echo(json.dumps({"cache": str(root), "max_bytes": limit, "bytes": sum(e.size for e in entries),
                               "versions": [e.as_json() for e in entries]}, indent=2))
    else:
        typer.echo(render_cache(root, [e.as_json() for e in entries], limit), nl=False)


@cache_app.command("clear")
def cache_clear(
    host: Optional[str] = typer.Argument(None, metavar="[HOST[@VERSION]]", help="Remove only this host's versions, or only this version (default: every version)."),
    host_cache: Optional[Path] = host_cache_option(),
) -> None:
    """Remove versions from the host cache (all of them, a host's, or one); a version a run is using is left, and said."""
    from mcp_accept.hosts.registry import ADAPTERS
    from mcp_accept.hosts.versions import cache_root, clear_cache, split_host

    try:
        name, version = split_host(host) if host else (None, None)
        if name is not None and name not in ADAPTERS:
            raise InputError(f"must be one of {', '.join(ADAPTERS)}, optionally @VERSION (found {host!r})",
                             field="HOST")
        root = cache_root(str(host_cache) if host_cache else None)
        removed, busy = clear_cache(root, name, version)
    except InputError as exc:
        raise fail(exc)
    for entry in removed:
        typer.echo(f"removed {entry.host}@{entry.version} ({entry.size} bytes)")
    for entry in busy:
        typer.echo(f"mcp-accept: {entry.host}@{entry.version} is in use by a run: left in the cache", err=True)
    if not removed and not busy:
        typer.echo(f"nothing to remove in {root}" + (f" for {host}" if host else ""))
    raise typer.Exit(int(ExitStatus.SERVER if busy else ExitStatus.OK))
