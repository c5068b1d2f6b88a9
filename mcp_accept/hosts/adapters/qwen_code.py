"""Qwen Code (npm ``@qwen-code/qwen-code``), headless with a one-shot prompt.

Qwen Code is a fork of Gemini CLI that speaks OpenAI Chat Completions here. Settings and where
they come from:
* model endpoint: ``OPENAI_BASE_URL`` (with ``/v1``: the OpenAI SDK adds ``/chat/completions``),
  ``OPENAI_API_KEY`` (the run's key, sent as a bearer token), ``OPENAI_MODEL``; ``settings.json``
  ``security.auth.selectedType = "openai"`` (without it the host asks for ``/auth``) and
  ``model.name``: https://github.com/QwenLM/qwen-code/blob/main/docs/users/configuration/auth.md
  ("Option 3: API Key");
* what the model takes follows its name alone where ``settings.json`` declares no modalities:
  ``defaultModalities(model)`` (packages/core/src/core/modalityDefaults.ts, in the bundle
  ``chunks/chunk-P5OXAI4R.js`` of 0.24.4) matches the name against ``MODALITY_PATTERNS``; each
  request's history is slimmed to those modalities first (``getRequestHistoryForRoute`` in
  packages/core/src/core/llm-chat.ts, ``slimCompactionInput`` and ``supportsMimeType`` in
  packages/core/src/services/compactionInputSlimming.ts): media the model does not take becomes
  a text placeholder, ``[image: image/png]``, ``[document: application/pdf]``; what is left the
  OpenAI converter (packages/core/src/core/openaiContentGenerator/converter.ts,
  ``createMediaContentPart``) hands as an ``image_url`` or ``file`` part. ``--model-kind``
  picks the name: ``text`` (the default) ``qwen3-coder-plus`` (``/^qwen3-coder-/``: text only;
  context 1,000,000 tokens, packages/core/src/core/tokenLimits.ts), ``vision`` ``qwen3-vl-plus``
  (``/^qwen3-vl-/``: image and video, no PDF; context 262,144 tokens, ``/^qwen/``);
* ``~/.qwen/settings.json`` (the private HOME's) with ``mcpServers.NAME``: ``command``/``args``
  or ``httpUrl``, ``trust: true`` (no confirmation), ``timeout``:
  https://github.com/QwenLM/qwen-code/blob/main/docs/users/features/mcp.md; tools reach the
  model as ``mcp__NAME__TOOL``;
* MCP tools are *deferred* by default: the request's tool list holds only the ``tool_search`` /
  ``tool_call`` bridge, never the server's tools. ``alwaysLoadTools: true`` in the server's entry
  declares them upfront (``MCPServerConfig`` in packages/core/src/config/mcp-server-config.ts,
  read in packages/core/src/tools/mcp-client.ts; not in the user documentation), and
  ``tools.visible = ["read_mcp_resource"]`` does the same for the host's resource reader
  ``read_mcp_resource {server_name, uri}`` ("Visible Deferred Tools",
  packages/cli/src/config/settingsSchema.ts; documented in docs/users/configuration/settings.md);
* ``memory.enableManagedAutoMemory`` / ``enableManagedAutoDream = false``: no memory-extraction
  subagent asks the model again after the answer (same schema and page);
* the host's own tools off: ``tools.core = ["read_mcp_resource"]`` (a non-empty allowlist of
  the core tools: shell, file and search tools not in it are not registered) and
  ``tools.disabled`` for the built-ins it does not gate (agents, goals, skills, the
  ``tool_search``/``tool_call`` bridge): docs/users/configuration/settings.md ("tools.core",
  "tools.disabled");
* headless: ``qwen -m MODEL --approval-mode yolo --output-format stream-json PROMPT``
  (https://github.com/QwenLM/qwen-code/blob/main/docs/users/features/headless.md; this version's
  ``--help`` marks ``-p`` deprecated in favour of the positional one-shot prompt);
  ``QWEN_CODE_SUPPRESS_YOLO_WARNING=1`` (same page); ``QWEN_CODE_NO_RELAUNCH=true`` keeps it one
  process (packages/cli/src/utils/relaunch.ts);
* offline: ``privacy.usageStatisticsEnabled = false``: the only call home seen. Without it, with
  an API key and OpenAI auth, this version looks up ``gb4w8c3ygj-default-sea.rum.aliyuncs.com``
  (its usage statistics, packages/core/src/telemetry/qwen-logger/qwen-logger.ts), although
  docs/users/support/tos-privacy.md says nothing more is collected with an API key.
  ``telemetry.enabled = false`` and ``general.enableAutoUpdate = false`` as well
  (docs/users/configuration/settings.md); measured: with them the only connection is the
  stand-in's port, over stdio and over Streamable HTTP.
"""

from __future__ import annotations

import json

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch, offered
from mcp_accept.model.script import ToolOffer

MODEL = "qwen3-coder-plus"
# --model-kind: the model name, and what Qwen Code's defaultModalities and tokenLimit give it
# (images, PDFs, context tokens; see the docstring)
MODELS = {"text": (MODEL, False, False, 1000000), "vision": ("qwen3-vl-plus", True, False, 262144)}
READ_TOOL = "read_mcp_resource"
# Built-ins that ``tools.core`` does not gate (agents, goals, skills, the deferred-tool bridge):
# ``tools.disabled`` keeps them out of the registry.
OUTSIDE_CORE = ("agent", "list_agents", "get_goal", "update_goal", "skill", "tool_search", "tool_call",
                "enter_plan_mode", "exit_plan_mode", "task_stop", "send_message", "monitor")


class QwenCode(HostAdapter):
    name = "qwen-code"
    product = "Qwen Code"
    binary = "qwen"
    npm_package = "@qwen-code/qwen-code"
    tested_version = "0.24.4"
    api = "openai-chat"
    model = MODEL
    model_kinds = ("text", "vision")
    sources = ("https://github.com/QwenLM/qwen-code/blob/main/docs/users/configuration/auth.md",
               "https://github.com/QwenLM/qwen-code/blob/main/docs/users/configuration/settings.md",
               "https://github.com/QwenLM/qwen-code/blob/main/docs/users/features/mcp.md",
               "https://github.com/QwenLM/qwen-code/blob/main/docs/users/features/headless.md",
               "https://github.com/QwenLM/qwen-code/blob/main/packages/core/src/config/mcp-server-config.ts")
    large_result_setting = 'tools.truncateToolOutputThreshold (settings.json; default 25,000 characters)'  # Qwen Code's settings reference
    offline_more = "privacy.usageStatisticsEnabled=false, telemetry.enabled=false, general.enableAutoUpdate=false"
    tool_scheme = "mcp__{server}__{tool}"
    own_tools_off = (f"tools.core = [{READ_TOOL}] (the core tools: shell, files, search), tools.disabled = "
                     f"[{', '.join(OUTSIDE_CORE)}] (the built-ins tools.core does not gate)")

    def declared_model(self, kind: str | None) -> dict:
        kind = kind or self.model_kinds[0]
        model, images, pdfs, context = MODELS[kind]
        return {"model": model, "kind": kind, "images": images, "pdfs": pdfs, "context_tokens": context,
                "declared_in": "the model name: Qwen Code's defaultModalities and tokenLimit say what it takes"}

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        model = MODELS[ctx.model_kind or self.model_kinds[0]][0]
        env = ctx.base_env()
        env.update({"OPENAI_BASE_URL": ctx.model_url + "/v1", "OPENAI_API_KEY": ctx.model_key,
                    "OPENAI_MODEL": model, "QWEN_CODE_NO_RELAUNCH": "true",
                    "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})
        server = {**ctx.server_entry(stdio={"env": {}}, url_key="httpUrl"),
                  "trust": True, "timeout": 60000, "alwaysLoadTools": True}
        settings = {
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
            "model": {"name": model},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False, "logPrompts": False},
            "general": {"enableAutoUpdate": False},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "tools": {"visible": [READ_TOOL], "core": [READ_TOOL], "disabled": list(OUTSIDE_CORE)},
            "mcpServers": {ctx.server_name: server},
        }
        path = ctx.home_dir(".qwen") / "settings.json"
        path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        argv = [binary, "-m", model, "--approval-mode", "yolo", "--output-format", "stream-json", ctx.prompt]
        return Launch(argv, env, ctx.work, [path])

    def resource_reader(self, server_name: str):
        def pick(offers: list[ToolOffer], uri: str):
            tool = offered(offers, READ_TOOL)
            return (tool, {"server_name": server_name, "uri": uri}) if tool else None
        return pick
