"""``mcp-accept host config HOST``: the snippet that makes a host launch the recording proxy,
in the host's own format (each host's is in :mod:`mcp_accept.hosts.registry`).

The proxy's own command is written with absolute paths (the interpreter running mcp-accept
and an absolute ``--out``): hosts start servers from a working folder of their own choosing.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from mcp_accept.errors import InputError
from mcp_accept.hosts.proxy import proxy_command
from mcp_accept.hosts.registry import BY_NAME, CONFIGURABLE
from mcp_accept.server_command import command_words


def marker_argv(log_dir: Path) -> list[str]:
    """The fixture in marker mode, logging to ``log_dir`` (see fixture.py --markers --log)."""
    from mcp_accept.running.execute import fixture_path

    return [sys.executable, str(fixture_path()), "--markers", "--log", str(Path(log_dir).resolve())]


def config(host: str, server: str | None, out: Path, *, name: str = "mcp-accept-proxy",
           markers: bool = False) -> str:
    """The snippet for ``host``, as text to paste or run."""
    if host not in CONFIGURABLE:
        raise InputError(f"must be one of {', '.join(CONFIGURABLE)}", field="HOST")
    if markers and server:
        # --markers means the fixture: a --server beside it would be dropped without a word
        raise InputError("cannot be given with --server (it points the host at the built-in fixture "
                         "in marker mode): give one of them", field="--markers")
    if markers:
        server = shlex.join(marker_argv(Path(out) / "fixture-log"))
    if not server:
        raise InputError("give --server CMD (the real server's command), or --markers for the fixture",
                         field="--server")
    command_words(server)
    return BY_NAME[host].snippet(name, proxy_command(out, name, server=server))


def snippet_json(text: str) -> dict:
    """The JSON of a snippet printed by :func:`config` (its first line is a comment)."""
    return json.loads(text.split("\n", 1)[1])
