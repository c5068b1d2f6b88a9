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
* Cline CLI: ``~/.cline/data/settings/cline_mcp_settings.json`` (under ``$CLINE_DIR`` where that
  is set), ``{"mcpServers": {NAME: {"type": "stdio", "command": ..., "args": [...]}}}``: the file
  ``cline mcp install NAME -- CMD`` writes through its wizard (the package README, "MCP servers"),
  its path and schema in the package's source (``@cline/shared`` ``dist/storage``, ``@cline/core``
  ``dist/extensions/mcp/config-loader``).
* Kilo Code CLI: ``~/.config/kilo/kilo.json`` (global; ``kilo.json`` or ``.kilo/kilo.json`` in a
  project), ``{"mcp": {NAME: {"type": "local", "command": [...], "enabled": true}}}``, the
  command and its arguments in one array (https://kilo.ai/docs/automate/mcp/using-in-kilo-code,
  "Configuring MCP Servers"; the CLI page's ``mcp_settings.json`` is the pre-1.0 CLI's).
* Cursor: ``.cursor/mcp.json`` (project) or ``~/.cursor/mcp.json`` (global), ``{"mcpServers":
  {NAME: {"command", "args", "env"}}}`` (https://cursor.com/docs/mcp, "Configuration").
* Mistral Vibe: ``config.toml``, looked for in ``./.vibe/`` then ``~/.vibe/`` (``$VIBE_HOME``
  where that is set), an ``[[mcp_servers]]`` table with ``name``, ``transport = "stdio"``,
  ``command`` and ``args`` (https://pypi.org/project/mistral-vibe/3.0.3/, README: "Configuration
  File Location", "MCP Server Configuration", "Custom Vibe Home Directory").
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Callable

import tomli_w

from mcp_accept.hosts.adapters.ai_sdk import AiSdk
from mcp_accept.hosts.adapters.base import HostAdapter, command_and_args
from mcp_accept.hosts.adapters.claude_code import ClaudeCode
from mcp_accept.hosts.adapters.cline import Cline
from mcp_accept.hosts.adapters.codex import Codex
from mcp_accept.hosts.adapters.continue_cli import ContinueCli
from mcp_accept.hosts.adapters.copilot_cli import CopilotCli
from mcp_accept.hosts.adapters.fast_agent import FastAgent
from mcp_accept.hosts.adapters.gemini_cli import GeminiCli
from mcp_accept.hosts.adapters.google_adk import GoogleAdk
from mcp_accept.hosts.adapters.kilo_code import KiloCode
from mcp_accept.hosts.adapters.langchain import LangChain
from mcp_accept.hosts.adapters.mastra import Mastra
from mcp_accept.hosts.adapters.mistral_vibe import MistralVibe
from mcp_accept.hosts.adapters.openai_agents import OpenAIAgents
from mcp_accept.hosts.adapters.openai_agents_js import OpenAIAgentsJs
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
    body = {"servers": {name: {"type": "stdio", **command_and_args(argv)}}}
    return "// .vscode/mcp.json\n" + json.dumps(body, indent=2) + "\n"


def _mcp_servers(where: str) -> Snippet:
    """The ``{"mcpServers": ...}`` file of Claude Desktop and Cursor, headed by where it goes."""
    def snippet(name: str, argv: list[str]) -> str:
        body = {"mcpServers": {name: command_and_args(argv)}}
        return f"// {where}\n" + json.dumps(body, indent=2) + "\n"
    return snippet


def _copilot_mcp_config(name: str, argv: list[str]) -> str:
    body = {"mcpServers": {name: {"type": "stdio", **command_and_args(argv), "tools": ["*"]}}}
    return "// ~/.copilot/mcp-config.json (or $COPILOT_HOME/mcp-config.json)\n" + json.dumps(body, indent=2) + "\n"


def _cline_mcp_settings(name: str, argv: list[str]) -> str:
    body = {"mcpServers": {name: {"type": "stdio", **command_and_args(argv)}}}
    return ("// ~/.cline/data/settings/cline_mcp_settings.json (or $CLINE_DIR/data/settings/...)\n"
            + json.dumps(body, indent=2) + "\n")


def _kilo_json(name: str, argv: list[str]) -> str:
    body = {"mcp": {name: {"type": "local", "command": argv, "enabled": True}}}
    return "// ~/.config/kilo/kilo.json (or kilo.json in the project)\n" + json.dumps(body, indent=2) + "\n"


def _vibe_mcp_servers(name: str, argv: list[str]) -> str:
    entry = {"name": name, "transport": "stdio", **command_and_args(argv)}
    return ("# ~/.vibe/config.toml (or ./.vibe/config.toml, or $VIBE_HOME/config.toml)\n"
            + tomli_w.dumps({"mcp_servers": [entry]}))


@dataclass(frozen=True)
class Host:
    name: str
    snippet: Snippet | None = None  # what ``host config`` prints for it
    adapter: HostAdapter | None = None  # how ``host test`` runs it headless


def _headless(adapter: HostAdapter, snippet: Snippet | None = None) -> Host:
    return Host(adapter.name, snippet, adapter)


# In the order the commands list them: the adapters' order is host matrix's row order.
HOSTS: tuple[Host, ...] = (
    _headless(AiSdk()),
    _headless(ClaudeCode(), _claude_mcp_add),
    _headless(Cline(), _cline_mcp_settings),
    _headless(Codex()),
    _headless(ContinueCli()),
    _headless(CopilotCli(), _copilot_mcp_config),
    _headless(FastAgent()),
    _headless(GeminiCli()),
    _headless(GoogleAdk()),
    _headless(KiloCode(), _kilo_json),
    _headless(LangChain()),
    _headless(Mastra()),
    _headless(MistralVibe(), _vibe_mcp_servers),
    _headless(OpenAIAgents()),
    _headless(OpenAIAgentsJs()),
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
