"""`host test --find-threshold`: the size where a real host stops handing a large result whole,
found to the byte within a bound of extra calls, and held against what model.jsonl shows."""

from __future__ import annotations

import json
import re
import sys

from hostkit import (ROOT, call_id_of, facts_of, model_log, model_requests, observed, processes_mentioning,
                     rows_of, run_host, wire)

from mcp_accept.hosts.threshold import next_size


def strings(value) -> str:
    """Every string of a JSON value, joined: what a model reads of a result block."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(strings(v) for v in value)
    return ""


def first_handed(folder, size: int) -> str:
    """The result of the stand-in's call of ``large-SIZE`` as the request right after that call
    held it: the last tool result of the conversation, whose call (just before it) asked for SIZE."""
    log = model_log(folder)
    called = next(e["seq"] for e in log if e["dir"] == "out"
                  and ((e.get("http") or {}).get("action") or {}).get("step") == f"large-{size}")
    for entry in log:
        message = entry.get("message")
        if entry["dir"] != "in" or entry["seq"] < called or not isinstance(message, dict):
            continue
        if "messages" in message:  # Anthropic Messages: the call, then its tool_result
            call, answer = message["messages"][-2]["content"], message["messages"][-1]["content"]
            asked = [b["input"] for b in call if isinstance(b, dict) and b.get("type") == "tool_use"]
            result = [b for b in answer if isinstance(b, dict) and b.get("type") == "tool_result"]
        elif "contents" in message:  # Gemini: the functionCall, then its functionResponse
            call, answer = message["contents"][-2]["parts"], message["contents"][-1]["parts"]
            asked = [p["functionCall"]["args"] for p in call if "functionCall" in p]
            result = [p["functionResponse"] for p in answer if "functionResponse" in p]
        else:
            continue
        if result and asked and size in asked[-1].values():
            return strings(result[-1])
    raise AssertionError(f"no request holds the result of large-{size}")


def assert_bisection(folder, bound: int, fixed: list[int]) -> dict:
    """The search stayed within its bound, each size it tried halved the bracket left by the ones
    before, and host-run.json says the same as rows/H03.json."""
    search = observed(folder, "H03")["threshold_search"]
    assert facts_of(folder)["threshold_search"] == search
    assert search["extra_calls"] == len(search["tried_bytes"]) <= bound
    steps = [((e.get("http") or {}).get("action") or {}).get("step") for e in model_log(folder) if e["dir"] == "out"]
    asked = [int(s.split("-")[1]) for s in steps if s and s.startswith("large-")]
    assert asked == fixed + search["tried_bytes"]  # no size asked twice, none beyond the bound
    handling = {s["bytes"]: s["handling"] for s in observed(folder, "H03")["sizes"]}
    for index, size in enumerate(search["tried_bytes"]):
        before = asked[:len(fixed) + index]
        assert next_size(before, [handling[b] == "whole" for b in before]) == size
    return search


def test_next_size_halves_the_bracket():
    assert next_size([1024, 65536], [True, False]) == 33280
    assert next_size([1024, 65536, 33280], [True, False, True]) == 49408
    assert next_size([100, 101], [True, False]) is None  # one byte apart: found
    assert next_size([1024, 2048], [True, True]) is None  # every size whole: nothing to narrow
    assert next_size([1024], [False]) == 512  # none whole: narrowed from nothing
    assert next_size([1024, 2048], [True, None]) is None  # a result not handed back: stop


def test_claude_code_threshold_to_the_byte_on_the_fixture(tmp_path):
    folder = run_host(tmp_path, "claude-code", "--large-sizes", "32768,65536", "--find-threshold",
                      "--threshold-calls", "16")
    rows, _ = rows_of(folder)
    search = assert_bisection(folder, 16, [32768, 65536])
    assert search["found"] and search["ended"] == "found"
    low, high = search["whole_up_to_bytes"], search["not_whole_from_bytes"]
    assert high == low + 1 and 32768 <= low < 65536
    # model.jsonl: the body of LOW bytes (its head and tail tokens, every byte) reached the model;
    # the one of HIGH bytes did not, a notice with a preview stood in its place
    markers = json.loads((folder / "fixture-log" / "markers.json").read_text())["host_tools"]["large"]
    whole, instead = first_handed(folder, low), first_handed(folder, high)
    assert markers["head"] in whole and markers["tail"] in whole and len(whole) >= low
    assert markers["tail"] not in instead and len(instead) < high
    reason = rows["H03"]["reason"]
    assert rows["H03"]["status"] == "FAIL" and f"at {high} bytes, to the byte" in reason
    assert "<persisted-output>" in reason and "MAX_MCP_OUTPUT_TOKENS" in reason  # the quote, the setting
    assert not processes_mentioning(str(folder))


def test_the_bound_of_extra_calls_holds(tmp_path):
    folder = run_host(tmp_path, "claude-code", "--large-sizes", "1024,1048576", "--find-threshold",
                      "--threshold-calls", "3")
    search = assert_bisection(folder, 3, [1024, 1048576])
    assert search["extra_calls"] == 3 and not search["found"] and "bound of 3" in search["ended"]
    low, high = search["whole_up_to_bytes"], search["not_whole_from_bytes"]
    assert high - low <= (1048576 - 1024) // 8 + 1  # each call halved the bracket
    assert "between" in rows_of(folder)[0]["H03"]["reason"]


def test_gemini_cli_threshold_is_judged_as_first_handed(tmp_path):
    # Gemini CLI replaces older tool output in later requests once the history grows: each
    # result is judged as the request right after its call held it, and the later stand-in says so
    folder = run_host(tmp_path, "gemini-cli", "--large-sizes", "32768,65536", "--find-threshold")
    search = assert_bisection(folder, 16, [32768, 65536])
    assert search["found"]
    low, high = search["whole_up_to_bytes"], search["not_whole_from_bytes"]
    markers = json.loads((folder / "fixture-log" / "markers.json").read_text())["host_tools"]["large"]
    whole, instead = first_handed(folder, low), first_handed(folder, high)
    assert markers["head"] in whole and markers["tail"] in whole and len(whole) >= low
    # a notice with the first and last characters, the middle saved to a file: the offsets each
    # line of the body opens with jump across the gap
    offsets = [int(found) for found in re.findall(r"\[@(\d+)\]", instead)]
    assert "Output too large" in instead and max(b - a for a, b in zip(offsets, offsets[1:])) > 1024
    assert "tools.truncateToolOutputThreshold" in rows_of(folder)[0]["H03"]["reason"]
    assert not processes_mentioning(str(folder))


def test_threshold_on_a_server_that_is_not_the_fixture(tmp_path):
    # the body is the server's own prose, judged by its two ends as the proxy recorded it
    profile = tmp_path / "large.yaml"
    profile.write_text("profile: shapes-large\ntools:\n  text: {name: summary_prose, body: text}\n"
                       "  large: {name: report_log, arguments: {chars: '{bytes}'}}\n")
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'shapes_server.py'}"
    folder = run_host(tmp_path, "claude-code", "--server", server, "--profile", str(profile),
                      "--large-sizes", "32768,65536", "--find-threshold")
    search = assert_bisection(folder, 16, [32768, 65536])
    assert search["found"]
    low, high = search["whole_up_to_bytes"], search["not_whole_from_bytes"]
    sizes, bodies = {}, {}
    for entry in wire(folder, facts_of(folder)):
        message = entry.get("message") or {}
        if entry["dir"] == "out" and message.get("method") == "tools/call":
            sizes[message["id"]] = (message["params"].get("arguments") or {}).get("chars")
        elif entry["dir"] == "in" and message.get("id") in sizes and "result" in message:
            bodies[sizes.pop(message["id"])] = message["result"]["content"][0]["text"]
    assert bodies[low][-64:] in first_handed(folder, low)
    assert bodies[high][-64:] not in first_handed(folder, high)
    assert not processes_mentioning(str(folder))


def chat_result(folder, size: int) -> str:
    """The tool message of the call of ``large-SIZE`` (OpenAI Chat Completions) as the first
    request that held it handed it."""
    wanted = call_id_of(folder, f"large-{size}")
    for entry in model_requests(folder):
        for message in entry["message"].get("messages") or []:
            if message.get("role") == "tool" and message.get("tool_call_id") == wanted:
                return strings(message["content"])
    raise AssertionError(f"no request holds the result of large-{size}")


def test_mistral_vibe_threshold_through_its_sandbox(tmp_path):
    # Mistral Vibe offers the server's tools only inside its run_typescript tool: each extra
    # call is a program asking for the next size, and a large call is told from the others by it
    folder = run_host(tmp_path, "mistral-vibe", "--large-sizes", "8192,32768", "--find-threshold")
    search = assert_bisection(folder, 16, [8192, 32768])
    assert search["found"] and search["ended"] == "found"
    low, high = search["whole_up_to_bytes"], search["not_whole_from_bytes"]
    calls = [((e.get("http") or {}).get("action") or {}) for e in model_log(folder) if e["dir"] == "out"]
    tried = [c for c in calls if c.get("step", "").startswith("large-")]
    assert {c["call"] for c in tried} == {"run_typescript"}
    assert all(f'({{"bytes": {c["step"][6:]}}})' in c["arguments"]["code"] for c in tried)
    # model.jsonl: the program's output of LOW bytes reached the model whole (16,000 characters
    # at most); the one of HIGH bytes is past Vibe's 16,000 and was saved to a file, its head
    # and tail in its place
    markers = json.loads((folder / "fixture-log" / "markers.json").read_text())["host_tools"]["large"]
    whole, instead = chat_result(folder, low), chat_result(folder, high)
    assert markers["head"] in whole and markers["tail"] in whole and len(whole) <= 16000
    assert instead.startswith("<system>The tool output is large.") and "<truncated-output>" in instead
    assert "Max size before saving: 16000 characters" in instead
    output = int(re.search(r"Output size: (\d+) characters", instead).group(1))
    assert output > 16000 and len(instead) < output
    assert f"at {high} bytes, to the byte" in rows_of(folder)[0]["H03"]["reason"]
    assert not processes_mentioning(str(folder))
