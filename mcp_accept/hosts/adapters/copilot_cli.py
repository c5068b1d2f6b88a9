"""GitHub Copilot CLI (npm ``@github/copilot``), headless with ``copilot -p``.

The npm package is a loader; the host is the native binary of ``@github/copilot-<platform>``,
which unpacks its JavaScript and native modules into ``$XDG_CACHE_HOME/copilot/pkg/`` on its
first start (``sea-loader.js`` in that package). Here that is the private HOME's ``.cache``: about
235 MB per run folder. No documented setting makes it cheaper: ``COPILOT_CLI_DIST_DIR`` (``copilot
help environment``) runs an already unpacked package, but only the binary makes one, and the
folders it would unpack into elsewhere (``COPILOT_PKG_CACHE_HOME``, ``COPILOT_CACHE_HOME``) are
named in its loader's source only.

Settings and where they come from (``copilot --help``, ``copilot help providers``, ``copilot help
environment``, ``copilot help permissions``, ``copilot mcp --help``; the same text as
https://docs.github.com/copilot/how-tos/copilot-cli):
* model endpoint, bring-your-own-model: ``COPILOT_PROVIDER_BASE_URL`` (with ``/v1``: the OpenAI
  client adds ``/chat/completions``), ``COPILOT_PROVIDER_TYPE = "openai"`` and the default wire
  API ``completions`` (Chat Completions), ``COPILOT_PROVIDER_API_KEY`` (the run's key, sent as a
  bearer token for type openai), ``COPILOT_MODEL`` (a model of its built-in catalog, so the host
  uses its own settings for it); "GitHub authentication is not required when using a custom
  provider" (``copilot help providers``): no sign-in;
* ``COPILOT_HOME`` (the private HOME's ``.copilot``) holds ``mcp-config.json`` with
  ``mcpServers.NAME``: ``{"type": "stdio", "command", "args", "env", "tools": ["*"]}`` or
  ``{"type": "http", "url", "tools": ["*"]}``
  (https://docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers); tools
  reach the model as ``NAME-TOOL``;
* the host's own tools off: ``--available-tools=NAME`` ("disables all other tools"; a server's
  name alone stands for all of its tools, ``copilot help permissions``): no shell, file, agent,
  skill or SQL tool is offered, and it has no tool that reads an MCP resource;
  ``--disable-builtin-mcps`` (no GitHub MCP server), ``--no-custom-instructions`` (no AGENTS.md);
* headless: ``copilot -p PROMPT --allow-all-tools --output-format json`` (JSONL events on stdout);
* offline: ``COPILOT_OFFLINE=true`` ("skips all network access: GitHub authentication,
  telemetry, web tools, GitHub MCP server, and auto-update are disabled", ``copilot help
  environment``); without it this version connects to api.github.com at start. As well
  ``COPILOT_AUTO_UPDATE=false`` / ``--no-auto-update`` (no download of a newer version, and none
  already downloaded is run) and ``--disable-client-telemetry``. Measured: with them the only
  connection is the stand-in's port, over stdio and over Streamable HTTP.
"""

from __future__ import annotations

import json

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch

MODEL = "gpt-4.1"


class CopilotCli(HostAdapter):
    name = "copilot-cli"
    product = "GitHub Copilot CLI"
    binary = "copilot"
    npm_package = "@github/copilot"
    tested_version = "1.0.102"
    api = "openai-chat"
    model = MODEL
    sources = ("https://docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers",
               "https://docs.github.com/copilot/how-tos/copilot-cli",
               "copilot help providers / help environment / help permissions (@github/copilot 1.0.102)")
    tool_scheme = "{server}-{tool}"
    own_tools_off = "--available-tools=SERVER (only the server's tools), --disable-builtin-mcps"
    offline_env = {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}
    offline_more = "--no-auto-update, --disable-client-telemetry"

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        copilot_home = ctx.home_dir(".copilot")
        env.update({"COPILOT_HOME": str(copilot_home), "COPILOT_PROVIDER_BASE_URL": ctx.model_url + "/v1",
                    "COPILOT_PROVIDER_TYPE": "openai", "COPILOT_PROVIDER_API_KEY": ctx.model_key,
                    "COPILOT_MODEL": MODEL, **self.offline_env})
        server = {**ctx.server_entry(http={"type": "http"}, stdio={"type": "stdio", "env": {}}), "tools": ["*"]}
        config = copilot_home / "mcp-config.json"
        config.write_text(json.dumps({"mcpServers": {ctx.server_name: server}}, indent=2), encoding="utf-8")
        argv = [binary, "-p", ctx.prompt, "--allow-all-tools", f"--available-tools={ctx.server_name}",
                "--disable-builtin-mcps", "--no-custom-instructions", "--output-format", "json",
                "--no-auto-update", "--disable-client-telemetry", "--no-color"]
        return Launch(argv, env, ctx.work, [config])
