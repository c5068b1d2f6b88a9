"""Mistral Vibe (PyPI ``mistral-vibe``), headless with ``vibe --prompt``.

Installed into a venv of its own (``Requires-Python >=3.12``) from
``tests/hosts/vibe-constraints.txt``. The ``vibe`` script execs the Rust client shipped in the
wheel (``vibe/_bin/vibe-rs``, ``vibe/cli/launcher.py``), which runs the Python app server
(``vibe-app-server``) that asks the model and runs the MCP servers.

Settings and where they come from: the release as published on PyPI
(https://pypi.org/project/mistral-vibe/3.0.3/, its README, "Configuration", and its settings
model ``vibe/core/config/models.py`` and ``vibe/core/config/vibe_schema.py``):
* ``VIBE_HOME`` holds ``config.toml`` (README, "Custom Vibe Home Directory"); the private HOME's
  ``.vibe``; ``strict_config = true`` refuses a setting it does not use;
* model endpoint: a ``[[providers]]`` entry with ``api_base`` (with ``/v1``: the generic backend
  adds ``/chat/completions``, ``vibe/core/llm/backend/generic.py``), ``api_style = "openai"``,
  ``backend = "generic"`` and ``api_key_env_var`` naming the variable that holds the run's key
  (sent as a bearer token), and a ``[[models]]`` entry on it made ``active_model``. The model's
  name is not ``devstral-2``: a migration rewrites that ``active_model`` to Mistral's own model
  (``_migrate_model_renames`` in ``vibe/core/config/_migration.py``);
* MCP: ``[[mcp_servers]]`` with ``transport = "stdio"``, ``command``/``args``, or
  ``"streamable-http"`` and ``url`` (README, "MCP Server Configuration"). The README names MCP
  tools ``{server_name}_{tool_name}``, but this release hands them to the model only inside its
  ``run_typescript`` sandbox, as ``tools.mcp_NAME.TOOL`` functions found with its
  ``search_tool_functions`` tool (``exposure="programmatic"`` in ``_integration_tool_groups``,
  ``mistralai_vibe_local_harness/vibe/_host.py``); the system prompt lists the group
  ``mcp_NAME`` among its "Searchable connector groups". The stand-in calls each as a model
  would, ``run_typescript`` with ``return await tools["mcp_NAME"]["TOOL"](ARGS);``
  (:meth:`MistralVibe.sandbox_call`), and the program's value is what the model is handed. It
  does not search first, so it also calls a tool the server may not have (the fixture's image
  and blob tools): the sandbox answers that it "is not a function", and the server sees nothing;
* a program's output past 16,000 characters is saved to a file and the model handed its head and
  tail (``_LARGE_OUTPUT_MAX_TOKENS = 4_000`` and ``_LARGE_OUTPUT_VISIBLE_TOKENS = 2_000`` tokens of
  four characters, ``RustFilesystemLargeOutputPolicy`` in ``vibe/app_server/_runtime.py``):
  constants, no setting moves them, so ``large_result_setting`` names none;
* headless: ``vibe --prompt PROMPT --auto-approve --output streaming`` (README, "Programmatic
  Mode"), the session's entries as JSON lines on stdout; ``session_logging.enabled = false``
  and ``generate_titles = false`` keep it from saving the session and asking for a title;
* its own tools: ``enable_subagents = false``, ``enable_background_processes = false``
  (README, "Tool Management") and ``disabled_tools`` (measured: ``todo`` and the scratchpad go, ``wait``
  with the background processes; ``bash``, ``read_file``, ``write_file``, ``edit`` and ``skill`` are still
  offered);
* offline: ``enable_telemetry = false``, ``enable_update_checks = false`` (README, "Update
  Settings"), ``enable_auto_update = false``, ``enable_notifications = false``,
  ``enable_connectors = false`` (Mistral's hosted connectors), ``show_greeting = false``,
  ``experiments.enable = false`` (its GrowthBook experiments, ``ExperimentsConfig.api_host``).
  Measured: with them the only connection is the stand-in's port.
"""

from __future__ import annotations

import json
import re

import tomli_w

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch, offered
from mcp_accept.model.script import ToolOffer

MODEL = "devstral-medium-latest"
PROVIDER = "mcpaccept"
KEY_VAR = "MCP_ACCEPT_STAND_IN_KEY"
SANDBOX = "run_typescript"
OWN_TOOLS = ("bash", "read_file", "write_file", "edit", "skill", "todo", "unified_harness_scratchpad")


class MistralVibe(HostAdapter):
    name = "mistral-vibe"
    product = "Mistral Vibe"
    binary = "vibe"
    npm_package = ""
    pypi_package = "mistral-vibe"
    tested_version = "3.0.3"
    api = "openai-chat"
    model = MODEL
    sources = ("https://pypi.org/project/mistral-vibe/3.0.3/ (README: Programmatic Mode, Configuration, MCP Server Configuration)",
               "https://pypi.org/project/mistral-vibe/3.0.3/ (wheel: vibe/core/config/models.py, vibe/core/config/vibe_schema.py)",
               "https://pypi.org/project/mistral-vibe/3.0.3/ (wheel: mistralai_vibe_local_harness/vibe/_host.py)")
    offline_more = ("enable_telemetry=false, enable_update_checks=false, enable_auto_update=false, enable_connectors=false, "
                    "experiments.enable=false, show_greeting=false")
    # not the README's ``{server}_{tool}``: this release offers MCP tools inside run_typescript only
    tool_scheme = "tools.mcp_{server}.{tool}"
    own_tools_off = ("enable_subagents=false, enable_background_processes=false, disabled_tools (todo, wait, "
                     "scratchpad; bash, read_file, write_file, edit, skill stay offered)")

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        vibe_home = ctx.home_dir(".vibe")
        env.update({"VIBE_HOME": str(vibe_home), KEY_VAR: ctx.model_key})
        server = {"name": ctx.server_name, **ctx.server_entry(http={"transport": "streamable-http"},
                                                             stdio={"transport": "stdio"})}
        settings = {
            "active_model": MODEL, "strict_config": True, "enable_telemetry": False,
            "enable_update_checks": False, "enable_auto_update": False, "enable_notifications": False,
            "enable_connectors": False, "show_greeting": False, "enable_subagents": False,
            "enable_background_processes": False, "disabled_tools": list(OWN_TOOLS),
            "session_logging": {"enabled": False, "generate_titles": False},
            "experiments": {"enable": False},
            "providers": [{"name": PROVIDER, "api_base": ctx.model_url + "/v1", "api_key_env_var": KEY_VAR,
                           "api_style": "openai", "backend": "generic"}],
            "models": [{"name": MODEL, "provider": PROVIDER, "alias": MODEL}],
            "mcp_servers": [server],
        }
        config = vibe_home / "config.toml"
        config.write_text(tomli_w.dumps(settings), encoding="utf-8")
        argv = [binary, "--prompt", ctx.prompt, "--auto-approve", "--output", "streaming"]
        return Launch(argv, env, ctx.work, [config])

    def sandbox_call(self, server_name: str):
        # the group a server's tools are under in the sandbox: ``mcp_`` and the server's name as
        # normalize_mcp_server_name (vibe/core/config/models.py) leaves it
        group = "mcp_" + re.sub(r"[^a-zA-Z0-9_-]", "_", server_name).strip("_-")

        def call(offers: list[ToolOffer], tool: str, arguments: dict):
            sandbox = offered(offers, SANDBOX)
            if sandbox is None:
                return None
            # what the program returns is what run_typescript hands the model
            code = f"return await tools[{json.dumps(group)}][{json.dumps(tool)}]({json.dumps(arguments)});"
            return sandbox, {"code": code}
        return call
