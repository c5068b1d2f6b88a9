"""What a stdio run has imported by the time its answers arrive. A module held then is held
under the largest answer too (benchmarks/README.md, d4): OpenSSL's libcrypto, which hashlib
maps, is 3.6 MiB of that peak, and a run has no use for it before the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import fixture_command

# Runs the CLI in this process, noting before each received line is decoded which of the
# watched modules are loaded.
WATCH = r"""
import json, runpy, sys
from mcp_accept.transport import stdio

notes, real = sys.argv.pop(1), stdio.decode_message

def watched(data):
    with open(notes, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(sorted(m for m in ("_hashlib", "hashlib", "_ssl") if m in sys.modules)) + "\n")
    return real(data)

stdio.decode_message = watched
sys.argv = ["mcp-accept", *sys.argv[1:]]
runpy.run_module("mcp_accept", run_name="__main__", alter_sys=True)
"""


def test_a_stdio_run_reads_its_answers_without_hashlib(tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    done = subprocess.run([sys.executable, "-c", WATCH, str(notes), "run", "--server", fixture_command(),
                           "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    seen = [json.loads(line) for line in notes.read_text(encoding="utf-8").splitlines()]
    assert len(seen) > 5  # the answers of a whole run were watched
    assert [s for s in seen if s] == []
