#!/usr/bin/env python3
"""Measure the cross-host table with `mcp-accept host matrix` and write it into docs/hosts.md,
between the markers `<!-- host-matrix:start -->` and `<!-- host-matrix:end -->`.

Run from the project's root, with the hosts installed (`npm ci --prefix tests/hosts`, and
fast-agent as .ci/run installs it): python scripts/host_matrix_docs.py [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "hosts.md"
START, END = "<!-- host-matrix:start -->", "<!-- host-matrix:end -->"
BINS = [ROOT / "tests" / "hosts" / "node_modules" / ".bin", ROOT / "tests" / "hosts" / "fast-agent-venv" / "bin"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "matrix"
        env = dict(os.environ, PATH=os.pathsep.join([*map(str, BINS), os.environ.get("PATH", "")]))
        done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--out", str(out),
                               "--jobs", str(args.jobs)], env=env, cwd=ROOT)
        if done.returncode != 0:
            return done.returncode
        table = (out / "matrix.md").read_text(encoding="utf-8").split("\n", 2)[2].strip()
    text = DOC.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"{DOC}: the markers {START} and {END} are missing", file=sys.stderr)
        return 2
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")
    print(f"wrote the table into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
