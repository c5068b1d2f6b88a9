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
                     run_over_http, tool_calls, wire)

from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts.adapters.base import HostContext

CONSTRAINTS = ROOT / "tests" / "hosts" / "fast-agent-constraints.txt"
VENV_BIN = ROOT / "tests" / "hosts" / "fast-agent-venv" / "bin"
PINNED = re.search(r"^fast-agent-mcp==(\S+)$", CONSTRAINTS.read_text(), re.MULTILINE).group(1)
INSTALL = (f"python3.12 -m venv {VENV_BIN.parent} && {VENV_BIN / 'pip'} install "
           f"-c {CONSTRAINTS} fast-agent-mcp (see .ci/run)")
SCHEME = "mcpaccept-{tool}"
SERVER_TOOLS = ["search_text", "search_structured", "search_embedded", "search_link", "search_large",
                "search_image", "search_blob"]
NO_CONTENT = "[No content in tool result]"


def fast_agent_bin() -> str:
    # a PyPI host: its pinned install is the venv .ci/run makes, not tests/hosts/node_modules
    return host_bin("fast-agent", VENV_BIN, INSTALL)


def test_fast_agent_fills_the_host_rows_offline(tmp_path):
    # fast-agent merges the first fastagent.secrets.yaml found from its config's folder upwards
    # over the config: one planted above the run folder must lose to the adapter's own
    (tmp_path / "fastagent.secrets.yaml").write_text(json.dumps({"anthropic": {
        "base_url": "http://192.0.2.1:9", "api_key": "sk-planted-never-read"}}))
    folder = run_host(tmp_path, "fast-agent", binary=fast_agent_bin())
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, PINNED, "fast-agent", api="anthropic-messages")
    assert facts["client_info"] == {"name": "fast-agent-mcp", "version": PINNED}
    assert results["conditions"]["protocol_version_on_wire"] == "2025-06-18"
    assert_offline(facts)
    # the server's tools and nothing of the host's own: no tool to read a resource
    assert facts["tool_name_scheme"] == SCHEME
    assert facts["offered_tools"] == [SCHEME.format(tool=t) for t in SERVER_TOOLS]
    requests = model_requests(folder)
    # one request per scripted call and one for the final text, no side calls
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1/messages"}
    assert (folder / "host-stdout.txt").read_text().rstrip().endswith("done")
    # H01: text and embedded whole; structuredContent never reaches the model, its text twin does
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert forms["structured"]["structuredContent"] == "absent"
    last = requests[-1]["message"]["messages"]
    results_by_id = {b["tool_use_id"]: b for m in last if isinstance(m["content"], list)
                     for b in m["content"] if b.get("type") == "tool_result"}
    # the embedded resource is handed as a plain text block: its text, without its URI or type
    embedded = results_by_id["call_mcpaccept_02"]["content"]
    assert [b["type"] for b in embedded] == ["text"] and "search://" not in embedded[0]["text"]
    # H02: the resource_link is dropped whole, its URI with it; nothing reads it
    h02 = observed(folder, "H02")
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    assert h02["handed"] == NO_CONTENT and h02["body_in_link_result"] == "absent"
    assert h02["host_read_by_itself"] is False and h02["read_tool_offered"] is None
    assert "link-read" not in json.dumps([e["http"] for e in model_log(folder)])
    methods = {(e.get("message") or {}).get("method") for e in wire(folder, facts) if e["dir"] == "out"}
    assert "resources/read" not in methods and "tools/call" in methods
    # H03: every size, 1 MiB too, handed whole: no cut, no file
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert [s["handling"] for s in h03["sizes"]] == ["whole"] * 6 and h03["threshold_bracket_bytes"] is None
    # the image stays in its tool_result as an image block; the blob result's PDF and PNG are
    # taken out of it and follow the tool results as a document block and an image block
    assert facts["extra_forms"]["image"]["png_data_handed"] is True
    assert [b["type"] for b in results_by_id[call_id_of(folder, "image")]["content"]] == ["image", "text"]
    assert results_by_id[call_id_of(folder, "blob")]["content"] == [{"type": "text", "text": NO_CONTENT}]
    blob_id = call_id_of(folder, "blob")
    [carrier] = [m for m in last if isinstance(m["content"], list) and any(
        b.get("tool_use_id") == blob_id for b in m["content"])]
    after = [b for b in carrier["content"] if b.get("type") != "tool_result"]
    assert [(b["type"], b["source"]["media_type"]) for b in after] == [("document", "application/pdf"),
                                                                        ("image", "image/png")]
    assert after[0]["source"]["data"].startswith("JVBERi0") and after[1]["source"]["data"].startswith("iVBORw0KGgo")
    # the host kept nothing in its private folders: the HOME holds only the proxy's template cache
    home = sorted(str(p.relative_to(folder / "home")) for p in (folder / "home").rglob("*") if p.is_file())
    assert all(h.startswith(".cache/mcp-accept/") for h in home), home
    # the working folder holds nothing but the fence that makes it a repository root of its own
    assert [p.name for p in (folder / "work").iterdir()] == [".git"]
    assert not processes_mentioning(str(folder)), "a process of the run outlived it"


def test_fast_agent_over_streamable_http(tmp_path):
    folder, rows, facts = run_over_http(tmp_path, "fast-agent", binary=fast_agent_bin())
    assert facts["tool_name_scheme"] == SCHEME and facts["host_exit"] == 0
    assert_offline(facts)
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    # the MCP SDK under it sends MCP-Protocol-Version on every request after initialize
    calls = tool_calls(folder, facts)
    assert len(calls) == 12
    assert all({k.lower(): v for k, v in e["http"]["headers"]}.get("mcp-protocol-version") == "2025-06-18"
               for e in calls)
    assert not processes_mentioning(str(folder))


def test_prepare_writes_only_under_the_run_folder_and_keeps_the_user_out(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-user-key-never-handed-over")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://api.example.invalid")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example.invalid")
    ctx, launch = prepare_stdio(tmp_path, "fast-agent")
    assert all(str(f).startswith(str(ctx.folder)) for f in launch.files)
    config_path, secrets_path = launch.files
    # the secrets file sits next to the config, so fast-agent's upward search stops there
    assert secrets_path.parent == config_path.parent and secrets_path.name == "fastagent.secrets.yaml"
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
    assert not any(k.startswith("ANTHROPIC_") for k in launch.env)
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in launch.env and launch.env["OTEL_SDK_DISABLED"] == "true"
    assert launch.env["HOME"] == str(ctx.home) and launch.cwd == ctx.work
    http = HostContext(folder=tmp_path / "http", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                       mcp_url="http://127.0.0.1:7/mcp")
    config = json.loads(ADAPTERS["fast-agent"].prepare(http, "/bin/true").files[0].read_text())
    assert config["mcp"]["servers"]["mcpaccept"] == {"transport": "http", "url": "http://127.0.0.1:7/mcp"}

