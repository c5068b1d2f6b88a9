"""What each form costs the model: the characters and tokens of what the host handed for the
result, counted offline, and the model turns the body took (one handed inline, two through a
read tool), in rows/H0*.json and in the matrix."""

from __future__ import annotations

import json

from hostkit import model_log, rows_of, run_host
from mcp_accept.hosts.cost import ENCODING, cost, count_tokens
from mcp_accept.hosts.body_search import block_text
from mcp_accept.output.host_matrix import cost_cell, row_of


def test_tokens_are_counted_offline_with_the_named_encoding():
    # cl100k_base splits these as "hello", " world"; a JSON body costs more tokens than its prose
    assert count_tokens("hello world") == 2
    prose = cost(["The quarter closed with growth in both regions."], 1)
    assert prose == {"characters": 47, "tokens": 9, "turns": 1, "tokenizer": ENCODING}
    assert cost(['{"total": 2, "hits": ["a", "b"]}'], None)["turns"] is None
    # special-token text a server sent is counted as text, never refused
    assert count_tokens("<|endoftext|>") > 1


def test_the_cost_cell_says_tokens_and_the_turns_a_body_took():
    costs = {"text": {"tokens": 96, "turns": 1}, "link": {"tokens": 163, "turns": 2},
             "embedded": {"characters": 40, "tokens": None, "turns": None}}
    assert cost_cell(costs, "en") == "text 96, embedded 40 ch (absent), link 163 (2)"
    assert cost_cell(costs, "ja").startswith("テキスト 96")


def test_claude_code_costs_match_what_its_model_was_handed(tmp_path):
    folder = run_host(tmp_path, "claude-code")
    rows, results = rows_of(folder)
    # the conditions say which model the host asked for and how what it was handed was captured
    conditions = results["conditions"]
    assert "asked for as claude-sonnet-4-5" in conditions["model_and_settings"]
    assert conditions["model_visible_capture_method"] == "stand-in model request log"
    log = {entry["seq"]: entry for entry in model_log(folder)}
    forms = json.loads((folder / "rows" / "H01.json").read_text())["observed"]["forms"]
    for form in ("text", "structured", "embedded"):
        found = forms[form]
        assert found["cost"]["turns"] == 1 and found["cost"]["tokenizer"] == ENCODING
        # the figures are those of the block in the request model.jsonl recorded, as the model reads it
        request = log[found["exact"]["model_jsonl_seq"]]["message"]
        blocks = [b for m in request["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])
                  if b.get("type") == "tool_result"]
        assert any(count_tokens(block_text(b)) == found["cost"]["tokens"] and len(block_text(b)) ==
                   found["cost"]["characters"] for b in blocks), form
    # Claude Code hands a resource_link as its URI; the model reads the body with the host's read
    # tool, a second turn, and pays for both results
    link = json.loads((folder / "rows" / "H02.json").read_text())["observed"]
    assert link["body_via_read_tool"] == "whole" and link["cost"]["turns"] == 2
    assert link["cost"]["tokens"] > forms["text"]["cost"]["tokens"]
    assert row_of("claude-code", folder)["cost"]["link"]["turns"] == 2
