#!/usr/bin/env python3
"""One ``host test`` run of a real host, with or without the recording proxy (bench.py, row g1).

    python host_run.py claude-code --host-bin PATH --out DIR              # as `host test` does it
    python host_run.py claude-code --host-bin PATH --out DIR --no-proxy   # the host launches the server itself

Both go through the harness's own ``host_test`` in this process, with the same stand-in
model, script, server and settings; ``--no-proxy`` only changes the command the host is
given for its MCP server: the server's own, where ``host test`` gives ``mcp-accept proxy
--server ...``. Both run without the network namespace (the namespace re-executes the
harness in a process of its own, where the command could not be changed), so the two
differ by the proxy alone. Exit 0 when the host ran and asked its model at least once.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path


def without_proxy(adapter) -> None:
    """Give the host the server's command instead of the proxy's, for this process."""
    prepare = adapter.prepare

    def direct(ctx, binary):
        command = ctx.mcp_command
        if command and "proxy" in command and "--server" in command:
            ctx.mcp_command = shlex.split(command[command.index("--server") + 1])
        return prepare(ctx, binary)

    adapter.prepare = direct


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("host")
    parser.add_argument("--host-bin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--no-proxy", action="store_true", help="the host launches the server itself")
    parser.add_argument("--timeout", type=float, default=180.0)
    args = parser.parse_args(argv)

    from mcp_accept.hosts import harness

    if args.no_proxy:
        without_proxy(harness.adapter_for(args.host))
    harness.host_test(harness.HostTestOptions(host=args.host, host_bin=args.host_bin, out=args.out,
                                              timeout=args.timeout, netns=False))
    model = Path(args.out) / "model.jsonl"
    asked = model.is_file() and model.stat().st_size > 0
    proxied = any((Path(args.out) / "proxy").glob("*"))
    if not asked or proxied == args.no_proxy:
        print(f"host_run.py: the host {'never asked its model' if not asked else 'ran with the wrong server'}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
