#!/usr/bin/env python3
"""How fast mcp-accept is, in ratios against baselines measured in the same invocation.

    python benchmarks/bench.py                 # medians of 5 runs, a Markdown table on stdout
    python benchmarks/bench.py --repeat 9 --json bench.json

Every figure is the median wall time (or peak RSS) of whole processes started the way a
user starts them; measured commands and their baselines take turns within each round, so
a machine that slows down in the middle slows both. What is measured:

a. start-up: ``mcp-accept --version`` (target ≤ 5x) and ``--help`` (≤ 8x) against ``python -c pass``;
b. the full sheet over stdio against the built-in fixture: the default run (sdk layer off)
   against the official MCP Python SDK client making the same calls (``sdk_client.py``;
   ≤ 0.5x); for reference, against a minimal raw JSON-RPC client (``raw_client.py``: the same
   calls, no checks), and a run with ``--sdk`` against the default run, the raw client and the
   SDK client;
c. the same over Streamable HTTP (one fixture server for all, started beforehand);
d. a 16 MiB ``structuredContent`` (``large_server.py``, tens of thousands of hits) through
   the default run: wall time against ``json.loads`` of the same bytes in a fresh process
   (≤ 12x), peak RSS of the mcp-accept process against the payload's size (≤ 8x); the same
   with ``--sdk`` for reference (the sdk layer's replay process counts in its RSS);
e. a fleet of 100 servers with ``--jobs 4`` against one server (≤ 25x);
f. the per-message overhead of ``mcp-accept proxy`` (``proxy_overhead.py``: the median
   round trip of a ``tools/call`` through the proxy against the fixture directly; the
   difference under 0.2 ms), or a line saying it was not measured when that script is absent;
g. one ``host test`` of a real host (Claude Code, else Codex, from tests/hosts) with the
   stand-in model against the same run with no proxy between the host and the server
   (≤ 1.2x; medians of nine unless ``--repeat`` says otherwise, as a host's own time varies
   widely); a line saying it
   was not measured when neither is installed.

Every run is of the default sheet as it ships. "The default run" is ``mcp-accept run`` as it
is, whose sdk layer is off (its checks say so; ``MCP_ACCEPT_SDK`` is removed from the
environment of every measured command); "with --sdk" adds the sdk layer, and each such run
starts its own replay process, which ends with it, as a user's run does.
mcp-accept's bytecode is compiled first, as ``pip install`` does. Every row says
its target and whether it is met; benchmarks/README.md explains the figures.

Needs the official MCP schemas where mcp-accept can find them (``MCP_ACCEPT_SCHEMA_DIR``
or the cache; see ``mcp-accept schemas``) and, for the SDK baseline and the sdk layer,
``pip install mcp``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOST_ROUNDS = 9  # g1's rounds unless --repeat says otherwise (see Bench.host)
PY = sys.executable
MIB = 1024 * 1024


@dataclass
class Row:
    key: str
    what: str
    measured: str  # what the measured side is
    baseline: str  # what it is compared with
    unit: str  # "s" or "MiB"
    values: list = field(default_factory=list)
    base_values: list = field(default_factory=list)
    limit: float | None = None  # the ratio must be at most this (strictly below when strict)
    strict: bool = False
    note: str = ""
    # a target on the difference rather than the ratio (the proxy's cost per message, in ms)
    extra_limit: float | None = None
    extra: float | None = None

    @property
    def value(self):
        return statistics.median(self.values) if self.values else None

    @property
    def base(self):
        return statistics.median(self.base_values) if self.base_values else None

    @property
    def ratio(self):
        if self.value is None or not self.base:
            return None
        return self.value / self.base

    @property
    def target(self) -> str:
        if self.extra_limit is not None:
            return f"< {self.extra_limit:g} {self.unit} more"
        if self.limit is None:
            return "(for reference)"
        return f"< {self.limit:g}x" if self.strict else f"≤ {self.limit:g}x"

    @property
    def met(self) -> str:
        if self.extra_limit is not None:
            return "n/a" if self.extra is None else ("yes" if self.extra < self.extra_limit else "**no**")
        if self.limit is None or self.ratio is None:
            return "n/a" if self.limit is not None else ""
        ok = self.ratio < self.limit if self.strict else self.ratio <= self.limit
        return "yes" if ok else "**no**"

    def as_dict(self) -> dict:
        return {"key": self.key, "what": self.what, "measured": self.measured, "baseline": self.baseline,
                "unit": self.unit, "median": self.value, "baseline_median": self.base, "ratio": self.ratio,
                "target": self.target, "met": self.met.strip("*"), "values": self.values,
                "baseline_values": self.base_values, "note": self.note}


def fmt(value, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "s":
        return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.3f} ms"
    return f"{value:.1f} {unit}"


class Bench:
    def __init__(self, args):
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="mcp-accept-bench-"))
        self.count = 0
        self.cli = self._cli()
        self.failures: list[str] = []
        compile_package()

    def close(self) -> None:
        if not self.args.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # -- running things --------------------------------------------------------------------
    def _cli(self) -> list[str]:
        script = Path(PY).with_name("mcp-accept")
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
        return [PY, "-m", "mcp_accept"]

    def folder(self, label: str) -> str:
        self.count += 1
        return str(self.tmp / f"{label}-{self.count}")

    def time(self, argv: list[str], label: str, ok=(0,), env: dict | None = None) -> float:
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.tmp,
                              env={**os.environ, **env} if env else None)
        elapsed = time.perf_counter() - start
        if done.returncode not in ok:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            self.failures.append(f"{label}: exit {done.returncode}: {tail[0][:300]}")
        return elapsed

    def rounds(self, *pairs, default: int = 5) -> None:
        """``pairs`` of (list to fill, thunk); each round runs every thunk once, in turn;
        ``--repeat`` rounds, else ``default``."""
        for _ in range(self.args.repeat or default):
            for values, thunk in pairs:
                values.append(thunk())

    # -- the pieces ------------------------------------------------------------------------
    def sdk_available(self) -> bool:
        done = subprocess.run([PY, "-c", "import mcp.client.client"], capture_output=True)
        return done.returncode == 0

    def http_server(self):
        from mcp_accept.running.execute import fixture_path

        proc = subprocess.Popen([PY, str(fixture_path()), "--http", "0"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        found: list[str] = []

        def read():
            for line in proc.stdout:
                match = re.search(r"listening on (http://\S+)", line)
                if match and not found:
                    found.append(match.group(1))

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + 30
        while not found and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        if not found:
            proc.kill()
            raise SystemExit("the fixture's HTTP server did not say where it listens")
        return proc, found[0]

    # -- the measurements ------------------------------------------------------------------
    def startup(self) -> list[Row]:
        version = Row("a1", "start-up: `mcp-accept --version`", "mcp-accept --version", "`python -c pass`",
                      "s", limit=5)
        helps = Row("a2", "start-up: `mcp-accept --help`", "mcp-accept --help", "`python -c pass`", "s", limit=8)
        bare = []
        self.rounds((version.values, lambda: self.time(self.cli + ["--version"], "--version")),
                    (helps.values, lambda: self.time(self.cli + ["--help"], "--help")),
                    (bare, lambda: self.time([PY, "-c", "pass"], "python -c pass")))
        version.base_values = helps.base_values = bare
        return [version, helps]

    def full_sheet(self, transport: str, variants: dict, sdk: bool) -> list[Row]:
        from mcp_accept.running.execute import fixture_path

        key = "b" if transport == "stdio" else "c"
        server = None
        if transport == "stdio":
            target = []
            client_target = ["--", PY, str(fixture_path())]
        else:
            server, url = self.http_server()
            target = ["--url", url]
            client_target = ["--url", url]
        try:
            raw, sdk_values = [], []
            measured = {name: [] for name in variants}
            pairs = [(raw, lambda: self.time([PY, str(HERE / "raw_client.py"), *client_target], "raw client"))]
            if sdk:
                pairs.append((sdk_values, lambda: self.time([PY, str(HERE / "sdk_client.py"), *client_target],
                                                            "SDK client")))
            for name, extra in variants.items():
                pairs.append((measured[name], lambda extra=extra, name=name: self.time(
                    self.cli + ["run", *target, *extra, "--out", self.folder(f"{key}-{name}")],
                    f"run {name} ({transport})")))
            self.rounds(*pairs)
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=10)
        over = "stdio" if transport == "stdio" else "Streamable HTTP"
        with_sdk, default = measured["sdk"], measured["default"]
        no_sdk = "the SDK is not installed (pip install mcp)" if not sdk else ""
        rows = [
            Row(f"{key}1", f"full sheet over {over}: with --sdk, against the default run (sdk layer off)",
                "mcp-accept run --sdk", "the default run", "s", list(with_sdk), list(default), note=no_sdk),
            Row(f"{key}2", f"full sheet over {over}: the default run (sdk layer off), against the official SDK client",
                "mcp-accept run", "official SDK client", "s", list(default), list(sdk_values), 0.5, note=no_sdk),
            Row(f"{key}3", f"full sheet over {over}: the default run (sdk layer off), against the raw client",
                "mcp-accept run", "raw JSON-RPC client", "s", list(default), list(raw)),
            Row(f"{key}4", f"full sheet over {over}: with --sdk, against the raw client",
                "mcp-accept run --sdk", "raw JSON-RPC client", "s", list(with_sdk), list(raw), note=no_sdk),
            Row(f"{key}5", f"full sheet over {over}: with --sdk, against the official SDK client",
                "mcp-accept run --sdk", "official SDK client", "s", list(with_sdk), list(sdk_values), note=no_sdk),
        ]
        return rows

    def large(self, variants: dict) -> list[Row]:
        sys.path.insert(0, str(HERE))
        import large_server

        payload = large_server.build_payload(int(self.args.large_mib * MIB))
        payload_file = self.tmp / "large-payload.json"
        payload_file.write_bytes(payload)
        line_file = self.tmp / "large-line.json"
        line_file.write_bytes(large_server.call_result_line(payload, 5))
        hits = payload.count(b'{"id":')
        size = f"{len(payload) / MIB:.1f} MiB, {hits} hits"
        server = shlex.join([PY, str(HERE / "large_server.py"), "--payload", str(payload_file)])
        profile = HERE / "large-profile.yaml"

        def measure(extra: list[str], label: str):
            rss_file = self.tmp / f"rss-{self.count}"
            seconds = self.time([PY, str(HERE / "peak.py"), str(rss_file), "-m", "mcp_accept", "run",
                                 "--server", server, "--profile", str(profile), "--set", "S02.mode=off", *extra,
                                 "--out", self.folder("d")], label, ok=(0, 1))
            return seconds, *_read_rss(rss_file)

        def loads():
            rss_file = self.tmp / f"rss-loads-{self.count}"
            self.count += 1
            seconds = self.time([PY, str(HERE / "peak.py"), str(rss_file), "--loads", str(line_file)], "json.loads")
            return seconds, _read_rss(rss_file)[0]

        results = {name: [] for name in variants}
        base: list = []
        pairs = [(base, loads)]
        for name, extra in variants.items():
            pairs.append((results[name], lambda extra=extra, name=name: measure(extra, f"large result ({name})")))
        self.rounds(*pairs)
        rows, n = [], 0
        loads_rss = statistics.median(r for _, r in base) / MIB if base else None
        for name in variants:
            wall_limit, rss_limit = LARGE_LIMITS[name]
            n += 1
            rows.append(Row(f"d{n}", f"{size} structuredContent, wall time: {VARIANT_LABELS[name]}",
                            "mcp-accept run", "`json.loads` of the same bytes (fresh process)", "s",
                            [s for s, *_ in results[name]], [s for s, _ in base], limit=wall_limit))
            n += 1
            # The run's own process and, when the sdk layer replays in a process of its own, that
            # one's peak too: both hold their copy at the same time.
            workers = [w for _, _, w in results[name]]
            note = f"json.loads alone peaks at {loads_rss:.0f} MiB" if loads_rss else ""
            if any(workers):
                note += f"; the sdk replay process peaks at {statistics.median(workers) / MIB:.0f} MiB of it"
            rows.append(Row(f"d{n}", f"{size} structuredContent, peak RSS: {VARIANT_LABELS[name]}",
                            "mcp-accept processes", "the payload's size", "MiB",
                            [(r + w) / MIB for _, r, w in results[name]], [len(payload) / MIB] * len(results[name]),
                            limit=rss_limit, note=note))
        return rows

    def fleet(self, variants: dict) -> list[Row]:
        rows, n = [], 0
        pairs = []
        collected = {}
        targets = self.tmp / "targets.yaml"
        targets.write_text("targets:\n" + "  - {}\n" * self.args.fleet, encoding="utf-8")
        for name, extra in variants.items():
            many, one = [], []
            collected[name] = (many, one)
            pairs.append((many, lambda extra=extra, name=name: self.time(
                self.cli + ["run", "--targets", str(targets), "--jobs", str(self.args.jobs), *extra,
                            "--out", self.folder(f"e-{name}")], f"fleet ({name})")))
            pairs.append((one, lambda extra=extra, name=name: self.time(
                self.cli + ["run", *extra, "--out", self.folder(f"e1-{name}")], f"one server ({name})")))
        self.rounds(*pairs)
        for name in variants:
            n += 1
            many, one = collected[name]
            rows.append(Row(f"e{n}", f"fleet of {self.args.fleet} servers, `--jobs {self.args.jobs}`: "
                            f"{VARIANT_LABELS[name]}", "mcp-accept run --targets", "one server (mcp-accept run)",
                            "s", many, one, limit=25))
        return rows

    def proxy(self) -> list[Row]:
        """The per-message overhead of ``mcp-accept proxy``, as ``proxy_overhead.py`` measures it."""
        script = HERE / "proxy_overhead.py"
        row = Row("f1", "proxy: one `tools/call` round trip over stdio, through `mcp-accept proxy`",
                  "through the proxy", "the fixture directly", "ms", extra_limit=0.2)
        if not script.is_file():
            row.note = "not measured: no proxy (benchmarks/proxy_overhead.py does not exist)"
            return [row]
        out = self.tmp / "proxy-overhead.json"
        done = subprocess.run([PY, str(script), "-n", str(self.args.proxy_n), "--json", str(out)],
                              capture_output=True, text=True, cwd=self.tmp, timeout=900)
        try:
            found = json.loads(out.read_text(encoding="utf-8"))
            row.values = [float(found["proxy_median_ms"])]
            row.base_values = [float(found["direct_median_ms"])]
            row.extra = float(found["overhead_median_ms"])
            row.note = (f"median of {found['n']} round trips each; overhead "
                        f"{float(found['overhead_median_ms']):.3f} ms per message")
        except (OSError, ValueError, KeyError, TypeError):
            tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
            row.note = f"proxy_overhead.py gave no figures (exit {done.returncode}): {tail[0][:200]}"
            self.failures.append(f"proxy_overhead.py: exit {done.returncode}: {tail[0][:300]}")
        return [row]

    def host(self) -> list[Row]:
        """One ``host test`` of a real host with the stand-in model, through the recording proxy,
        against the same run with the host launching the server itself."""
        row = Row("g1", "host test: one run of a real host with the stand-in model",
                  "through the recording proxy", "the same, no proxy between host and server", "s", limit=1.2)
        found = installed_host()
        if found is None:
            row.note = f"not measured: no host installed ({HOST_BIN.relative_to(HERE.parent)}: claude or codex)"
            return [row]
        name, binary = found
        row.what = f"host test {name}: one run with the stand-in model (the fixture, its large results included)"
        help_text = subprocess.run(self.cli + ["host", "test", "--help"], capture_output=True, text=True).stdout
        if "--no-proxy" not in help_text:
            row.note = "not measured: this mcp-accept's host test has no --no-proxy"
            return [row]
        command = self.cli + ["host", "test", name, "--host-bin", str(binary)]

        def once(extra: list[str], label: str) -> float:
            return self.time(command + ["--out", self.folder(f"g-{label}"), *extra], f"host test ({label})",
                             ok=(0, 1))

        # A host's own run time varies by half or more from one run to the next (Claude Code:
        # 3.4-6.1 s for the same script): nine rounds at least, so one slow run moves no median.
        self.rounds((row.values, lambda: once([], "proxy")), (row.base_values, lambda: once(["--no-proxy"], "direct")),
                    default=HOST_ROUNDS)
        return [row]

    def run(self) -> list[Row]:
        variants = dict(VARIANTS)
        sdk = self.sdk_available()
        self.sdk_layer = "off by default, on with --sdk" + ("" if sdk else " (where the SDK is not installed)")
        rows = []
        only = set(self.args.only or "abcdefg")
        if "a" in only:
            rows += self.startup()
        if "b" in only:
            rows += self.full_sheet("stdio", variants, sdk)
        if "c" in only:
            rows += self.full_sheet("http", variants, sdk)
        if "d" in only:
            rows += self.large(variants)
        if "e" in only:
            rows += self.fleet(variants)
        if "f" in only:
            rows += self.proxy()
        if "g" in only:
            rows += self.host()
        return rows


# The runs measured: the options each adds to ``mcp-accept run`` of the default sheet.
VARIANTS = {"sdk": ["--sdk"], "default": []}
VARIANT_LABELS = {"sdk": "default sheet, with --sdk", "default": "default sheet, the default run (sdk layer off)"}
# (wall time against json.loads, peak RSS against the payload) of the 16 MiB result, per variant
# the default run (every default layer) within 12x json.loads and 8x the payload in peak RSS; the
# opt-in sdk layer is for reference
LARGE_LIMITS = {"sdk": (None, None), "default": (12, 8)}


HOST_BIN = HERE.parent / "tests" / "hosts" / "node_modules" / ".bin"
HOSTS = (("claude-code", "claude"), ("codex", "codex"))  # host test's name, the executable's


def installed_host() -> tuple[str, Path] | None:
    """The first of the hosts g1 measures that is installed in the project's test folder."""
    for name, executable in HOSTS:
        binary = HOST_BIN / executable
        if binary.is_file() and os.access(binary, os.X_OK):
            return name, binary
    return None


def compile_package() -> None:
    """Write mcp-accept's bytecode, as ``pip install`` does: from a checkout (an editable
    install) it is otherwise written by the first run, or never, under
    PYTHONDONTWRITEBYTECODE, and every run would compile the modules it imports."""
    import importlib.util

    spec = importlib.util.find_spec("mcp_accept")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        subprocess.run([PY, "-m", "compileall", "-q", folder], stdout=subprocess.DEVNULL, check=False)


def _read_rss(path: Path) -> tuple[int, int]:
    """(peak RSS of the measured process, peak RSS of its sdk replay process or 0), in bytes."""
    try:
        own, _, worker = path.read_text(encoding="utf-8").partition(" ")
        return int(own), int(worker or 0)
    except (OSError, ValueError):
        return 0, 0


def describe_machine() -> str:
    try:
        from importlib import metadata

        versions = []
        for name in ("mcp-accept", "mcp", "jsonschema", "jsonschema-rs", "typer"):
            try:
                versions.append(f"{name} {metadata.version(name)}")
            except metadata.PackageNotFoundError:
                versions.append(f"{name} (not installed)")
    except ImportError:
        versions = []
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}; " + ", ".join(versions))


def table(rows: list[Row]) -> str:
    out = ["| | measurement | mcp-accept | baseline | ratio | target | met |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "n/a"
        base = f"{r.baseline}: {fmt(r.base, r.unit)}"
        note = f" ({r.note})" if r.note else ""
        out.append(f"| {r.key} | {r.what}{note} | {fmt(r.value, r.unit)} | {base} | {ratio} | {r.target} | {r.met} |")
    return "\n".join(out)


def print_table(rows: list[Row], failures: list[str]) -> None:
    """The table, then each command that did not end as expected."""
    print(table(rows))
    if failures:
        print("\nCommands that did not end as expected:")
        for line in sorted(set(failures)):
            print(f"- {line}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=None,
                        help=f"runs of each command; medians are shown (default 5, and {HOST_ROUNDS} for g1)")
    parser.add_argument("--large-mib", type=float, default=16.0, help="size of the large result in MiB (default 16)")
    parser.add_argument("--fleet", type=int, default=100, help="servers in the fleet (default 100)")
    parser.add_argument("--jobs", type=int, default=4, help="--jobs of the fleet (default 4)")
    parser.add_argument("--proxy-n", type=int, default=2000,
                        help="round trips per side for the proxy's overhead (default 2000)")
    parser.add_argument("--only", help="letters of the measurements to make, e.g. ab (default: abcdefg)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    parser.add_argument("--keep", action="store_true", help="keep the run folders (their path is printed)")
    args = parser.parse_args(argv)
    os.environ.pop("MCP_ACCEPT_SDK", None)  # the default run is measured as it is by default
    bench = Bench(args)
    started = time.monotonic()
    try:
        rows = bench.run()
    finally:
        bench.close()
    command = "python benchmarks/bench.py" + "".join(
        f" {flag} {value}" for flag, value in (("--repeat", args.repeat), ("--large-mib", args.large_mib),
                                               ("--fleet", args.fleet), ("--jobs", args.jobs),
                                               ("--proxy-n", args.proxy_n))
        if value != parser.get_default(flag.strip("-").replace("-", "_")))
    runs = f"{args.repeat} runs" if args.repeat else f"5 runs ({HOST_ROUNDS} for g1)"
    print(f"Medians of {runs}; {describe_machine()}; SDK layer {getattr(bench, 'sdk_layer', '?')}.")
    print(f"Reproduce with: `{command}` ({time.monotonic() - started:.0f} s here).\n")
    print_table(rows, bench.failures)
    if args.keep:
        print(f"\nRun folders: {bench.tmp}")
    if args.json:
        Path(args.json).write_text(json.dumps({"command": command, "machine": describe_machine(),
                                               "repeat": args.repeat or 5, "rows": [r.as_dict() for r in rows],
                                               "failures": sorted(set(bench.failures))}, indent=2) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
