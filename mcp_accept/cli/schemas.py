"""The ``schemas`` group: the pinned official MCP schemas listed, and fetched into a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mcp_accept.cli.options import CommandGroup, schema_dir_option
from mcp_accept.cli.outcome import console_safe, fail
from mcp_accept.errors import ExitStatus, InputError

schemas_app = CommandGroup(help="The official MCP schemas: where they come from, and fetching them.",
                           no_args_is_help=True, rich_markup_mode=None)


@schemas_app.command("list")
def schemas_list(
    schema_dir: Optional[Path] = schema_dir_option(),
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
