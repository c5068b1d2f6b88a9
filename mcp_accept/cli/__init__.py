"""The command line: parse options, call the library, print, set the exit status.

Kept thin on purpose: each command turns its options into a call into the package
and maps what comes back (or an :class:`InputError`) to output and an exit code.

One module per command group: ``run`` (run, rerun), ``host`` (proxy, observe and the host
group), ``fixture`` (fixture, verify), ``report`` (report, diff), ``schemas`` and ``profile``
(their groups). The options several commands declare are defined once in ``options``; what a
command makes of an error or an outcome is in ``outcome``. This module assembles ``app`` and
runs it (``main``).

May import every earlier stage and ``mcp_accept.verify``; nothing imports it but
``mcp_accept.__main__``.
"""

from __future__ import annotations

import sys

import typer

from mcp_accept import __version__
from mcp_accept.cli import fixture, host, profile, report, run, schemas
from mcp_accept.cli.options import CommandGroup
from mcp_accept.cli.outcome import console_safe, fail
from mcp_accept.errors import ExitStatus, InternalError, disk_full_within


app = CommandGroup(
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


# In the order --help lists them (typer puts the commands before the groups).
app.command()(run.run)
app.command()(run.rerun)
app.command()(host.proxy)
app.command()(fixture.fixture)
app.command()(fixture.verify)
app.command()(host.observe)
app.command()(report.report)
app.command()(report.diff)
app.add_typer(host.host_app, name="host")
app.add_typer(schemas.schemas_app, name="schemas")
app.add_typer(profile.profile_app, name="profile")


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
