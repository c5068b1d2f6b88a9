"""Every host mcp-accept knows, each described once (:data:`HOSTS`): its name on the command
line, the snippet ``host config`` prints to make it launch the recording proxy (a host a person
adds a server to by hand, desktop ones included), and its adapter (a host ``host test`` and
``host matrix`` run headless). A host has either or both; the commands read their lists from
here (:data:`CONFIGURABLE`, :data:`ADAPTERS`).

Each snippet is in the host's own format, as its documentation gives it:

* Claude Code: ``claude mcp add [options] <name> -- <command> [args...]``; options such as
  ``--scope`` go before the name, ``--`` separates the server's command
  (https://docs.anthropic.com/en/docs/claude-code/mcp, "Installing MCP servers": local stdio servers).
* VS Code: ``.vscode/mcp.json`` (workspace) or the user profile's mcp.json, ``{"servers": {NAME:
  {"type": "stdio", "command": ..., "args": [...]}}}``
  (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration, "Standard I/O (stdio) servers").
* Claude Desktop: ``claude_desktop_config.json``, ``{"mcpServers": {NAME: {"command", "args"}}}``,
  at ``~/Library/Application Support/Claude/`` (macOS) or ``%APPDATA%\\Claude\\`` (Windows)
  (https://modelcontextprotocol.io/quickstart/user, "Add the Filesystem MCP Server").
* GitHub Copilot CLI: ``~/.copilot/mcp-config.json`` (``$COPILOT_HOME/mcp-config.json`` where that
  is set), ``{"mcpServers": {NAME: {"type": "stdio", "command": ..., "args": [...], "tools": ["*"]}}}``;
  ``tools`` lists the server's tools Copilot may use, ``["*"]`` all of them
  (https://docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers, "Editing
  the configuration file"; ``copilot mcp --help``, ``copilot help environment`` for ``COPILOT_HOME``).
* Cursor: ``.cursor/mcp.json`` (project) or ``~/.cursor/mcp.json`` (global), ``{"mcpServers":
  {NAME: {"command", "args", "env"}}}`` (https://cursor.com/docs/mcp, "Configuration").
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Callable

from mcp_accept.hosts.adapters.base import HostAdapter
from mcp_accept.hosts.adapters.claude_code import ClaudeCode
from mcp_accept.hosts.adapters.codex import Codex
from mcp_accept.hosts.adapters.continue_cli import ContinueCli
from mcp_accept.hosts.adapters.copilot_cli import CopilotCli
from mcp_accept.hosts.adapters.fast_agent import FastAgent
from mcp_accept.hosts.adapters.gemini_cli import GeminiCli
from mcp_accept.hosts.adapters.google_adk import GoogleAdk
from mcp_accept.hosts.adapters.langchain import LangChain
from mcp_accept.hosts.adapters.openai_agents import OpenAIAgents
from mcp_accept.hosts.adapters.opencode import Opencode
from mcp_accept.hosts.adapters.pydantic_ai import PydanticAI
from mcp_accept.hosts.adapters.qwen_code import QwenCode

DESKTOP_CONFIG = {
    "macOS": "~/Library/Application Support/Claude/claude_desktop_config.json",
    "Windows": "%APPDATA%\\Claude\\claude_desktop_config.json",
}

# A snippet: the text that makes a host launch ``argv`` (the proxy) as the MCP server ``name``.
Snippet = Callable[[str, list[str]], str]


def _claude_mcp_add(name: str, argv: list[str]) -> str:
    return shlex.join(["claude", "mcp", "add", "--scope", "local", name, "--", *argv]) + "\n"


def _vscode(name: str, argv: list[str]) -> str:
    body = {"servers": {name: {"type": "stdio", "command": argv[0], "args": argv[1:]}}}
    return "// .vscode/mcp.json\n" + json.dumps(body, indent=2) + "\n"


def _mcp_servers(where: str) -> Snippet:
    """The ``{"mcpServers": ...}`` file of Claude Desktop and Cursor, headed by where it goes."""
    def snippet(name: str, argv: list[str]) -> str:
        body = {"mcpServers": {name: {"command": argv[0], "args": argv[1:]}}}
        return f"// {where}\n" + json.dumps(body, indent=2) + "\n"
    return snippet


def _copilot_mcp_config(name: str, argv: list[str]) -> str:
    body = {"mcpServers": {name: {"type": "stdio", "command": argv[0], "args": argv[1:], "tools": ["*"]}}}
    return "// ~/.copilot/mcp-config.json (or $COPILOT_HOME/mcp-config.json)\n" + json.dumps(body, indent=2) + "\n"


@dataclass(frozen=True)
class Host:
    name: str
    snippet: Snippet | None = None  # what ``host config`` prints for it
    adapter: HostAdapter | None = None  # how ``host test`` runs it headless


def _headless(adapter: HostAdapter, snippet: Snippet | None = None) -> Host:
    return Host(adapter.name, snippet, adapter)


# In the order the commands list them: the adapters' order is host matrix's row order.
HOSTS: tuple[Host, ...] = (
    _headless(ClaudeCode(), _claude_mcp_add),
    _headless(Codex()),
    _headless(ContinueCli()),
    _headless(CopilotCli(), _copilot_mcp_config),
    _headless(FastAgent()),
    _headless(GeminiCli()),
    _headless(GoogleAdk()),
    _headless(LangChain()),
    _headless(OpenAIAgents()),
    _headless(Opencode()),
    _headless(PydanticAI()),
    _headless(QwenCode()),
    Host("vscode", _vscode),
    Host("claude-desktop", _mcp_servers(
        "claude_desktop_config.json (" + "; ".join(f"{os_name}: {path}" for os_name, path in DESKTOP_CONFIG.items()) + ")")),
    Host("cursor", _mcp_servers(".cursor/mcp.json (or ~/.cursor/mcp.json)")),
)
BY_NAME = {host.name: host for host in HOSTS}
CONFIGURABLE = tuple(host.name for host in HOSTS if host.snippet is not None)  # ``host config HOST``
ADAPTERS: dict[str, HostAdapter] = {host.name: host.adapter for host in HOSTS if host.adapter is not None}
