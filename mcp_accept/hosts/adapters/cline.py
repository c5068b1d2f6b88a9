"""Cline CLI (npm ``cline``), headless with ``cline --json PROMPT``.

The npm package is a loader; the host is the Bun-compiled binary of ``@cline/cli-<platform>``
(an npm package too), linked to ``bin/.cline`` by the package's postinstall. It shares its agent
(``@cline/core``) with the Cline VS Code extension.

Settings and where they come from (``cline --help``, ``cline auth --help``, and the package's
own source: ``@cline/shared`` ``dist/storage`` for the files' paths, ``@cline/core``
``dist/services/global-settings.d.ts`` and ``dist/extensions/mcp`` for their contents):
* every file under ``$CLINE_DIR`` (default ``~/.cline``, here the private HOME's), its state in
  ``data/``;
* model endpoint: ``data/settings/providers.json``, the file ``cline auth -p openai-compatible
  -k KEY -b BASE_URL -m MODEL`` writes: provider ``openai-compatible`` with ``baseUrl`` (with
  ``/v1``: the OpenAI client adds ``/chat/completions``), ``apiKey`` (the run's key, sent as a
  bearer token) and ``model``; ``lastUsedProvider`` makes it the run's provider. No sign-in to
  Cline's own service (the default provider ``cline``) is asked for;
* MCP server: ``data/settings/cline_mcp_settings.json``, ``{"mcpServers": {NAME: {"type":
  "stdio", "command", "args", "env"}}}`` or ``{"type": "streamableHttp", "url"}`` (its schema in
  ``@cline/core``'s config loader; the package README's ``cline mcp install`` writes the same file
  through a wizard that "requires a TTY", so the adapter writes it); tools reach the model as
  ``NAME__TOOL`` (``defaultMcpToolNameTransform``);
* the host's own tools off, telemetry and update checks off: ``data/settings/global-settings.json``
  ``disabledTools`` (the built-in tools by name), ``tools.web_search.enabled = false``,
  ``telemetryOptOut = true``, ``autoUpdateEnabled = false`` (``GlobalSettingsSchema``);
* headless: ``cline --json --cwd WORK --data-dir DATA PROMPT`` (act mode, every tool
  auto-approved, JSON events on stdout); ``--data-dir`` ("isolated local state ... enables sandbox
  mode") also runs the agent in the CLI's own process: without it the CLI starts a hub daemon
  that outlives the run;
* feature flags: polled from PostHog at each start, whatever ``telemetryOptOut`` says, unless the
  CLI's own cache ``data/cache/feature-flags.json`` (``version`` 2, kept 30 days) is fresh; no
  documented setting turns the poll off, so the adapter writes a fresh, empty cache. Measured:
  with it the only connection is the stand-in's port, over stdio and over Streamable HTTP.
"""

from __future__ import annotations

import json
import time

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch

MODEL = "gpt-4.1"
# providers.json requires each provider's ISO date-time ``updatedAt``, or the whole file is ignored
UPDATED_AT = "2026-01-01T00:00:00.000Z"
# Cline's own tools, by the names its model is offered them (measured: what it offers with none
# disabled; ``editor`` is offered instead of ``apply_patch`` to some models)
OWN_TOOLS = ("read_files", "search_codebase", "run_commands", "fetch_web_content", "apply_patch", "editor",
             "ask_question", "spawn_agent", "team_spawn_teammate", "team_shutdown_teammate", "team_status",
             "team_task", "team_run_task", "team_cancel_run", "team_list_runs", "team_await_runs",
             "team_send_message", "team_broadcast", "team_read_mailbox", "team_mission_log", "team_cleanup",
             "team_create_outcome", "team_attach_outcome_fragment", "team_review_outcome_fragment",
             "team_finalize_outcome", "team_list_outcomes")


class Cline(HostAdapter):
    name = "cline"
    product = "Cline CLI"
    binary = "cline"
    npm_package = "cline"
    tested_version = "3.0.65"
    api = "openai-chat"
    model = MODEL
    sources = ("cline --help, cline auth --help (cline 3.0.65)",
               "@cline/shared 0.0.86 dist/storage (CLINE_DIR, data/settings/*.json)",
               "@cline/core 0.0.86 dist/services/global-settings.d.ts, dist/extensions/mcp/config-loader.d.ts")
    tool_scheme = "{server}__{tool}"
    own_tools_off = "global-settings.json disabledTools (every built-in tool), tools.web_search.enabled=false"
    offline_more = ("global-settings.json telemetryOptOut=true, autoUpdateEnabled=false; a fresh feature-flags.json "
                    "cache (no PostHog poll); --data-dir (no hub daemon)")

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        cline_dir = ctx.home / ".cline"
        settings = ctx.home_dir(".cline", "data", "settings")
        env["CLINE_DIR"] = str(cline_dir)
        providers = settings / "providers.json"
        providers.write_text(json.dumps({"version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
                                         "providers": {"openai-compatible": {"settings": {
                                             "provider": "openai-compatible", "apiKey": ctx.model_key,
                                             "model": MODEL, "baseUrl": ctx.model_url + "/v1"},
                                             "updatedAt": UPDATED_AT, "tokenSource": "manual"}}}, indent=2), encoding="utf-8")
        server = ctx.server_entry(http={"type": "streamableHttp"}, stdio={"type": "stdio", "env": {}})
        mcp = settings / "cline_mcp_settings.json"
        mcp.write_text(json.dumps({"mcpServers": {ctx.server_name: server}}, indent=2), encoding="utf-8")
        global_settings = settings / "global-settings.json"
        global_settings.write_text(json.dumps({"telemetryOptOut": True, "autoUpdateEnabled": False,
                                               "disabledTools": list(OWN_TOOLS),
                                               "tools": {"web_search": {"enabled": False}}}, indent=2),
                                   encoding="utf-8")
        cache = cline_dir / "data" / "cache"
        cache.mkdir(parents=True, exist_ok=True)
        flags = cache / "feature-flags.json"
        flags.write_text(json.dumps({"version": 2, "updatedAt": int(time.time() * 1000), "userId": None,
                                     "flagsPayload": {"featureFlags": {}, "featureFlagPayloads": {}}}),
                         encoding="utf-8")
        argv = [binary, "--json", "--cwd", str(ctx.work), "--data-dir", str(cline_dir / "data"), ctx.prompt]
        return Launch(argv, env, ctx.work, [providers, mcp, global_settings, flags])
