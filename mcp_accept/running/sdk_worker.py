"""The sdk layer's replay in a process of its own, started when the run starts.

    python -m mcp_accept.running.sdk_worker    # a job on stdin, one Replay as JSON on stdout

Importing the SDK takes longer than a whole run of the other layers. Started at the
beginning of a run (:func:`mcp_accept.running.sdk_replay.start_worker`), this process imports it
on another core while the run records; then it reads the job (what to replay and the
recorded answers, see :func:`mcp_accept.running.sdk_replay.encode_job`), replays it through the
SDK's ``Client`` exactly as :func:`mcp_accept.running.sdk_replay.replay_job` does in-process, and
writes what the SDK did. End of input without a job ends it quietly; so does the end of
its one job: it never outlives the run that started it.
"""

from __future__ import annotations

import os
import sys


def peak_rss() -> int:
    """This process's peak resident set size in bytes (0 where it cannot be told)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def main() -> None:
    from mcp_accept.running import sdk_replay as sdk

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


if __name__ == "__main__":
    try:
        main()
    except BaseException:  # the run's process reads no output as a failed replay and says so
        import traceback

        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(0)  # tearing down the SDK's modules takes a third of a second; nothing is left to do
