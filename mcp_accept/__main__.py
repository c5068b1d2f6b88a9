"""``mcp-accept`` and ``python -m mcp_accept``: what can be done before the command line is parsed.

Parsing the command line imports typer, click and every command's options (about 0.1 s).
``--version`` needs none of it. ``run --sdk`` (or ``MCP_ACCEPT_SDK=on``) with a sheet that
has sdk-layer checks starts the sdk layer's replay process first, so that importing the SDK
there overlaps this process's own start-up as well as the recording. ``proxy --server CMD`` starts its server first, so
that the server's start-up overlaps the proxy's.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from mcp_accept import __version__

        print(f"mcp-accept {__version__}")
        return
    if argv[:1] == ["proxy"]:
        from mcp_accept.hosts.proxy.early import prestart as start_server

        start_server(argv[1:])
    if argv[:1] not in (["run"], ["proxy"]):
        from mcp_accept.cli import main as cli_main

        cli_main()
        return
    if argv[:1] == ["run"]:
        from mcp_accept.running.sdk_replay import prestart

        prestart(argv[1:])
    from mcp_accept.cli import main as cli_main

    try:
        cli_main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    leave(code)


def leave(code) -> None:
    """End the process as ``sys.exit(code)`` would, without the interpreter's teardown.

    A run has imported some three hundred modules and holds the recording; freeing all of
    that one object at a time takes about 30 ms, a tenth of a fast run, for memory the
    system takes back at once (a proxy as well: its host waits for it to be gone). What
    teardown does that matters is done here first: threads that are not daemons are waited
    for, ``atexit`` functions run (weakref finalizers and temporary folders among them), and
    both streams are flushed. Every file a run or a proxy writes is closed before it returns."""
    import atexit
    import os
    import threading

    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for thread in threading.enumerate():  # as the interpreter's own exit does first
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # what Python's own exit gives when stdout cannot be flushed
    os._exit(code)


if __name__ == "__main__":
    main()
