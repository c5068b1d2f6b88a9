"""Codex CLI (npm ``@openai/codex``), headless with ``codex exec``.

Settings and where they come from (https://github.com/openai/codex/blob/main/docs/config.md and
``docs/exec.md``; every key below passes ``--strict-config``, which refuses unknown keys):
* ``CODEX_HOME`` holds ``config.toml``; a provider ``[model_providers.NAME]`` with ``base_url``,
  ``env_key`` and ``wire_api = "responses"`` (Codex speaks the OpenAI Responses API; ``chat`` is
  refused by this version), chosen by ``model_provider``;
* MCP servers ``[mcp_servers.NAME]`` with ``command``/``args``/``env`` or ``url``;
  ``required = true`` makes Codex wait for the server before the first turn (an optional
  server that takes longer than about a second to start is silently left out);
* ``codex exec --json --skip-git-repo-check --ephemeral --dangerously-bypass-approvals-and-sandbox``:
  a JSONL transcript, no git repository needed, nothing kept, no approval asked;
* tools reach the model grouped per server (``{"type": "namespace", "name": "mcp__NAME"}``);
  the built-in ``read_mcp_resource {server, uri}`` reads a resource for the model;
* ``project_doc_max_bytes = 0``: no AGENTS.md is read (docs/config.md, "project_doc_max_bytes");
* the host's own tools off: ``[features]`` ``shell_tool``, ``unified_exec``, ``multi_agent``,
  ``goals``, ``view_image``, ``image_generation`` = false (the flags ``codex features list``
  prints; docs/config.md, "features"); its MCP resource tools stay;
* offline: ``features.plugins = false`` (no plugin catalog sync, which runs ``git ls-remote``
  to github.com), ``analytics.enabled = false`` and the ``otel`` exporters ``none`` (no metrics to
  ab.chatgpt.com), ``check_for_update_on_startup = false``, ``feedback.enabled = false``;
  measured: with them the only connection is the stand-in's port.
"""

from __future__ import annotations

import tomli_w

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch, offered
from mcp_accept.model.script import ToolOffer

MODEL = "gpt-5-codex"
PROVIDER = "mcpaccept"
KEY_VAR = "MCP_ACCEPT_STAND_IN_KEY"
# The feature flags behind Codex's own tools: the shell (``shell_tool``, ``unified_exec``:
# exec_command, write_stdin), sub-agents, goals, local images and image generation.
OWN_TOOL_FEATURES = ("shell_tool", "unified_exec", "multi_agent", "goals", "view_image", "image_generation")


class Codex(HostAdapter):
    name = "codex"
    product = "Codex CLI"
    binary = "codex"
    npm_package = "@openai/codex"
    tested_version = "0.171.0"
    api = "openai-responses"
    model = MODEL
    sources = ("https://github.com/openai/codex/blob/main/docs/config.md",
               "https://github.com/openai/codex/blob/main/docs/exec.md")
    large_result_setting = 'tool_output_token_limit (config.toml)'  # https://github.com/openai/codex/blob/main/docs/config.md
    tool_scheme = "mcp__{server}/{tool}"
    own_tools_off = ("features " + ", ".join(f"{f}=false" for f in OWN_TOOL_FEATURES)
                     + " (listed by `codex features list`)")
    offline_more = ("features.plugins=false, analytics.enabled=false, otel exporters none, "
                    "check_for_update_on_startup=false, feedback.enabled=false")

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        codex_home = ctx.home_dir(".codex")
        env.update({"CODEX_HOME": str(codex_home), KEY_VAR: ctx.model_key})
        server = {"required": True, **ctx.server_entry()}
        settings = {
            "model": MODEL, "model_provider": PROVIDER, "approval_policy": "never",
            "sandbox_mode": "danger-full-access", "check_for_update_on_startup": False,
            # no AGENTS.md of the folders above the working folder reaches the model
            "project_doc_max_bytes": 0,
            "features": {"plugins": False, **{feature: False for feature in OWN_TOOL_FEATURES}},
            "analytics": {"enabled": False},
            "feedback": {"enabled": False},
            "otel": {"exporter": "none", "trace_exporter": "none", "metrics_exporter": "none"},
            "model_providers": {PROVIDER: {"name": "mcp-accept stand-in", "base_url": ctx.model_url + "/v1",
                                           "env_key": KEY_VAR, "wire_api": "responses"}},
            "mcp_servers": {ctx.server_name: server},
        }
        config = codex_home / "config.toml"
        config.write_text(tomli_w.dumps(settings), encoding="utf-8")
        argv = [binary, "exec", "--strict-config", "--json", "--skip-git-repo-check", "--ephemeral",
                "--dangerously-bypass-approvals-and-sandbox", "-C", str(ctx.work), ctx.prompt]
        return Launch(argv, env, ctx.work, [config])

    def resource_reader(self, server_name: str):
        def pick(offers: list[ToolOffer], uri: str):
            tool = offered(offers, "read_mcp_resource")
            return (tool, {"server": server_name, "uri": uri}) if tool else None
        return pick
