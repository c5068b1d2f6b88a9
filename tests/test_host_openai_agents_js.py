"""`mcp-accept host test openai-agents-js`: the OpenAI Agents SDK for JavaScript (npm
``@openai/agents``, the version of tests/hosts/package.json) run by its driver, an ``Agent`` with
the fixture (marker mode, behind the recording proxy) in its ``mcpServers``, against the stand-in
(the Responses API) on 127.0.0.1; and the same against a server that is not the fixture.

Each test asserts what the run recorded: the SDK's version, the tool names, what the model was
handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace: tracing, which would reach api.openai.com, is off), that the
user's HOME stayed untouched and that no process of the run outlives it. Node or the package
missing: the tests skip and say how to install it.
"""

from __future__ import annotations

import json

import pytest
from hostkit import (FIXTURE_TOOLS, assert_link_unread, assert_offline, assert_pinned_run, assert_responses_forms,
                     call_id_of, handed_outputs, model_requests, prepare_stdio, processes_mentioning,
                     run_on_shapes_offline, run_once, run_over_http_offering, server_starts)

@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory):
    return run_once(tmp_path_factory, "openai-agents-js")


def test_the_agents_sdk_for_javascript_fills_the_host_rows_offline(fixture_run):
    folder, rows, results, facts = fixture_run
    assert_pinned_run(facts, results, "0.20.0", "openai-agents-js", api="openai-responses")
    assert results["conditions"]["host_product"] == "OpenAI Agents SDK for JavaScript"
    # its MCP client introduces itself by the name the driver gave the server
    assert facts["client_info"] == {"name": "mcpaccept", "version": "1.0.0"}
    assert_offline(facts)
    assert facts["offered_tools"] == FIXTURE_TOOLS and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1/responses"}
    assert all(r["http"]["headers"]["user-agent"] == "Agents/JavaScript 0.20.0" for r in requests)
    assert not any(r["message"].get("stream") for r in requests)
    # each schema is handed with additionalProperties true, which the server's schemas do not say
    assert all(t["parameters"]["additionalProperties"] is True and t["strict"] is False
               for t in requests[0]["message"]["tools"])
    # the server is started twice: once for server/discover alone, then for the session, where
    # the tools are listed anew before every turn
    assert sorted(server_starts(folder)) == [["server/discover"], ["tools/call"] * 12 + ["tools/list"] * 13]
    assert (folder / "host-stdout.txt").read_text().strip() == "done"


def test_the_agents_sdk_for_javascript_hands_each_form(fixture_run):
    folder, rows, results, facts = fixture_run
    handed = handed_outputs(folder)
    assert_responses_forms(folder, rows, handed)
    # a lone non-text item as the JSON of the item, a plain string
    embedded = json.loads(handed[call_id_of(folder, "embedded")])
    assert embedded["type"] == "resource" and embedded["resource"]["uri"].startswith("search://")
    assert_link_unread(folder, rows)
    link = json.loads(handed[call_id_of(folder, "link")])
    assert link["type"] == "resource_link" and link["uri"].startswith("search://")
    # two embedded blobs as the JSON of the whole content list
    blobs = json.loads(handed[call_id_of(folder, "blob")])
    assert [b["resource"]["mimeType"] for b in blobs] == ["application/pdf", "image/png"]
    assert not processes_mentioning(str(folder))


def test_the_agents_sdk_for_javascript_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "openai-agents-js", FIXTURE_TOOLS)
    assert not processes_mentioning(str(folder))


def test_the_agents_sdk_for_javascript_with_a_server_that_is_not_the_fixture(tmp_path):
    folder, rows, facts, handed, called = run_on_shapes_offline(tmp_path, "openai-agents-js")
    assert [i["text"] for i in handed[call_id_of(folder, "text")]] == [
        i["text"] for i in called["summary_with_preface"]["content"]]
    [twin] = handed[call_id_of(folder, "structured")]
    assert twin["text"] == called["stats_pretty"]["content"][0]["text"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert rows["H02"]["status"] == "FAIL"
    assert json.loads(handed[call_id_of(folder, "link")])["uri"] == "report://q3.json"
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert handed[call_id_of(folder, "large-65536")][0]["text"] == called["report_log"]["content"][0]["text"]
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_tracing_off(tmp_path):
    ctx, launch = prepare_stdio(tmp_path, "openai-agents-js")
    assert launch.argv[3].endswith("mcp_accept/hosts/drivers/openai_agents_agent.mjs")
    assert launch.env["OPENAI_AGENTS_DISABLE_TRACING"] == "1"
    assert "setTracingDisabled(true);" in open(launch.argv[3]).read()
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
