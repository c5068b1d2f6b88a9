"""`mcp-accept host test --client CMD --api API`: a user's own program measured as a host. Two
programs as a user would write them, each on official SDKs only: the worked example of
docs/hosts.md in Python (the `openai` SDK's Chat Completions and the `mcp` SDK's client), and one
in JavaScript (the `openai` package's Responses API, streamed, and `@modelcontextprotocol/sdk`,
pinned in tests/hosts/package.json). Each run's rows are held against what model.jsonl shows
the model was handed, every connection the program tried was to loopback (strace), the user's
HOME stayed untouched and no process of the run outlives it. A program not found, one that never
calls the model and one that calls another model API than --api named each end the run in one
line and exit 3, the folder written.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostkit import ROOT, assert_offline, call_id_of, facts_of, model_requests, observed, processes_mentioning, rows_of

from mcp_accept.hosts.adapters.base import HostContext
from mcp_accept.hosts.own_client import OwnClient

PYTHON_AGENT = "docs/examples/own_client_agent.py"
JS_AGENT = "tests/hosts/clients/own_client_agent.mjs"
SERVER_TOOLS = ["search_text", "search_structured", "search_embedded", "search_link", "search_large",
                "search_image", "search_blob"]
LARGE = (1024, 8192, 32768, 65536, 262144, 1048576)


def run_client(tmp_path: Path, command: str, api: str, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`host test --client COMMAND --api API` run where a user runs it (the project's root, so the
    program's path is relative), with HOME on a decoy folder that must stay untouched."""
    out = tmp_path / "run"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"), COLUMNS="200")
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "--client", command, "--api", api,
                           "--out", str(out), "--timeout", "180", *args],
                          capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    written = sorted(str(p.relative_to(decoy)) for p in decoy.rglob("*"))
    assert all(w == ".cache" or w.startswith(".cache/mcp-accept") for w in written), written
    assert processes_mentioning(str(out)) == []
    return done, out


def handed(folder: Path, step: str, key: str) -> str:
    """What the program handed its model as the result of one scripted step, in its last request
    (``key``: the field of the result item that carries it)."""
    last = model_requests(folder)[-1]["message"]
    call = call_id_of(folder, step)
    items = last.get("messages") or last.get("input")
    return next(item[key] for item in items if (item.get("tool_call_id") or item.get("call_id")) == call
                and key in item)


def assert_measured_as_a_host(folder: Path, command: str, api: str, path: str) -> tuple[dict, dict]:
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert results["conditions"]["host_product"] == f"own client: {command}"
    assert facts["host"] == "client" and facts["host_exit"] == 0 and not facts["timed_out"]
    assert facts["api"] == api
    assert_offline(facts)
    # the server's tools under their own names, nothing else; one request per scripted call and
    # one for the final text
    assert facts["offered_tools"] == SERVER_TOOLS and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    assert {r["http"]["path"] for r in requests} == {path} and len(requests) == 13
    # the run's key reached the stand-in from the program's environment: nothing was refused
    assert facts["forged_requests"] == [] and facts["side_calls"] == []
    return rows, facts


def test_a_python_agent_on_the_official_sdks_is_measured_as_a_host(tmp_path):
    command = f"{shlex.quote(sys.executable)} {PYTHON_AGENT}"
    done, folder = run_client(tmp_path, command, "openai-chat")
    assert done.returncode == 1, done.stderr  # a verdict: rows failed
    rows, facts = assert_measured_as_a_host(folder, command, "openai-chat", "/v1/chat/completions")
    assert facts["client_info"]["name"] == "mcp"  # the official Python SDK's client
    assert model_requests(folder)[0]["message"]["model"] == "mcp-accept-stand-in"
    # H01: the agent hands back the text items only: text and the structured result's text twin
    # whole, the embedded resource lost (an empty tool message)
    forms = observed(folder, "H01")["forms"]
    assert rows["H01"]["status"] == "FAIL", rows["H01"]["reason"]
    assert [forms[f]["reached"] for f in ("text", "structured", "embedded")] == ["whole", "whole", "absent"]
    assert handed(folder, "embedded", "content") == ""
    assert "MKT-" in handed(folder, "text", "content")
    # H02: a resource_link has no text item: nothing of it reaches the model
    assert rows["H02"]["status"] == "FAIL" and observed(folder, "H02")["handed"] == ""
    assert handed(folder, "link", "content") == ""
    # H03: every size whole, the 1 MiB one too, as the tool messages show
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert [len(handed(folder, f"large-{size}", "content")) for size in LARGE] == list(LARGE)
    assert (folder / "host-stdout.txt").read_text().strip() == "done"
    config = json.loads((folder / "host-config" / "mcp.json").read_text())
    assert config["mcpServers"]["mcpaccept"]["args"][:3] == ["-m", "mcp_accept", "proxy"]


def test_a_javascript_agent_on_the_official_packages_is_measured_as_a_host(tmp_path):
    node = shutil.which("node")
    if node is None or not (ROOT / "tests" / "hosts" / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("node and the packages of tests/hosts/package.json are needed: npm install --prefix tests/hosts")
    command = f"node {JS_AGENT}"
    done, folder = run_client(tmp_path, command, "openai-responses")
    assert done.returncode == 1, done.stderr
    rows, facts = assert_measured_as_a_host(folder, command, "openai-responses", "/v1/responses")
    assert facts["client_info"] == {"name": "own-client-js", "version": "1.0.0"}
    assert all(r["message"]["stream"] is True for r in model_requests(folder))  # streamed, every turn
    # H01: the agent hands back each result's content as JSON: every form whole, the embedded
    # resource with its URI
    forms = observed(folder, "H01")["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert {forms[f]["reached"] for f in ("text", "structured", "embedded")} == {"whole"}
    embedded = json.loads(handed(folder, "embedded", "output"))
    assert embedded[0]["type"] == "resource" and embedded[0]["resource"]["uri"].startswith("search://")
    # H02: the resource_link is handed as it came, and nothing reads it: the body never arrives
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    link = json.loads(handed(folder, "link", "output"))
    assert link[0]["type"] == "resource_link" and observed(folder, "H02")["host_read_by_itself"] is False
    # H03: every size whole
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    for size in LARGE:
        assert len(json.loads(handed(folder, f"large-{size}", "output"))[0]["text"]) == size


@pytest.mark.parametrize("command, api, said", [
    ("no-such-program-of-mcp-accept --flag", "openai-chat",
     "the --client command 'no-such-program-of-mcp-accept' was not found"),
    (f"{shlex.quote(sys.executable)} -c pass", "openai-chat",
     "never called the model: it exited with status 0 before any request reached the stand-in"),
    (f"{shlex.quote(sys.executable)} {PYTHON_AGENT}", "anthropic",
     "called the openai-chat API (/v1/chat/completions), not the anthropic API that --api named"),
])
def test_a_client_that_measures_nothing_says_which_in_one_line_and_exits_3(tmp_path, command, api, said):
    done, folder = run_client(tmp_path, command, api)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and str(folder) in lines[0], done.stderr
    rows, results = rows_of(folder)
    assert {row["status"] for row in rows.values()} == {"UNOBTAINABLE"}
    assert all(said in row["reason"] for row in rows.values())
    assert facts_of(folder)["outcome"]["not_measured"].endswith(lines[0].split(said, 1)[1].split(" (evidence")[0])
    if api == "anthropic":
        # each request of the other API was refused and recorded with why: the agent's first one
        # got an error, and it stopped
        refused = [e for e in map(json.loads, (folder / "model.jsonl").read_text().splitlines())
                   if e["dir"] == "out"]
        assert len(refused) == 1 and refused[0]["http"]["status"] == 404
        assert refused[0]["http"]["wrong-api"] == {"called": "openai-chat", "answered": "anthropic-messages"}


@pytest.mark.parametrize("args, field", [
    (["--client", "agent"], "--api"),
    (["--client", "agent", "--api", "cohere"], "--api"),
    (["--api", "openai-chat"], "--api"),
    ([], "HOST"),
    (["codex", "--client", "agent", "--api", "openai-responses"], "HOST"),
    (["--client", "agent '", "--api", "openai-chat"], "--client"),
])
def test_client_usage_errors_are_one_line_and_exit_2(tmp_path, args, field):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", *args, "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and f"error: {field}:" in done.stderr
    assert not (tmp_path / "run").exists()


def test_the_environment_holds_every_variable_of_the_contract(tmp_path):
    (tmp_path / "agent.py").write_text("")
    ctx = HostContext(folder=tmp_path / "run", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                      mcp_command=[sys.executable, "-m", "mcp_accept", "proxy"])
    adapter = OwnClient("python agent.py --fast", "gemini", str(tmp_path))
    launch = adapter.prepare(ctx, "/usr/bin/python")
    # the first word is the program found on PATH, a later one naming a file where host test ran
    # is made absolute: the program runs in the run's own working folder
    assert launch.argv == ["/usr/bin/python", str(tmp_path / "agent.py"), "--fast"] and launch.cwd == ctx.work
    env = launch.env
    assert env["HOME"] == str(ctx.home)
    assert {k: env[k] for k in ("MCP_ACCEPT_API", "MCP_ACCEPT_MODEL_URL", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
                                "GOOGLE_GEMINI_BASE_URL", "MCP_ACCEPT_MODEL", "MCP_ACCEPT_SERVER_NAME",
                                "MCP_ACCEPT_PROMPT")} == {
        "MCP_ACCEPT_API": "gemini", "MCP_ACCEPT_MODEL_URL": "http://127.0.0.1:5",
        "OPENAI_BASE_URL": "http://127.0.0.1:5/v1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:5",
        "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:5", "MCP_ACCEPT_MODEL": "mcp-accept-stand-in",
        "MCP_ACCEPT_SERVER_NAME": "mcpaccept", "MCP_ACCEPT_PROMPT": ctx.prompt}
    assert {env[k] for k in ("MCP_ACCEPT_MODEL_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")} == {
        ctx.model_key}
    assert json.loads(env["MCP_ACCEPT_SERVER_COMMAND"]) == ctx.mcp_command and "MCP_ACCEPT_SERVER_URL" not in env
    assert json.loads(Path(env["MCP_ACCEPT_MCP_CONFIG"]).read_text()) == {"mcpServers": {"mcpaccept": {
        "command": sys.executable, "args": ["-m", "mcp_accept", "proxy"]}}}
    over_http = HostContext(folder=tmp_path / "run2", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                            mcp_url="http://127.0.0.1:6/mcp")
    env = adapter.prepare(over_http, "/usr/bin/python").env
    assert env["MCP_ACCEPT_SERVER_URL"] == "http://127.0.0.1:6/mcp" and "MCP_ACCEPT_SERVER_COMMAND" not in env
    assert json.loads(Path(env["MCP_ACCEPT_MCP_CONFIG"]).read_text())["mcpServers"]["mcpaccept"] == {
        "type": "http", "url": "http://127.0.0.1:6/mcp"}


def test_the_sdks_read_the_base_urls_the_contract_names():
    """The variable names are the SDKs' own: each official SDK installed, built with no argument
    but the environment, points at the stand-in."""
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:5/v1", "OPENAI_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:5",
           "ANTHROPIC_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:5", "GEMINI_API_KEY": "k"}
    code = ("import openai, anthropic\n"
            "from google.genai import _base_url\n"
            "print(openai.OpenAI().base_url, anthropic.Anthropic().base_url, _base_url.get_base_url(False))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ.get("PATH", ""), **env})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["http://127.0.0.1:5/v1/", "http://127.0.0.1:5", "http://127.0.0.1:5"]
