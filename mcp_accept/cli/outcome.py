"""What a command makes of what comes back: the streams it prints to, and an error as one
line on stderr with its exit status."""

from __future__ import annotations

import sys

import typer

from mcp_accept.errors import DiskFull, ExitStatus, InputError, InternalError, disk_full_within


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
