"""`mcp-accept proxy --server`: a host launches the proxy, the proxy launches the server.

Real clients play the host: a raw JSON-RPC client writing lines, and the official MCP
Python SDK's `Client` (both eras), against the fixture and the SDK-built test server.
Each test checks that what each side sent is what the other received and what
wire.jsonl holds, what the recording establishes of the host, and that no process is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURE, SERVERS, fixture_command, load_results

from mcp_accept.fixture import LINK_URI


def proxy_argv(server: str, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "mcp_accept", "proxy", "--server", server, "--out", str(out), *extra]


def only_folder(out: Path) -> Path:
    [folder] = [p for p in out.iterdir() if p.is_dir()]
    return folder


def wire(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines()]


def messages(folder: Path, direction: str) -> list[dict]:
    return [e["message"] for e in wire(folder) if e["dir"] == direction and "message" in e]


def server_pid(folder: Path) -> int:
    [spawn] = [e for e in wire(folder) if e.get("event") == "spawn"]
    return int(spawn["detail"].split()[1].rstrip(":"))


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


HOST_SAYS = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": True}},
                "clientInfo": {"name": "raw-host", "version": "3.1.4"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_text", "arguments": {"q": "MCP"}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search_link", "arguments": {"q": "MCP"}}},
    {"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": LINK_URI}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}},
]


def talk(argv: list[str], lines: list[bytes]) -> tuple[bytes, int]:
    """Send each line, read one answer line per request; close stdin; give all stdout bytes."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    got = b""
    for line in lines:
        proc.stdin.write(line)
        proc.stdin.flush()
        if b'"id"' in line or not line.strip().startswith(b"{"):
            got += proc.stdout.readline()
    proc.stdin.close()
    got += proc.stdout.read()
    return got, proc.wait(timeout=30)


def test_raw_host_bytes_pass_unchanged_and_are_recorded(tmp_path):
    # Odd spacing and key order: forwarded as sent, not re-serialised.
    lines = [json.dumps(m, indent=None, separators=(", ", " : ")).encode() + b"\n" for m in HOST_SAYS]
    lines.insert(3, b"this is not JSON\n")
    direct, _ = talk([sys.executable, str(FIXTURE)], lines)
    through, code = talk(proxy_argv(fixture_command(), tmp_path / "runs"), lines)
    assert code == 0
    assert through == direct  # the host reads exactly what the server wrote, nothing more
    folder = only_folder(tmp_path / "runs")
    assert messages(folder, "out") == HOST_SAYS
    assert messages(folder, "in") == [json.loads(line) for line in through.splitlines()]
    [bad] = [e for e in wire(folder) if e.get("event") == "violation"]
    assert bad["raw"] == "this is not JSON" and "the host sent not JSON" in bad["detail"]
    assert gone(server_pid(folder))

    results = load_results(folder)
    c = results["conditions"]
    assert (c["host_product"], c["host_version"]) == ("raw-host", "3.1.4")
    assert (c["transport"], c["protocol_version_on_wire"], c["server_name"]) == (
        "stdio", "2025-11-25", "mcp-accept-fixture")
    assert c["resource_read_route"] == "resources/read"
    host = json.loads((folder / "host.json").read_text(encoding="utf-8"))
    seq_of = {json.dumps(e["message"], sort_keys=True): e["seq"] for e in wire(folder) if "message" in e}
    assert host["conditions"]["host_product"]["seqs"] == [seq_of[json.dumps(HOST_SAYS[0], sort_keys=True)]]
    assert host["facts"]["client_capabilities"]["value"] == {"roots": {"listChanged": True}}
    assert host["facts"]["tools_listed"]["value"] == sorted(
        ["search_text", "search_structured", "search_embedded", "search_link"])
    assert [call["tool"] for call in host["facts"]["tool_calls"]] == ["search_text", "search_link", "no_such_tool"]
    [error] = host["facts"]["errors"]
    assert (error["method"], error["code"]) == ("tools/call", -32602)
    text_size = len(json.dumps(json.loads(through.splitlines()[3])["result"], separators=(",", ":"),
                               ensure_ascii=False).encode())
    assert c["result_size_utf8_bytes"] == text_size == host["facts"]["largest_result"]["value"]

    rows = {r["id"]: r for r in results["rows"]}
    assert set(rows) == {"H01", "H02", "H03"} and {r["status"] for r in rows.values()} == {"PENDING"}
    [link] = rows["H02"]["observed"]["wire"]["links"]
    assert link["uri"] == LINK_URI and link["read"] is True
    [read] = link["reads"]
    assert read["outcome"] == "result" and read["contents"] == 1
    assert read["request_seq"] == seq_of[json.dumps(HOST_SAYS[5], sort_keys=True)]
    assert "the host sent resources/read" in rows["H02"]["reason"]
    assert rows["H01"]["observed"]["wire"]["forms_handed"]["text"]
    evidence = json.loads((folder / "rows" / "H02.json").read_text(encoding="utf-8"))
    assert read["request_seq"] in [m["seq"] for m in evidence["messages"]]


async def _sdk_session(argv: list[str], era: str, read_link: bool, tools: tuple[str, ...],
                       arg: str = "q") -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:])
    seen: dict = {}
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="auto" if era == "2026-07-28" else "legacy",
                          cache=None, read_timeout_seconds=20) as client:
            seen["version"] = client.protocol_version
            for tool in tools:
                result = await client.call_tool(tool, {arg: "MCP"})
                for item in result.content:
                    if getattr(item, "type", None) == "resource_link":
                        seen["link"] = str(item.uri)
            if read_link:
                await client.read_resource(seen["link"])
    return seen


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
@pytest.mark.parametrize("read_link", [True, False], ids=["reads-link", "never-reads"])
def test_sdk_client_through_the_proxy(tmp_path, era, read_link):
    pytest.importorskip("mcp")
    import anyio

    out = tmp_path / "runs"
    seen = anyio.run(_sdk_session, proxy_argv(fixture_command(), out), era, read_link,
                     ("search_structured", "search_link"))
    assert seen["version"] == era and seen["link"] == LINK_URI
    folder = only_folder(out)
    assert gone(server_pid(folder))
    sent = messages(folder, "out")
    c = load_results(folder)["conditions"]
    # clientInfo where the era puts it: initialize params, or every request's _meta
    infos = [m["params"]["clientInfo"] for m in sent if m.get("method") == "initialize"] + \
            [m["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] for m in sent
             if "io.modelcontextprotocol/clientInfo" in (m.get("params") or {}).get("_meta", {})]
    assert infos and (c["host_product"], c["host_version"]) == (infos[0]["name"], infos[0]["version"])
    assert c["protocol_version_on_wire"] == era
    rows = {r["id"]: r for r in load_results(folder)["rows"]}
    [link] = rows["H02"]["observed"]["wire"]["links"]
    assert link["read"] is read_link
    if read_link:
        assert link["reads"][0]["outcome"] == "result"
    else:
        assert "never sent resources/read" in rows["H02"]["reason"]
    assert rows["H01"]["observed"]["wire"]["forms_handed"]["structured"]


def test_sdk_server_behind_the_proxy(tmp_path):
    pytest.importorskip("mcp")
    import anyio

    out = tmp_path / "runs"
    server = f"{sys.executable} {SERVERS / 'sdk_server.py'}"
    seen = anyio.run(_sdk_session, proxy_argv(server, out), "2025-11-25", True, ("find_link", "find_embedded"),
                      "query")
    folder = only_folder(out)
    results = load_results(folder)
    assert results["conditions"]["server_name"] == "sdk-search"
    [link] = {r["id"]: r for r in results["rows"]}["H02"]["observed"]["wire"]["links"]
    assert link["uri"] == seen["link"] and link["read"] is True
    assert gone(server_pid(folder))


def test_sigterm_completes_the_folder_and_stops_the_server(tmp_path):
    out = tmp_path / "runs"
    proc = subprocess.Popen(proxy_argv(fixture_command(), out), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write((json.dumps(HOST_SAYS[0]) + "\n").encode())
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 0
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    folder = only_folder(out)
    results = load_results(folder)
    assert results["interrupted"] is True
    assert results["conditions"]["host_product"] == "raw-host"
    assert "signal SIGTERM" in wire(folder)[-1]["detail"]
    assert gone(server_pid(folder))


def test_a_crashed_server_ends_the_session_with_a_complete_folder(tmp_path):
    out = tmp_path / "runs"
    proc = subprocess.Popen(proxy_argv(fixture_command("--break", "crash"), out), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for message in HOST_SAYS[:2]:
        proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                  "params": {"name": "search_embedded", "arguments": {"q": "MCP"}}}) + "\n").encode())
    proc.stdin.flush()
    rest = proc.stdout.read()  # EOF: the host sees its server go away
    assert proc.wait(timeout=30) == 0
    assert [json.loads(line)["id"] for line in rest.splitlines()] == [0]
    folder = only_folder(out)
    events = [e.get("event") for e in wire(folder)]
    assert "exit" in events and "server exit code 3" in [e.get("detail") for e in wire(folder)]
    [call] = json.loads((folder / "host.json").read_text(encoding="utf-8"))["facts"]["tool_calls"]
    assert call["outcome"] == "no answer recorded"
    assert (folder / "stderr.log").read_text(encoding="utf-8")
    assert load_results(folder)["interrupted"] is False
    proc.stdin.close()


def test_each_start_gets_its_own_folder(tmp_path):
    out = tmp_path / "runs"
    procs = [subprocess.Popen(proxy_argv(fixture_command(), out), stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(3)]
    for proc in procs:
        proc.stdin.close()
    assert [proc.wait(timeout=30) for proc in procs] == [0, 0, 0]
    folders = [p for p in out.iterdir() if p.is_dir()]
    assert len(folders) == 3 and all((f / "results.json").is_file() for f in folders)


def test_observe_keeps_the_wire_facts(tmp_path):
    lines = [(json.dumps(m) + "\n").encode() for m in HOST_SAYS]
    talk(proxy_argv(fixture_command(), tmp_path / "runs"), lines)
    folder = only_folder(tmp_path / "runs")
    note = tmp_path / "seen.txt"
    note.write_text("the host showed the link only\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "observe", str(folder), "H02", "--status",
                           "UNOBTAINABLE", "--evidence", str(note), "--note", "link shown, body not visible"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    h02 = {r["id"]: r for r in load_results(folder)["rows"]}["H02"]
    assert h02["filled_by"] == "observe" and h02["observed"]["wire"]["links"][0]["read"] is True


def test_bad_proxy_command_lines(tmp_path):
    both = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert both.returncode == 2 and "--server: give --server CMD" in both.stderr
    quote = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--server", "python 'open"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert quote.returncode == 2 and "cannot split the command" in quote.stderr and not quote.stdout


def test_report_groups_proxy_runs_by_host_and_by_server(tmp_path):
    out = tmp_path / "runs"
    sdk = f"{sys.executable} {SERVERS / 'sdk_server.py'}"

    def session(host: str, version: str, server: str) -> None:
        hello = dict(HOST_SAYS[0], params=dict(HOST_SAYS[0]["params"], clientInfo={"name": host, "version": version}))
        talk(proxy_argv(server, out), [(json.dumps(m) + "\n").encode() for m in (hello, HOST_SAYS[1], HOST_SAYS[2])])

    session("host-a", "1.0", fixture_command())
    session("host-a", "1.0", fixture_command())
    session("host-a", "1.0", sdk)  # a second server under the same host
    session("host-b", "2.0", fixture_command())
    folders = sorted(p for p in out.iterdir() if p.is_dir())
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "report", *map(str, folders), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    hosts = json.loads(done.stdout)["hosts"]
    seen = sorted((h["host_product"], h["host_version"], h["server_name"], h["server_version"], len(h["runs"]))
                  for h in hosts)
    sdk_version = next(load_results(f)["rows"][0]["observed"]["wire"]["server"]["version"] for f in folders
                       if load_results(f)["conditions"]["server_name"] == "sdk-search")
    assert seen == sorted([("host-a", "1.0", "mcp-accept-fixture", "0.1.0", 2),
                           ("host-a", "1.0", "sdk-search", sdk_version, 1),
                           ("host-b", "2.0", "mcp-accept-fixture", "0.1.0", 1)])
    markdown = subprocess.run([sys.executable, "-m", "mcp_accept", "report", *map(str, folders)],
                              capture_output=True, text=True, timeout=120).stdout
    assert "| host-a | 1.0 | mcp-accept-fixture 0.1.0 | stdio | 2025-11-25 |" in markdown


def test_the_overhead_benchmark_runs(tmp_path):
    from conftest import ROOT

    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "proxy_overhead.py"), "-n", "30",
                           "--json", str(tmp_path / "o.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads((tmp_path / "o.json").read_text())
    assert figures["n"] == 30 and "overhead (median)" in done.stdout
    assert figures["direct_median_ms"] > 0 and figures["proxy_median_ms"] > 0  # no timing is judged


def test_a_server_that_cannot_start_still_leaves_a_complete_folder(tmp_path):
    out = tmp_path / "runs"
    done = subprocess.run(proxy_argv(str(tmp_path / "no-such-server"), out), capture_output=True, text=True,
                          timeout=60, input="")
    assert done.returncode != 0 and not done.stdout
    assert "cannot start" in done.stderr and len(done.stderr.splitlines()) == 1
    folder = only_folder(out)
    assert any(e.get("event") == "spawn-failed" for e in wire(folder))
    assert {r["status"] for r in load_results(folder)["rows"]} == {"PENDING"}
