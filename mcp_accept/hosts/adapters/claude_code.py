"""Claude Code (npm ``@anthropic-ai/claude-code``), headless with ``claude -p``.

Settings and where they come from:
* model endpoint: ``ANTHROPIC_BASE_URL`` and ``ANTHROPIC_API_KEY`` (the run's key reaches the stand-in
  as ``x-api-key``): https://docs.anthropic.com/en/docs/claude-code/settings ("Environment variables");
* headless run, transcript and MCP: ``-p``, ``--output-format stream-json --verbose``,
  ``--mcp-config FILE --strict-mcp-config`` (only that file's servers), ``--allowedTools`` (tools
  that run without asking), ``--tools`` (which built-in tools exist):
  https://docs.anthropic.com/en/docs/claude-code/cli-reference;
* MCP configuration ``{"mcpServers": {NAME: {"type": "stdio", "command", "args"}}}`` or
  ``{"type": "http", "url"}``, tools named ``mcp__NAME__TOOL``, the resource tools
  ``ListMcpResourcesTool`` / ``ReadMcpResourceTool {server, uri}``:
  https://docs.anthropic.com/en/docs/claude-code/mcp;
* offline: ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (with ``DISABLE_TELEMETRY``,
  ``DISABLE_AUTOUPDATER``, ``DISABLE_ERROR_REPORTING``, ``DISABLE_BUG_COMMAND``), same page
  ("Environment variables"); measured: with it the only connection is the stand-in's port.
  ``CLAUDE_CODE_DISABLE_CLAUDE_MDS=1`` and ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`` (same page): no
  CLAUDE.md is read from the folders above the working folder, nor memory from an earlier run;
  ``ENABLE_TOOL_SEARCH=false`` keeps the MCP tools in the request's tool list (with tool search
  on, they are named only in a reminder text and fetched through a search tool).

Versions differ in their options: 2.0.21 (npm) lists neither ``--tools`` nor
``--no-session-persistence`` in ``claude --help``, and refuses a run given either; the package's
CHANGELOG.md dates ``--tools`` from the 2.0 series (2.1.0: "Added ``--tools`` flag support in
interactive mode"). So the adapter reads the version's own ``--help`` (``help_argv``) and passes
each of these only to a version that lists it; without ``--tools`` the built-in tools stay offered
beside the server's, which the stand-in never calls (their names have no ``mcp__`` prefix).
``--strict-mcp-config`` is listed from 1.0.44 on (1.0.43's ``--help`` has no such option and stops
at once on it): before, it is left out, and the run's private HOME and fresh working folder hold
no other MCP configuration for the host to add.
"""

from __future__ import annotations

import json

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch, offered
from mcp_accept.model.script import ToolOffer

MODEL = "claude-sonnet-4-5"
RESOURCE_TOOLS = ("ListMcpResourcesTool", "ReadMcpResourceTool")


class ClaudeCode(HostAdapter):
    name = "claude-code"
    product = "Claude Code"
    binary = "claude"
    npm_package = "@anthropic-ai/claude-code"
    tested_version = "2.1.332"
    api = "anthropic-messages"
    model = MODEL
    sources = ("https://docs.anthropic.com/en/docs/claude-code/settings",
               "https://docs.anthropic.com/en/docs/claude-code/cli-reference",
               "https://docs.anthropic.com/en/docs/claude-code/mcp")
    # https://docs.anthropic.com/en/docs/claude-code/mcp ("MCP output limits and warnings")
    large_result_setting = ("MAX_MCP_OUTPUT_TOKENS (environment; a result of 50,000 characters or more is "
                            "counted against it, and one over it is saved to a file)")
    tool_scheme = "mcp__{server}__{tool}"
    own_tools_off = "--tools ListMcpResourcesTool,ReadMcpResourceTool: no other built-in tool exists"
    offline_env = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                   "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1"}

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        env.update({
            "ANTHROPIC_BASE_URL": ctx.model_url, "ANTHROPIC_API_KEY": ctx.model_key, **self.offline_env,
            "ENABLE_TOOL_SEARCH": "false", "CLAUDE_CONFIG_DIR": str(ctx.home / ".claude"),
            # no CLAUDE.md of the folders above the working folder, nor memory kept across runs
            "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
        })
        server = ctx.server_entry(http={"type": "http"}, stdio={"type": "stdio", "env": {}})
        config = ctx.folder / "host-config" / "mcp.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"mcpServers": {ctx.server_name: server}}, indent=2), encoding="utf-8")
        state = ctx.home / ".claude.json"  # onboarding answered, the working folder trusted
        state.write_text(json.dumps({"hasCompletedOnboarding": True, "autoUpdates": False, "projects": {
            str(ctx.work): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}),
            encoding="utf-8")
        argv = [binary, "-p", ctx.prompt, "--model", MODEL, "--output-format", "stream-json", "--verbose",
                "--mcp-config", str(config),
                "--allowedTools", ",".join([f"mcp__{ctx.server_name}", *RESOURCE_TOOLS])]
        if ctx.offers("--strict-mcp-config"):
            argv += ["--strict-mcp-config"]
        if ctx.offers("--tools"):
            argv += ["--tools", ",".join(RESOURCE_TOOLS)]
        if ctx.offers("--no-session-persistence"):
            argv += ["--no-session-persistence"]
        return Launch(argv, env, ctx.work, [config, state])

    def help_argv(self, binary: str) -> list[str]:
        return [binary, "--help"]

    def tools_off(self, host_flags: frozenset | None) -> str:
        if host_flags is None or "--tools" in host_flags:
            return self.own_tools_off
        return ("none: this version has no --tools; its built-in tools are offered beside the server's, "
                "and the stand-in calls only mcp__ tools")

    def resource_reader(self, server_name: str):
        def pick(offers: list[ToolOffer], uri: str):
            tool = offered(offers, "ReadMcpResourceTool")
            return (tool, {"server": server_name, "uri": uri}) if tool else None
        return pick
