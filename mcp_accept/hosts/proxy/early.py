"""The real server of ``proxy --server CMD``, started before the command line is parsed.

A host waits for its server's first answer before it goes on, and through the proxy that
answer waited for two starts in a row: the proxy's (the interpreter, the CLI's parser and
the recorder, some 0.2 s) and then the server's. :func:`prestart` runs from
``python -m mcp_accept`` with nothing but the standard library loaded, so the server
starts while the proxy imports the rest; :func:`claim` hands the process to the stdio proxy
once the parsed command line has been checked.

Only a command line this module can read for certain is started early (every word a
``proxy`` option it knows, one ``--server``, no ``--url``); anything else is left to the
parser, which then starts the server itself as before. A server started early that no proxy
claims (the parser refused an option) is stopped with its process group when the process
exits. SIGINT and SIGTERM that arrive before the proxy has its own handlers are held and
given to it, so the session they end still leaves a complete folder.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess

from mcp_accept.server_command import split_words

# The proxy command's options (mcp_accept.cli.host.proxy): those that take a value, and its
# flags.
_VALUED = frozenset({"--server", "--url", "--listen", "--header", "--max-bytes", "--write-timeout",
                     "--out", "--name", "--set", "--mask-socket", "--upstream-socket", "--ready-file"})
_FLAGS = frozenset({"--allow-remote", "--isolate"})
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Started:
    """A server started early: its command, its process, what SIGINT and SIGTERM did before
    (``handlers``) and the names of those received since (``signals``)."""

    def __init__(self, command: str, proc: subprocess.Popen | None = None, isolated: bool = False):
        self.command = command
        self.isolated = isolated
        self.proc = proc
        self.handlers: dict = {}
        self.signals: list[str] = []


_started: Started | None = None


def server_command(args: list[str]) -> str | None:
    """The ``--server`` value of the words after ``proxy``, or None unless every word is
    read for certain (a value given twice, an unknown word, --help: the parser's to judge)."""
    found = None
    i = 0
    while i < len(args):
        name, eq, value = args[i].partition("=")
        if args[i] in _FLAGS:
            i += 1
            continue
        if name not in _VALUED or (not eq and i + 1 >= len(args)):
            return None
        if not eq:
            i += 1
            value = args[i]
        i += 1
        if name == "--url" or (name == "--server" and found is not None):
            return None
        if name == "--server":
            found = value
    return found


def prestart(args: list[str]) -> None:
    """Start the server of ``proxy --server CMD`` now, as the stdio proxy would (its own
    process group, its three pipes), if ``args`` can be read without the parser."""
    global _started
    command = server_command(args)
    if not command:
        return
    argv, problem = split_words(command)
    if problem:
        return
    isolated = "--isolate" in args
    if isolated:
        from mcp_accept.hosts.netguard import isolation_argv

        prefix = isolation_argv(network=True)
        if prefix is None:  # the proxy says why, once its parser has run
            return
        argv = [*prefix, *argv]
    started = Started(command, isolated=isolated)

    def hold(signum, frame):
        started.signals.append(f"signal {signal.Signals(signum).name}")

    started.handlers = {sig: signal.signal(sig, hold) for sig in _SIGNALS}
    try:
        started.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True, bufsize=0)
    except OSError:  # the proxy tries again, and says why it cannot
        _restore(started)
        return
    _started = started
    atexit.register(_discard)


def claim(command: str, isolated: bool = False) -> Started | None:
    """The server started early for ``command``, now the caller's (once); None if there is none.
    The caller installs its own signal handlers at once, restores ``handlers`` when it is
    done, and treats ``signals`` as received."""
    global _started
    started, _started = _started, None
    if started is not None and (started.command != command or started.isolated != isolated):
        _stop(started)
        return None
    return started


def _restore(started: Started) -> None:
    for sig, handler in started.handlers.items():
        signal.signal(sig, handler)


def kill(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """Stop a server started early that no session took, as a session stops its server: its
    input closed, ``grace`` seconds to go, then its whole process group killed. One a session
    stopped already is left as it is."""
    stopped = proc.returncode is not None
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        try:
            pipe.close()
        except OSError:
            pass
    if stopped:
        return
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    try:  # what it started goes too
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def _stop(started: Started) -> None:
    kill(started.proc)
    _restore(started)


def _discard() -> None:
    """At exit: a server started early that no proxy took (its command line was refused)."""
    global _started
    started, _started = _started, None
    if started is not None:
        _stop(started)
