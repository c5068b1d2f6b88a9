"""``mcp-accept host config HOST``: the snippet that makes a host launch the recording proxy.

Each format is the host's own, as its documentation gives it:

* Claude Code: ``claude mcp add [options] <name> -- <command> [args...]``; options such as
  ``--scope`` go before the name, ``--`` separates the server's command
  (https://docs.anthropic.com/en/docs/claude-code/mcp, "Installing MCP servers": local stdio servers).
* VS Code: ``.vscode/mcp.json`` (workspace) or the user profile's mcp.json, ``{"servers": {NAME:
  {"type": "stdio", "command": ..., "args": [...]}}}``
  (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration, "Standard I/O (stdio) servers").
* Claude Desktop: ``claude_desktop_config.json``, ``{"mcpServers": {NAME: {"command", "args"}}}``,
  at ``~/Library/Application Support/Claude/`` (macOS) or ``%APPDATA%\\Claude\\`` (Windows)
  (https://modelcontextprotocol.io/quickstart/user, "Add the Filesystem MCP Server").
* Cursor: ``.cursor/mcp.json`` (project) or ``~/.cursor/mcp.json`` (global), ``{"mcpServers":
  {NAME: {"command", "args", "env"}}}`` (https://cursor.com/docs/mcp, "Configuration").

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
from mcp_accept.server_command import command_words

# The hosts a person points at the proxy by hand, desktop ones included. Not the adapters of
# host test (hosts.adapters.ADAPTERS): those are the hosts that run headless, and only
# claude-code is in both; each command accepts its own list.
HOSTS = ("claude-code", "vscode", "claude-desktop", "cursor")
DESKTOP_CONFIG = {
    "macOS": "~/Library/Application Support/Claude/claude_desktop_config.json",
    "Windows": "%APPDATA%\\Claude\\claude_desktop_config.json",
}


def marker_argv(log_dir: Path) -> list[str]:
    """The fixture in marker mode, logging to ``log_dir`` (see fixture.py --markers --log)."""
    from mcp_accept.running.execute import fixture_path

    return [sys.executable, str(fixture_path()), "--markers", "--log", str(Path(log_dir).resolve())]


def config(host: str, server: str | None, out: Path, *, name: str = "mcp-accept-proxy",
           markers: bool = False) -> str:
    """The snippet for ``host``, as text to paste or run."""
    if host not in HOSTS:
        raise InputError(f"must be one of {', '.join(HOSTS)}", field="HOST")
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
    argv = proxy_command(out, name, server=server)
    if host == "claude-code":
        return shlex.join(["claude", "mcp", "add", "--scope", "local", name, "--", *argv]) + "\n"
    if host == "vscode":
        body = {"servers": {name: {"type": "stdio", "command": argv[0], "args": argv[1:]}}}
        return "// .vscode/mcp.json\n" + json.dumps(body, indent=2) + "\n"
    body = {"mcpServers": {name: {"command": argv[0], "args": argv[1:]}}}
    if host == "claude-desktop":
        where = "; ".join(f"{os_name}: {path}" for os_name, path in DESKTOP_CONFIG.items())
        return f"// claude_desktop_config.json ({where})\n" + json.dumps(body, indent=2) + "\n"
    return "// .cursor/mcp.json (or ~/.cursor/mcp.json)\n" + json.dumps(body, indent=2) + "\n"


def snippet_json(text: str) -> dict:
    """The JSON of a snippet printed by :func:`config` (its first line is a comment)."""
    return json.loads(text.split("\n", 1)[1])
