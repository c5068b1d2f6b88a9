"""A server's command line (``--server CMD``, a targets file's ``server``): its words, split
as a shell would split them, with no shell running.

In the foundation, over the standard library and the errors only, because the proxy splits
its server's command before anything else of mcp-accept is loaded
(:mod:`mcp_accept.hosts.proxy.early`), and every later stage splits one too.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

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


def anchored(words: list[str], cwd: str) -> list[str]:
    """``words`` for a process that runs in another working folder than the user's: a word
    naming a file in ``cwd`` (where the user ran mcp-accept) is made absolute. The first word
    only when it is a path ("./agent", ".venv/bin/python"), since a bare name is looked for on
    PATH. Links are kept, not resolved: a virtual environment's python is a link, and must be
    started by its own path to be that environment's."""
    here = Path(cwd).absolute()
    return [os.path.normpath(here / word) if not os.path.isabs(word) and (here / word).exists()
            and (index or os.sep in word) else word for index, word in enumerate(words)]
