"""The reference fixture, reporting the environment it was started with: as JSON on its
standard error, and as its ``instructions`` (in its answer to initialize or server/discover,
so on the wire), and, with ``--report FILE``, into FILE too (where nothing keeps its stderr).

    python env_server.py [--report FILE] [fixture options...]
"""

from __future__ import annotations

import json
import os
import sys

from mcp_accept import fixture

if __name__ == "__main__":
    seen = "environment: " + json.dumps(dict(os.environ), sort_keys=True)
    args = sys.argv[1:]
    if args[:1] == ["--report"]:
        with open(args[1], "w", encoding="utf-8") as report:
            report.write(seen + "\n")
        args = args[2:]
    sys.stderr.write(seen + "\n")
    sys.stderr.flush()
    fixture.INSTRUCTIONS = seen
    sys.exit(fixture.main(args))
