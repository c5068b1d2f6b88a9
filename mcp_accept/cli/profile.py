"""The ``profile`` group: ``profile init`` writes a starting profile from a server's tools/list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from mcp_accept.cli.options import (CommandGroup, env_option, header_option, inherit_env_option, json_option,
                                    out_option, protocol_option, server_option, timeout_option, url_option)
from mcp_accept.cli.outcome import fail
from mcp_accept.errors import InputError, ServerError
from mcp_accept.protocol import VERSIONS, VERSIONS_IN_WORDS

profile_app = CommandGroup(help="Profiles: how the sheet's rows map onto a server's tools.",
                          no_args_is_help=True, rich_markup_mode=None)


@profile_app.command("init")
def profile_init(
    server: Optional[str] = server_option("Command that starts the server (stdio; with --url, the server to start before connecting)."),
    url: Optional[str] = url_option("Streamable HTTP endpoint of the server."),
    header: List[str] = header_option("\"Name: value\" sent with every HTTP request; value may be env:VAR. Repeatable."),
    env_items: List[str] = env_option(),
    inherit_env: bool = inherit_env_option(),
    protocol: str = protocol_option(f"auto, {VERSIONS_IN_WORDS}."),
    timeout: float = timeout_option(),
    out: Optional[Path] = out_option("File to write the profile to (default: print it)."),
    force: bool = typer.Option(False, "--force", help="Replace the --out file if it exists."),
    json_: bool = json_option("Print the profile as JSON (the same data as the YAML, without its comments) instead of YAML."),
    call: List[str] = typer.Option([], "--call", metavar="TOOL", help="Also call this tool to see the form of its result (tools marked read-only are called anyway; one marked destructive never is). Repeatable."),
) -> None:
    """Write a starting profile from what the server shows: its tools/list, and the results of
    the tools it may call (marked read-only, or named with --call); what had to be guessed is
    marked."""
    from mcp_accept.evidence.files import atomic_write_text
    from mcp_accept.running.execute import RunOptions, check_target
    from mcp_accept.inputs.profile_init import check_out, init_profile
    from mcp_accept.transport.factory import make_probe_transport, started_env

    if not server and not url:
        raise fail(InputError("give --server CMD or --url URL", field="--server"))
    if protocol not in ("auto", *VERSIONS):
        raise fail(InputError(f"must be auto or one of {', '.join(VERSIONS)}", field="--protocol"))
    try:
        opts = RunOptions(server=server, url=url, headers=list(header), env=list(env_items),
                          inherit_env=inherit_env)
        headers, redactor = check_target(opts)
        check_out(out, force)
    except InputError as exc:
        raise fail(exc)
    try:
        transport = make_probe_transport(server=server, url=url, headers=headers, redactor=redactor,
                                         env=started_env(opts))
        text, mapped = init_profile(transport, protocol=protocol, timeout=timeout, call=tuple(call))
        text, mapped = redactor.text(text), redactor.text(mapped)
    except (InputError, ServerError) as exc:
        raise fail(type(exc)(redactor.text(str(exc))) if isinstance(exc, ServerError) else exc)
    if json_:
        import yaml

        text = json.dumps(yaml.safe_load(text), ensure_ascii=False, indent=2) + "\n"
    if out is None:
        typer.echo(mapped, err=True)
        typer.echo(text, nl=False)
        return
    try:
        atomic_write_text(out, text)
    except OSError as exc:
        raise fail(InputError(f"cannot write: {exc.strerror or exc}", file=str(out), field="--out"))
    # what was mapped is said once the file is written: a refused write says one line only
    typer.echo(mapped, err=True)
    typer.echo(f"wrote {out}")
