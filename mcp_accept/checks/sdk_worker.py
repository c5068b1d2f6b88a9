"""The sdk layer's replay in a process of its own, started when the run starts.

    python -m mcp_accept.checks.sdk_worker    # a job on stdin, one Replay as JSON on stdout
    python -m mcp_accept.checks.sdk_worker --stay SOCKET SECONDS   # the same, then kept warm

Importing the SDK takes longer than a whole run of the other layers. Started at the
beginning of a run (:func:`mcp_accept.checks.sdk.start_worker`), this process imports it
on another core while the run records; then it reads the job (what to replay and the
recorded answers, see :func:`mcp_accept.checks.sdk.encode_job`), replays it through the
SDK's ``Client`` exactly as :func:`mcp_accept.checks.sdk.replay_job` does in-process, and
writes what the SDK did. End of input without a job ends it quietly. With ``--stay`` it
then serves later runs (:mod:`mcp_accept.checks.sdk_warm`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types

from mcp_accept.checks.sdk_warm import peak_rss


def _skip_server_side() -> None:
    """Import the SDK's client without its server side.

    ``mcp.client`` imports ``mcp.server`` (and through it starlette, uvicorn and the
    server's resource managers) only to recognise a server object handed to ``Client``
    for an in-memory connection; the replay hands it a transport instead. Two stand-in
    packages answer those names; the server's own submodules still import from the
    real folder if the client needs one."""
    try:
        spec = importlib.util.find_spec("mcp")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations or "mcp" in sys.modules:
        return
    root = list(spec.submodule_search_locations)[0]
    for name, folder, attr in (("mcp.server", "server", "Server"),
                               ("mcp.server.mcpserver", os.path.join("server", "mcpserver"), "MCPServer")):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            return
        stand_in = types.ModuleType(name)
        stand_in.__path__ = [path]
        stand_in.__package__ = name
        setattr(stand_in, attr, type(attr, (), {}))
        sys.modules[name] = stand_in


def _undo_skip() -> None:
    for name in [n for n in sys.modules if n == "mcp" or n.startswith(("mcp.", "mcp_types"))]:
        del sys.modules[name]


def answer_job(reader) -> bytes | None:
    """One job read from ``reader``, replayed; its encoded answer (None: no job came)."""
    import signal

    from mcp_accept.checks import sdk

    job = sdk.read_job(reader)
    if job is None:
        return None
    # The run stops waiting after this long; so does this process, whatever the SDK does.
    signal.alarm(int(sdk.replay_limit(job)) + 5)
    return sdk.encode_replay(sdk.replay_job(job), peak_rss())


def main() -> None:
    from mcp_accept.checks import sdk

    _skip_server_side()
    info = sdk.sdk_info()
    if not info.available and "mcp.server" in sys.modules:
        # Without the stand-ins the SDK may say better why it cannot be used: ask it again.
        _undo_skip()
        sdk.sdk_info.cache_clear()
        info = sdk.sdk_info()
    if info.available:
        try:
            import jsonschema  # noqa: F401  (the SDK imports it on its first outputSchema; do it while idle)
        except ImportError:
            pass
    job = sdk.read_job(sys.stdin.buffer)
    if job is None:
        return
    result = sdk.replay_job(job)
    sys.stdout.buffer.write(sdk.encode_replay(result, peak_rss()))
    sys.stdout.buffer.flush()
    if sys.argv[1:2] == ["--stay"] and len(sys.argv) == 4:
        from mcp_accept.checks import sdk_warm

        try:
            seconds = float(sys.argv[3])
        except ValueError:
            return
        sdk_warm.stay(sys.argv[2], seconds, answer_job)


if __name__ == "__main__":
    try:
        main()
    except BaseException:  # the run's process reads no output as a failed replay and says so
        import traceback

        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(0)  # tearing down the SDK's modules takes a third of a second; nothing is left to do
