"""`mcp-accept host test mastra`: Mastra (npm ``@mastra/core`` and ``@mastra/mcp``, the versions of
tests/hosts/package.json) run by its driver, the tools of an ``MCPClient`` over the fixture
(marker mode, behind the recording proxy) given to an ``Agent``, its model the router's
OpenAI-compatible endpoint on the stand-in (Chat Completions) on 127.0.0.1; and the same against a
server that is not the fixture.

Each test asserts what the run recorded: Mastra's version, the tool names, what the model was
handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace: its telemetry, which would reach us.posthog.com, is off),
that the user's HOME stayed untouched and that no process of the run outlives it. Node or the
packages missing: the tests skip and say how to install them.
"""

from __future__ import annotations

import json

import pytest
from hostkit import (FIXTURE_TOOLS, assert_forms_whole, assert_link_unread, assert_offline, assert_pinned_run,
                     call_id_of, handed_outputs, model_requests, prepare_stdio, processes_mentioning,
                     run_on_shapes_offline, run_once, run_over_http_offering, server_starts)

from mcp_accept.hosts.adapters.base import PROMPT
from mcp_accept.output.host_matrix import row_of

OFFERED = [f"mcpaccept_{tool}" for tool in FIXTURE_TOOLS]


@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory):
    return run_once(tmp_path_factory, "mastra")


def test_mastra_fills_the_host_rows_offline(fixture_run):
    folder, rows, results, facts = fixture_run
    assert_pinned_run(facts, results, "1.71.0", "mastra", api="openai-chat")
    assert results["conditions"]["host_product"] == "Mastra"
    # a framework, in host-run.json and in the matrix row made of the folder
    assert facts["kind"] == "framework" and row_of(None, folder)["kind"] == "framework"
    assert facts["client_info"] == {"name": "mcpaccept", "version": "1.0.0"}
    assert_offline(facts)
    # each tool under the server's name, an underscore and its own; nothing else offered
    assert facts["offered_tools"] == OFFERED and facts["tool_name_scheme"] == "mcpaccept_{tool}"
    requests = model_requests(folder)
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1/chat/completions"}
    assert all(r["http"]["headers"]["user-agent"].startswith("ai-sdk/openai-compatible/") for r in requests)
    # no system message: the empty instructions add none, the task is the user's message alone
    [task] = requests[0]["message"]["messages"]
    assert task == {"role": "user", "content": PROMPT}
    assert not any(r["message"].get("stream") for r in requests)
    # each schema with $schema and additionalProperties false added
    assert all(t["function"]["parameters"]["additionalProperties"] is False and "$schema" in t["function"]["parameters"]
               for t in requests[0]["message"]["tools"])
    # the server is started twice: once for server/discover alone, then for the session
    assert sorted(server_starts(folder)) == [["server/discover"], ["tools/call"] * 12 + ["tools/list"]]
    assert (folder / "host-stdout.txt").read_text().strip() == "done"


def test_mastra_hands_each_form(fixture_run):
    folder, rows, results, facts = fixture_run
    handed = handed_outputs(folder)
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    # a result with structuredContent: its text twin alone (its markers, not structuredContent's),
    # parsed and serialised anew
    structured = handed[call_id_of(folder, "structured")]
    assert "MKW-" in structured and "MKS-" not in structured and "_meta" not in json.loads(structured)
    # any other: the JSON of the whole CallToolResult, its _meta and content
    for step in ("text", "embedded", "link", "blob", "large-1048576"):
        whole = json.loads(handed[call_id_of(folder, step)])
        assert set(whole) == {"_meta", "content"}, step
    assert json.loads(handed[call_id_of(folder, "embedded")])["content"][0]["resource"]["uri"].startswith("search://")
    assert_link_unread(folder, rows)
    assert json.loads(handed[call_id_of(folder, "link")])["content"][0]["type"] == "resource_link"
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    # the image as base64 text in the tool message: an AI SDK "image-data" part, serialised
    image, note = json.loads(handed[call_id_of(folder, "image")])
    assert image["type"] == "image-data" and image["mediaType"] == "image/png" and note["type"] == "text"
    assert not processes_mentioning(str(folder))


def test_mastra_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "mastra", OFFERED)
    assert not processes_mentioning(str(folder))


def test_mastra_with_a_server_that_is_not_the_fixture(tmp_path):
    """The pretty-printed twin of a structured result reaches the model parsed and serialised anew,
    compact; two text items stay two, inside the JSON of the whole result; the link unread; large
    results whole."""
    folder, rows, facts, handed, called = run_on_shapes_offline(tmp_path, "mastra")
    twin = called["stats_pretty"]["content"][0]["text"]
    assert "\n  " in twin
    assert handed[call_id_of(folder, "structured")] == json.dumps(json.loads(twin), separators=(",", ":"))
    assert json.loads(handed[call_id_of(folder, "text")])["content"] == called["summary_with_preface"]["content"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert rows["H02"]["status"] == "FAIL"
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    large = json.loads(handed[call_id_of(folder, "large-65536")])
    assert large["content"] == called["report_log"]["content"]
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_telemetry_off(tmp_path):
    ctx, launch = prepare_stdio(tmp_path, "mastra")
    assert launch.argv[3].endswith("mcp_accept/hosts/drivers/mastra_agent.mjs")
    assert launch.env["MASTRA_TELEMETRY_DISABLED"] == "1"
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
