"""Write the verdicts of a ``mcp-accept verify`` folder as one small JSON file.

Every run verify makes (each break mode of the fixture, in each protocol version, over stdio and
HTTP) is reduced to its exit status and, for each row, its status, the rule it broke, how many
checks it ran and the status of each that did not pass: the verdicts alone, with no reason text,
time or path, one line a run. The file
kept in tests/data/verdicts.json is compared with a fresh verify run by tests/test_verify.py, so
a change of any verdict or exit status shows up as a test failure until the file is written
again here, on purpose.

    python scripts/verdicts.py                 # run verify into a temporary folder, write the file
    python scripts/verdicts.py --from FOLDER   # read a verify folder written already
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEPT = ROOT / "tests" / "data" / "verdicts.json"


def run_key(run: dict) -> str:
    transport = "" if run["transport"] == "stdio" else f"@{run['transport']}"
    return f"{run['era']}/{run['mode']}{transport}"


def verdicts(folder: Path) -> dict[str, dict]:
    """The verdicts of every run of the verify folder, by era, mode and transport."""
    out: dict[str, dict] = {}
    for run in json.loads((folder / "verify.json").read_text(encoding="utf-8"))["runs"]:
        rows = {}
        results = folder / run["folder"] / "results.json"
        if results.is_file():
            for row in json.loads(results.read_text(encoding="utf-8"))["rows"]:
                checks = row.get("checks") or []
                not_passed = {c["check"]: c["status"] for c in checks if c["status"] != "PASS"}
                rows[row["id"]] = [row["status"], row.get("failed_rule"), len(checks),
                                   dict(sorted(not_passed.items()))]
        out[run_key(run)] = {"exit": run["exit_status"], "rows": rows}
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="folder", type=Path, help="a verify folder written already")
    parser.add_argument("--out", type=Path, default=KEPT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder
        if folder is None:
            folder = Path(tmp) / "verify"
            subprocess.run([sys.executable, "-m", "mcp_accept", "verify", "--out", str(folder),
                            "--jobs", "2", "--timeout", "2"], check=False, stdout=subprocess.DEVNULL)
        found = verdicts(folder)
    lines = [f"{json.dumps(key)}: {json.dumps(value, sort_keys=True)}" for key, value in found.items()]
    args.out.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(found)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
