"""`mcp-accept host test continue` with the real Continue CLI of tests/hosts/package.json, the
fixture in marker mode behind the recording proxy, and the stand-in model (Anthropic Messages)
on 127.0.0.1.

Each test asserts what the run recorded: the pinned version, the tool-name scheme (the server's
own names), what the model was handed for each form and each large size (past its context limit
the host compacts the conversation instead of handing the result over), that the one call home
with no setting (the start-up version check) met the adapter's guard and nothing else of the
Continue Hub was asked for, that every connection the host tried was to loopback (strace), that
the user's HOME stayed untouched and that no process of the run outlives it.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostkit import (PINNED, assert_forms_whole, assert_offline, assert_pinned_run, facts_of, model_requests,
                     observed, processes_mentioning, rows_of, run_host, run_over_http, wire)

PACKAGE = "@continuedev/cli"
COMPACTION_ASK = "Please provide a concise summary of our conversation so far"


def server_result(folder: Path, facts: dict, arguments: dict) -> dict:
    """The result the server sent for the ``tools/call`` with these arguments, from the proxy's record."""
    asked, results = {}, {}
    for entry in wire(folder, facts):
        message = entry.get("message") or {}
        if message.get("method") == "tools/call" and message["params"].get("arguments") == arguments:
            asked[json.dumps(message["id"])] = True
        elif "result" in message and json.dumps(message.get("id")) in asked:
            results = message["result"]
    return results


def assert_continue_offline(folder: Path, facts: dict) -> None:
    assert_offline(facts)
    # the version check (no setting turns it off) met the fetch guard, query and machine id
    # not kept; no other request to the Continue Hub was made
    refused = [json.loads(line) for line in (folder / "host-config" / "refused.jsonl").read_text().splitlines()]
    assert [r["url"] for r in refused] == ["https://api.continue.dev/cn/info"]
    # every request the stand-in got was the host's model API: no catalog, no hub call
    assert {e["http"]["path"] for e in model_requests(folder)} == {"/v1/messages"}


def test_continue_cli_hands_over_the_content_array_and_compacts_past_its_context(tmp_path):
    folder = run_host(tmp_path, "continue")
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED[PACKAGE], "continue", api="anthropic-messages")
    assert facts["tool_name_scheme"] == "{tool}"  # no server prefix: two servers' tools can clash
    assert facts["client_info"]["name"] == "continue-cli-client"
    assert results["conditions"]["protocol_version_on_wire"]
    assert_continue_offline(folder, facts)

    # H01: each result reaches the model as the JSON of its content array; structuredContent
    # is dropped, the model reads the text twin
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert forms["structured"]["structuredContent"] == "absent"
    assert json.loads(forms["text"]["quote"])[0]["type"] == "text"
    assert json.loads(forms["embedded"]["quote"])[0]["type"] == "resource"

    # H02: the link alone, as JSON; no tool reads a resource and the host never reads it itself
    h02 = observed(folder, "H02")
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    assert json.loads(h02["handed"])[0]["type"] == "resource_link"
    assert h02["body_in_link_result"] == "absent" and h02["host_read_by_itself"] is False
    assert h02["read_tool_offered"] is None and h02["host_reads"] == []

    # H03: whole up to 256 KiB; the 1 MiB result (past the default 200k-token context by the
    # host's own count) is never handed back: the host asks for a summary of the conversation
    # without it, and goes on from that summary
    sizes = {s["bytes"]: s["handling"] for s in observed(folder, "H03")["sizes"]}
    assert sizes == {1024: "whole", 8192: "whole", 32768: "whole", 65536: "whole", 262144: "whole",
                     1048576: "never handed to the model"}
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    requests = model_requests(folder)
    asked = [e for e in requests if COMPACTION_ASK in json.dumps(e["message"]["messages"][-1])]
    assert len(asked) == 1
    before = [e for e in requests if e["seq"] < asked[0]["seq"]][-1]  # the request that asked for 1 MiB
    assert len(asked[0]["message"]["messages"]) < len(before["message"]["messages"])  # results dropped
    largest = max(len(json.dumps(e["message"])) for e in requests)
    assert 262144 < largest < 1048576  # the 256 KiB result went to the model, the 1 MiB one never did
    after = [e for e in requests if e["seq"] > asked[0]["seq"]]
    assert after and all(block.get("type") != "tool_result" for e in after for m in e["message"]["messages"]
                         if isinstance(m["content"], list) for block in m["content"])
    # the proxy saw the 1 MiB result come back from the server: the host had it and kept it back
    assert len(json.dumps(server_result(folder, facts, {"bytes": 1048576}))) > 1048576

    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_continue_cli_over_streamable_http(tmp_path):
    folder, _, facts = run_over_http(tmp_path, "continue")
    assert facts["host_exit"] == 0
    assert_continue_offline(folder, facts)
    assert not processes_mentioning(str(folder))
