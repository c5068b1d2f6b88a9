"""`mcp-accept host test fast-agent` with the real fast-agent (PyPI ``fast-agent-mcp``, in the venv
``tests/hosts/fast-agent-venv`` that .ci/run makes, at the version and with the dependencies of
``tests/hosts/fast-agent-constraints.txt``), the fixture in marker mode behind the recording
proxy, and the stand-in model (Anthropic Messages) on 127.0.0.1.

Each test asserts what the run recorded: the pinned version, the tool-name scheme, what the
model was handed for each form and each large size, that every connection the host tried was
to loopback (strace), that the user's HOME stayed untouched and that no process of the run
outlives it. fast-agent not installed: the tests skip and say how to install it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from hostkit import (ROOT, assert_forms_whole, assert_offline, assert_pinned_run, call_id_of, facts_of, host_bin,
                     model_log, model_requests, observed, prepare_stdio, processes_mentioning, rows_of, run_host,
                     results_by_tool, run_over_http, tool_calls, wire)

from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts.adapters.base import HostContext
from mcp_accept.hosts.body_search import block_text, searchable_text

CONSTRAINTS = ROOT / "tests" / "hosts" / "fast-agent-constraints.txt"
VENV_BIN = ROOT / "tests" / "hosts" / "fast-agent-venv" / "bin"
PINNED = re.search(r"^fast-agent-mcp==(\S+)$", CONSTRAINTS.read_text(), re.MULTILINE).group(1)
INSTALL = (f"python3.12 -m venv {VENV_BIN.parent} && {VENV_BIN / 'pip'} install "
           f"-c {CONSTRAINTS} fast-agent-mcp (see .ci/run)")
SCHEME = "mcpaccept__{tool}"
SERVER_TOOLS = ["search_text", "search_structured", "search_embedded", "search_link", "search_large",
                "search_image", "search_blob"]
# how it hands a resource_link: the link's name and type, then its URI, as text
LINK_TEXT = "[ResourceLink: search-demo-v1.json (application/json)]\nURI: search://results/demo-v1"


def fast_agent_bin() -> str:
    # a PyPI host: its pinned install is the venv .ci/run makes, not tests/hosts/node_modules
    return host_bin("fast-agent", VENV_BIN, INSTALL)


def test_fast_agent_fills_the_host_rows_offline(tmp_path):
    # fast-agent reads the secrets file beside its config only: one planted above the run folder
    # (under either name it knows) is never read
    for name in ("fast-agent.secrets.yaml", "fastagent.secrets.yaml"):
        (tmp_path / name).write_text(json.dumps({"anthropic": {
            "base_url": "http://192.0.2.1:9", "api_key": "sk-planted-never-read"}}))
    folder = run_host(tmp_path, "fast-agent", binary=fast_agent_bin())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED, "fast-agent", api="anthropic-messages")
    assert facts["client_info"] == {"name": "fast-agent-mcp", "version": PINNED}
    assert results["conditions"]["protocol_version_on_wire"] == "2026-07-28"
    assert facts["protocol_attempts"][0]["method"] == "server/discover"
    assert_offline(facts)
    # the server's tools and nothing of the host's own: no tool to read a resource
    assert facts["tool_name_scheme"] == SCHEME
    assert facts["offered_tools"] == [SCHEME.format(tool=t) for t in SERVER_TOOLS]
    requests = model_requests(folder)
    # one request per scripted call and one for the final text, no side calls
    assert len(requests) == 13 and facts["side_calls"] == []
    # through the Anthropic SDK's beta messages (client.beta.messages), which marks its path so
    assert {r["http"]["path"] for r in requests} == {"/v1/messages?beta=true"}
    assert (folder / "host-stdout.txt").read_text().rstrip().endswith("done")
    # H01: text and embedded whole; structuredContent reaches the model in place of its text twin
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["structuredContent"]
    assert forms["structured"]["text_twin"] == "absent"
    last = requests[-1]["message"]["messages"]
    results_by_id = {b["tool_use_id"]: b for m in last if isinstance(m["content"], list)
                     for b in m["content"] if b.get("type") == "tool_result"}
    # the embedded resource is handed as a plain text block: its text, without its URI or type
    embedded = results_by_id["call_mcpaccept_02"]["content"]
    assert [b["type"] for b in embedded] == ["text"] and "search://" not in embedded[0]["text"]
    # H02: the resource_link is handed as its name, type and URI; nothing reads it
    h02 = observed(folder, "H02")
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    assert h02["handed"] == LINK_TEXT and h02["body_in_link_result"] == "absent"
    assert h02["host_read_by_itself"] is False and h02["read_tool_offered"] is None
    assert "link-read" not in json.dumps([e["http"] for e in model_log(folder)])
    methods = {(e.get("message") or {}).get("method") for e in wire(folder, facts) if e["dir"] == "out"}
    assert "resources/read" not in methods and "tools/call" in methods
    # H03: up to 8 KiB whole; from 32 KiB on, the first and last 8000 bytes with a notice between
    # (shell_execution.output_byte_limit, 16,000 bytes by default)
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert [s["handling"] for s in h03["sizes"]] == ["whole"] * 2 + ["cut in the middle"] * 4
    assert h03["threshold_bracket_bytes"] == [8192, 32768] and "output_byte_limit" in h03["moved_by"]
    large = {s["bytes"]: s for s in h03["sizes"]}
    assert all(16_000 <= large[n]["handed_characters"] < 16_400 for n in (32768, 65536, 262144, 1048576))
    big = results_by_id[call_id_of(folder, "large-1048576")]
    assert "omitted 1032576 middle bytes" in big["content"][0]["text"]
    # the last results carry Anthropic's prompt-caching mark, which is no text the model reads:
    # what it was handed ends with the server's last marker, not the mark's ttl
    assert big["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert re.search(r"MKGZ-[0-9a-f]+$", block_text(big))
    # the image stays in its tool_result as an image block with its text; the blob result's PDF
    # and PNG stay in theirs, as a document block and an image block
    assert facts["extra_forms"]["image"]["png_data_handed"] is True
    assert [b["type"] for b in results_by_id[call_id_of(folder, "image")]["content"]] == ["image", "text"]
    blob = results_by_id[call_id_of(folder, "blob")]["content"]
    assert [(b["type"], b["source"]["media_type"]) for b in blob] == [("document", "application/pdf"),
                                                                       ("image", "image/png")]
    assert blob[0]["source"]["data"].startswith("JVBERi0") and blob[1]["source"]["data"].startswith("iVBORw0KGgo")
    # the host kept nothing in its private folders: the HOME holds only the proxy's template cache
    home = sorted(str(p.relative_to(folder / "home")) for p in (folder / "home").rglob("*") if p.is_file())
    assert all(h.startswith(".cache/mcp-accept/") for h in home), home
    # the working folder holds nothing but the fence that makes it a repository root of its own
    assert [p.name for p in (folder / "work").iterdir()] == [".git"]
    # it ends its server by closing the server's input, as the spec asks, with every call answered
    assert facts["server_shutdown"]["how"] == "the host closed the proxy's stdin"
    assert facts["server_shutdown"]["interrupted"] is False and facts["server_shutdown"]["calls_unanswered"] == 0
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


SHAPES_PROFILE = """profile: shapes-fast-agent
tools:
  text: {name: summary_with_preface}
  structured: {name: stats}
  embedded: {name: report_json, mime_type: application/json}
  link: {name: report_json_link, body: bytes}
  large: {name: report_log, arguments: {chars: '{bytes}'}}
"""


def test_fast_agent_with_a_server_that_is_not_the_fixture(tmp_path):
    profile = tmp_path / "shapes.yaml"
    profile.write_text(SHAPES_PROFILE)
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'shapes_server.py'}"
    folder = run_host(tmp_path, "fast-agent", "--server", server, "--profile", str(profile),
                      "--large-sizes", "1024,65536", binary=fast_agent_bin())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert results["conditions"]["server_name"] == "shapes" and facts["host_exit"] == 0
    assert_offline(facts)
    # every tool the server lists, under the host's prefix, and none of the host's own
    offered = facts["offered_tools"]
    assert all(t.startswith("mcpaccept__") for t in offered) and len(offered) > 5
    assert {SCHEME.format(tool=t) for t in ("summary_with_preface", "stats", "report_json", "report_json_link",
                                            "report_log")} <= set(offered)
    forms = assert_forms_whole(folder, rows)
    assert forms["text"]["found"].startswith("the server's own body")
    # what the model was handed for each call, from model.jsonl, against what the server answered
    last = model_requests(folder)[-1]["message"]["messages"]
    handed = {b["tool_use_id"]: b for m in last if isinstance(m["content"], list)
              for b in m["content"] if b.get("type") == "tool_result"}
    called = results_by_tool(folder, facts)
    structured = handed[call_id_of(folder, "structured")]["content"]
    # in place of the text twin, structuredContent serialised anew (its keys in another order)
    assert [b["type"] for b in structured] == ["text"]
    assert json.loads(structured[0]["text"]) == called["stats"]["structuredContent"]
    assert structured[0]["text"] != called["stats"]["content"][0]["text"]
    assert forms["structured"]["how"] == "as a JSON value"
    # the text result's two text items are handed as two text blocks, verbatim
    assert [b["text"] for b in handed[call_id_of(folder, "text")]["content"]] == [
        i["text"] for i in called["summary_with_preface"]["content"]]
    # H02: the link handed as its name, type and URI; nothing read it
    h02 = observed(folder, "H02")
    assert rows["H02"]["status"] == "FAIL" and h02["host_reads"] == []
    assert h02["handed"] == "[ResourceLink: q3.json (application/json)]\nURI: report://q3.json"
    # H03: 64 KiB of the server's own prose, its head and tail kept and the middle cut
    sizes = {s["bytes"]: s for s in observed(folder, "H03")["sizes"]}
    assert sizes[1024]["handling"] == "whole" and sizes[65536]["handling"] == "cut in the middle"
    big = handed[call_id_of(folder, "large-65536")]
    body = called["report_log"]["content"][0]["text"]
    [text] = [b["text"] for b in big["content"]]
    assert "[Tool result truncated: showing first 8000 bytes and last 8000 bytes" in text
    assert body.encode()[:4000].decode(errors="ignore")[:-1] in text and body[-2000:] in text
    # the last results carry the prompt-caching mark: no part of what the model was handed
    assert big["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert block_text(big) == text
    assert not processes_mentioning(str(folder))


def test_the_prompt_caching_mark_is_no_text_the_model_was_handed():
    from mcp_accept.model import anthropic

    body = {"model": "m", "tools": [{"name": "s__t", "input_schema": {}}], "messages": [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "s__t", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": False,
                                      "content": [{"type": "text", "text": "body MKT-1",
                                                   "cache_control": {"type": "ephemeral"}}],
                                      "cache_control": {"type": "ephemeral", "ttl": "5m"}}]}]}
    [call] = anthropic.parse("/v1/messages", body).calls
    # the walk reads the block's strings; the mark's ttl and type are none of them
    assert block_text(call.result) == "body MKT-1"
    assert searchable_text(call.result) == "body MKT-1"
    # a field of the body that merely holds such an object is the server's, and is read
    assert block_text({"content": [{"type": "text", "text": "x"}], "meta": {"ttl": "5m"}}) == "x\n5m"


def test_fast_agent_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http(tmp_path, "fast-agent", binary=fast_agent_bin())
    assert facts["tool_name_scheme"] == SCHEME and facts["host_exit"] == 0
    assert_offline(facts)
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    # the MCP SDK under it sends MCP-Protocol-Version on every request of the session
    calls = tool_calls(folder, facts)
    assert len(calls) == 12
    assert all({k.lower(): v for k, v in e["http"]["headers"]}.get("mcp-protocol-version") == "2026-07-28"
               for e in calls)
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://api.example.invalid")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example.invalid")
    ctx, launch = prepare_stdio(tmp_path, "fast-agent")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    config_path, secrets_path = launch.files
    # the secrets file sits next to the config: the one folder fast-agent looks in for it
    assert secrets_path.parent == config_path.parent and secrets_path.name == "fast-agent.secrets.yaml"
    config = json.loads(config_path.read_text())  # JSON is YAML: what fast-agent reads
    assert config["anthropic"]["base_url"] == "http://127.0.0.1:5"
    assert config["otel"]["enabled"] is False
    assert config["mcp"]["servers"]["mcpaccept"] == {"transport": "stdio", "command": sys.executable,
                                                     "args": ["-m", "mcp_accept", "proxy"]}
    assert not Path(config["logger"]["path"]).is_relative_to(ctx.home)
    assert not Path(config["logger"]["path"]).is_relative_to(ctx.work)
    assert "sk-user-key" not in secrets_path.read_text()
    assert launch.argv[launch.argv.index("--config-path") + 1] == str(config_path)
    assert launch.argv[launch.argv.index("--servers") + 1] == "mcpaccept"
    # the update check is a global option, before the command; --no-home keeps ./.fast-agent out
    assert launch.argv[1:3] == ["--no-update-check", "go"]
    assert {"--no-home", "--no-shell", "--quiet"} <= set(launch.argv)
    assert config["session_history"] is False
    assert not any(k.startswith("ANTHROPIC_") for k in launch.env)
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in launch.env and launch.env["OTEL_SDK_DISABLED"] == "true"
    assert launch.env["HF_HUB_OFFLINE"] == "1"
    assert launch.env["HOME"] == str(ctx.home) and launch.cwd == ctx.work
    http = HostContext(folder=tmp_path / "http", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                       mcp_url="http://127.0.0.1:7/mcp")
    config = json.loads(ADAPTERS["fast-agent"].prepare(http, "/bin/true").files[0].read_text())
    assert config["mcp"]["servers"]["mcpaccept"] == {"transport": "http", "url": "http://127.0.0.1:7/mcp"}

