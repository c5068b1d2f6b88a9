"""A server's command line (``--server CMD``, a targets file's ``server``): its words, split
as a shell would split them, with no shell running; and the environment it starts with
(``--env``, ``--inherit-env``).

In the foundation, over the standard library and the errors only, because the proxy splits
its server's command before anything else of mcp-accept is loaded
(:mod:`mcp_accept.hosts.proxy.early`), and every later stage splits one too.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
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


# The variables a started server is given of the user's environment unless told otherwise: the
# official MCP SDKs' stdio clients pass these and nothing else of their own environment (the
# Python SDK's ``mcp.client.stdio.DEFAULT_INHERITED_ENV_VARS``, read by
# ``get_default_environment()``; the TypeScript SDK's ``DEFAULT_INHERITED_ENV_VARS`` in
# ``client/stdio.js``, read by ``getDefaultEnvironment()``, "inspired by the default env
# inheritance of sudo"). A server is started as a host on either SDK starts it, so that what it
# finds is what it finds there, and no key or token of the user's reaches it or its answers.
# A copy, not an import: importing the SDK takes longer than a run.
DEFAULT_ENV_NAMES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class ServerEnv:
    """What of the environment a started server is given: the default names (or, ``inherit``,
    all of it), the user's variables passed by name (``--env NAME``) and those set to a value
    (``--env NAME=VALUE``); the values of both are secrets, masked in the evidence."""

    passed: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    inherit: bool = False
    own: tuple[str, ...] = ()  # passed by mcp-accept itself (the built-in fixture's PYTHONPATH)

    def build(self, source=None) -> dict[str, str]:
        source = os.environ if source is None else source
        if self.inherit:
            env = dict(source)
        else:
            # a value starting "()" is a shell function exported by bash: the SDKs leave it out
            env = {name: source[name] for name in DEFAULT_ENV_NAMES
                   if name in source and not source[name].startswith("()")}
        env.update({name: source[name] for name in (*self.own, *self.passed) if name in source})
        env.update(dict(self.values))
        return env

    def secrets(self, source=None) -> list[str]:
        """The values handed over with ``--env``, masked in the evidence as a header's: a
        variable passed to a server on purpose is most often its key or token."""
        source = os.environ if source is None else source
        return [value for value in (*(source.get(name, "") for name in self.passed),
                                    *(value for _, value in self.values)) if value]

    def record(self, source=None) -> dict:
        """What ``results.json`` says of it: variable names only, never a value."""
        return {"inherited": self.inherit, "names": sorted(self.build(source)),
                "passed": list(self.passed), "set": [name for name, _ in self.values]}


def server_env(items, inherit: bool = False, *, source=None, field: str = "--env",
               own: tuple[str, ...] = ()) -> ServerEnv:
    """``--env`` items read: ``NAME`` passes the user's variable through (it must be set),
    ``NAME=VALUE`` sets one. An InputError names the item."""
    source = os.environ if source is None else source
    passed: list[str] = []
    values: dict[str, str] = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        if not ENV_NAME.match(name):
            raise InputError(f"{item.partition('=')[0]!r} is not a variable name: give NAME or NAME=VALUE",
                             field=field)
        if eq:
            values[name] = value
            passed = [n for n in passed if n != name]
        elif name not in source:
            raise InputError(f"{name} is not set in this environment: set it, or give {name}=VALUE",
                             field=field)
        else:
            values.pop(name, None)
            if name not in passed:
                passed.append(name)
    return ServerEnv(tuple(passed), tuple(values.items()), bool(inherit), tuple(own))
