#!/usr/bin/env python3
"""Memory of `mcp-accept proxy --server` (stdio) over a long session.

A raw client sends N small messages through the proxy to the fixture: requests taking
turns between `tools/call search_text` and `ping`, pipelined (at most --window
unanswered), and reads every answer; N counts the messages both ways. The proxy's
resident set (VmRSS in /proc) is sampled as the session goes; its peak is VmHWM read
just before the host closes stdin, and again from wait4() once the proxy has written its
folder. Memory is flat when the resident set after the warm-up (the first 20 % of the
messages) grows by less than --flat-mib up to the end.

    python benchmarks/proxy_memory.py [-n 300000] [--window 64] [--json FILE]

Exit status: 0 flat, 1 not flat, 2 the session went wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "mcp_accept" / "fixture.py"


def _status_kib(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def session(n: int, window: int, out: str) -> dict:
    import subprocess

    server = shlex.join([sys.executable, str(FIXTURE)])
    proc = subprocess.Popen([sys.executable, "-m", "mcp_accept", "proxy", "--server", server, "--out", out],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    requests = max(1, n // 2 - 1)  # each request has one answer; initialize makes the pair up
    slots = threading.Semaphore(window)
    answered = [0]
    samples: list[tuple[int, int]] = []
    failure: list[str] = []

    def read_answers() -> None:
        reader = proc.stdout
        expected = requests + 1
        while answered[0] < expected:
            line = reader.readline()
            if not line:
                failure.append(f"the proxy closed stdout after {answered[0]} answers")
                return
            if b'"id"' not in line:
                continue
            answered[0] += 1
            slots.release()

    def sample() -> None:
        while proc.poll() is None and not done.is_set():
            rss = _status_kib(proc.pid, "VmRSS")
            if rss is not None:
                samples.append((2 * answered[0], rss))
            time.sleep(0.1)

    done = threading.Event()
    reader = threading.Thread(target=read_answers, daemon=True)
    sampler = threading.Thread(target=sample, daemon=True)
    started = time.perf_counter()
    reader.start()
    sampler.start()
    slots.acquire()
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-memory", "version": "1"}}}) + "\n").encode())
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_text","arguments":{"q":"MCP"}}}\n'
    ping = '{"jsonrpc":"2.0","id":%d,"method":"ping"}\n'
    for i in range(1, requests + 1):
        slots.acquire()
        if failure:
            break
        proc.stdin.write(((call if i % 2 else ping) % i).encode())
    reader.join(timeout=600)
    took = time.perf_counter() - started
    peak_session = _status_kib(proc.pid, "VmHWM")
    done.set()
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if failure or reader.is_alive():
        raise SystemExit(f"proxy_memory: {failure[0] if failure else 'the answers stopped coming'}")
    return {"n": 2 * (requests + 1), "seconds": round(took, 1), "messages_per_second": round(2 * (requests + 1) / took),
            "samples": samples, "peak_session_kib": peak_session, "peak_with_finish_kib": usage.ru_maxrss,
            "exit_code": os.waitstatus_to_exitcode(status)}


def at(samples: list[tuple[int, int]], messages: float) -> int | None:
    """The resident set (KiB) of the first sample taken once ``messages`` had passed."""
    return next((rss for count, rss in samples if count >= messages), samples[-1][1] if samples else None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=300_000, help="messages through the proxy, both ways (default 300000)")
    parser.add_argument("--window", type=int, default=64, help="requests in flight at most (default 64)")
    parser.add_argument("--flat-mib", type=float, default=16.0,
                        help="growth after the warm-up still called flat, in MiB (default 16)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as out:
        figures = session(args.n, args.window, out)
        [folder] = [p for p in Path(out).iterdir() if p.is_dir()]
        figures["wire_jsonl_mib"] = round((folder / "wire.jsonl").stat().st_size / 2**20, 1)
        results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        figures["host_product"] = results["conditions"].get("host_product")
    samples = figures.pop("samples")
    marks = {f"{p}%": at(samples, figures["n"] * p / 100) for p in (10, 20, 40, 60, 80, 100)}
    warm, end = marks["20%"], marks["100%"]
    growth_mib = round(((end or 0) - (warm or 0)) / 1024, 1)
    figures.update({"rss_kib_at": marks, "growth_after_warmup_mib": growth_mib,
                    "flat": growth_mib < args.flat_mib and figures["exit_code"] == 0})
    print(f"messages: {figures['n']} through the proxy ({figures['messages_per_second']}/s, {figures['seconds']} s); "
          f"wire.jsonl {figures['wire_jsonl_mib']} MiB")
    print("resident set of the proxy: " + ", ".join(f"{k} {v / 1024:.1f} MiB" for k, v in marks.items() if v))
    print(f"peak: {figures['peak_session_kib'] / 1024:.1f} MiB during the session, "
          f"{figures['peak_with_finish_kib'] / 1024:.1f} MiB with the folder written")
    print(f"growth after the warm-up: {growth_mib} MiB ({'flat' if figures['flat'] else 'NOT flat'}, "
          f"limit {args.flat_mib} MiB)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if figures["flat"] else 1


if __name__ == "__main__":
    sys.exit(main())
