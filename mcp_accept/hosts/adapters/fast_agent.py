"""fast-agent (PyPI ``fast-agent-mcp``), headless with ``fast-agent go --message``.

Installed into a venv of its own with the release's lock as constraints
(``tests/hosts/fast-agent-constraints.txt``, from ``uv.lock`` at tag v0.2.36): with its unpinned
dependencies at their newest it fails at import (pydantic 2.12+ lacks what mcp 1.10.1 imports).

Settings and where they come from: the docs of the release,
https://github.com/evalstate/fast-agent/blob/v0.2.36/README.md and
``src/mcp_agent/cli/commands/README.md``, and its settings model ``src/mcp_agent/config.py`` at
that tag (fast-agent.ai documents later releases, whose keys differ):
* ``fastagent.config.yaml`` given by ``--config-path``; ``fastagent.secrets.yaml`` is looked for
  from the config's folder upwards, the first one found wins and is merged over the config, so
  one is written next to the config (a stray one in a parent folder is never read). The key
  lives there (``anthropic.api_key``, the run's key: it reaches the stand-in as ``x-api-key``);
* model endpoint: ``anthropic.base_url`` (the Anthropic SDK adds ``/v1/messages``), model
  ``anthropic.claude-sonnet-4-0`` (the provider named, nothing guessed from the model's name);
  Anthropic is fast-agent's default provider (``default_model: haiku``);
* MCP: ``mcp.servers.NAME`` with ``command``/``args`` or ``transport: http`` and ``url``, enabled
  by ``--servers NAME``; tools reach the model as ``NAME-TOOL`` (``src/mcp_agent/mcp/common.py``:
  ``SEP = "-"``, cut to 64 characters). Tools run without asking: this version has no tool
  approval. It offers the model no tool to read a resource (resources are for the program,
  ``agent.with_resource``), and drops a ``resource_link`` and ``structuredContent`` before the
  model (``src/mcp_agent/llm/providers/multipart_converter_anthropic.py``);
* headless: ``fast-agent go --config-path FILE --servers NAME --model MODEL --message PROMPT``, the
  answer on stdout. The ``--quiet`` the commands README lists for ``go`` is refused by this
  version ("No such option"); quiet is ``logger.progress_display``, ``show_chat`` and
  ``show_tools`` false, and ``logger.type: file`` keeps the host's log in the run folder,
  outside its HOME and working folder;
* offline: this version has no update check and no usage telemetry; ``otel.enabled: false`` (its
  default; on, it sends spans to ``otel.otlp_endpoint``) and ``OTEL_SDK_DISABLED=true`` (the
  OpenTelemetry SDK's own switch:
  https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). The ``.env``
  its settings read is looked for in the working folder, which is the run's. Measured: with them
  the only connections are to the stand-in (and to the proxy, over HTTP).
"""

from __future__ import annotations

import json

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch

MODEL = "anthropic.claude-sonnet-4-0"


class FastAgent(HostAdapter):
    name = "fast-agent"
    product = "fast-agent"
    binary = "fast-agent"
    npm_package = ""
    pypi_package = "fast-agent-mcp"
    tested_version = "0.2.36"
    api = "anthropic-messages"
    model = MODEL
    sources = ("https://github.com/evalstate/fast-agent/blob/v0.2.36/README.md",
               "https://github.com/evalstate/fast-agent/blob/v0.2.36/src/mcp_agent/cli/commands/README.md",
               "https://github.com/evalstate/fast-agent/blob/v0.2.36/src/mcp_agent/config.py",
               "https://github.com/evalstate/fast-agent/blob/v0.2.36/src/mcp_agent/mcp/common.py")
    offline = "otel.enabled=false, OTEL_SDK_DISABLED=true, logger.type=file (no update check in this version)"
    tool_scheme = "{server}-{tool}"
    own_tools_off = "none to switch off: this version offers the model only its MCP servers' tools (measured)"

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env = ctx.base_env()
        env["OTEL_SDK_DISABLED"] = "true"
        if ctx.mcp_url:
            server = {"transport": "http", "url": ctx.mcp_url}
        else:
            server = {"transport": "stdio", "command": ctx.mcp_command[0], "args": ctx.mcp_command[1:]}
        folder = ctx.folder / "host-config"
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            "default_model": MODEL,
            "anthropic": {"base_url": ctx.model_url},
            "otel": {"enabled": False},
            "logger": {"type": "file", "path": str(folder / "fastagent.jsonl"), "level": "warning",
                       "progress_display": False, "show_chat": False, "show_tools": False},
            "mcp": {"servers": {ctx.server_name: server}},
        }
        # JSON is YAML: no YAML writer is needed, and every string is quoted
        config_path = folder / "fastagent.config.yaml"
        config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
        secrets_path = folder / "fastagent.secrets.yaml"
        secrets_path.write_text(json.dumps({"anthropic": {"api_key": ctx.model_key}}), encoding="utf-8")
        argv = [binary, "go", "--config-path", str(config_path), "--servers", ctx.server_name,
                "--model", MODEL, "--message", ctx.prompt]
        return Launch(argv, env, ctx.work, [config_path, secrets_path])
