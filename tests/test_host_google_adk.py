"""`mcp-accept host test google-adk`: Google's Agent Development Kit (``google-adk[mcp]`` at the version
of tests/hosts/google-adk-constraints.txt, in the virtual environment .ci/run makes: it requires
``google-genai<3``, the project's tests google-genai 3) run by its driver, an ``Agent`` with the
fixture (marker mode, behind the recording proxy) as its ``McpToolset`` and a ``Gemini`` model,
against the stand-in (``generateContent``) on 127.0.0.1.

Each test asserts what the run recorded: the framework's version, the tool names, what the model
was handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace), that the user's HOME stayed untouched and that no process
of the run outlives it. The environment missing: the tests skip and say how to make it.
"""

from __future__ import annotations

import json

import pytest
from hostkit import (ROOT, assert_forms_whole, assert_offline, assert_pinned_run, facts_of, model_requests, observed,
                     prepare_stdio, processes_mentioning, rows_of, run_host, run_over_http)

from mcp_accept.hosts.registry import ADAPTERS

SERVER_TOOLS = {"search_text", "search_structured", "search_embedded", "search_link", "search_large",
                "search_image", "search_blob"}
VENV_PYTHON = ROOT / "tests" / "hosts" / "google-adk-venv" / "bin" / "python3"


def interpreter() -> str:
    """The interpreter of the Google ADK environment .ci/run makes."""
    if not VENV_PYTHON.exists():
        pytest.skip("Google ADK is not installed: the google-adk-venv .ci/run makes "
                    f"({ADAPTERS['google-adk'].install_hint()})")
    return str(VENV_PYTHON)


def responses(folder) -> dict[str, list[dict]]:
    """What the last request handed the model for each tool: the ``response`` of each
    ``functionResponse`` part, by the tool's name (each of the fixture's tools but search_large
    is called once; of search_large, the last call)."""
    return {part["functionResponse"]["name"]: part["functionResponse"]["response"]
            for content in model_requests(folder)[-1]["message"]["contents"] for part in content["parts"]
            if "functionResponse" in part}


def test_google_adk_fills_the_host_rows_offline(tmp_path):
    folder = run_host(tmp_path, "google-adk", binary=interpreter())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, ADAPTERS["google-adk"].tested_version, "google-adk", api="gemini")
    assert results["conditions"]["host_product"] == "Google ADK"
    assert facts["client_info"] == {"name": "google-adk", "version": "2.13.0"}  # ADK names itself to the server
    assert_offline(facts)
    assert set(facts["offered_tools"]) == SERVER_TOOLS and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1beta/models/mcp-accept-stand-in:generateContent"}
    assert all("google-adk/" in r["http"]["headers"]["x-goog-api-client"] for r in requests)
    assert (folder / "host-stdout.txt").read_text().strip() == "done"
    handed = responses(folder)
    # H01: every form whole: each result is handed as the JSON of the whole CallToolResult, so the
    # structured result's structuredContent and its text twin both reach the model
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent", "text twin"]
    assert set(handed["search_structured"]) >= {"content", "structuredContent", "isError"}
    [embedded] = handed["search_embedded"]["content"]
    assert embedded["type"] == "resource" and embedded["resource"]["uri"].startswith("search://")
    # H02: the resource_link is handed as its fields, and nothing reads it
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    [link] = handed["search_link"]["content"]
    assert link["type"] == "resource_link" and link["uri"] == "search://results/demo-v1"
    assert observed(folder, "H02")["host_read_by_itself"] is False
    # H03: every size whole, 1 MiB too
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert all(s["handling"] == "whole" for s in observed(folder, "H03")["sizes"])
    assert len(handed["search_large"]["content"][0]["text"]) == 1048576
    # the image is handed as base64 text inside the JSON, no image part of Gemini's
    [image] = handed["search_image"]["content"][:1]
    assert image["type"] == "image" and image["data"].startswith("iVBORw0KGgo")
    parts = [p for r in requests for c in r["message"]["contents"] for p in c["parts"]]
    assert not any("inlineData" in p for p in parts)
    assert not processes_mentioning(str(folder))


def test_google_adk_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http(tmp_path, "google-adk", binary=interpreter())
    assert set(facts["offered_tools"]) == SERVER_TOOLS
    assert_offline(facts)
    assert rows["H02"]["status"] == "FAIL" and rows["H03"]["status"] == "PASS"
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_the_contracts_environment(tmp_path):
    ctx, launch = prepare_stdio(tmp_path, "google-adk")
    assert launch.argv[1].endswith("mcp_accept/hosts/drivers/google_adk_agent.py")
    assert launch.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:5" and launch.env["GEMINI_API_KEY"] == ctx.model_key
    assert json.loads(launch.env["MCP_ACCEPT_SERVER_COMMAND"]) == ctx.mcp_command
    # without it, ADK's MCP client over HTTP asks the Compute Engine metadata server for credentials
    assert launch.env["GOOGLE_API_USE_CLIENT_CERTIFICATE"] == "false"
    assert "import mcp_accept" not in open(launch.argv[1]).read()
