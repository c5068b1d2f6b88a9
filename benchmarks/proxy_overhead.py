#!/usr/bin/env python3
"""Per-message overhead of `mcp-accept proxy --server` (stdio).

A raw client sends N `tools/call search_text` requests one at a time, to the fixture
directly and then through the proxy, and times each round trip (request written to
answer line read). The overhead is the median through the proxy minus the median direct.

    python benchmarks/proxy_overhead.py [-n 2000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "mcp_accept" / "fixture.py"


def round_trips(argv: list[str], n: int) -> list[float]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            bufsize=0)

    def ask(message: dict) -> float:
        data = (json.dumps(message) + "\n").encode()
        start = time.perf_counter()
        proc.stdin.write(data)
        line = proc.stdout.readline()
        took = time.perf_counter() - start
        assert json.loads(line)["id"] == message["id"], line
        return took

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "proxy-overhead", "version": "1"}}})
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    times = []
    for i in range(1, n + 1):
        times.append(ask({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": "search_text", "arguments": {"q": "MCP"}}}))
    proc.stdin.close()
    proc.wait(timeout=60)
    return times[min(50, n // 10):]  # the first calls warm the processes up


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="round trips per side (default 2000)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    server = shlex.join([sys.executable, str(FIXTURE)])
    direct = round_trips([sys.executable, str(FIXTURE)], args.n)
    with tempfile.TemporaryDirectory() as out:
        proxied = round_trips([sys.executable, "-m", "mcp_accept", "proxy", "--server", server, "--out", out],
                              args.n)
    ms = lambda values: statistics.median(values) * 1000  # noqa: E731
    figures = {"n": args.n, "direct_median_ms": round(ms(direct), 3), "proxy_median_ms": round(ms(proxied), 3),
               "overhead_median_ms": round(ms(proxied) - ms(direct), 3),
               "proxy_p95_ms": round(statistics.quantiles(proxied, n=20)[-1] * 1000, 3)}
    print(f"round trips: {args.n} per side (tools/call search_text, the fixture over stdio)")
    print(f"direct median:        {figures['direct_median_ms']:.3f} ms")
    print(f"through proxy median: {figures['proxy_median_ms']:.3f} ms (p95 {figures['proxy_p95_ms']:.3f} ms)")
    print(f"overhead (median):    {figures['overhead_median_ms']:.3f} ms per round trip")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
