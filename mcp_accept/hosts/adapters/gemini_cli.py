"""Gemini CLI (npm ``@google/gemini-cli``), headless with ``gemini -p``.

Settings and where they come from:
* model endpoint: ``GOOGLE_GEMINI_BASE_URL`` (without ``/v1beta``: the SDK adds it) and
  ``GEMINI_API_KEY`` (the run's key, sent as ``x-goog-api-key``); ``GEMINI_CLI_HOME`` replaces the
  home folder for ``~/.gemini``: https://github.com/google-gemini/gemini-cli/blob/main/docs/get-started/configuration.md
  ("Environment variables");
* ``settings.json``: ``security.auth.selectedType = "gemini-api-key"`` (with a base URL and no
  type the host picks a gateway type that headless mode refuses), ``security.folderTrust.enabled
  = false`` (headless mode stops on an untrusted folder), ``mcpServers.NAME`` with
  ``command``/``args`` or ``httpUrl`` and ``trust: true`` (no confirmation): same page
  ("Settings"), and docs/tools/mcp-server.md; tools are named ``mcp_NAME_TOOL``; the resource
  tools ``list_mcp_resources`` / ``read_mcp_resource {uri}`` are offered only when a server lists
  a resource;
* the host's own tools off: ``tools.core`` is an allowlist of built-in tools (docs/get-started/
  configuration.md, "tools.core"); only the resource tools and the server's tools
  (``mcp_NAME_*``) are listed, so no shell, file, web or agent tool is registered;
* headless: ``gemini -m MODEL --approval-mode yolo --output-format stream-json -p PROMPT``;
  ``GEMINI_CLI_NO_RELAUNCH=true`` keeps it one process;
* offline: ``privacy.usageStatisticsEnabled = false`` (the only call home seen: usage
  statistics to play.googleapis.com), ``telemetry.enabled = false``, auto-update off; measured:
  with them the only connection is the stand-in's port. ``tools.useRipgrep = false``: versions
  from 0.10 to at least 0.33 download ripgrep when it is missing, whichever tools are listed
  (``canUseRipgrep`` in gemini-cli-core's ``tools/ripGrep.js``, called by ``createToolRegistry``
  in ``config/config.js``; the setting in the CLI's ``config/settingsSchema.js``).
* older versions: the adapter reads the version's ``gemini --help`` and its version. One without
  ``--approval-mode`` (0.1.16, 0.1.19: ``--yolo`` only) gets ``--yolo`` and the flat settings of
  its series beside the nested ones. Every version before 0.33.0 offers the server's tools under
  their bare names (``search_text``; gemini-cli-core's ``tools/mcp-tool.js``: ``nameOverride ??
  generateValidName(serverToolName)`` up to 0.32.1, ``mcp_`` and the server's name from 0.33.0,
  ``MCP_TOOL_PREFIX``) and is judged by them, its own tools (``BARE_OWN_TOOLS``) never called.
  ``tools.core`` keeps those versions' built-in tools off (``createToolRegistry`` in
  gemini-cli-core's ``config/config.js`` registers only those it lists) but not the Codebase
  Investigator agent, on by default from 0.15 (the CLI's ``config/settingsSchema.js``,
  ``experimental.codebaseInvestigatorSettings.enabled``): it is switched off there.
  ``--output-format stream-json`` is passed where ``--help`` lists it among the option's choices
  (0.10.0 has ``text`` and ``json`` only, and then writes plain text, which the run never reads).
* Over Streamable HTTP this version sends no ``MCP-Protocol-Version`` header after ``initialize``;
  the header is set in the server's entry so that servers which require it answer.
"""

from __future__ import annotations

import copy
import json
import re

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch, offered
from mcp_accept.model.script import ToolOffer
from mcp_accept.protocol import HEADER_VERSION, OLDEST

MODEL = "gemini-2.5-flash"
# Listed by --help from the version whose settings are nested; 0.1.16 and 0.1.19 list --yolo only.
CURRENT_FLAG = "--approval-mode"
# The first version that names the server's tools mcp_SERVER_TOOL (gemini-cli-core 0.33.0's
# tools/mcp-tool.js, MCP_TOOL_PREFIX; 0.32.1's gives the bare name): before it, the bare name.
PREFIXED_FROM = (0, 33, 0)
# The built-in tools of the versions that name MCP tools bare (gemini-cli-core's tools/*.js, each
# tool's static Name, tools/tool-names.js from 0.10, and the agent of agents/codebase-investigator.js):
# a server tool of one of these names is never called, as those versions hand MCP tools over under
# their own names.
BARE_OWN_TOOLS = frozenset({"list_directory", "read_file", "search_file_content", "glob", "replace",
                            "write_file", "web_fetch", "read_many_files", "run_shell_command", "save_memory",
                            "google_web_search", "write_todos", "codebase_investigator"})
# The only built-in tools kept: they read the server's resources for the model.
RESOURCE_TOOLS = ("read_mcp_resource", "list_mcp_resources")


class GeminiCli(HostAdapter):
    name = "gemini-cli"
    product = "Gemini CLI"
    binary = "gemini"
    npm_package = "@google/gemini-cli"
    tested_version = "0.61.0"
    api = "gemini"
    model = MODEL
    sources = ("https://github.com/google-gemini/gemini-cli/blob/main/docs/get-started/configuration.md",
               "https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md",
               "https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/headless.md")
    large_result_setting = 'tools.truncateToolOutputThreshold (settings.json)'  # the bundled settings schema of @google/gemini-cli
    tool_scheme = "mcp_{server}_{tool}"
    own_tools_off = ("tools.core = [" + ", ".join(RESOURCE_TOOLS) + ", mcp_SERVER_*]: no other built-in tool "
                     "is registered")
    offline_more = ("privacy.usageStatisticsEnabled=false, telemetry.enabled=false, auto-update off, "
                    "tools.useRipgrep=false (no ripgrep download)")

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        env.update({"GOOGLE_GEMINI_BASE_URL": ctx.model_url, "GEMINI_API_KEY": ctx.model_key,
                    "GEMINI_CLI_HOME": str(ctx.home), "GEMINI_CLI_NO_RELAUNCH": "true",
                    "GEMINI_CLI_TRUST_WORKSPACE": "true"})
        server = {**ctx.server_entry(http={"headers": {HEADER_VERSION: OLDEST}}, stdio={"env": {}},
                                     url_key="httpUrl"),
                  "trust": True, "timeout": 60000}
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False, "logPrompts": False},
            # the allowlist also becomes a policy that denies every tool not in it: the server's
            # tools are listed by the pattern its trust rule uses
            # useRipgrep: else the tool registry downloads ripgrep before it asks tools.core
            # (measured: a DNS query from 0.10.0, 0.20.2 and 0.33.0)
            "tools": {"core": [*RESOURCE_TOOLS, f"mcp_{ctx.server_name}_*"], "useRipgrep": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False,
                        "checkpointing": {"enabled": False}},
            "mcpServers": {ctx.server_name: server},
        }
        if not ctx.offers(CURRENT_FLAG):
            settings.update(_flat(settings))
        elif self.tool_scheme == "{tool}":
            # from 0.15 on by default, and not a core tool: tools.core does not keep it off
            settings["experimental"] = {"codebaseInvestigatorSettings": {"enabled": False}}
        path = ctx.home_dir(".gemini") / "settings.json"
        path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        argv = [binary, "-m", MODEL]
        argv += ["--approval-mode", "yolo"] if ctx.offers(CURRENT_FLAG) else ["--yolo"]
        if ctx.takes("--output-format", "stream-json"):
            argv += ["--output-format", "stream-json"]
        return Launch([*argv, "-p", ctx.prompt], env, ctx.work, [path])

    def help_argv(self, binary: str) -> list[str]:
        return [binary, "--help"]

    def for_flags(self, host_flags: frozenset | None, version: str | None = None) -> "GeminiCli":
        flat = host_flags is not None and CURRENT_FLAG not in host_flags
        if not flat and not _before(version, PREFIXED_FROM):
            return self
        old = copy.copy(self)
        old.tool_scheme, old.own_tools = "{tool}", BARE_OWN_TOOLS
        if not flat:
            old.own_tools_off = self.own_tools_off + "; experimental.codebaseInvestigatorSettings.enabled = false"
        return old

    def resource_reader(self, server_name: str):
        def pick(offers: list[ToolOffer], uri: str):
            tool = offered(offers, "read_mcp_resource")
            return (tool, {"uri": uri}) if tool else None
        return pick


def _before(version: str | None, bound: tuple[int, int, int]) -> bool:
    """Whether a version the host said (``0.20.2``, ``0.21.0-preview.1``) comes before ``bound``;
    False where it is not known."""
    found = re.match(r"(\d+)\.(\d+)\.(\d+)", version or "")
    return bool(found) and tuple(int(n) for n in found.groups()) < bound


def _flat(settings: dict) -> dict:
    """The same settings in the flat keys of the 0.1 series, whose config/settings.js and
    gemini-cli-core's config.js read ``selectedAuthType``, ``coreTools`` and
    ``usageStatisticsEnabled`` at the top of settings.json."""
    return {"selectedAuthType": settings["security"]["auth"]["selectedType"],
            "coreTools": settings["tools"]["core"],
            "usageStatisticsEnabled": settings["privacy"]["usageStatisticsEnabled"],
            "autoUpdate": False, "checkpointing": {"enabled": False}}
