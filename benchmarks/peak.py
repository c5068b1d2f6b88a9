#!/usr/bin/env python3
"""Run one Python program and write its own peak resident set size (benchmark helper).

    python peak.py RSS_FILE -m MODULE ARGS...   # runs MODULE as __main__ (like python -m)
    python peak.py RSS_FILE --loads FILE        # json.loads of FILE's bytes, nothing else

At exit the process's peak RSS (``getrusage(RUSAGE_SELF)``, so the servers it starts are
not counted) is written to RSS_FILE in bytes, followed by the peak RSS of the sdk layer's
replay process when the run used one (``mcp_accept.running.sdk_replay.Worker.peak_rss``), else 0.
"""

from __future__ import annotations

import atexit
import resource
import runpy
import sys


WORKER_PEAKS: list[int] = []


def _write_peak(path: str) -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if sys.platform != "darwin":
        peak *= 1024  # Linux reports KiB, macOS bytes
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f"{peak} {max(WORKER_PEAKS, default=0)}")


def _watch_sdk_worker() -> None:
    """Note the peak RSS the sdk layer's replay process reports with its answer."""
    try:
        from mcp_accept.running import sdk_replay as sdk
    except ImportError:
        return
    sdk.Worker.replay = _watched(sdk.Worker.replay)


def _watched(replay):
    def watched(self, job):
        try:
            return replay(self, job)
        finally:
            WORKER_PEAKS.append(int(getattr(self, "peak_rss", 0) or 0))

    return watched


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] not in ("-m", "--loads"):
        sys.exit(__doc__)
    atexit.register(_write_peak, sys.argv[1])
    if sys.argv[2] == "--loads":
        import json

        with open(sys.argv[3], "rb") as handle:
            json.loads(handle.read())
        return
    module = sys.argv[3]
    if module == "mcp_accept":
        _watch_sdk_worker()
    sys.argv = [module, *sys.argv[4:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
