"""`mcp-accept host test openai-agents`: the OpenAI Agents SDK for Python (PyPI ``openai-agents``,
the version of the test extras) run by its driver, an ``Agent`` with the fixture (marker mode,
behind the recording proxy) in its ``mcp_servers``, against the stand-in model (the Responses
API) on 127.0.0.1.

Each test asserts what the run recorded: the SDK's version, the tool names, what the model was
handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace: tracing, which would reach api.openai.com, is off), that the
user's HOME stayed untouched and that no process of the run outlives it. The SDK not installed:
the tests skip and say how to install it.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest
from hostkit import (assert_forms_whole, assert_offline, assert_pinned_run, call_id_of, facts_of, model_requests,
                     observed, prepare_stdio, processes_mentioning, rows_of, run_host, run_over_http)

from mcp_accept.hosts.registry import ADAPTERS

SERVER_TOOLS = ["search_text", "search_structured", "search_embedded", "search_link", "search_large",
                "search_image", "search_blob"]


def interpreter() -> str:
    """This interpreter, which has the SDK where the test extras are installed."""
    try:
        importlib.metadata.version("openai-agents")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the OpenAI Agents SDK is not installed: pip install -e '.[test]' (openai-agents)")
    return sys.executable


def output_of(folder, step: str) -> list[dict]:
    """What the driver handed its model as the result of one scripted step, in its last request:
    the SDK hands each content item as an item of the Responses API (``input_text``, ``input_image``)."""
    call = call_id_of(folder, step)
    return next(item["output"] for item in model_requests(folder)[-1]["message"]["input"]
                if item.get("type") == "function_call_output" and item.get("call_id") == call)


def test_the_agents_sdk_fills_the_host_rows_offline(tmp_path):
    folder = run_host(tmp_path, "openai-agents", binary=interpreter())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, importlib.metadata.version("openai-agents"), "openai-agents",
                      api="openai-responses")
    assert results["conditions"]["host_product"] == "OpenAI Agents SDK"
    assert facts["client_info"]["name"] == "mcp"  # the SDK's MCP client is the official Python SDK's
    assert_offline(facts)
    # the server's tools under their own names and nothing else; one request per call and one
    # for the final text, each from the SDK itself
    assert facts["offered_tools"] == SERVER_TOOLS and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1/responses"}
    assert all(r["http"]["headers"]["user-agent"].startswith("Agents/Python") for r in requests)
    assert (folder / "host-stdout.txt").read_text().strip() == "done"
    # H01: every form whole; the structured result as its text twin, the SDK drops structuredContent
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert "MKT-" in output_of(folder, "text")[0]["text"]
    # an embedded resource is handed as the JSON of the whole item, its URI with it
    embedded = json.loads(output_of(folder, "embedded")[0]["text"])
    assert embedded["type"] == "resource" and embedded["resource"]["uri"].startswith("search://")
    # H02: the resource_link is handed as its fields, and nothing reads it
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    link = json.loads(output_of(folder, "link")[0]["text"])
    assert link["type"] == "resource_link" and link["uri"].startswith("search://")
    assert observed(folder, "H02")["host_read_by_itself"] is False
    assert observed(folder, "H02")["read_tool_offered"] is None
    # H03: every size whole, 1 MiB too
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert all(s["handling"] == "whole" for s in observed(folder, "H03")["sizes"])
    assert len(output_of(folder, "large-1048576")[0]["text"]) == 1048576
    # the image item is handed as an image, its bytes a data URL
    image = output_of(folder, "image")[0]
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png;base64,")
    assert not processes_mentioning(str(folder))


def test_the_agents_sdk_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http(tmp_path, "openai-agents", binary=interpreter())
    assert facts["offered_tools"] == SERVER_TOOLS
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_tracing_off_and_the_contracts_environment(tmp_path):
    ctx, launch = prepare_stdio(tmp_path, "openai-agents")
    assert launch.argv[1].endswith("mcp_accept/hosts/drivers/openai_agents.py")
    assert launch.env["OPENAI_AGENTS_DISABLE_TRACING"] == "1"
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
    assert json.loads(launch.env["MCP_ACCEPT_SERVER_COMMAND"]) == ctx.mcp_command
    # the driver imports nothing of mcp-accept: any interpreter with the SDK runs it by its file
    assert "mcp_accept" not in launch.argv[1].rsplit("/", 1)[-1] and "import mcp_accept" not in open(launch.argv[1]).read()


def test_an_interpreter_without_the_sdk_is_one_line_and_exit_3(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "openai-agents", "--host-bin",
                           str(tmp_path / "no-python"), "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "OpenAI Agents SDK is not installed" in done.stderr and "pip install openai-agents==" in done.stderr
    assert ADAPTERS["openai-agents"].tested_version in done.stderr
