"""opencode (npm ``opencode-ai``), headless with ``opencode run``.

Settings and where they come from:
* the global config file ``$XDG_CONFIG_HOME/opencode/opencode.json`` (https://opencode.ai/docs/config/,
  "Locations"): a custom provider ``provider.NAME`` with ``npm: "@ai-sdk/openai-compatible"``
  (bundled in the binary: nothing is installed for it), ``options.baseURL`` (the stand-in's
  ``/v1``) and ``options.apiKey`` (``{env:VAR}``, the run's key), its one model under ``models``, and
  ``model`` / ``small_model`` naming it (``small_model`` answers the session-title side call):
  https://opencode.ai/docs/providers/ ("Custom provider"). The model declares image and PDF input
  (``--model-kind vision``, the default), so the host hands on a result's images and PDFs instead
  of refusing them for the model, or text only (``--model-kind text``);
  The model API is OpenAI Chat Completions (``POST /v1/chat/completions``, streamed);
* ``mcp.NAME`` with ``{"type": "local", "command": [...]}`` or ``{"type": "remote", "url",
  "oauth": false}`` and ``timeout`` in ms: https://opencode.ai/docs/mcp-servers/; tools reach the
  model as ``NAME_TOOL``; the built-in ``read_mcp_resource {server, uri}`` (with
  ``list_mcp_resources``) reads a resource for the model;
* ``permission``: ``"*": "deny"`` then ``allow`` for the server's tools (``NAME_*``) and ``read``
  (the permission ``read_mcp_resource`` asks for): https://opencode.ai/docs/permissions/; denied
  tools are not offered at all, so no built-in tool (bash, edit, webfetch) can run;
* headless: ``opencode run --format json --print-logs MESSAGE``: https://opencode.ai/docs/cli/
  ("run");
* offline, each measured in a loopback-only namespace with a logging DNS stub:
  - at start the host installs ``@opencode-ai/plugin`` into every config folder with npm
    (a DNS query for registry.npmjs.org) unless the folder already has ``node_modules/`` and a
    ``package-lock.json`` naming every dependency of its ``package.json``: the adapter writes
    those three (the plugin package is only needed for plugins written in TypeScript, and there
    are none);
  - the model catalog is fetched from models.opencode.ai (``$OPENCODE_MODELS_URL/api.json``)
    at start and hourly unless ``OPENCODE_DISABLE_MODELS_FETCH=1``; the catalog built into the
    binary is used instead;
  - ``OPENCODE_DISABLE_PROJECT_CONFIG=1`` keeps an ``opencode.json``, ``.opencode/`` or
    ``AGENTS.md`` above the run folder (the user's project) out of the run, and out of that
    npm install; ``autoupdate: false`` with ``OPENCODE_DISABLE_AUTOUPDATE=1``, ``share:
    "disabled"``, ``OPENCODE_DISABLE_LSP_DOWNLOAD=1`` (https://opencode.ai/docs/cli/,
    "Environment variables"; https://opencode.ai/docs/config/) keep the update check, session
    sharing and language-server downloads off; with them the only connection is the stand-in's
    port.
* kept in the run folder: opencode takes the nearest ``.git`` above its working folder as the
  project (``git rev-parse`` there) and writes the project's id into that repository
  (``.git/opencode``; measured with a run folder inside a repository). A ``.git`` file in the
  working folder naming no repository ends that search at once, so the run is opencode's
  "global" project whatever the run folder sits in.
"""

from __future__ import annotations

import json

from mcp_accept.hosts.adapters.base import (
    HostAdapter,
    HostContext,
    Launch,
    offered,
)
from mcp_accept.model.script import ToolOffer

PROVIDER = "mcpaccept"
MODEL = "stand-in"
KEY_VAR = "MCP_ACCEPT_STAND_IN_KEY"
# The dependency opencode installs into each config folder at start (see the docstring).
PLUGIN_PACKAGE = "@opencode-ai/plugin"
OFFLINE_ENV = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
               "OPENCODE_DISABLE_PROJECT_CONFIG": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"}


CONTEXT_TOKENS = 200000


def model_entry(kind: str) -> dict:
    """The provider's model as opencode.json declares it: ``vision`` takes text, images and PDFs
    (attachments on), ``text`` text only."""
    inputs = ["text", "image", "pdf"] if kind == "vision" else ["text"]
    return {"name": "mcp-accept stand-in", "tool_call": True, "attachment": kind == "vision",
            "modalities": {"input": inputs, "output": ["text"]}, "limit": {"context": CONTEXT_TOKENS, "output": 8192}}


class Opencode(HostAdapter):
    name = "opencode"
    product = "opencode"
    binary = "opencode"
    npm_package = "opencode-ai"
    tested_version = "1.18.33"
    api = "openai-chat"
    model = MODEL
    # the provider's model entry declares its input modalities (https://opencode.ai/docs/models/,
    # "modalities"; https://opencode.ai/docs/providers/, "Custom provider"): a vision-capable
    # model takes images and PDFs, a text-only one neither
    model_kinds = ("vision", "text")
    sources = ("https://opencode.ai/docs/config/",
               "https://opencode.ai/docs/providers/",
               "https://opencode.ai/docs/mcp-servers/",
               "https://opencode.ai/docs/permissions/",
               "https://opencode.ai/docs/cli/")
    tool_scheme = "{server}_{tool}"
    own_tools_off = 'permission "*": "deny" (a denied tool is not offered), the server\'s tools and read allowed'
    # where the global config lives under $XDG_CONFIG_HOME, its file name, the plugin package
    # installed there at start and the variables that keep the run offline (see the docstring)
    config_folder = "opencode"
    config_name = "opencode.json"
    plugin_package = PLUGIN_PACKAGE
    offline_env = OFFLINE_ENV
    config_schema = "https://opencode.ai/config.json"
    offline_more = ("autoupdate=false, share=disabled, config folder pre-seeded (node_modules/, package.json, "
                    f"package-lock.json naming {PLUGIN_PACKAGE}: no npm install)")

    def declared_model(self, kind: str | None) -> dict:
        entry = model_entry(kind or self.model_kinds[0])
        inputs = entry["modalities"]["input"]
        return {"model": f"{PROVIDER}/{MODEL}", "kind": kind or self.model_kinds[0], "images": "image" in inputs,
                "pdfs": "pdf" in inputs, "context_tokens": CONTEXT_TOKENS,
                "declared_in": f"{self.config_name} provider model: modalities.input, attachment, limit.context"}

    def extra_config(self, config: dict) -> dict:
        """CONFIG as a host built on opencode needs it (opencode's own: as it is)."""
        return config

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        env.update({KEY_VAR: ctx.model_key, **self.offline_env})
        name = ctx.server_name
        if ctx.mcp_url:
            server = {"type": "remote", "url": ctx.mcp_url, "oauth": False, "enabled": True, "timeout": 60000}
        else:
            server = {"type": "local", "command": list(ctx.mcp_command), "enabled": True, "timeout": 60000}
        config = {
            "$schema": self.config_schema,
            "model": f"{PROVIDER}/{MODEL}",
            "small_model": f"{PROVIDER}/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
            "provider": {PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "mcp-accept stand-in",
                "options": {"baseURL": ctx.model_url + "/v1", "apiKey": "{env:" + KEY_VAR + "}"},
                "models": {MODEL: model_entry(ctx.model_kind or self.model_kinds[0])},
            }},
            "mcp": {name: server},
            # the last matching rule wins: everything denied, then what the script calls allowed
            "permission": {"*": "deny", f"{name}_*": "allow", "read": "allow"},
        }
        config = self.extra_config(config)
        folder = ctx.home_dir(".config", self.config_folder)
        ctx.home_dir(".config", self.config_folder, "node_modules")
        path = folder / self.config_name
        path.write_text(json.dumps(config, indent=2), encoding="utf-8")
        dependencies = {self.plugin_package: self.tested_version}
        manifest, lock = folder / "package.json", folder / "package-lock.json"
        manifest.write_text(json.dumps({"dependencies": dependencies}), encoding="utf-8")
        lock.write_text(json.dumps({"lockfileVersion": 3, "packages": {"": {"dependencies": dependencies}}}),
                        encoding="utf-8")
        # the working folder is fenced as a repository of its own (HostContext.fence_work): the
        # nearest .git above it would be taken as the project and written to
        fence = ctx.fence
        argv = [binary, "run", "--format", "json", "--print-logs", ctx.prompt]
        return Launch(argv, env, ctx.work, [path, manifest, lock, fence])

    def resource_reader(self, server_name: str):
        def pick(offers: list[ToolOffer], uri: str):
            tool = offered(offers, "read_mcp_resource")
            return (tool, {"server": server_name, "uri": uri}) if tool else None
        return pick
