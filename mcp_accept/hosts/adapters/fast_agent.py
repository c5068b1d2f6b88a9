"""fast-agent (PyPI ``fast-agent-mcp``), headless with ``fast-agent go --message``.

Installed into a venv of its own (Python 3.12 to 3.15: the release's ``Requires-Python`` is
``>=3.12,<3.16``) with ``tests/hosts/fast-agent-constraints.txt`` as constraints: the release
pins its direct dependencies exactly, the file pins the rest as one clean install resolved them.

Settings and where they come from: the source of the release as published on PyPI
(``fast_agent_mcp-0.10.48.tar.gz``, https://pypi.org/project/fast-agent-mcp/0.10.48/), its
settings model ``src/fast_agent/config.py``, the discovery of its files ``src/fast_agent/home.py``
and its CLI ``src/fast_agent/cli/main.py``, ``src/fast_agent/cli/commands/go.py`` and
``src/fast_agent/cli/shared_options.py``:
* ``fast-agent.yaml`` given by ``--config-path`` (``home.py``: ``PREFERRED_CONFIG_FILENAME``);
  the secrets file is looked for in the config's own folder only ("without parent-directory
  walking", ``discover_config_files``) and merged over the config, so ``fast-agent.secrets.yaml``
  is written next to it. The key lives there (``anthropic.api_key``, the run's key: it reaches
  the stand-in as ``x-api-key``);
* model endpoint: ``anthropic.base_url`` (a trailing ``/v1`` is cut and the Anthropic SDK's beta
  client adds ``/v1/messages?beta=true``: ``llm/provider/anthropic/llm_anthropic.py``), model
  ``anthropic.claude-sonnet-4-0`` (the provider named, nothing guessed from the model's name);
  its prompt caching (``anthropic.cache_mode``, default ``auto``) is left as shipped, so the
  model is handed what a user's would be, ``cache_control`` marks included;
* what the model takes follows its name alone: fast-agent looks the name up in its model database
  (``src/fast_agent/llm/model_database.py``: ``ModelDatabase.MODELS``, each entry's ``tokenizes``,
  the MIME types it takes) and drops what the model does not take from what it hands over, a
  placeholder text in its place (``_block_supported`` and ``_filter_block_list`` in
  ``src/fast_agent/agents/llm_decorator.py``; an unknown name is text only, ``ModelInfo.from_name``
  in ``src/fast_agent/llm/model_info.py``). ``--model-kind`` names one of two models the database
  knows, both through the ``openai`` provider (Chat Completions at ``openai.base_url``,
  ``src/fast_agent/llm/provider/openai/llm_openai.py``), so that only the name differs: ``vision``
  ``openai.gpt-4.1`` (``OPENAI_4_1_SERIES``: ``OPENAI_MULTIMODAL``, text, images and PDFs, context
  1,047,576 tokens), ``text`` ``openai.o3-mini`` (``OPENAI_O3_MINI_SERIES``: ``TEXT_ONLY``, context
  200,000 tokens). Without it the model is ``anthropic.claude-sonnet-4-0``
  (``ANTHROPIC_SONNET_4_LEGACY``: ``ANTHROPIC_MULTIMODAL``, text, images and PDFs);
* MCP: ``mcp.servers.NAME`` with ``command``/``args`` or ``transport: http`` and ``url``, enabled
  by ``--servers NAME``; tools reach the model as ``NAME__TOOL`` (``src/fast_agent/mcp/common.py``:
  ``SEP = "__"``, cut to 64 characters). Tools run without asking. It offers the model no tool to
  read a resource, hands a ``resource_link`` as text (``[ResourceLink: NAME (TYPE)]`` and its
  URI), and in place of a result's text hands its ``structuredContent``, serialised
  (``canonicalize_tool_result_content_for_llm`` in ``src/fast_agent/mcp/helpers/content_helpers.py``);
* a result's text past ``shell_execution.output_byte_limit`` bytes (default 16,000) reaches the
  model as its first and last halves of that with a notice between
  (``src/fast_agent/mcp/tool_result_truncation.py``, ``src/fast_agent/agents/mcp_agent.py``);
* headless: ``fast-agent --no-update-check go --config-path FILE --no-home --servers NAME
  --model MODEL --no-shell --message PROMPT --quiet``, the answer on stdout (``--quiet``: "print
  only direct command output"); ``--no-home`` runs "without implicit fast-agent home side
  effects" (its home is otherwise ``./.fast-agent`` in the working folder, ``home.py``);
  ``logger.type: file`` keeps the host's log in the run folder, outside its HOME and working
  folder, and ``session_history: false`` keeps it from saving the conversation; ``--no-shell``
  keeps its own shell (the ``execute`` tool) and file tools away from the model "even when skills
  or agent config request them";
* offline: ``--no-update-check`` (a global option, before ``go``: "Skip startup network checks
  (fast-agent/plugin updates, recommended plugins)", ``cli/update_check.py`` asks pypi.org);
  ``otel.enabled: false`` (its default; on, it sends spans to ``otel.otlp_endpoint``) and
  ``OTEL_SDK_DISABLED=true`` (the OpenTelemetry SDK's own switch:
  https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/);
  ``HF_HUB_OFFLINE=1`` for the Hugging Face lookups it can make (huggingface_hub's own switch:
  https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables).
  Measured: with them the only connections are to the stand-in (and to the proxy, over HTTP).
"""

from __future__ import annotations

import json

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch

MODEL = "anthropic.claude-sonnet-4-0"
# --model-kind: a model fast-agent's database knows, the MIME types it takes there, its context
# window (src/fast_agent/llm/model_database.py: OPENAI_4_1_SERIES, OPENAI_O3_MINI_SERIES,
# ANTHROPIC_SONNET_4_LEGACY)
MODELS = {None: (MODEL, True, True, 200000), "vision": ("openai.gpt-4.1", True, True, 1047576),
          "text": ("openai.o3-mini", False, False, 200000)}


class FastAgent(HostAdapter):
    name = "fast-agent"
    product = "fast-agent"
    binary = "fast-agent"
    npm_package = ""
    pypi_package = "fast-agent-mcp"
    tested_version = "0.10.48"
    api = "anthropic-messages"
    model = MODEL
    model_kinds = ("vision", "text")
    sources = ("https://pypi.org/project/fast-agent-mcp/0.10.48/ (sdist: src/fast_agent/config.py)",
               "https://pypi.org/project/fast-agent-mcp/0.10.48/ (sdist: src/fast_agent/home.py)",
               "https://pypi.org/project/fast-agent-mcp/0.10.48/ (sdist: src/fast_agent/cli/commands/go.py)",
               "https://pypi.org/project/fast-agent-mcp/0.10.48/ (sdist: src/fast_agent/mcp/common.py)")
    offline_env = {"OTEL_SDK_DISABLED": "true", "HF_HUB_OFFLINE": "1"}
    offline_more = "--no-update-check, --no-home, otel.enabled=false, logger.type=file"
    tool_scheme = "{server}__{tool}"
    own_tools_off = "--no-shell (its shell, execute, and its file tools; measured: only the MCP servers' tools offered)"
    large_result_setting = "shell_execution.output_byte_limit (fast-agent.yaml; default 16,000 bytes, head and tail kept)"

    def declared_model(self, kind: str | None) -> dict:
        model, images, pdfs, context = MODELS[kind]
        return {"model": model, "kind": kind, "images": images, "pdfs": pdfs, "context_tokens": context,
                "declared_in": "the model name: fast-agent's model database (llm/model_database.py) says what it takes"}

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        model = MODELS[ctx.model_kind][0]
        env = {**ctx.base_env(), **self.offline_env}
        server = ctx.server_entry(http={"transport": "http"}, stdio={"transport": "stdio"})
        folder = ctx.folder / "host-config"
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            "default_model": model,
            "anthropic": {"base_url": ctx.model_url},
            "openai": {"base_url": ctx.model_url + "/v1"},
            "otel": {"enabled": False},
            "session_history": False,
            "logger": {"type": "file", "path": str(folder / "fastagent.jsonl"), "level": "warning",
                       "progress_display": False, "show_chat": False, "show_tools": False},
            "mcp": {"servers": {ctx.server_name: server}},
        }
        # JSON is YAML: no YAML writer is needed, and every string is quoted
        config_path = folder / "fast-agent.yaml"
        config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
        secrets_path = folder / "fast-agent.secrets.yaml"
        secrets_path.write_text(json.dumps({"anthropic": {"api_key": ctx.model_key},
                                            "openai": {"api_key": ctx.model_key}}), encoding="utf-8")
        argv = [binary, "--no-update-check", "go", "--config-path", str(config_path), "--no-home",
                "--servers", ctx.server_name, "--model", model, "--no-shell", "--message", ctx.prompt, "--quiet"]
        return Launch(argv, env, ctx.work, [config_path, secrets_path])
