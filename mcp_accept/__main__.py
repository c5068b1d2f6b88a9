"""``mcp-accept`` and ``python -m mcp_accept``: what can be done before the command line is parsed.

Parsing the command line imports typer, click and every command's options (about 0.1 s).
``--version`` needs none of it. ``run`` with a sheet that has sdk-layer checks starts the
sdk layer's replay process first, so that importing the SDK there overlaps this process's
own start-up as well as the recording.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from mcp_accept import __version__

        print(f"mcp-accept {__version__}")
        return
    if argv[:1] == ["run"]:
        from mcp_accept.checks.sdk import prestart

        prestart(argv[1:])
    from mcp_accept.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
