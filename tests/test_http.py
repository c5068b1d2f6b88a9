"""Streamable HTTP: both eras against the fixture and an SDK server, secrets, and broken servers.

Every test drives real processes: ``mcp-accept`` as a subprocess, and HTTP servers on
127.0.0.1 (the fixture, ``tests/servers/sdk_server.py`` written with the official MCP
SDK, ``tests/servers/broken_http.py``), stopped by the test that started them.
"""

from __future__ import annotations

import json
import shlex
import socket
import sys
from pathlib import Path

import pytest

from conftest import (FIXTURE, SERVERS, load_results, refused_port, run_cli, self_signed_certificate,
                      start_http_server, statuses, stop_http_server)

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
AUTOMATED = ("W01", "W02", "W03", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01")
SDK_PROFILE = SERVERS / "sdk-profile.yaml"


def wire(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (Path(folder) / "wire.jsonl").read_text(encoding="utf-8").splitlines()]


def header(entry: dict, name: str) -> str | None:
    for key, value in entry["http"]["headers"]:
        if key.lower() == name.lower():
            return value
    return None


def automated(results: dict) -> dict[str, str]:
    return {k: v for k, v in statuses(results).items() if k in AUTOMATED}


def run_here(folder: Path, **options):
    """One run in this process (the servers are real processes all the same)."""
    from mcp_accept.running.execute import RunOptions, run

    return run(RunOptions(out=folder, offline=True, **options))


# What W03 finds in a server written with the official SDK: an unknown tool answered with
# isError: true (a rule of the sheet) and a cursor nobody handed out answered with a result
# (pagination.mdx#error-handling, a SHOULD); in the legacy era a missing resource answered
# with -32602 where 2025-11-25 resources.mdx#error-handling says SHOULD -32002 (L03).
# No MUST: under --fail-on must the run exits 0.
SDK_W03 = {"unknown_tool_error": ("FAIL", "app"), "invalid_cursor_error": ("FAIL", "should")}


def sdk_fails(version: str) -> tuple[str, ...]:
    return ("W03",) if version == MODERN else ("W03", "L03")


def sdk_w03(folder: Path) -> dict:
    checks = json.loads((folder / "rows" / "W03.json").read_text())["checks"]
    return {c["check"]: (c["status"], c["rule"]) for c in checks if c["status"] != "PASS"}


def expect_all_pass(done, folder: Path, version: str, fails: tuple[str, ...] = ()) -> dict:
    """``done`` is a finished CLI process or the outcome of :func:`run_here`."""
    if hasattr(done, "returncode"):
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert int(done.status) == 0, [(r["id"], r["reason"]) for r in done.results["rows"]]
    results = load_results(folder)
    got = automated(results)
    want = {row: "FAIL" if row in fails else "PASS" for row in AUTOMATED}
    if version != MODERN:
        want["W02"] = "UNOBTAINABLE"  # resultType and caching hints exist from 2026-07-28 on
    assert got == want, [(r["id"], r["reason"]) for r in results["rows"] if r["status"] != want.get(r["id"], r["status"])]
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert results["conditions"]["protocol_version_on_wire"] == version
    return results


def cli_run(url: str, folder: Path, *args: str, **kwargs):
    return run_cli("run", "--url", url, "--out", str(folder), *args, **kwargs)


@pytest.fixture(scope="module")
def fixture_url():
    proc, url = start_http_server(str(FIXTURE), "--http", "0")
    try:
        yield url
    finally:
        stop_http_server(proc)


# -- the fixture, both eras ------------------------------------------------------------------

def test_modern_era_over_http_every_row_passes(fixture_url, tmp_path):
    done = cli_run(fixture_url, tmp_path / "run")
    expect_all_pass(done, tmp_path / "run", MODERN)
    entries = wire(tmp_path / "run")
    sent = [e for e in entries if e["dir"] == "out"]
    assert sent and all(e["http"]["method"] == "POST" and e["http"]["url"] == fixture_url for e in sent)
    for entry in sent:
        method = entry["message"]["method"]
        assert header(entry, "MCP-Protocol-Version") == MODERN
        assert header(entry, "Mcp-Method") == method
        assert header(entry, "Mcp-Session-Id") is None
        if method == "tools/call" and "name" in entry["message"]["params"]:  # W03 sends one without
            assert header(entry, "Mcp-Name") == entry["message"]["params"]["name"]
        if method == "resources/read":
            assert header(entry, "Mcp-Name") == entry["message"]["params"]["uri"]
    # every exchange is in the log in order: the request, then the status line, then the message
    responses = [e for e in entries if e.get("event") == "http-response"]
    # streamable-http.mdx: an unknown method is "404 Not Found" with error -32601 (W03's probe)
    assert len(responses) == len(sent) and all(
        e["http"]["status"] == (404 if e.get("step") == "probe:unknown-method" else 200) for e in responses)
    for out in sent:
        number = out["http"]["exchange"]
        status = next(e for e in entries if e.get("event") == "http-response" and e["http"]["exchange"] == number)
        answer = next(e for e in entries if e["dir"] == "in" and e["http"]["exchange"] == number)
        assert out["seq"] < status["seq"] < answer["seq"]
        assert answer["message"]["id"] == out["message"]["id"]
    assert not any(e.get("event") == "http-request" for e in entries)  # no DELETE in 2026-07-28


def test_legacy_era_over_http_sessions_and_delete(fixture_url, tmp_path):
    done = run_here(tmp_path / "run", url=fixture_url, protocol=LEGACY)
    expect_all_pass(done, tmp_path / "run", LEGACY)
    entries = wire(tmp_path / "run")
    sent = [e for e in entries if e["dir"] == "out"]
    assert sent[0]["message"]["method"] == "initialize"
    assert header(sent[0], "MCP-Protocol-Version") is None and header(sent[0], "Mcp-Session-Id") is None
    first = next(e for e in entries if e.get("event") == "http-response")
    session = header(first, "Mcp-Session-Id")
    assert session
    for entry in sent[1:]:
        assert header(entry, "Mcp-Session-Id") == session
        assert header(entry, "MCP-Protocol-Version") == LEGACY
        assert header(entry, "Mcp-Method") is None
    initialized = next(e for e in sent if e["message"]["method"] == "notifications/initialized")
    status = next(e for e in entries if e.get("event") == "http-response"
                  and e["http"]["exchange"] == initialized["http"]["exchange"])
    assert status["http"]["status"] == 202
    delete = [e for e in entries if e.get("event") == "http-request"]
    assert len(delete) == 1 and delete[0]["http"]["method"] == "DELETE"
    assert header(delete[0], "Mcp-Session-Id") == session


@pytest.mark.parametrize("line_ends, version", [("lf", MODERN), ("crlf", LEGACY), ("lf", LEGACY)])
def test_sse_answers_in_both_eras(tmp_path, line_ends, version):
    # lf streams carry id: lines, crlf ones do not; both open with an event whose data is empty
    proc, url = start_http_server(str(FIXTURE), "--http", "0", "--sse", line_ends)
    try:
        folder = tmp_path / "run"
        done = run_here(folder, url=url, protocol="auto" if version == MODERN else version)
    finally:
        stop_http_server(proc)
    expect_all_pass(done, folder, version)
    entries = wire(folder)
    # every answer streams, but the 404 a modern server gives an unknown method (W03's probe)
    received = [e for e in entries if e["dir"] == "in" and e.get("step") != "probe:unknown-method"]
    assert received and all("sse" in e["http"] for e in received)
    assert all(("id" in e["http"]["sse"]) == (line_ends == "lf") for e in received)
    answers = [e for e in entries if e.get("event") == "http-response" and e["http"]["method"] == "POST"
               and e["http"]["status"] == 200]
    assert answers and all(e["detail"].endswith("text/event-stream") for e in answers)


def test_expired_session_is_reinitialized_once(tmp_path):
    # the fixture forgets a session after 4 requests: the fifth gets 404, and one new initialize follows
    proc, url = start_http_server(str(FIXTURE), "--http", "0", "--session-ttl", "4")
    try:
        done = run_here(tmp_path / "run", url=url, protocol=LEGACY)
    finally:
        stop_http_server(proc)
    expect_all_pass(done, tmp_path / "run", LEGACY)
    entries = wire(tmp_path / "run")
    # each expiry is followed by exactly one new initialize (the session lives 4 requests)
    events = [e["event"] for e in entries if e.get("event") in ("session-expired", "reinitialize")]
    assert events and events == ["session-expired", "reinitialize"] * (len(events) // 2)
    expiries = len(events) // 2
    inits = [e for e in entries if e["dir"] == "out" and e["message"]["method"] == "initialize"]
    assert len(inits) == 1 + expiries
    sessions = {header(e, "Mcp-Session-Id") for e in entries
                if e.get("event") == "http-response" and header(e, "Mcp-Session-Id")}
    assert len(sessions) == 1 + expiries
    # the first refused request (the fifth: call:embedded) went out again on a new session
    embedded = [e for e in entries if e["dir"] == "out" and e["step"] == "call:embedded"
                and e["message"]["method"] == "tools/call"]
    assert len(embedded) == 2 and header(embedded[0], "Mcp-Session-Id") != header(embedded[1], "Mcp-Session-Id")
    assert embedded[0]["message"] == embedded[1]["message"]


def test_session_that_keeps_expiring_fails_the_row_not_the_run(tmp_path):
    # a session good for no request at all: initialize works, every request gets 404
    proc, url = start_http_server(str(FIXTURE), "--http", "0", "--session-ttl", "0")
    try:
        done = run_here(tmp_path / "run", url=url, protocol=LEGACY, timeout=3)
    finally:
        stop_http_server(proc)
    assert int(done.status) == 1
    results = load_results(tmp_path / "run")
    assert statuses(results)["T01"] == "FAIL"
    reason = next(r["reason"] for r in results["rows"] if r["id"] == "T01")
    assert "404" in reason and "again" in reason


# -- starting the server -------------------------------------------------------------------

def test_server_and_url_start_drive_and_stop_the_fixture(tmp_path, held_port):
    port = held_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = shlex.join([sys.executable, str(FIXTURE), "--http", str(port)])
    done = run_cli("run", "--server", command, "--url", url, "--out", str(tmp_path / "run"))
    expect_all_pass(done, tmp_path / "run", MODERN)
    folder = tmp_path / "run"
    assert (folder / "server-stdout.log").read_text().startswith(f"listening on {url}")
    assert "serving Streamable HTTP" in (folder / "stderr.log").read_text()
    events = [e["event"] for e in wire(folder) if e["dir"] == "event"]
    assert events[:2] == ["spawn", "server-ready"] and events[-1] == "exit"
    with socket.socket() as sock:  # the server is gone
        assert sock.connect_ex(("127.0.0.1", port)) != 0


def test_server_that_exits_before_answering_is_exit_3(tmp_path):
    command = shlex.join([sys.executable, "-c", "import sys; sys.stderr.write('cannot bind\\n'); sys.exit(4)"])
    with refused_port() as port:
        done = run_here(tmp_path / "run", server=command, url=f"http://127.0.0.1:{port}/mcp")
    assert int(done.status) == 3
    results = load_results(tmp_path / "run")
    assert set(automated(results).values()) == {"UNOBTAINABLE"}
    assert results["rows"][0]["reason"] == "see run: the server could not be started"
    assert "code 4" in results["cause"] and "cannot bind" in results["cause"]  # said once
    assert "cannot bind" in (tmp_path / "run" / "stderr.log").read_text()


def test_url_nobody_answers_is_exit_3(tmp_path):
    with refused_port() as port:
        done = run_here(tmp_path / "run", url=f"http://127.0.0.1:{port}/mcp", timeout=2)
    assert int(done.status) == 3
    results = load_results(tmp_path / "run")
    assert results["rows"][0]["reason"] == "see run: the server could not be spoken to"
    assert "Connection refused" in results["cause"]


# -- headers and secrets -------------------------------------------------------------------

def test_secret_headers_never_reach_any_file_or_the_console(tmp_path, held_port):
    secret = "tok-" + "9f8e7d6c5b4a3210" * 2
    literal = "literal-secret-7731"
    port = held_port()
    url = f"http://127.0.0.1:{port}/mcp"
    # this server prints every header it gets and echoes the secrets back (headers and a result)
    command = shlex.join([sys.executable, str(SERVERS / "broken_http.py"), "--http", str(port),
                          "--echo-headers", "--defect", "search_embedded=cut"])
    folder = tmp_path / "run"
    done = run_cli("run", "--server", command, "--url", url, "--out", str(folder),
                   "--header", "Authorization: env:MCP_ACCEPT_TEST_TOKEN",
                   "--header", "X-Api-Token: env:MCP_ACCEPT_TEST_TOKEN",
                   "--header", f"X-Extra: {literal}",
                   env={"MCP_ACCEPT_TEST_TOKEN": f"Bearer {secret}"})
    # T01 gets the echo instead of the document; E01's answer is cut short: FAIL rows, no traceback
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert statuses(load_results(folder))["E01"] == "FAIL" and "E01" in done.stdout
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert {"wire.jsonl", "stderr.log", "server-stdout.log", "results.json", "sheet.md"} <= {p.name for p in files}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert secret not in text and literal not in text, path
    assert secret not in done.stdout + done.stderr and literal not in done.stdout + done.stderr
    # the values did travel: the server saw them and said so, masked in every place
    assert "X-Api-Token: [REDACTED]" in (folder / "server-stdout.log").read_text()
    entries = wire(folder)
    first = next(e for e in entries if e["dir"] == "out")
    assert header(first, "Authorization") == "[REDACTED]" and header(first, "X-Extra") == "[REDACTED]"
    echoed = next(e for e in entries if e.get("event") == "http-response")
    assert header(echoed, "X-Seen-X-Api-Token") == "[REDACTED]"


@pytest.mark.parametrize("args, expected", [
    (["--header", "just-a-token-value"], "--header #1: expected"),
    (["--header", "Bad Name: x"], "not a valid HTTP field name"),
    (["--header", "X-Key: env:MCP_ACCEPT_UNSET_VARIABLE_XYZ"], "MCP_ACCEPT_UNSET_VARIABLE_XYZ is not set"),
    (["--header", "X-Key:"], "has no value"),
    (["--url", "ftp://127.0.0.1/mcp"], "--url: must start with http"),
])
def test_bad_header_or_url_is_one_line_exit_2_and_writes_nothing(tmp_path, args, expected):
    if "--url" not in args:
        args = ["--url", "http://127.0.0.1:9/mcp", *args]
    folder = tmp_path / "run"
    done = run_cli("run", *args, "--out", str(folder))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], done.stderr
    assert "just-a-token-value" not in done.stderr
    assert not folder.exists()


def test_header_without_url_is_refused(tmp_path):
    from mcp_accept.errors import InputError

    with pytest.raises(InputError, match="--url"):
        run_here(tmp_path / "run", headers=["X-Key: v"])
    assert not (tmp_path / "run").exists()


# -- servers that misbehave on the wire ---------------------------------------------------

# Two defects per run, one on the text tool and one on the embedded tool: the other tools
# (structured, link) must be unharmed, and every defect must be a FAIL with evidence.
DEFECTS = {
    "500": ("HTTP 500", "http-error"),
    "cut": ("SSE stream ended", "http-error"),
    "cut-json": ("closed the connection without sending the complete message body", "http-error"),
    "malformed-sse": ("SSE stream ended", "violation"),
    "silent": ("no answer within 3s", "timeout"),
    "drip": ("no answer within 3s", "timeout"),
    "huge": ("exceeds --max-bytes", "violation"),
    "html": ("text/html", "violation"),
}


@pytest.mark.parametrize("on_text, on_embedded", [("500", "cut"), ("malformed-sse", "silent"),
                                                  ("huge", "drip"), ("html", "cut-json")])
def test_broken_answers_fail_their_rows_with_evidence(tmp_path, on_text, on_embedded, held_port):
    port = held_port()
    command = shlex.join([sys.executable, str(SERVERS / "broken_http.py"), "--http", str(port),
                          "--defect", f"search_text={on_text}", "--defect", f"search_embedded={on_embedded}"])
    folder = tmp_path / "run"
    # the per-request timeout bounds even a stream that drips forever: its reason says so below
    done = run_here(folder, server=command, url=f"http://127.0.0.1:{port}/mcp", timeout=3,
                    max_bytes=1_000_000)
    assert int(done.status) == 1
    results = load_results(folder)
    got = statuses(results)
    assert got["S01"] == got["S02"] == got["L01"] == got["L02"] == got["L03"] == "PASS"
    assert got["X01"] == "UNOBTAINABLE"  # two of the four forms never arrived: nothing to compare
    entries = wire(folder)
    for row, step, defect in (("T01", "call:text", on_text), ("E01", "call:embedded", on_embedded)):
        reason, evidence = DEFECTS[defect]
        assert got[row] == "FAIL"
        entry = next(r for r in results["rows"] if r["id"] == row)
        assert reason in entry["reason"], (defect, entry["reason"])
        evidence_file = json.loads((folder / entry["evidence"]).read_text())
        assert evidence_file["messages"], "the row's evidence names the wire entries it rests on"
        events = [e.get("event") for e in entries if e.get("step") == step]
        assert evidence in events, (defect, events)
        if evidence == "violation":
            assert got["W01"] == "FAIL"


# -- a server written with the official MCP SDK ---------------------------------------------

@pytest.fixture(scope="module")
def sdk_urls():
    pytest.importorskip("mcp.server.mcpserver", reason="needs the MCP Python SDK 2.x (pip install '.[test]')")
    started = []
    try:
        urls = {}
        for mode, extra in (("stateful", ()), ("stateless", ("--stateless", "--json-response"))):
            proc, url = start_http_server(str(SERVERS / "sdk_server.py"), "--http", "0", *extra)
            started.append(proc)
            urls[mode] = url
        yield urls
    finally:
        for proc in started:
            stop_http_server(proc)


@pytest.mark.parametrize("mode", ["stateful", "stateless"])
@pytest.mark.parametrize("version", [MODERN, LEGACY])
def test_sdk_server_over_http_passes_with_its_profile(sdk_urls, tmp_path, mode, version):
    folder = tmp_path / "run"
    done = run_here(folder, url=sdk_urls[mode], profile=SDK_PROFILE,
                    protocol="auto" if version == MODERN else version, fail_on="must")
    results = expect_all_pass(done, folder, version, fails=sdk_fails(version))
    assert sdk_w03(folder) == SDK_W03
    assert results["conditions"]["server_name"] == "sdk-search"
    entries = wire(folder)
    sessions = {header(e, "Mcp-Session-Id") for e in entries if e["dir"] == "out"} - {None}
    # sessions exist only in the legacy era of a stateful server
    assert bool(sessions) == (version == LEGACY and mode == "stateful")


@pytest.mark.parametrize("version", [MODERN, LEGACY])
def test_sdk_server_over_stdio_passes_with_its_profile(tmp_path, version):
    pytest.importorskip("mcp.server.mcpserver", reason="needs the MCP Python SDK 2.x (pip install '.[test]')")
    command = shlex.join([sys.executable, str(SERVERS / "sdk_server.py")])
    folder = tmp_path / "run"
    done = run_here(folder, server=command, profile=SDK_PROFILE,
                    protocol="auto" if version == MODERN else version, fail_on="must")
    assert int(done.status) == 0, [(r["id"], r["reason"]) for r in done.results["rows"]]
    results = load_results(folder)
    assert sdk_w03(folder) == SDK_W03
    want = {row: "FAIL" if row in sdk_fails(version) else "PASS" for row in AUTOMATED}
    if version != MODERN:
        want["W02"] = "UNOBTAINABLE"
    assert automated(results) == want
    assert results["conditions"]["transport"] == "stdio"
    assert results["conditions"]["protocol_version_on_wire"] == version


def test_sdk_pretty_text_twin_passes_json_equal_and_fails_exact(sdk_urls, tmp_path):
    url = sdk_urls["stateless"]
    done = run_here(tmp_path / "exact", url=url, profile=SDK_PROFILE, sets=["S02.mode=exact"])
    assert int(done.status) == 1
    results = load_results(tmp_path / "exact")
    assert statuses(results)["S02"] == "FAIL"
    assert [k for k, v in automated(results).items() if v != "PASS"] == ["W03", "S02"]  # W03: see SDK_W03
    # the reason is the pretty-printing: the twin is the same JSON, laid out with newlines
    entries = wire(tmp_path / "exact")
    answer = next(e for e in entries if e["dir"] == "in" and e["step"] == "call:structured")
    twin = answer["message"]["result"]["content"][0]["text"]
    assert "\n  " in twin and json.loads(twin) == answer["message"]["result"]["structuredContent"]


# -- header values that are not ASCII ---------------------------------------------------------

@pytest.mark.parametrize("value", ["tools/call", "search://results/demo-v1", "検索", "  padded ",
                                   "=?base64?abc?=", "tab\there", "café"])
def test_header_values_are_encoded_as_the_sdk_decodes_them(value):
    from mcp_accept.transport.http import header_value

    sent = header_value(value)
    assert sent.isascii() and "\t" not in sent
    inbound = pytest.importorskip("mcp.shared.inbound")
    assert sent == inbound.encode_header_value(value)
    assert inbound.decode_header_value(sent) == value


def test_non_ascii_name_travels_base64_and_the_fixture_reads_it(fixture_url):
    from mcp_accept.evidence.wirelog import WireLog
    from mcp_accept.transport.session import Session
    from mcp_accept.transport.http import HttpTransport

    log = WireLog(None)
    transport = HttpTransport(fixture_url, log)
    transport.open()
    try:
        session = Session(transport, timeout=5)
        assert session.negotiate("auto").version == MODERN
        reply = session.send("resources/read", {"uri": "search://results/ない"})
    finally:
        transport.close()
    # the fixture compares Mcp-Name with the body: a mismatch would be -32020, not "not found"
    assert reply.error is not None and reply.error["code"] == -32602, reply.error
    sent = [e for e in log.entries if e["dir"] == "out"][-1]
    assert header(sent, "Mcp-Name").startswith("=?base64?")


# -- tool arguments mirrored into Mcp-Param-* headers (2026-07-28) ----------------------------

def test_annotated_argument_is_mirrored_and_the_sdk_server_accepts_it(sdk_urls, tmp_path):
    folder = tmp_path / "run"
    done = run_here(folder, url=sdk_urls["stateless"], profile=SDK_PROFILE)
    assert statuses(load_results(folder))["S01"] == "PASS", done.results["rows"]
    sent = next(e for e in wire(folder) if e["dir"] == "out" and e["step"] == "call:structured"
                and e.get("message"))
    assert header(sent, "Mcp-Param-Query") == "MCP"
    assert header(next(e for e in wire(folder) if e["dir"] == "out" and e["step"] == "call:text"
                       and e.get("message")), "Mcp-Param-Query") is None


@pytest.mark.parametrize(("schema", "arguments", "headers", "problem"), [
    ({"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}},
     {"r": "us-west1"}, [("Mcp-Param-Region", "us-west1")], None),
    ({"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Greeting"}}},
     {"r": "Hello, 世界"}, [("Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?=")], None),
    ({"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"},
                                       "b": {"type": "boolean", "x-mcp-header": "B"}}},
     {"n": -7, "b": False}, [("Mcp-Param-N", "-7"), ("Mcp-Param-B", "false")], None),
    ({"type": "object", "properties": {"o": {"type": "object", "properties": {
        "k": {"type": "string", "x-mcp-header": "Key"}}}}},
     {"o": {"k": "v"}}, [("Mcp-Param-Key", "v")], None),
    ({"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}},
     {"r": None}, [], None),  # a null value: no header
    ({"type": "object", "properties": {"x": {"type": "number", "x-mcp-header": "X"}}},
     {"x": 1.5}, [], "type 'number'"),
    ({"type": "object", "properties": {"l": {"type": "array", "items": {
        "type": "string", "x-mcp-header": "Item"}}}}, {"l": ["a"]}, [], "only allowed"),
    ({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Dup"},
                                       "b": {"type": "string", "x-mcp-header": "dup"}}},
     {"a": "1", "b": "2"}, [("Mcp-Param-Dup", "1")], "used twice"),
    ({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "bad name"}}},
     {"a": "1"}, [], "field-name token"),
])
def test_param_headers_follow_the_annotation_rules(schema, arguments, headers, problem):
    from mcp_accept.transport.headers import param_headers

    got, problems = param_headers(schema, arguments)
    assert got == headers
    assert (problem is None and not problems) or (problem and any(problem in p for p in problems))


def test_sdk_server_without_its_profile_is_unobtainable_not_failed(tmp_path):
    """The SDK refuses an unknown tool with an isError result, not an error: still UNOBTAINABLE."""
    pytest.importorskip("mcp.server.mcpserver", reason="needs the MCP Python SDK 2.x (pip install '.[test]')")
    command = shlex.join([sys.executable, str(SERVERS / "sdk_server.py")])
    done = run_here(tmp_path / "run", server=command, fail_on="must")
    got = automated(load_results(tmp_path / "run"))
    assert int(done.status) == 0
    assert {got[r] for r in ("T01", "S01", "S02", "S03", "E01", "L01", "L02", "X01")} == {"UNOBTAINABLE"}
    assert got["W01"] == got["L03"] == "PASS"
    s02 = next(r for r in done.results["rows"] if r["id"] == "S02")
    assert "the tool reported an error" in s02["reason"] and "mcp-accept profile init" in s02["reason"]


def test_https_certificates_are_verified(tmp_path):
    """An https:// endpoint is spoken to over TLS and its certificate checked: one signed by
    nobody the CA store trusts is refused, and nothing is sent to it."""
    import http.server
    import shutil
    import ssl
    import threading

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = self_signed_certificate(tmp_path)
    posts: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the name http.server calls
            posts.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        done = run_here(tmp_path / "run", url=f"https://127.0.0.1:{server.server_address[1]}/mcp", timeout=5)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert int(done.status) == 3
    assert "CERTIFICATE_VERIFY_FAILED" in load_results(tmp_path / "run")["cause"]
    assert posts == []


def test_a_stream_that_stalls_is_let_go_when_the_caller_gives_up():
    """Notifications for 2 s, then nothing: the request fails at its deadline, and the thread
    reading the stream ends then too, not a whole timeout after its last read began."""
    import http.server
    import threading
    import time

    from mcp_accept.evidence.wirelog import WireLog
    from mcp_accept.transport.http import HttpTransport

    release = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 - the name http.server calls
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            if "id" not in body:  # the cancellation that follows the timeout
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for _ in range(8):  # a notification every 0.25 s, then nothing
                self.wfile.write(b'data: {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}\n\n')
                self.wfile.flush()
                time.sleep(0.25)
            release.wait(30)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    transport = HttpTransport(f"http://127.0.0.1:{server.server_address[1]}/mcp", WireLog(None))
    transport.open()
    try:
        start = time.monotonic()
        reply = transport.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=2)
        assert reply.message is None and str(reply.failure) == "no answer within 2s"
        for thread in transport._threads:
            thread.join(timeout=5)
        assert not any(t.is_alive() for t in transport._threads)
        assert time.monotonic() - start < 3.2  # the last read's own timeout would end it at 4 s
    finally:
        release.set()
        transport.close()
        server.shutdown()
        server.server_close()
