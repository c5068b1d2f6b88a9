"""A stdio server that writes a line that is no JSON to its stdout before anything else, as a
server does that prints a banner or a log line there (standard library only).

  --line TEXT   what it writes (default: hello)
  --silent      then read stdin to its end and answer nothing
  (otherwise)   then serve as the reference fixture does (mcp_accept/fixture.py)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from mcp_accept import fixture  # noqa: E402  (standard library only)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--line", default="hello")
    parser.add_argument("--silent", action="store_true")
    args = parser.parse_args()
    sys.stdout.write(args.line + "\n")
    sys.stdout.flush()
    if args.silent:
        for _ in sys.stdin.buffer:  # every request read, none answered
            pass
        return 0
    return fixture.main([])


if __name__ == "__main__":
    sys.exit(main())
