"""Kilo Code's CLI (npm ``@kilocode/cli``, binary ``kilo``), headless with ``kilo run``; it shares
its agent with the Kilo Code editor extensions.

Kilo CLI is built on opencode (the package's README: "Kilo CLI 1.0", source Kilo-Org/kilocode
``packages/opencode``), so the adapter is opencode's (:mod:`mcp_accept.hosts.adapters.opencode`)
with Kilo's names, each read in the installed binary
(``node_modules/@kilocode/cli-linux-x64/bin/kilo``) and the Kilo docs:

* the global config ``$XDG_CONFIG_HOME/kilo/kilo.json`` (https://kilo.ai/docs/getting-started/settings;
  the binary reads ``kilo.json``/``kilo.jsonc`` there, schema ``https://app.kilo.ai/config.json``),
  with opencode's keys: ``provider.NAME`` with ``npm: "@ai-sdk/openai-compatible"``,
  ``options.baseURL`` and ``options.apiKey`` (opencode's custom provider,
  https://opencode.ai/docs/providers/; Kilo's page https://kilo.ai/docs/providers/openai-compatible
  names the same base URL and key), ``mcp.NAME`` ``local``/``remote``
  (https://kilo.ai/docs/automate/mcp/using-in-kilo-code; the page "Using MCP in the CLI",
  https://kilo.ai/docs/automate/mcp/using-in-cli, still gives the pre-1.0 CLI's
  ``~/.kilocode/cli/global/settings/mcp_settings.json``, which 7.7.7 does not read), and
  ``permission``, the last matching rule winning (https://kilo.ai/docs/customize/agent-permissions,
  https://kilo.ai/docs/getting-started/settings/auto-approving-actions);
* headless: ``kilo run --format json --print-logs MESSAGE`` (``kilo run --help``);
* offline: in a loopback-only namespace under strace, version 7.7.7 connected to nothing but the
  stand-in's port with these settings and also without them; they are set for the calls the
  binary holds code for:
  - the plugin package ``@kilocode/plugin`` is installed into the config folder at start unless
    it holds ``node_modules/`` and a lock naming it (as opencode's ``@opencode-ai/plugin``): the
    adapter writes those;
  - opencode's variables under Kilo's prefix, read by the binary: ``KILO_DISABLE_MODELS_FETCH``
    (the models.dev catalog), ``KILO_DISABLE_AUTOUPDATE``, ``KILO_DISABLE_PROJECT_CONFIG`` (a
    ``kilo.json``, ``.kilo/`` or ``AGENTS.md`` above the run folder stays out),
    ``KILO_DISABLE_LSP_DOWNLOAD``, ``KILO_DISABLE_SHARE``;
  - Kilo's own: ``KILO_TELEMETRY_LEVEL`` other than ``all`` turns its PostHog telemetry off (read
    once at start, "The CLI reads KILO_TELEMETRY_LEVEL once at spawn" in the binary's route
    description), ``KILO_DISABLE_SESSION_INGEST=1`` keeps the session from the Kilo cloud
    (ingest.kilosessions.ai), and ``KILO_DISABLE_CLAUDE_CODE=1`` keeps it from reading Claude
    Code's files (``CLAUDE.md``, ``~/.claude``) as instructions;
  - an explicit ``permission.bash``: a config without one is rewritten at start to allow bash
    (``migrateBashPermission`` in the binary, logged "migrated bash permission to allow for
    existing user"), which would offer the model a shell;
  - the Kilo gateway provider (``kilo``, api.kilo.ai) is left out by ``enabled_providers``
    naming the stand-in's provider only (https://kilo.ai/docs/getting-started/settings,
    opencode's ``enabled_providers``).
"""

from __future__ import annotations

from mcp_accept.hosts.adapters.opencode import PROVIDER, Opencode

PLUGIN_PACKAGE = "@kilocode/plugin"
OFFLINE_ENV = {"KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_AUTOUPDATE": "1",
               "KILO_DISABLE_PROJECT_CONFIG": "1", "KILO_DISABLE_LSP_DOWNLOAD": "1",
               "KILO_DISABLE_SHARE": "1", "KILO_TELEMETRY_LEVEL": "off",
               "KILO_DISABLE_SESSION_INGEST": "1", "KILO_DISABLE_CLAUDE_CODE": "1"}


class KiloCode(Opencode):
    name = "kilo-code"
    product = "Kilo Code CLI"
    binary = "kilo"
    npm_package = "@kilocode/cli"
    tested_version = "7.7.7"
    sources = ("https://kilo.ai/docs/getting-started/settings",
               "https://opencode.ai/docs/providers/",
               "https://kilo.ai/docs/providers/openai-compatible",
               "https://kilo.ai/docs/automate/mcp/using-in-kilo-code",
               "https://kilo.ai/docs/customize/agent-permissions",
               "https://kilo.ai/docs/getting-started/settings/auto-approving-actions",
               "https://kilo.ai/docs/cli")
    config_folder = "kilo"
    config_name = "kilo.json"
    config_schema = "https://app.kilo.ai/config.json"
    plugin_package = PLUGIN_PACKAGE
    offline_env = OFFLINE_ENV
    offline_more = ("autoupdate=false, share=disabled, enabled_providers the stand-in's only, config folder "
                    f"pre-seeded (naming {PLUGIN_PACKAGE}: no npm install)")

    def extra_config(self, config: dict) -> dict:
        # an explicit "bash" rule: without one Kilo rewrites the config at start to allow bash
        # ("migrated bash permission to allow for existing user", migrateBashPermission in the binary)
        return {**config, "enabled_providers": [PROVIDER], "permission": {**config["permission"], "bash": "deny"}}
