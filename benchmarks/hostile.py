#!/usr/bin/env python3
"""How long hostile input costs, in ratios against baselines measured in the same invocation.

    python benchmarks/hostile.py                  # medians of 3 runs, a Markdown table on stdout
    python benchmarks/hostile.py --only splitter,timeout --repeat 5 --json hostile.json

The tests of tests/faults/ hold what mcp-accept does with hostile servers (verdicts, bounded
memory, the folder whole); how long it takes is measured here, as bench.py measures the
ordinary runs: medians of whole processes, measured side and baseline taking turns in each
round. The groups (``--only``):

splitter  the proxy's event-stream splitter fed 200,000 events in one chunk, against ten
          times the same splitter fed 20,000: linear (≤ 2x), where cutting the buffer once
          per line would copy it 200,000 times;
timeout   ``run --run-timeout 3`` against a server that never answers the negotiation, with
          ``--timeout 30`` per request, against the 3 s themselves (≤ 2x; the two requests
          alone could take 60 s);
schemas   each costly schema of tests/faults/test_faults_cost.py, against a run of the same
          server with its plain answer (≤ 20x: each check is stopped at its budget);
bombs     a gzip and a deflate answer that decode to 4 GiB (``--max-bytes`` 8 MiB), against a
          plain run over Streamable HTTP (≤ 5x: decoding stops at the limit);
floods    50,000 notifications, or answers to ids never asked, before one answer, over stdio
          and Streamable HTTP, against a plain run over the same transport (≤ 5x);
secrets   a server echoing every credential back in every form, against a plain run over
          Streamable HTTP (≤ 5x).

The runs are made as the tests make them, in tests/conftest.py's environment (offline, the
sdk layer off, no replay process kept warm). The targets beyond h1 and h2 are generous, as the tests' bounds were before they moved here:
they catch a hostile input that makes a run hang or grow, not a slower percent.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HOSTILE = ROOT / "tests" / "faults" / "servers" / "hostile.py"
MISBEHAVE = ROOT / "tests" / "faults" / "servers" / "misbehave.py"
MIB = 1024 * 1024
GROUPS = ("splitter", "timeout", "schemas", "bombs", "floods", "secrets")

sys.path[:0] = [str(HERE), str(ROOT / "tests"), str(ROOT / "tests" / "faults")]
from bench import Row, describe_machine, print_table  # noqa: E402
from conftest import port_holder  # noqa: E402


def hostile(*args) -> str:
    return shlex.join([sys.executable, str(HOSTILE), *map(str, args)])


class Hostile:
    def __init__(self, args):
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="mcp-accept-hostile-"))
        self.count = 0
        self.failures: list[str] = []

    def run(self, *argv, codes=(0, 1), http: tuple | None = None) -> float:
        """Wall time of one ``mcp-accept run ARGV``; with ``http`` (hostile.py's arguments), the
        run starts that server on a loopback port and speaks Streamable HTTP to it."""
        self.count += 1
        folder = self.tmp / f"run{self.count}"
        command = [sys.executable, "-m", "mcp_accept", "run", *map(str, argv), "--out", str(folder)]
        with port_holder() as hold:  # a port held for the server the run starts, as the tests hold one
            if http is not None:
                port = hold()
                command += ["--url", f"http://127.0.0.1:{port}/mcp", "--server", hostile("--http", port, *http)]
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            took = time.perf_counter() - started
        if done.returncode not in codes:
            self.failures.append(f"{shlex.join(command[3:])[:160]}: exit {done.returncode}")
        return took

    def pair(self, row: Row, measured, baseline) -> Row:
        for _ in range(self.args.repeat):
            row.values.append(measured())
            row.base_values.append(baseline())
        return row

    def splitter(self) -> list[Row]:
        from mcp_accept.transport.sse import read_events

        def split(n: int) -> float:
            data = b"".join(b"data: {\"n\":%d}\r\n\r\n" % i for i in range(n))
            started = time.perf_counter()
            assert len(list(read_events([data], limit=1024 * 1024))) == n
            return time.perf_counter() - started

        row = Row("h1", "the event-stream reader (run and proxy), 200,000 events in one chunk", "200,000 events",
                  "ten times 20,000 events", "s", limit=2)
        return [self.pair(row, lambda: split(200_000), lambda: 10 * split(20_000))]

    def timeout(self) -> list[Row]:
        hang = shlex.join([sys.executable, str(MISBEHAVE), "--mode", "hang", "--on", "server/discover,initialize"])
        row = Row("h2", "`run --run-timeout 3 --timeout 30` against a server that never answers the negotiation",
                  "mcp-accept run", "the 3 s of --run-timeout (`sleep 3`)", "s", limit=2)
        return [self.pair(row, lambda: self.run("--server", hang, "--timeout", 30, "--run-timeout", 3, codes=(3,)),
                          lambda: self._sleep(3))]

    @staticmethod
    def _sleep(seconds: float) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import time; time.sleep({seconds})"], check=True)
        return time.perf_counter() - started

    def schemas(self) -> list[Row]:
        from test_faults_cost import CASES

        rows = []
        for n, (name, build) in enumerate(CASES.items(), 3):
            schema, structured = build()
            folder = self.tmp / f"schema-{name}"
            folder.mkdir()
            (folder / "schema.json").write_text(json.dumps(schema))
            extra = ["--output-schema", folder / "schema.json"]
            if structured is not None:
                (folder / "structured.json").write_text(json.dumps(structured))
                extra += ["--structured", folder / "structured.json"]
            row = Row(f"h{n}", f"costly schema: {name}", "mcp-accept run", "the same server, plain answer", "s",
                      limit=20)
            limits = ("--timeout", 10, "--max-bytes", 256 * MIB)
            rows.append(self.pair(row, lambda extra=extra: self.run("--server", hostile(*extra), *limits, codes=(1,)),
                                  lambda: self.run("--server", hostile(), *limits)))
        return rows

    def bombs(self) -> list[Row]:
        rows = []
        for n, mode in enumerate(("gzip-bomb", "deflate-bomb"), 8):
            row = Row(f"h{n}", f"{mode} decoding to 4 GiB, --max-bytes 8 MiB", "mcp-accept run",
                      "a plain run over Streamable HTTP", "s", limit=5)
            limits = ("--timeout", 10, "--max-bytes", 8 * MIB)
            rows.append(self.pair(row, lambda mode=mode: self.run(*limits, codes=(1,), http=(
                "--mode", mode, "--size", 4 * 1024 * MIB)), lambda: self.run(*limits, http=())))
        return rows

    def floods(self) -> list[Row]:
        rows, n = [], 10
        for transport in ("stdio", "http"):
            for mode in ("flood", "stray-flood"):
                flood = ("--mode", mode, "--count", 50_000)
                row = Row(f"h{n}", f"{mode} of 50,000 over {transport}", "mcp-accept run",
                          f"a plain run over {transport}", "s", limit=5)
                if transport == "stdio":
                    measured = (lambda flood=flood: self.run("--server", hostile(*flood), "--timeout", 30))
                    baseline = (lambda: self.run("--server", hostile(), "--timeout", 30))
                else:
                    limits = ("--timeout", 10, "--max-bytes", 64 * MIB)
                    measured = (lambda flood=flood: self.run(*limits, http=flood))
                    baseline = (lambda: self.run(*limits, http=()))
                rows.append(self.pair(row, measured, baseline))
                n += 1
        return rows

    def secrets(self) -> list[Row]:
        row = Row("h14", "a server echoing every credential back in every form", "mcp-accept run",
                  "a plain run over Streamable HTTP", "s", limit=5)
        headers = ("--header", "X-Upstream-Auth: Bearer mcpa7Q2xL9vR4tK8wZ1nB6yH3jF5dS0gP",
                   "--header", "X-Piped: pipe|secret|value-77aa", "--timeout", 10)
        return [self.pair(row, lambda: self.run(*headers, http=("--mode", "echo", "--on",
                                                                "tools/call:search_embedded")),
                          lambda: self.run(*headers, http=()))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command; medians are shown (default 3)")
    parser.add_argument("--only", default=",".join(GROUPS), help=f"groups to measure, of {','.join(GROUPS)}")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)
    groups = [g for g in args.only.split(",") if g]
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown:
        parser.error(f"--only: unknown group {', '.join(unknown)} (of {','.join(GROUPS)})")
    bench = Hostile(args)
    started = time.monotonic()
    rows = [row for group in GROUPS if group in groups for row in getattr(bench, group)()]
    print(f"Medians of {args.repeat} runs; {describe_machine()}.")
    print(f"Reproduce with: `python benchmarks/hostile.py --only {','.join(groups)} --repeat {args.repeat}` "
          f"({time.monotonic() - started:.0f} s here).\n")
    print_table(rows, bench.failures)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": describe_machine(), "repeat": args.repeat,
                                               "rows": [r.as_dict() for r in rows],
                                               "failures": sorted(set(bench.failures))}, indent=2) + "\n",
                                   encoding="utf-8")
    shutil.rmtree(bench.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
