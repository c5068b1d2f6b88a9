"""A server's command line (``--server CMD``, a targets file's ``server``): its words, split
as a shell would split them, with no shell running.

In the foundation, over the standard library and the errors only, because the proxy splits
its server's command before anything else of mcp-accept is loaded
(:mod:`mcp_accept.hosts.proxy.early`), and every later stage splits one too.
"""

from __future__ import annotations

import shlex

from mcp_accept.errors import InputError


def split_words(command: str) -> tuple[list[str], str | None]:
    """The words of ``command``, or no words and why it has none."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return [], f"cannot split the command: {exc}"
    return argv, None if argv else "the command is empty"


def command_words(command: str) -> list[str]:
    """The words of a --server command, checked before anything starts: a command that cannot
    be split is the user's to fix (an InputError naming --server)."""
    argv, problem = split_words(command)
    if problem:
        raise InputError(problem, field="--server")
    return argv
