"""`mcp-accept host test ai-sdk`: the Vercel AI SDK (npm ``ai``, ``@ai-sdk/mcp``, ``@ai-sdk/openai``
at the versions of tests/hosts/package.json) run by its driver, the tools of ``createMCPClient``
over the fixture (marker mode, behind the recording proxy) handed to ``generateText``, against the
stand-in (the Responses API) on 127.0.0.1; and the same against a server that is not the fixture.

Each test asserts what the run recorded: the SDK's version, the tool names, what the model was
handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace), that the user's HOME stayed untouched and that no process
of the run outlives it. Node or the packages missing: the tests skip and say how to install them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hostkit import (FIXTURE_TOOLS, PINNED, assert_link_unread, assert_offline, assert_pinned_run,
                     assert_responses_forms, call_id_of, handed_outputs, host_bin, model_requests, prepare_stdio,
                     processes_mentioning, run_on_shapes_offline, run_once, run_over_http_offering, server_starts)

from mcp_accept.hosts.registry import ADAPTERS


@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory):
    return run_once(tmp_path_factory, "ai-sdk")


def test_the_ai_sdk_fills_the_host_rows_offline(fixture_run):
    folder, rows, results, facts = fixture_run
    assert_pinned_run(facts, results, "7.0.185", "ai-sdk", api="openai-responses")
    assert results["conditions"]["host_product"] == "Vercel AI SDK"
    assert facts["client_info"]["name"] == "ai-sdk-mcp-client"  # the SDK's own MCP client
    assert_offline(facts)
    assert facts["offered_tools"] == FIXTURE_TOOLS and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    # one request per call and one for the final text, the provider's default API, not streamed
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1/responses"}
    assert not any(r["message"].get("stream") for r in requests)
    assert all(r["http"]["headers"]["user-agent"].startswith("ai/7.0.185") for r in requests)
    # each schema handed with additionalProperties false, which the server's schemas do not say
    assert all(t["parameters"]["additionalProperties"] is False for t in requests[0]["message"]["tools"])
    # one server start: server/discover, the tools listed once, each called; over stdio the SDK
    # waits 1 s for the discover answer (DEFAULT_PROTOCOL_DISCOVERY_TIMEOUT), then initializes
    # instead, which a loaded machine can make it do
    [start] = server_starts(folder)
    assert [m for m in start if m not in ("initialize", "notifications/initialized")] == \
        ["server/discover"] + ["tools/call"] * 12 + ["tools/list"]
    assert (folder / "host-stdout.txt").read_text().strip() == "done"


def test_the_ai_sdk_hands_each_form(fixture_run):
    folder, rows, results, facts = fixture_run
    handed = handed_outputs(folder)
    # each form an input_text item, of the structured result only its text twin; the image an
    # input_image; every size whole
    assert_responses_forms(folder, rows, handed)
    # an embedded resource: the JSON of the whole item, its URI with it
    [embedded] = handed[call_id_of(folder, "embedded")]
    item = json.loads(embedded["text"])
    assert item["type"] == "resource" and item["resource"]["uri"].startswith("search://")
    # H02: the resource_link is handed as the JSON of its fields, and nothing reads it
    assert_link_unread(folder, rows)
    [link] = handed[call_id_of(folder, "link")]
    assert json.loads(link["text"])["type"] == "resource_link"
    # the PDF blob as the JSON of its item, base64 and all
    blob = json.loads(handed[call_id_of(folder, "blob")][0]["text"])
    assert blob["resource"]["mimeType"] == "application/pdf" and blob["resource"]["blob"].startswith("JVBER")
    assert not processes_mentioning(str(folder))


def test_the_ai_sdk_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "ai-sdk", FIXTURE_TOOLS)
    assert not processes_mentioning(str(folder))


def test_the_ai_sdk_with_a_server_that_is_not_the_fixture(tmp_path):
    """Two text items stay two input_text items; the pretty-printed twin reaches the model as it is,
    structuredContent not at all; the link's JSON, unread; large results whole."""
    folder, rows, facts, handed, called = run_on_shapes_offline(tmp_path, "ai-sdk")
    assert [i["text"] for i in handed[call_id_of(folder, "text")]] == [
        i["text"] for i in called["summary_with_preface"]["content"]]
    [twin] = handed[call_id_of(folder, "structured")]
    assert twin["text"] == called["stats_pretty"]["content"][0]["text"] and "\n  " in twin["text"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert rows["H02"]["status"] == "FAIL"
    assert json.loads(handed[call_id_of(folder, "link")][0]["text"])["uri"] == "report://q3.json"
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert handed[call_id_of(folder, "large-65536")][0]["text"] == called["report_log"]["content"][0]["text"]
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_node_from_the_frameworks_folder(tmp_path):
    folder = host_bin("ai-sdk")
    ctx, launch = prepare_stdio(tmp_path, "ai-sdk")
    assert launch.argv[0].endswith("node") and launch.argv[1] == "--import"
    assert launch.argv[2].endswith("mcp_accept/hosts/drivers/resolve_from.mjs")
    assert launch.argv[3].endswith("mcp_accept/hosts/drivers/ai_sdk_agent.mjs")
    assert launch.env["MCP_ACCEPT_NODE_FRAMEWORKS"] == "/bin/true"
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
    assert "mcp_accept" not in open(launch.argv[3]).read().split("\nimport", 1)[1]
    # the folder is found as --host-bin, its node_modules, $MCP_ACCEPT_NODE_FRAMEWORKS or the working folder
    adapter = ADAPTERS["ai-sdk"]
    assert adapter.find(folder) == adapter.find(os.path.join(folder, "node_modules")) == folder
    assert adapter.find(str(tmp_path)) is None


def test_without_host_bin_the_folder_is_the_variables_else_the_working_one(tmp_path, monkeypatch):
    folder = host_bin("ai-sdk")
    adapter = ADAPTERS["ai-sdk"]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_ACCEPT_NODE_FRAMEWORKS", folder)
    assert adapter.find(None) == folder
    monkeypatch.delenv("MCP_ACCEPT_NODE_FRAMEWORKS")
    assert adapter.find(None) is None
    monkeypatch.chdir(folder)
    assert adapter.find(None) == folder
    # no node on PATH: not found, whatever the folder holds
    monkeypatch.setenv("PATH", str(tmp_path))
    assert adapter.find(folder) is None


def test_a_folder_without_the_sdk_is_one_line_and_exit_3(tmp_path):
    env = dict(os.environ, MCP_ACCEPT_NODE_FRAMEWORKS=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "ai-sdk", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Vercel AI SDK is not installed" in done.stderr
    assert "npm install --prefix FOLDER ai@7.0.185 @ai-sdk/mcp@2.0.99 @ai-sdk/openai@4.0.126" in done.stderr


def test_every_javascript_framework_is_pinned_as_its_adapter_says():
    from mcp_accept.hosts.adapters.framework import DrivenNodeFramework

    frameworks = [a for a in ADAPTERS.values() if isinstance(a, DrivenNodeFramework)]
    assert sorted(a.name for a in frameworks) == ["ai-sdk", "mastra", "openai-agents-js"]
    for adapter in frameworks:
        for package in adapter.packages:
            name, version = package.rsplit("@", 1)
            assert PINNED[name] == version, (adapter.name, package)
