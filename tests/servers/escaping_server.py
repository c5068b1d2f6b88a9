"""The reference fixture that first leaves a process of its own behind, escaped from its process
group and session (a new session, its standard streams closed): a host run must not leave it
running. The left process sleeps with the first argument on its command line, so a test can
look for it.

    python escaping_server.py MARK
"""

from __future__ import annotations

import subprocess
import sys

from mcp_accept.fixture import Fixture, serve_stdio


def main() -> int:
    mark = sys.argv[1] if len(sys.argv) > 1 else "escaped"
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", mark], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return serve_stdio(Fixture())


if __name__ == "__main__":
    sys.exit(main())
