#!/usr/bin/env python3
"""``observe`` on large evidence: time and peak memory against a plain read of the same file.

    python benchmarks/observe_large.py [--mib 100] [--keep DIR]

Writes, in a temporary folder, a run of the built-in fixture, a fixture log with marker
tokens, and three files of ``--mib`` MiB each: a text file of short lines (``--evidence``,
scanned for credentials, then copied into the run), an answer holding the tokens near its
start, middle and end (``--answer``), and a Claude Code stream-json transcript whose tool
results hold them (``--transcript``). Each command runs in a process of its own under
``peak.py`` (its peak RSS); the baseline is a plain read of the same file in 1 MiB chunks,
timed in this invocation, so the ratio says what the command costs beyond reading the bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUN = "0a1b2c3d"
MARKERS = {form: f"MK{letter}-{RUN}" for form, letter in
           (("text", "T"), ("structured", "S"), ("embedded", "E"), ("link", "L"))}
TOOLS = ("search_text", "search_structured", "search_embedded", "search_link")
WORDS = ("the tool result reached the model and its structured content was read back from "
         "the resource link as text").split()


def filler_line(n: int) -> str:
    return " ".join(WORDS[(n + i) % len(WORDS)] for i in range(14)) + f" line {n}"


def write_text_file(path: Path, size: int, tokens: dict[int, str]) -> None:
    """Short lines up to ``size`` bytes; the token of ``tokens[k]`` on line k."""
    with open(path, "w", encoding="utf-8") as out:
        written, n = 0, 0
        block = []
        while written < size:
            line = filler_line(n) + (f" {tokens[n]}" if n in tokens else "") + "\n"
            block.append(line)
            written += len(line)
            n += 1
            if len(block) == 4096:
                out.write("".join(block))
                block = []
        out.write("".join(block))


def write_transcript(path: Path, size: int) -> None:
    """A stream-json transcript: init, then user tool_result messages of ~4 KiB each."""
    text = " ".join(filler_line(n) for n in range(40))
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"type": "system", "subtype": "init", "model": "m",
                              "mcp_servers": [{"name": "fixture", "status": "connected"}]}) + "\n")
        written, n = 0, 0
        total = size // (len(text) + 200)
        while written < size:
            marked = {1: MARKERS["text"], total // 2: MARKERS["structured"], total - 2: MARKERS["embedded"]}
            body = text + (f" {marked[n]}" if n in marked else "")
            line = json.dumps({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{n}", "content": [{"type": "text", "text": body}]}]}})
            out.write(line + "\n")
            written += len(line) + 1
            n += 1
        out.write(json.dumps({"type": "result", "result": "done"}) + "\n")


def fixture_log(folder: Path) -> Path:
    log = folder / "log"
    log.mkdir()
    (log / "markers.json").write_text(json.dumps({"run": RUN, "markers": MARKERS, "pid": 1,
                                                  "started_at": "2026-01-01T00:00:00.000Z"}), encoding="utf-8")
    (log / "requests.jsonl").write_text("".join(
        json.dumps({"t": "2026-01-01T00:00:01.000Z", "transport": "stdio", "method": "tools/call",
                    "id": n, "name": name, "uri": None, "run": RUN}) + "\n"
        for n, name in enumerate(TOOLS, 1)), encoding="utf-8")
    return log


def plain_read(path: Path) -> float:
    start = time.perf_counter()
    with open(path, "rb") as handle:
        while handle.read(1 << 20):
            pass
    return time.perf_counter() - start


def measured(args: list[str], rss_file: Path) -> tuple[float, int, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(HERE / "peak.py"), str(rss_file), "-m", "mcp_accept", *args],
                          capture_output=True, text=True, env={**os.environ, "MCP_ACCEPT_SDK": "off"})
    seconds = time.perf_counter() - start
    peak = int(rss_file.read_text().split()[0]) if rss_file.exists() else 0
    return seconds, peak, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--keep", type=Path, default=None, help="work here and keep the files")
    options = parser.parse_args()
    work = options.keep or Path(tempfile.mkdtemp(prefix="observe-large-"))
    work.mkdir(parents=True, exist_ok=True)
    size = options.mib << 20
    try:
        base = work / "run"
        done = subprocess.run([sys.executable, "-m", "mcp_accept", "run", "--out", str(base), "-q"],
                              capture_output=True, text=True)
        assert done.returncode in (0, 1), done.stderr
        log = fixture_log(work)
        evidence, answer, transcript = work / "evidence.txt", work / "answer.txt", work / "transcript.jsonl"
        lines = size // 110
        write_text_file(evidence, size, {})
        write_text_file(answer, size, {1: MARKERS["text"], lines // 2: MARKERS["structured"],
                                       lines - 10: MARKERS["embedded"]})
        write_transcript(transcript, size)
        cases = [
            ("--evidence", evidence, ["H03", "--status", "PASS", "--evidence", str(evidence)]),
            ("--answer", answer, ["H01", "--answer", str(answer), "--fixture-log", str(log)]),
            ("--transcript", transcript, ["H01", "--transcript", str(transcript), "--format",
                                          "claude-code-stream-json", "--fixture-log", str(log)]),
        ]
        print(f"{'observe':<13} {'MiB':>5} {'seconds':>8} {'plain read':>10} {'peak RSS MiB':>13}  outcome")
        for name, path, args in cases:
            folder = work / f"run-{name.strip('-')}"
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(base, folder)
            plain_read(path)  # the page cache holds the file for both
            baseline = plain_read(path)
            seconds, peak, done = measured(["observe", str(folder), *args], work / f"rss-{name.strip('-')}")
            outcome = "exit 0" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[:120]}"
            print(f"{name:<13} {path.stat().st_size / (1 << 20):>5.0f} {seconds:>8.2f} {baseline:>10.3f} "
                  f"{peak / (1 << 20):>13.0f}  {outcome}")
            if name != "--evidence" and done.returncode == 0:
                row = json.loads((folder / "rows" / "H01.json").read_text(encoding="utf-8"))
                print("  " + ", ".join(f"{form}: {seen['result']}" for form, seen in row["forms"].items()))
    finally:
        if options.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
