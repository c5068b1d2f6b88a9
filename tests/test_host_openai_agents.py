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

from hostkit import (FIXTURE_TOOLS, assert_every_size_whole, assert_forms_whole, assert_link_unread,
                     assert_offline, assert_responses_driver, call_id_of, extras_interpreter, model_requests,
                     prepare_driver, processes_mentioning, run_over_http_offering, run_pinned)

from mcp_accept.hosts.registry import ADAPTERS

SERVER_TOOLS = list(FIXTURE_TOOLS)


def interpreter() -> str:
    """This interpreter, which has the SDK where the test extras are installed."""
    return extras_interpreter("openai-agents",
                              "the OpenAI Agents SDK is not installed: pip install -e '.[test]' (openai-agents)")


def output_of(folder, step: str) -> list[dict]:
    """What the driver handed its model as the result of one scripted step, in its last request:
    the SDK hands each content item as an item of the Responses API (``input_text``, ``input_image``)."""
    call = call_id_of(folder, step)
    return next(item["output"] for item in model_requests(folder)[-1]["message"]["input"]
                if item.get("type") == "function_call_output" and item.get("call_id") == call)


def test_the_agents_sdk_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "openai-agents", importlib.metadata.version("openai-agents"),
                                              "openai-responses", binary=interpreter())
    assert results["conditions"]["host_product"] == "OpenAI Agents SDK"
    assert facts["client_info"]["name"] == "mcp"  # the SDK's MCP client is the official Python SDK's
    assert_offline(facts)
    # the server's tools under their own names and nothing else; one request per call and one
    # for the final text, each from the SDK itself
    assert_responses_driver(folder, facts, SERVER_TOOLS, "Agents/Python")
    # H01: every form whole; the structured result as its text twin, the SDK drops structuredContent
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert "MKT-" in output_of(folder, "text")[0]["text"]
    # an embedded resource is handed as the JSON of the whole item, its URI with it
    embedded = json.loads(output_of(folder, "embedded")[0]["text"])
    assert embedded["type"] == "resource" and embedded["resource"]["uri"].startswith("search://")
    # H02: the resource_link is handed as its fields, and nothing reads it
    assert_link_unread(folder, rows, body_absent=False)
    link = json.loads(output_of(folder, "link")[0]["text"])
    assert link["type"] == "resource_link" and link["uri"].startswith("search://")
    # H03: every size whole, 1 MiB too
    assert_every_size_whole(folder, rows)
    assert len(output_of(folder, "large-1048576")[0]["text"]) == 1048576
    # the image item is handed as an image, its bytes a data URL
    image = output_of(folder, "image")[0]
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png;base64,")
    assert not processes_mentioning(str(folder))


def test_the_agents_sdk_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "openai-agents", SERVER_TOOLS, binary=interpreter(),
                                                 offline=False)
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_tracing_off_and_the_contracts_environment(tmp_path):
    # the driver imports nothing of mcp-accept: any interpreter with the SDK runs it by its file
    ctx, launch = prepare_driver(tmp_path, "openai-agents", "openai_agents.py")
    assert launch.env["OPENAI_AGENTS_DISABLE_TRACING"] == "1"
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
    assert "mcp_accept" not in launch.argv[1].rsplit("/", 1)[-1]


def test_an_interpreter_without_the_sdk_is_one_line_and_exit_3(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "openai-agents", "--host-bin",
                           str(tmp_path / "no-python"), "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "OpenAI Agents SDK is not installed" in done.stderr and "pip install openai-agents==" in done.stderr
    assert ADAPTERS["openai-agents"].tested_version in done.stderr
