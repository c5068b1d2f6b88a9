"""`mcp-accept host test langchain`: LangChain (``langchain-mcp-adapters``, ``langchain`` and
``langchain-openai`` at the versions of tests/hosts/langchain-constraints.txt, in the virtual
environment .ci/run makes: the adapters require ``mcp<2``, the project ``mcp>=2.3``) run by its
driver, the fixture's tools (marker mode, behind the recording proxy) loaded into an agent of
``create_agent`` with a ``ChatOpenAI`` model, against the stand-in (Chat Completions) on
127.0.0.1; and the same against a server that is not the fixture.

Each test asserts what the run recorded: the framework's version, the tool names, what the model
was handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace), that the user's HOME stayed untouched and that no process
of the run outlives it. The environment missing: the tests skip and say how to make it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostkit import (ROOT, assert_forms_whole, assert_offline, call_id_of, facts_of, model_requests, prepare_stdio,
                     processes_mentioning, results_by_tool, rows_of, run_host, run_over_http, tool_calls)

from mcp_accept.hosts.registry import ADAPTERS

SERVER_TOOLS = ["search_text", "search_structured", "search_embedded", "search_link", "search_large",
                "search_image", "search_blob"]
SHAPES = ROOT / "tests" / "servers" / "shapes_server.py"
VENV_PYTHON = ROOT / "tests" / "hosts" / "langchain-venv" / "bin" / "python3"


def interpreter() -> str:
    """The interpreter of the LangChain environment .ci/run makes."""
    if not VENV_PYTHON.exists():
        pytest.skip("LangChain is not installed: the langchain-venv .ci/run makes "
                    f"({ADAPTERS['langchain'].install_hint()})")
    return str(VENV_PYTHON)


def handed_by_call(folder) -> dict[str, object]:
    """What the last request handed the model for each call: its tool message's content."""
    return {m.get("tool_call_id"): m.get("content") for m in model_requests(folder)[-1]["message"]["messages"]
            if m.get("role") == "tool"}


def test_langchain_hands_the_forms_and_dies_of_a_resource_link(tmp_path):
    """A resource_link becomes a LangChain ``file`` block of its URI, which ``ChatOpenAI`` refuses
    to send over Chat Completions ("does not support file URLs"): the agent's run ends there,
    with an error, and nothing after the link is measured."""
    folder = run_host(tmp_path, "langchain", binary=interpreter())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert facts["version"] == results["conditions"]["host_version"] == ADAPTERS["langchain"].tested_version
    assert facts["api"] == "openai-chat" and results["conditions"]["host_product"] == "LangChain"
    assert facts["client_info"]["name"] == "mcp"  # the adapters' MCP client is the official Python SDK's
    assert_offline(facts)
    assert facts["offered_tools"] == SERVER_TOOLS and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    assert {r["http"]["path"] for r in requests} == {"/v1/chat/completions"}
    assert all(r["http"]["headers"]["user-agent"].startswith("AsyncOpenAI/Python") for r in requests)
    # H01: every form whole; of the structured result only the text twin (structuredContent is
    # kept as the tool's artifact, which no model is handed)
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    handed = handed_by_call(folder)
    assert handed[call_id_of(folder, "text")][0]["type"] == "text"
    # the embedded resource as a text block of its text alone: no URI
    [embedded] = handed[call_id_of(folder, "embedded")]
    assert "MKE-" in embedded["text"] and "search://" not in embedded["text"]
    # the link: the server answered, and the framework failed before asking its model again
    assert "search_link" in [c["message"]["params"]["name"] for c in tool_calls(folder, facts)]
    assert facts["host_exit"] == 1 and len(requests) == 4
    assert "OpenAI Chat Completions does not support file URLs" in (folder / "host-stderr.txt").read_text()
    assert rows["H02"]["status"] == "UNOBTAINABLE" and "never handed back" in rows["H02"]["reason"]
    assert rows["H03"]["status"] == "UNOBTAINABLE"
    assert not processes_mentioning(str(folder))


def test_langchain_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http(tmp_path, "langchain", binary=interpreter())
    assert facts["offered_tools"] == SERVER_TOOLS
    assert_offline(facts)
    assert rows["H02"]["status"] == "UNOBTAINABLE"
    assert not processes_mentioning(str(folder))


# No link: the run goes on to the large results.
SHAPES_PROFILE = """profile: shapes-langchain
tools:
  text: {name: summary_with_preface}
  structured: {name: stats_pretty}
  embedded: {name: report_markdown, mime_type: text/markdown}
  large: {name: report_log, arguments: {chars: '{bytes}'}}
"""


def test_langchain_with_a_server_that_is_not_the_fixture(tmp_path):
    """A structured result with a pretty-printed text twin: the twin reaches the model as it is,
    structuredContent not at all; every text item is a block of its own; large results whole."""
    profile = tmp_path / "shapes.yaml"
    profile.write_text(SHAPES_PROFILE)
    folder = run_host(tmp_path, "langchain", "--server", f"{sys.executable} {SHAPES}", "--profile", str(profile),
                      "--large-sizes", "1024,65536,1048576", binary=interpreter())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert results["conditions"]["server_name"] == "shapes" and facts["host_exit"] == 0
    assert_offline(facts)
    handed = handed_by_call(folder)
    called = results_by_tool(folder, facts)
    [twin] = handed[call_id_of(folder, "structured")]
    assert twin["text"] == called["stats_pretty"]["content"][0]["text"] and "\n  " in twin["text"]
    assert [b["text"] for b in handed[call_id_of(folder, "text")]] == [
        i["text"] for i in called["summary_with_preface"]["content"]]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    [large] = handed[call_id_of(folder, "large-1048576")]
    assert large["text"] == called["report_log"]["content"][0]["text"]
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_the_contracts_environment(tmp_path):
    ctx, launch = prepare_stdio(tmp_path, "langchain")
    assert launch.argv[1].endswith("mcp_accept/hosts/drivers/langchain_agent.py")
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
    # LangChain's own variable would win over OPENAI_BASE_URL: the run's environment never has it
    assert "OPENAI_API_BASE" not in launch.env and "LANGSMITH_TRACING" not in launch.env
    assert "import mcp_accept" not in open(launch.argv[1]).read()


def test_the_interpreter_is_a_python3_on_path_that_has_the_framework(tmp_path, monkeypatch):
    venv_bin = interpreter().rsplit("/", 1)[0]
    # a python3 without it comes first on PATH and is passed over
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), venv_bin]))
    assert ADAPTERS["langchain"].find(None) == str(VENV_PYTHON)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert ADAPTERS["langchain"].find(None) is None


def test_no_interpreter_with_the_framework_is_one_line_and_exit_3(tmp_path):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "langchain", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 3, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "LangChain is not installed" in done.stderr
    assert "pip install langchain-mcp-adapters==0.3.2 langchain==1.5.2 langchain-openai==1.8.1" in done.stderr
