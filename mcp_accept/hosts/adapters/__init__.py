"""One module per agent host that runs headless: how to make it launch ``mcp-accept proxy`` for
the server, how to point it at the stand-in model, its headless command, its model API, its
private folders. :data:`ADAPTERS` maps each ``host test HOST`` name to its adapter.

May import: what :mod:`mcp_accept.hosts` may (the stand-in's script types among them).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.base import HostAdapter
from mcp_accept.hosts.adapters.claude_code import ClaudeCode
from mcp_accept.hosts.adapters.codex import Codex
from mcp_accept.hosts.adapters.continue_cli import ContinueCli
from mcp_accept.hosts.adapters.fast_agent import FastAgent
from mcp_accept.hosts.adapters.gemini_cli import GeminiCli
from mcp_accept.hosts.adapters.opencode import Opencode
from mcp_accept.hosts.adapters.qwen_code import QwenCode

ADAPTERS: dict[str, HostAdapter] = {a.name: a for a in (ClaudeCode(), Codex(), ContinueCli(), FastAgent(), GeminiCli(), Opencode(),
                                                        QwenCode())}

__all__ = ["ADAPTERS", "HostAdapter"]
