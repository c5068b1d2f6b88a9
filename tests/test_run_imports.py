"""What a stdio run has imported by the time its answers arrive. A module held then is held
under the largest answer too (benchmarks/README.md, d4): OpenSSL's libcrypto, which hashlib
maps, is 3.6 MiB of that peak, and a run has no use for it before the report.

The run is started below the command line: typer (0.29 on) reads option values through
pydantic, which imports hashlib (through ``secrets``), so ``mcp-accept run`` has it from its
parse on, whatever the run does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import fixture_command

# Runs a run in this process, noting before each received line is decoded which of the
# watched modules are loaded.
WATCH = r"""
import json, sys
from pathlib import Path
from mcp_accept.transport import stdio

notes, real = sys.argv.pop(1), stdio.decode_message

def watched(data):
    with open(notes, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(sorted(m for m in ("_hashlib", "hashlib", "_ssl") if m in sys.modules)) + "\n")
    return real(data)

stdio.decode_message = watched
from mcp_accept.running.execute import RunOptions, run
run(RunOptions(server=sys.argv[1], out=Path(sys.argv[2])))
"""


def test_a_stdio_run_reads_its_answers_without_hashlib(tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    done = subprocess.run([sys.executable, "-c", WATCH, str(notes), fixture_command(), str(tmp_path / "run")], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    seen = [json.loads(line) for line in notes.read_text(encoding="utf-8").splitlines()]
    assert len(seen) > 5  # the answers of a whole run were watched
    assert [s for s in seen if s] == []
