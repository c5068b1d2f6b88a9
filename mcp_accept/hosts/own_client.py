"""A user's own program as the host (``host test --client CMD --api API``): mcp-accept does not
know how it is configured, so it hands it everything through its environment, under the names
the official SDKs read, and the program takes what it needs.

The contract (docs/hosts.md, "Your own client"), each variable set for every run:

* ``MCP_ACCEPT_API``: the model API the stand-in answers (``--api``); a request of another API is
  refused and recorded, and the run says so.
* ``MCP_ACCEPT_MODEL_URL``: the stand-in's base, ``http://127.0.0.1:PORT`` (no path).
* ``OPENAI_BASE_URL``: that base with ``/v1``, as the OpenAI SDKs take it (the Python SDK's
  ``OpenAI()`` and the JavaScript SDK's ``new OpenAI()`` read it when no ``base_url`` is given;
  openai-python ``src/openai/_client.py``, openai-node ``src/client.ts``).
* ``ANTHROPIC_BASE_URL``: the base, as the Anthropic SDKs take it (they add ``/v1/messages``;
  anthropic-sdk-python ``src/anthropic/_client.py``).
* ``GOOGLE_GEMINI_BASE_URL``: the base, as google-genai takes it (it adds
  ``/v1beta/models/MODEL:generateContent``; python-genai ``google/genai/_base_url.py``,
  ``get_base_url``).
* ``MCP_ACCEPT_MODEL_KEY``, ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``: the run's
  key (each SDK's default variable). The stand-in answers only requests that carry it.
* ``MCP_ACCEPT_MODEL``: a model name to ask for (any name is answered).
* ``MCP_ACCEPT_SERVER_NAME``: the name to give the MCP server (its tools are offered to the model
  under their own names).
* ``MCP_ACCEPT_SERVER_COMMAND`` (stdio): the command to start the MCP server with, a JSON array of
  words (the recording proxy, which starts the server under test); or ``MCP_ACCEPT_SERVER_URL``
  (Streamable HTTP): the endpoint to connect to (the recording proxy's).
* ``MCP_ACCEPT_MCP_CONFIG``: a ready ``mcp.json`` of the same server, ``{"mcpServers": {NAME:
  {"command", "args"}}}`` (stdio) or ``{"mcpServers": {NAME: {"type": "http", "url"}}}``.
* ``MCP_ACCEPT_PROMPT``: the task to give the model as the user's message.

The program runs with its words split like a shell would (no shell), a word naming a file where
``host test`` was run made absolute, in the run's private HOME and working folder, with loopback
only, as every host is.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from mcp_accept.hosts.adapters.base import HostAdapter, HostContext, Launch
from mcp_accept.errors import InputError
from mcp_accept.model.server import API_NAMES
from mcp_accept.server_command import anchored, split_words

NAME = "client"
MODEL = "mcp-accept-stand-in"


def client_words(command: str, cwd: str) -> list[str]:
    """The program's words; one naming a file in ``cwd`` (where ``host test`` was run) made
    absolute, since the program runs in the run's own working folder."""
    words, problem = split_words(command)
    if problem:
        raise InputError(problem, field="--client")
    return anchored(words, cwd)


class OwnClient(HostAdapter):
    name = NAME
    binary = ""
    sources = ("https://github.com/openai/openai-python/blob/main/src/openai/_client.py",
               "https://github.com/openai/openai-node/blob/master/src/client.ts",
               "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/_client.py",
               "https://github.com/googleapis/python-genai/blob/main/google/genai/_base_url.py")
    offline = "none: the program's own; it runs with loopback only and a private HOME"
    tool_scheme = "{tool}"
    model = MODEL
    own_tools_off = "none known: the program's own tools, if any, are offered beside the server's"

    def __init__(self, command: str, api: str, cwd: str):
        self.command = command
        self.api = API_NAMES[api]
        self.api_name = api
        self.words = client_words(command, cwd)
        self.product = f"own client: {command}"

    def find(self, given: str | None) -> str | None:
        first = self.words[0] if self.words else ""
        if os.sep in first:
            return first if os.path.isfile(first) and os.access(first, os.X_OK) else None
        found = shutil.which(first)
        return str(Path(found).absolute()) if found else None

    def prepare(self, ctx: HostContext, binary: str) -> Launch:
        env, config = contract_env(ctx, self.api_name)
        return Launch([binary, *self.words[1:]], env, ctx.work, [config])


def contract_env(ctx: HostContext, api_name: str) -> tuple[dict[str, str], Path]:
    """The environment of the contract above for one run (a fresh one: the run's private HOME,
    none of the user's variables but PATH), and the ``mcp.json`` it names, written under the
    run's ``host-config/``."""
    env = ctx.base_env()
    folder = ctx.folder / "host-config"
    folder.mkdir(parents=True, exist_ok=True)
    if ctx.mcp_url:
        server = {"type": "http", "url": ctx.mcp_url}
        env["MCP_ACCEPT_SERVER_URL"] = ctx.mcp_url
    else:
        server = {"command": ctx.mcp_command[0], "args": ctx.mcp_command[1:]}
        env["MCP_ACCEPT_SERVER_COMMAND"] = json.dumps(ctx.mcp_command)
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {ctx.server_name: server}}, indent=2), encoding="utf-8")
    env.update({
        "MCP_ACCEPT_API": api_name,
        "MCP_ACCEPT_MODEL_URL": ctx.model_url,
        "OPENAI_BASE_URL": ctx.model_url + "/v1",
        "ANTHROPIC_BASE_URL": ctx.model_url,
        "GOOGLE_GEMINI_BASE_URL": ctx.model_url,
        "MCP_ACCEPT_MODEL": MODEL,
        "MCP_ACCEPT_SERVER_NAME": ctx.server_name,
        "MCP_ACCEPT_MCP_CONFIG": str(config),
        "MCP_ACCEPT_PROMPT": ctx.prompt,
    })
    for key in ("MCP_ACCEPT_MODEL_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        env[key] = ctx.model_key
    return env, config
