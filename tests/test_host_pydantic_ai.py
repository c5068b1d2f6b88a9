"""`mcp-accept host test pydantic-ai`: PydanticAI (PyPI ``pydantic-ai-slim[openai,mcp]``, the version of
the test extras) run by its driver, an ``Agent`` with the fixture (marker mode, behind the
recording proxy) as its ``MCPToolset``, against the stand-in model (the Responses API) on 127.0.0.1;
and the same against a server that is not the fixture.

Each test asserts what the run recorded: the framework's version, the tool names, what the model
was handed of each form and each large size (held against model.jsonl), that every connection the
driver tried was to loopback (strace), that the user's HOME stayed untouched and that no process
of the run outlives it. PydanticAI not installed: the tests skip and say how to install it.
"""

from __future__ import annotations

import importlib.metadata
import json

from hostkit import (FIXTURE_TOOLS, SHAPES_PROFILE, assert_every_size_whole, assert_forms_whole, assert_link_unread,
                     assert_offline, assert_responses_driver, call_id_of, extras_interpreter, model_requests,
                     prepare_driver, processes_mentioning, results_by_tool, run_on_shapes, run_over_http_offering,
                     run_pinned)

from mcp_accept.hosts.registry import ADAPTERS

SERVER_TOOLS = list(FIXTURE_TOOLS)


def interpreter() -> str:
    """This interpreter, which has PydanticAI where the test extras are installed."""
    return extras_interpreter("pydantic-ai-slim", "PydanticAI is not installed: pip install -e '.[test]' "
                                                  f"({ADAPTERS['pydantic-ai'].install_hint()})")


def outputs(folder) -> dict[str, object]:
    """What the driver handed its model for each call, in its last request: the output of each
    ``function_call_output`` item of the Responses API, by call id."""
    return {item["call_id"]: item["output"] for item in model_requests(folder)[-1]["message"]["input"]
            if item.get("type") == "function_call_output"}


def test_pydantic_ai_fills_the_host_rows_offline(tmp_path):
    folder, rows, results, facts = run_pinned(tmp_path, "pydantic-ai", importlib.metadata.version("pydantic-ai-slim"),
                                              "openai-responses", binary=interpreter())
    assert results["conditions"]["host_product"] == "PydanticAI"
    assert facts["client_info"]["name"] == "fastmcp"  # its MCP client is FastMCP's
    assert_offline(facts)
    # the server's tools under their own names and nothing else; one request per call and one
    # for the final text
    assert_responses_driver(folder, facts, SERVER_TOOLS, "pydantic-ai/")
    handed = outputs(folder)
    # H01: every form whole; of the structured result only structuredContent, as JSON
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent"]
    # a text item that parses as JSON is parsed and handed serialised anew, compact
    text = handed[call_id_of(folder, "text")]
    assert "MKT-" in text and json.loads(text)["total"] == 2 and ", " not in text
    # an embedded resource is handed as its text alone: no URI, no MIME type
    embedded = handed[call_id_of(folder, "embedded")]
    assert "MKE-" in embedded and "search://" not in embedded
    # H02: the resource_link is handed as its URI alone, and nothing reads it
    assert_link_unread(folder, rows, body_absent=False)
    assert handed[call_id_of(folder, "link")] == "search://results/demo-v1"
    # H03: every size whole, 1 MiB too
    assert_every_size_whole(folder, rows)
    assert "MKG-" in handed[call_id_of(folder, "large-1048576")]
    # the image item is handed as an image, its bytes a data URL; the PDF blob as a file
    image = handed[call_id_of(folder, "image")][0]
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png;base64,")
    assert facts["extra_forms"]["image"]["png_data_in_request"] is True
    blob = handed[call_id_of(folder, "blob")][0]
    assert blob["type"] == "input_file" and blob["file_data"].startswith("data:application/pdf;base64,")
    assert not processes_mentioning(str(folder))


def test_pydantic_ai_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http_offering(tmp_path, "pydantic-ai", SERVER_TOOLS, binary=interpreter())
    assert rows["H03"]["status"] == "PASS"
    assert not processes_mentioning(str(folder))


def test_pydantic_ai_with_a_server_that_is_not_the_fixture(tmp_path):
    """A structured result with a pretty-printed text twin: only the structuredContent reaches the
    model, serialised compact; two text items are handed as a list of two strings."""
    folder, rows, results, facts = run_on_shapes(tmp_path, "pydantic-ai", "--large-sizes", "1024,65536",
                                                 profile=SHAPES_PROFILE, binary=interpreter())
    assert results["conditions"]["server_name"] == "shapes" and facts["host_exit"] == 0
    assert {"summary_with_preface", "stats_stale", "report_markdown", "report_json_link", "report_log"} <= \
        set(facts["offered_tools"])
    handed = outputs(folder)
    called = results_by_tool(folder, facts)
    structured = handed[call_id_of(folder, "structured")]
    assert json.loads(structured) == called["stats_pretty"]["structuredContent"]
    assert "\n" in called["stats_pretty"]["content"][0]["text"] and "\n" not in structured
    # the prose item and the JSON item: the first as it is, the second parsed and serialised anew
    prose, report = json.loads(handed[call_id_of(folder, "text")])
    items = called["summary_with_preface"]["content"]
    assert prose == items[0]["text"] and report == json.loads(items[1]["text"])
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert rows["H02"]["status"] == "FAIL" and handed[call_id_of(folder, "link")] == "report://q3.json"
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert handed[call_id_of(folder, "large-65536")] == called["report_log"]["content"][0]["text"]
    assert not processes_mentioning(str(folder))


def test_the_driver_runs_with_the_contracts_environment(tmp_path):
    ctx, launch = prepare_driver(tmp_path, "pydantic-ai", "pydantic_ai_agent.py")
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1" and launch.env["OPENAI_API_KEY"] == ctx.model_key
