"""Tests of the reference fixture (mcp_accept/fixture.py), driven as a real process.

Every answer is validated against the official MCP schema of the protocol version
on the wire (envelope and the method's result or error definition).
"""

from __future__ import annotations

import ast
import base64
import functools
import importlib.util
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading

import httpx
import pytest
from httpx_sse import EventSource
from jsonschema import Draft7Validator, Draft202012Validator
from referencing import Registry

from conftest import FIXTURE, SCHEMA_DIR, fixture_command, load_results, run_cli, statuses

MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18")
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
META_SERVER = "io.modelcontextprotocol/serverInfo"
LINK_URI = "search://results/demo-v1"
TOOLS = ("search_text", "search_structured", "search_embedded", "search_link")
CACHEABLE = {"server/discover", "tools/list", "resources/list", "resources/templates/list",
             "resources/read"}

REFERENCE = {
    "query": "MCP", "total": 2,
    "hits": [
        {"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
        {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."},
    ],
}
TIMEOUT = 10.0


def body_of(doc) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def load_fixture_module():
    spec = importlib.util.spec_from_file_location("fixture_under_test", FIXTURE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ----- official schemas -------------------------------------------------------------

RESULT_DEFS = {
    "server/discover": "DiscoverResult",
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
}
MODERN_REQUEST_DEFS = {
    "server/discover": "DiscoverRequest",
    "tools/list": "ListToolsRequest",
    "tools/call": "CallToolRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "resources/read": "ReadResourceRequest",
}


@functools.lru_cache(maxsize=None)
def schema_file(version: str) -> dict:
    path = SCHEMA_DIR / version / "schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def validator(version: str, name: str):
    doc = schema_file(version)
    key = "$defs" if "$defs" in doc else "definitions"
    cls = Draft202012Validator if key == "$defs" else Draft7Validator
    assert name in doc[key], f"{name} is not defined in the {version} schema"
    schema = {"$schema": doc["$schema"], key: doc[key], "$ref": f"#/{key}/{name}"}
    return cls(schema, registry=Registry())


def schema_errors(version: str, name: str, instance) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(version, name).iter_errors(instance)]


def assert_valid(version: str, name: str, instance) -> None:
    errors = schema_errors(version, name, instance)
    assert not errors, f"{name} ({version}) rejects {json.dumps(instance)[:400]}: {errors[:5]}"


def check_response(version: str, method: str, msg: dict) -> dict:
    """Validate one answer against the official schema; return it."""
    if "error" in msg:
        assert_valid(version, "JSONRPCError" if version == "2025-06-18" else "JSONRPCErrorResponse",
                     msg)
        return msg
    envelope = "JSONRPCResponse" if version == "2025-06-18" else "JSONRPCResultResponse"
    assert_valid(version, envelope, msg)
    assert_valid(version, RESULT_DEFS[method], msg["result"])
    if version == MODERN:
        result = msg["result"]
        assert result["resultType"] == "complete"
        assert result["_meta"][META_SERVER]["name"] == "mcp-accept-fixture"
        if method in CACHEABLE:
            assert result["ttlMs"] == 0 and result["cacheScope"] == "private"
        else:
            assert "ttlMs" not in result and "cacheScope" not in result
    else:
        for key in ("resultType", "ttlMs", "cacheScope"):
            assert key not in msg["result"], f"legacy result carries {key}"
    return msg


def envelope(params=None, version=MODERN, caps=True) -> dict:
    out = dict(params or {})
    meta = {META_VERSION: version, META_CLIENT: {"name": "fixture-tests", "version": "1"}}
    if caps:
        meta[META_CAPS] = {}
    out["_meta"] = meta
    return out


def modern_request(method, params, msg_id) -> dict:
    msg = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": envelope(params)}
    if method in MODERN_REQUEST_DEFS:
        assert_valid(MODERN, MODERN_REQUEST_DEFS[method], msg)
    return msg


def initialize_params(version) -> dict:
    return {"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "fixture-tests", "version": "1"}}


# ----- stdio driver -----------------------------------------------------------------

class StdioFixture:
    """The fixture as a child process speaking newline-delimited JSON."""

    def __init__(self, *args, script=FIXTURE, cwd=None, python_args=()):
        self.proc = subprocess.Popen(
            [sys.executable, *python_args, str(script), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.lines: queue.Queue = queue.Queue()
        self.stderr_chunks: list[bytes] = []
        self.next_id = 0
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8"))
        self.lines.put(None)

    def _pump_stderr(self):
        for raw in self.proc.stderr:
            self.stderr_chunks.append(raw)

    def send_raw(self, text: str) -> None:
        self.proc.stdin.write(text.encode("utf-8"))
        self.proc.stdin.flush()

    def send(self, msg: dict) -> None:
        self.send_raw(json.dumps(msg) + "\n")

    def line(self, timeout=TIMEOUT):
        return self.lines.get(timeout=timeout)

    def recv(self, timeout=TIMEOUT) -> dict:
        line = self.line(timeout)
        assert line is not None, "the fixture closed its stdout"
        assert line.endswith("\n")
        return json.loads(line)

    def no_line(self, wait=0.3) -> bool:
        try:
            self.lines.get(timeout=wait)
        except queue.Empty:
            return True
        return False

    def ask(self, method, params=None, *, modern=True) -> dict:
        self.next_id += 1
        if modern:
            msg = modern_request(method, params, self.next_id)
        else:
            msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
            if params is not None:
                msg["params"] = params
        self.send(msg)
        answer = self.recv()
        assert answer["id"] == self.next_id
        return answer

    def initialize(self, version) -> dict:
        answer = self.ask("initialize", initialize_params(version), modern=False)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self, timeout=TIMEOUT) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    @property
    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")


@pytest.fixture
def stdio():
    started: list[StdioFixture] = []

    def start(*args, **kwargs) -> StdioFixture:
        proc = StdioFixture(*args, **kwargs)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()


def call_tool(server: StdioFixture, name, q="MCP", *, modern=True) -> dict:
    return server.ask("tools/call", {"name": name, "arguments": {"q": q}}, modern=modern)


def text_item(result) -> str:
    texts = [c["text"] for c in result["content"] if c["type"] == "text"]
    assert len(texts) == 1
    return texts[0]


def structured_tool(tools_result) -> dict:
    return next(t for t in tools_result["tools"] if t["name"] == "search_structured")


# ----- stdio: both eras validate ---------------------------------------------------

def run_all_methods(server: StdioFixture, version: str) -> dict:
    """Every method the fixture serves, validated; returns the results by name."""
    modern = version == MODERN
    out = {}
    if modern:
        out["discover"] = check_response(version, "server/discover",
                                         server.ask("server/discover"))["result"]
    out["ping"] = check_response(version, "ping", server.ask("ping", {}, modern=modern))
    out["tools"] = check_response(version, "tools/list",
                                  server.ask("tools/list", {}, modern=modern))["result"]
    for name in TOOLS:
        out[name] = check_response(version, "tools/call",
                                   call_tool(server, name, modern=modern))["result"]
    out["resources"] = check_response(version, "resources/list",
                                      server.ask("resources/list", {}, modern=modern))["result"]
    out["templates"] = check_response(
        version, "resources/templates/list",
        server.ask("resources/templates/list", {}, modern=modern))["result"]
    out["read"] = check_response(version, "resources/read",
                                 server.ask("resources/read", {"uri": LINK_URI},
                                            modern=modern))["result"]
    out["unknown_uri"] = check_response(
        version, "resources/read",
        server.ask("resources/read", {"uri": "search://results/nope"}, modern=modern))
    out["unknown_tool"] = check_response(
        version, "tools/call",
        server.ask("tools/call", {"name": "nope", "arguments": {"q": "MCP"}}, modern=modern))
    out["unknown_method"] = check_response(version, "ping",
                                           server.ask("nope/nothing", {}, modern=modern))
    return out


def assert_reference_forms(out: dict, *, version: str) -> None:
    assert json.loads(text_item(out["search_text"])) == REFERENCE
    structured = out["search_structured"]
    assert structured["structuredContent"] == REFERENCE
    assert text_item(structured) == body_of(REFERENCE)
    schema = structured_tool(out["tools"])["outputSchema"]
    assert Draft202012Validator(schema).is_valid(structured["structuredContent"])
    [embedded] = out["search_embedded"]["content"]
    assert embedded["type"] == "resource"
    assert embedded["resource"]["uri"] == LINK_URI
    assert embedded["resource"]["mimeType"] == "application/json"
    assert json.loads(embedded["resource"]["text"]) == REFERENCE
    [link] = out["search_link"]["content"]
    assert link == {"type": "resource_link", "uri": LINK_URI, "name": "search-demo-v1.json",
                    "mimeType": "application/json",
                    "size": len(body_of(REFERENCE).encode("utf-8"))}
    assert out["resources"]["resources"] == []
    assert out["templates"]["resourceTemplates"] == []
    [contents] = out["read"]["contents"]
    assert contents == {"uri": LINK_URI, "mimeType": "application/json",
                        "text": body_of(REFERENCE)}
    expected_code = -32602 if version == MODERN else -32002
    error = out["unknown_uri"]["error"]
    assert error["code"] == expected_code
    assert error["message"] == "Resource not found"
    assert error["data"] == {"uri": "search://results/nope"}
    assert out["unknown_tool"]["error"]["code"] == -32602
    assert out["unknown_method"]["error"]["code"] == -32601
    tool_names = [t["name"] for t in out["tools"]["tools"]]
    assert tool_names == list(TOOLS)
    for tool in out["tools"]["tools"]:
        assert tool["inputSchema"] == {"type": "object", "properties": {"q": {"type": "string"}},
                                       "required": ["q"]}


def test_stdio_modern_era_validates(stdio):
    server = stdio()
    out = run_all_methods(server, MODERN)
    assert out["discover"]["supportedVersions"] == [MODERN]
    assert out["discover"]["capabilities"] == {"tools": {}, "resources": {}}
    assert_valid(MODERN, "DiscoverResultResponse",
                 {"jsonrpc": "2.0", "id": 1, "result": out["discover"]})
    assert_valid(MODERN, "InvalidParamsError", out["unknown_uri"]["error"])
    assert_valid(MODERN, "MethodNotFoundError", out["unknown_method"]["error"])
    assert_reference_forms(out, version=MODERN)
    assert server.close() == 0


@pytest.mark.parametrize("version", LEGACY)
def test_stdio_legacy_era_validates(stdio, version):
    server = stdio()
    init = check_response(version, "initialize", server.initialize(version))["result"]
    assert init["protocolVersion"] == version
    assert init["serverInfo"] == {"name": "mcp-accept-fixture", "version": init["serverInfo"]["version"]}
    assert init["capabilities"] == {"tools": {}, "resources": {}}
    # notifications/initialized got no answer: the next line answers the next request.
    out = run_all_methods(server, version)
    assert_reference_forms(out, version=version)
    assert server.close() == 0


@pytest.mark.parametrize("requested", ["2024-11-05", MODERN, "not-a-version"])
def test_initialize_with_other_versions_negotiates_2025_11_25(stdio, requested):
    server = stdio()
    answer = server.ask("initialize", initialize_params(requested), modern=False)
    assert answer["result"]["protocolVersion"] == "2025-11-25"


def test_both_eras_on_one_stdio_connection_and_lenient_legacy(stdio):
    server = stdio()
    # A legacy-style request before any initialize is answered (leniently).
    early = check_response("2025-11-25", "tools/list", server.ask("tools/list", modern=False))
    assert len(early["result"]["tools"]) == 4
    server.initialize("2025-06-18")
    check_response(MODERN, "tools/list", server.ask("tools/list"))
    check_response("2025-06-18", "tools/call", call_tool(server, "search_text", modern=False))


def test_modern_envelope_errors(stdio):
    server = stdio()
    server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                 "params": envelope(caps=False)})
    missing = server.recv()
    assert missing["error"]["code"] == -32602
    assert_valid(MODERN, "JSONRPCErrorResponse", missing)

    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                 "params": envelope(version="2099-01-01")})
    unsupported = server.recv()
    assert unsupported["error"]["code"] == -32022
    assert unsupported["error"]["data"] == {"supported": [MODERN], "requested": "2099-01-01"}
    assert_valid(MODERN, "UnsupportedProtocolVersionError", unsupported)

    # server/discover exists only in the modern era: without an envelope it is refused.
    bare = server.ask("server/discover", modern=False)
    assert bare["error"]["code"] == -32602


def test_stdio_framing_parse_error_blank_lines_and_eof(stdio):
    server = stdio()
    server.send_raw("this is not json\n\n   \n")
    error = server.recv()
    assert error == {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32700, "message": error["error"]["message"]}}
    server.send_raw('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n')
    assert server.recv()["error"]["code"] == -32600
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.send({"jsonrpc": "2.0", "id": 99, "result": {}})  # a response from the client
    assert server.no_line()
    answer = server.ask("tools/list")
    assert answer["result"]["tools"]
    assert server.close() == 0
    assert "serving stdio" in server.stderr


def test_query_other_than_mcp(stdio):
    server = stdio()
    text = json.loads(text_item(call_tool(server, "search_text", "other q")["result"]))
    assert text == {"query": "other q", "total": 0, "hits": []}
    structured = call_tool(server, "search_structured", "other q")["result"]
    assert structured["structuredContent"] == text
    [link] = call_tool(server, "search_link", "other q")["result"]["content"]
    read = check_response(MODERN, "resources/read",
                          server.ask("resources/read", {"uri": link["uri"]}))["result"]
    [contents] = read["contents"]
    assert json.loads(contents["text"]) == text
    assert link["size"] == len(contents["text"].encode("utf-8"))
    [embedded] = call_tool(server, "search_embedded", "other q")["result"]["content"]
    assert json.loads(embedded["resource"]["text"]) == text


def test_version_and_list_breaks():
    mod = load_fixture_module()
    done = subprocess.run([sys.executable, str(FIXTURE), "--version"], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0
    assert done.stdout.strip() == f"mcp-accept-fixture {mod.FIXTURE_VERSION}"
    listed = subprocess.run([sys.executable, str(FIXTURE), "--list-breaks"],
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert [line.split()[0] for line in listed.stdout.splitlines()] == list(mod.BREAK_MODES)


def test_unknown_break_mode_exits_2_with_one_line():
    done = subprocess.run([sys.executable, str(FIXTURE), "--break", "no-such-mode"],
                          capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no-such-mode" in lines[0]


# ----- stand-alone and stdlib-only ------------------------------------------------

def test_fixture_imports_only_the_standard_library():
    tree = ast.parse(FIXTURE.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the fixture"
            names.add(node.module.split(".")[0])
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names


def test_copied_out_fixture_runs_from_any_folder(tmp_path):
    copy = tmp_path / "fixture.py"
    shutil.copy(FIXTURE, copy)
    lines = [
        modern_request("tools/call", {"name": "search_structured", "arguments": {"q": "MCP"}}, 1),
        {"jsonrpc": "2.0", "id": 2, "method": "initialize",
         "params": initialize_params("2025-06-18")},
    ]
    env = {"PATH": os.environ.get("PATH", "")}
    # -I -S: no environment, no site-packages, no user folder on sys.path.
    done = subprocess.run([sys.executable, "-I", "-S", "fixture.py"], cwd=tmp_path, env=env,
                          input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert check_response(MODERN, "tools/call", first)["result"]["structuredContent"] == REFERENCE
    assert check_response("2025-06-18", "initialize", second)["result"]["protocolVersion"] \
        == "2025-06-18"


# ----- --protocol and --sticky -------------------------------------------------------

@pytest.mark.parametrize("version", LEGACY)
def test_forced_legacy_version(stdio, version):
    server = stdio("--protocol", version)
    discover = server.ask("server/discover")
    assert discover["error"]["code"] == -32601
    modern = server.ask("tools/list")
    assert modern["error"]["code"] == -32022
    assert modern["error"]["data"] == {"supported": [version], "requested": MODERN}
    other = "2025-06-18" if version == "2025-11-25" else "2025-11-25"
    init = check_response(version, "initialize",
                          server.ask("initialize", initialize_params(other), modern=False))
    assert init["result"]["protocolVersion"] == version
    check_response(version, "tools/list", server.ask("tools/list", {}, modern=False))


def test_forced_modern_version(stdio):
    server = stdio("--protocol", MODERN)
    init = server.ask("initialize", initialize_params("2025-11-25"), modern=False)
    assert init["error"]["code"] == -32601
    bare = server.ask("tools/list", {}, modern=False)
    assert bare["error"]["code"] == -32602
    check_response(MODERN, "server/discover", server.ask("server/discover"))


def test_sticky_legacy_only_refuses_initialize_after_probe(stdio):
    server = stdio("--protocol", "2025-11-25", "--sticky")
    assert server.ask("server/discover")["error"]["code"] == -32601
    refused = server.ask("initialize", initialize_params("2025-11-25"), modern=False)
    assert refused["error"]["code"] == -32600
    assert refused["error"]["message"] == "era fixed by first request"
    assert_valid("2025-11-25", "JSONRPCErrorResponse", refused)
    # A fresh process takes the legacy route.
    fresh = stdio("--protocol", "2025-11-25", "--sticky")
    assert fresh.initialize("2025-11-25")["result"]["protocolVersion"] == "2025-11-25"
    check_response("2025-11-25", "tools/list", fresh.ask("tools/list", {}, modern=False))


def test_sticky_auto_fixes_the_first_era(stdio):
    modern_first = stdio("--sticky")
    check_response(MODERN, "server/discover", modern_first.ask("server/discover"))
    assert modern_first.ask("initialize", initialize_params("2025-11-25"),
                            modern=False)["error"]["code"] == -32600
    check_response(MODERN, "tools/list", modern_first.ask("tools/list"))

    legacy_first = stdio("--sticky")
    legacy_first.initialize("2025-06-18")
    assert legacy_first.ask("tools/list")["error"]["code"] == -32600
    check_response("2025-06-18", "tools/list", legacy_first.ask("tools/list", {}, modern=False))


# ----- break modes -------------------------------------------------------------------

def structured_of(server, *, modern=True):
    tools = server.ask("tools/list", {}, modern=modern)["result"]
    result = call_tool(server, "search_structured", modern=modern)["result"]
    return structured_tool(tools)["outputSchema"], result


def type_layer_passes(schema, value) -> bool:
    return Draft202012Validator(schema, registry=Registry()).is_valid(value)


def check_total_string(server):
    schema, result = structured_of(server)
    assert result["structuredContent"]["total"] == "2"
    assert json.loads(text_item(result))["total"] == "2"
    check_response(MODERN, "tools/call", {"jsonrpc": "2.0", "id": 1, "result": result})
    assert not type_layer_passes(schema, result["structuredContent"])


def check_total_999(server):
    schema, result = structured_of(server)
    assert result["structuredContent"]["total"] == 999
    assert len(result["structuredContent"]["hits"]) == 2
    assert json.loads(text_item(result)) == result["structuredContent"]
    assert type_layer_passes(schema, result["structuredContent"])


def check_twin_differs(server):
    schema, result = structured_of(server)
    assert result["structuredContent"] == REFERENCE
    twin = json.loads(text_item(result))
    assert twin != REFERENCE
    assert twin["hits"][1]["title"] != REFERENCE["hits"][1]["title"]
    assert type_layer_passes(schema, twin)


def check_content_missing(server):
    _schema, result = structured_of(server)
    assert "content" not in result
    assert result["structuredContent"] == REFERENCE
    assert schema_errors(MODERN, "CallToolResult", result)


def check_content_empty(server):
    _schema, result = structured_of(server)
    assert result["content"] == []
    assert result["structuredContent"] == REFERENCE
    assert_valid(MODERN, "CallToolResult", result)


def check_structured_missing(server):
    schema, result = structured_of(server)
    assert "structuredContent" not in result
    assert schema == load_fixture_module().OUTPUT_SCHEMA  # the schema is still declared
    assert json.loads(text_item(result)) == REFERENCE
    check_response(MODERN, "tools/call", {"jsonrpc": "2.0", "id": 1, "result": result})


def make_falsy_check(value):
    def check(server):
        schema, result = structured_of(server)
        assert "structuredContent" in result
        assert result["structuredContent"] == value
        assert type(result["structuredContent"]) is type(value)
        assert text_item(result) == json.dumps(value)
        assert type_layer_passes(schema, value)
        assert not type_layer_passes(schema, REFERENCE)
        assert_valid(MODERN, "CallToolResult", result)
        # Legacy schemas allow an object only: the same answer fails there.
        server.initialize("2025-11-25")
        _legacy_schema, legacy = structured_of(server, modern=False)
        assert legacy["structuredContent"] == value
        assert schema_errors("2025-11-25", "CallToolResult", legacy)
    return check


def check_external_ref(server):
    schema, result = structured_of(server)
    assert schema == {"$ref": "http://127.0.0.1:9/elsewhere.json"}
    assert result["structuredContent"] == REFERENCE
    assert_valid(MODERN, "ListToolsResult", server.ask("tools/list")["result"])


def check_unknown_uri_empty(server):
    answer = check_response(MODERN, "resources/read",
                            server.ask("resources/read", {"uri": "search://results/nope"}))
    assert answer["result"]["contents"] == []
    legacy = server.ask("resources/read", {"uri": "search://results/nope"}, modern=False)
    assert legacy["result"]["contents"] == []
    read = server.ask("resources/read", {"uri": LINK_URI})["result"]
    assert json.loads(read["contents"][0]["text"]) == REFERENCE


def check_size_wrong(server):
    [link] = call_tool(server, "search_link")["result"]["content"]
    read = server.ask("resources/read", {"uri": link["uri"]})["result"]
    assert link["size"] == len(read["contents"][0]["text"].encode("utf-8")) + 7


def check_embedded_differs(server):
    [item] = call_tool(server, "search_embedded")["result"]["content"]
    body = json.loads(item["resource"]["text"])
    assert body != REFERENCE
    assert body["hits"][0]["title"] != REFERENCE["hits"][0]["title"]
    assert json.loads(text_item(call_tool(server, "search_text")["result"])) == REFERENCE


def check_crash(server):
    call_tool_msg = modern_request("tools/call",
                                   {"name": "search_embedded", "arguments": {"q": "MCP"}}, 7)
    assert json.loads(text_item(call_tool(server, "search_text")["result"])) == REFERENCE
    server.send(call_tool_msg)
    assert server.line() is None  # stdout closed without an answer
    assert server.proc.wait(timeout=TIMEOUT) == 3


def check_hang(server):
    server.send(modern_request("tools/call",
                               {"name": "search_embedded", "arguments": {"q": "MCP"}}, 500))
    answer = server.ask("tools/list")  # answered; the hung call never is
    assert answer["id"] != 500
    call = call_tool(server, "search_link")
    assert call["id"] != 500
    assert server.no_line()
    assert server.close() == 0


def check_junk(server):
    server.send(modern_request("tools/list", {}, 1))
    junk = server.line()
    with pytest.raises(ValueError):
        json.loads(junk)
    assert json.loads(server.line())["id"] == 1
    server.send(modern_request("ping", {}, 2))
    assert server.line() == junk
    assert json.loads(server.line())["id"] == 2


BREAK_CHECKS = {
    "total-string": check_total_string,
    "total-999": check_total_999,
    "twin-differs": check_twin_differs,
    "content-missing": check_content_missing,
    "content-empty": check_content_empty,
    "structured-missing": check_structured_missing,
    "structured-null": make_falsy_check(None),
    "structured-false": make_falsy_check(False),
    "structured-zero": make_falsy_check(0),
    "structured-empty-string": make_falsy_check(""),
    "structured-empty-array": make_falsy_check([]),
    "external-ref": check_external_ref,
    "unknown-uri-empty": check_unknown_uri_empty,
    "size-wrong": check_size_wrong,
    "embedded-differs": check_embedded_differs,
    "crash": check_crash,
    "hang": check_hang,
    "junk": check_junk,
}


def test_every_break_mode_is_tested():
    from test_fixture_rule_modes import RULE_MODE_CHECKS  # the modes that break one spec rule each
    from test_fixture_session_modes import SESSION_MODE_CHECKS  # rules across a session, open fields

    mod = load_fixture_module()
    assert not set(BREAK_CHECKS) & set(RULE_MODE_CHECKS)
    assert not (set(BREAK_CHECKS) | set(RULE_MODE_CHECKS)) & set(SESSION_MODE_CHECKS)
    assert set(mod.BREAK_MODES) == set(BREAK_CHECKS) | set(RULE_MODE_CHECKS) | set(SESSION_MODE_CHECKS)
    assert all(isinstance(text, str) and text for text in mod.BREAK_MODES.values())


@pytest.mark.parametrize("mode", list(BREAK_CHECKS))
def test_break_mode(stdio, mode):
    server = stdio("--break", mode, "--ref-url", "http://127.0.0.1:9/elsewhere.json")
    BREAK_CHECKS[mode](server)


def test_break_modes_combine(stdio):
    server = stdio("--break", "total-999", "--break", "twin-differs", "--break", "size-wrong")
    _schema, result = structured_of(server)
    assert result["structuredContent"]["total"] == 999
    assert json.loads(text_item(result))["total"] == 999
    assert json.loads(text_item(result)) != result["structuredContent"]
    check_size_wrong(server)


# ----- markers and the request log ---------------------------------------------------

def test_markers_and_request_log(stdio, tmp_path):
    log_dir = tmp_path / "log" / "deeper"
    server = stdio("--markers", "--log", str(log_dir))
    server.initialize("2025-11-25")
    text = json.loads(text_item(call_tool(server, "search_text")["result"]))
    structured = call_tool(server, "search_structured")["result"]
    [embedded] = call_tool(server, "search_embedded")["result"]["content"]
    [link] = call_tool(server, "search_link")["result"]["content"]
    read = server.ask("resources/read", {"uri": link["uri"]})["result"]
    assert server.close() == 0

    info = json.loads((log_dir / "markers.json").read_text(encoding="utf-8"))
    run = info["run"]
    assert re.fullmatch(r"[0-9a-f]{8}", run)
    assert info["pid"] == server.proc.pid
    assert info["started_at"].endswith("Z")
    markers = info["markers"]
    letters = {"text": "T", "structured": "S", "twin": "W", "embedded": "E", "link": "L"}
    assert set(markers) == set(letters)
    for form, token in markers.items():
        assert re.fullmatch(rf"MK{letters[form]}-[0-9a-f]{{10}}", token), token
        assert run not in token  # the process id gives no token away
    tails = info["tails"]
    assert set(tails) == set(letters)
    for form, token in tails.items():
        assert re.fullmatch(rf"MK{letters[form]}Z-[0-9a-f]{{10}}", token), token
    # Every token has a random part of its own: one seen token tells nothing of another.
    parts = [t.split("-")[1] for t in [*markers.values(), *tails.values()]]
    assert len(set(parts)) == len(parts)
    assert info["history"] == [{k: info[k] for k in ("run", "markers", "pid", "started_at", "tails")}]

    def marked(form):
        # the head token opens the body, the tail token closes it
        doc = json.loads(json.dumps(REFERENCE))
        doc["hits"][0]["snippet"] = f"[{markers[form]}] " + doc["hits"][0]["snippet"]
        doc["hits"][-1]["snippet"] += f" [{tails[form]}]"
        return doc

    assert text == marked("text")
    assert structured["structuredContent"] == marked("structured")
    # The text twin is the same document with a token of its own.
    twin = text_item(structured)
    assert json.loads(twin) == marked("twin")
    assert markers["structured"] not in twin and tails["structured"] not in twin
    assert markers["twin"] not in json.dumps(structured["structuredContent"])
    compact_text = json.dumps(text, separators=(",", ":"))
    assert compact_text.index(markers["text"]) < 80 and compact_text.endswith(f'[{tails["text"]}]"}}]}}')
    assert json.loads(embedded["resource"]["text"]) == marked("embedded")
    body = read["contents"][0]["text"]
    assert json.loads(body) == marked("link")
    assert link["size"] == len(body.encode("utf-8"))
    assert not list(log_dir.glob(".markers-*"))  # written atomically, no leftovers

    entries = [json.loads(line) for line in
               (log_dir / "requests.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["method"] for e in entries] == [
        "initialize", "notifications/initialized", "tools/call", "tools/call", "tools/call",
        "tools/call", "resources/read"]
    assert all(e["transport"] == "stdio" and e["t"].endswith("Z") and e["run"] == run
               for e in entries)
    assert entries[1]["id"] is None
    assert [e["name"] for e in entries[2:6]] == list(TOOLS)
    assert entries[6]["uri"] == LINK_URI and entries[6]["name"] is None
    assert entries[0]["id"] == 1


def _start(log_dir, *args) -> int:
    """Start the fixture with --log, let it end at once (stdin closed); its pid."""
    proc = subprocess.Popen([sys.executable, str(FIXTURE), *args, "--log", str(log_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    proc.communicate(b"", timeout=TIMEOUT)
    assert proc.returncode == 0
    return proc.pid


def test_markers_json_keeps_every_start(tmp_path):
    # A log folder written by a fixture that kept no history: its start stays known.
    older = {"run": "0a1b2c3d", "pid": 1, "started_at": "2026-01-01T00:00:00.000Z",
             "markers": {"text": "MKT-0a1b2c3d", "structured": "MKS-0a1b2c3d",
                         "embedded": "MKE-0a1b2c3d", "link": "MKL-0a1b2c3d"}}
    (tmp_path / "markers.json").write_text(json.dumps(older), encoding="utf-8")
    pids = [_start(tmp_path, "--markers"), _start(tmp_path), _start(tmp_path, "--markers")]
    info = json.loads((tmp_path / "markers.json").read_text(encoding="utf-8"))
    history = info["history"]
    assert history[0] == older
    assert [entry["pid"] for entry in history[1:]] == pids
    assert history[2]["markers"] is None  # a start without --markers is recorded too
    assert {k: info[k] for k in ("run", "markers", "tails", "pid", "started_at")} == history[-1]
    assert "tails" not in history[2]  # a start without --markers has no tokens at all
    first, last = history[1]["markers"], history[3]["markers"]
    assert not set(first.values()) & set(last.values())  # every start has new tokens
    runs = [entry["run"] for entry in history]
    assert len(set(runs)) == len(runs)


def test_markers_json_history_survives_simultaneous_starts(tmp_path):
    procs = [subprocess.Popen([sys.executable, str(FIXTURE), "--markers", "--log", str(tmp_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for _ in range(6)]
    for proc in procs:
        proc.communicate(b"", timeout=TIMEOUT)
        assert proc.returncode == 0
    info = json.loads((tmp_path / "markers.json").read_text(encoding="utf-8"))
    assert sorted(entry["pid"] for entry in info["history"]) == sorted(p.pid for p in procs)
    assert not list(tmp_path.glob(".markers-*"))


def test_an_unreadable_markers_json_is_set_aside(tmp_path):
    (tmp_path / "markers.json").write_text("{cut sho", encoding="utf-8")
    pid = _start(tmp_path, "--markers")
    info = json.loads((tmp_path / "markers.json").read_text(encoding="utf-8"))
    assert [entry["pid"] for entry in info["history"]] == [pid]
    [aside] = tmp_path.glob("markers.json.unreadable-*")
    assert aside.read_text(encoding="utf-8") == "{cut sho"


def test_a_run_against_marker_mode_fails_the_twin_rows_by_design(tmp_path):
    # Marker runs are for observing hosts: every carrier holds its own token, so the
    # rows comparing the documents fail, while the wire and the types stay right.
    out = tmp_path / "run"
    done = run_cli("run", "--server", fixture_command("--markers"), "--out", str(out))
    assert done.returncode == 1, done.stderr
    results = load_results(out)
    seen = statuses(results)
    assert [seen[r] for r in ("W01", "S01", "S03", "S02", "X01")] == \
        ["PASS", "PASS", "PASS", "FAIL", "FAIL"]
    s02 = next(r for r in results["rows"] if r["id"] == "S02")
    assert re.search(r"MKW-[0-9a-f]{10}", s02["reason"]) and re.search(r"MKS-[0-9a-f]{10}",
                                                                        s02["reason"])


def test_log_without_markers(stdio, tmp_path):
    server = stdio("--log", str(tmp_path))
    server.ask("tools/list")
    assert server.close() == 0
    info = json.loads((tmp_path / "markers.json").read_text(encoding="utf-8"))
    assert info["markers"] is None
    assert re.fullmatch(r"[0-9a-f]{8}", info["run"])
    [entry] = [json.loads(line) for line in
               (tmp_path / "requests.jsonl").read_text(encoding="utf-8").splitlines()]
    assert entry["method"] == "tools/list" and entry["id"] == 1


# ----- Streamable HTTP ---------------------------------------------------------------

class HttpFixture:
    """The fixture serving Streamable HTTP on a free port."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, str(FIXTURE), "--http", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.proc.stdout.readline()),
                         daemon=True).start()
        threading.Thread(target=lambda: self.proc.stderr.read(), daemon=True).start()
        try:
            self.first_line = lines.get(timeout=TIMEOUT).decode("utf-8")
        except queue.Empty:
            self.kill()
            raise AssertionError("the HTTP fixture did not print its listening line")
        match = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)/mcp\n", self.first_line)
        assert match, self.first_line
        self.port = int(match.group(1))
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.client = httpx.Client(timeout=TIMEOUT)
        self.next_id = 0

    def kill(self):
        if hasattr(self, "client"):
            self.client.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    # requests ------------------------------------------------------------------

    def post(self, msg, headers=None, **kwargs) -> httpx.Response:
        base = {"Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"}
        base.update(headers or {})
        data = msg if isinstance(msg, (bytes, str)) else json.dumps(msg)
        return self.client.post(self.url, content=data, headers=base, **kwargs)

    def modern(self, method, params=None, *, headers=None, drop=(), **kwargs):
        self.next_id += 1
        msg = modern_request(method, params or {}, self.next_id)
        h = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if method == "tools/call":
            h["Mcp-Name"] = msg["params"]["name"]
        elif method == "resources/read":
            h["Mcp-Name"] = msg["params"]["uri"]
        for name in drop:
            h.pop(name, None)
        h.update(headers or {})
        return self.post(msg, h, **kwargs)

    def legacy(self, method, params=None, *, session=None, version=None, headers=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        h = {}
        if session:
            h["Mcp-Session-Id"] = session
        if version:
            h["MCP-Protocol-Version"] = version
        h.update(headers or {})
        return self.post(msg, h)

    def open_session(self, version) -> str:
        response = self.legacy("initialize", initialize_params(version))
        assert response.status_code == 200
        session = response.headers["Mcp-Session-Id"]
        note = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                         {"Mcp-Session-Id": session, "MCP-Protocol-Version": version})
        assert note.status_code == 202 and note.content == b""
        return session


def rpc(response: httpx.Response) -> dict:
    """The JSON-RPC message of an answer, JSON or SSE."""
    kind = response.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        payloads = [e.data for e in EventSource(response).iter_sse() if e.data]
        assert len(payloads) == 1, payloads
        return json.loads(payloads[0])
    assert kind.startswith("application/json"), kind
    return response.json()


@pytest.fixture(scope="module")
def http_server():
    server = HttpFixture()
    try:
        yield server
    finally:
        server.kill()


def test_http_listening_line(http_server):
    assert http_server.first_line == f"listening on http://127.0.0.1:{http_server.port}/mcp\n"


def test_http_modern_era_validates(http_server):
    server = http_server
    out = {}
    for method, params, key in [
        ("server/discover", {}, "discover"),
        ("tools/list", {}, "tools"),
        *[("tools/call", {"name": name, "arguments": {"q": "MCP"}}, name) for name in TOOLS],
        ("resources/list", {}, "resources"),
        ("resources/templates/list", {}, "templates"),
        ("resources/read", {"uri": LINK_URI}, "read"),
    ]:
        response = server.modern(method, params)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/json")
        assert "mcp-session-id" not in response.headers
        out[key] = check_response(MODERN, method, rpc(response))["result"]
    unknown_uri = server.modern("resources/read", {"uri": "search://results/nope"})
    assert unknown_uri.status_code == 200
    out["unknown_uri"] = check_response(MODERN, "resources/read", rpc(unknown_uri))
    unknown_tool = server.modern("tools/call", {"name": "nope", "arguments": {"q": "MCP"}})
    out["unknown_tool"] = check_response(MODERN, "tools/call", rpc(unknown_tool))
    unknown_method = server.modern("nope/nothing")
    assert unknown_method.status_code == 404
    out["unknown_method"] = check_response(MODERN, "ping", rpc(unknown_method))
    assert_reference_forms(out, version=MODERN)


@pytest.mark.parametrize("version", LEGACY)
def test_http_legacy_era_validates(http_server, version):
    server = http_server
    response = server.legacy("initialize", initialize_params(version))
    assert response.status_code == 200
    init = check_response(version, "initialize", rpc(response))["result"]
    assert init["protocolVersion"] == version
    session = response.headers["Mcp-Session-Id"]
    assert re.fullmatch(r"[\x21-\x7e]+", session)
    note = server.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                       {"Mcp-Session-Id": session, "MCP-Protocol-Version": version})
    assert note.status_code == 202 and note.content == b""

    def ask(method, params):
        answer = server.legacy(method, params, session=session, version=version)
        assert answer.status_code == 200, answer.text
        return check_response(version, method, rpc(answer))

    out = {"tools": ask("tools/list", {})["result"]}
    for name in TOOLS:
        out[name] = ask("tools/call", {"name": name, "arguments": {"q": "MCP"}})["result"]
    out["resources"] = ask("resources/list", {})["result"]
    out["templates"] = ask("resources/templates/list", {})["result"]
    out["read"] = ask("resources/read", {"uri": LINK_URI})["result"]
    out["unknown_uri"] = ask("resources/read", {"uri": "search://results/nope"})
    out["unknown_tool"] = ask("tools/call", {"name": "nope", "arguments": {"q": "MCP"}})
    ask("ping", {})
    out["unknown_method"] = ask("nope/nothing", {})
    assert_reference_forms(out, version=version)

    ended = server.client.delete(server.url, headers={"Mcp-Session-Id": session})
    assert ended.status_code == 200
    gone = server.legacy("tools/list", {}, session=session, version=version)
    assert gone.status_code == 404


def test_http_host_path_and_verb_rules(http_server):
    server = http_server
    msg = modern_request("ping", {}, 1)
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "ping"}
    bad_host = server.post(msg, {**headers, "Host": f"evil.example:{server.port}"})
    assert bad_host.status_code == 421
    wrong_port = server.post(msg, {**headers, "Host": f"127.0.0.1:{server.port + 1}"})
    assert wrong_port.status_code == 421
    localhost = server.post(msg, {**headers, "Host": f"localhost:{server.port}"})
    assert localhost.status_code == 200
    other_path = server.client.post(f"http://127.0.0.1:{server.port}/other",
                                    content=json.dumps(msg), headers=headers)
    assert other_path.status_code == 404
    assert server.client.get(server.url).status_code == 405
    assert server.client.delete(server.url).status_code == 400
    assert server.client.delete(server.url, headers={"Mcp-Session-Id": "nope"}).status_code == 404
    parse = server.post(b"{not json")
    assert parse.status_code == 400 and parse.json()["error"]["code"] == -32700
    response = server.post({"jsonrpc": "2.0", "id": 5, "result": {}})
    assert response.status_code == 202 and response.content == b""


def test_http_legacy_session_rules(http_server):
    server = http_server
    session = server.open_session("2025-11-25")
    missing = server.legacy("tools/list", {}, version="2025-11-25")
    assert missing.status_code == 400
    unknown = server.legacy("tools/list", {}, session="no-such-session", version="2025-11-25")
    assert unknown.status_code == 404
    no_version = server.legacy("tools/list", {}, session=session)
    assert no_version.status_code == 400
    wrong_version = server.legacy("tools/list", {}, session=session, version="2025-06-18")
    assert wrong_version.status_code == 400
    modern_header = server.legacy("tools/list", {}, session=session, version=MODERN)
    assert modern_header.status_code == 400
    fine = server.legacy("tools/list", {}, session=session, version="2025-11-25")
    assert fine.status_code == 200
    bad_init = server.legacy("initialize", initialize_params("2025-11-25"),
                             headers={"MCP-Protocol-Version": MODERN})
    assert bad_init.status_code == 400
    assert "mcp-session-id" not in bad_init.headers
    stale_note = server.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                             {"Mcp-Session-Id": "no-such-session"})
    assert stale_note.status_code == 404


def test_http_modern_header_rules(http_server):
    server = http_server

    def refused(response, status, code):
        assert response.status_code == status, response.text
        message = rpc(response)
        assert message["error"]["code"] == code
        assert_valid(MODERN, "JSONRPCErrorResponse", message)
        return message

    mismatch = refused(server.modern("tools/list", headers={"MCP-Protocol-Version": "2025-11-25"}),
                       400, -32020)
    assert_valid(MODERN, "HeaderMismatchError", mismatch)
    refused(server.modern("tools/list", drop=("MCP-Protocol-Version",)), 400, -32020)
    refused(server.modern("tools/list", headers={"Mcp-Method": "tools/call"}), 400, -32020)
    refused(server.modern("tools/list", drop=("Mcp-Method",)), 400, -32020)
    refused(server.modern("tools/call", {"name": "search_text", "arguments": {"q": "MCP"}},
                          headers={"Mcp-Name": "search_link"}), 400, -32020)
    refused(server.modern("resources/read", {"uri": LINK_URI}, drop=("Mcp-Name",)), 400, -32020)
    encoded = "=?base64?" + base64.b64encode(b"search_text").decode() + "?="
    ok = server.modern("tools/call", {"name": "search_text", "arguments": {"q": "MCP"}},
                       headers={"Mcp-Name": encoded})
    assert ok.status_code == 200
    check_response(MODERN, "tools/call", rpc(ok))

    no_caps = {"jsonrpc": "2.0", "id": 70, "method": "tools/list",
               "params": envelope(caps=False)}
    refused(server.post(no_caps, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}),
            400, -32602)
    bare = {"jsonrpc": "2.0", "id": 71, "method": "tools/list", "params": {}}
    refused(server.post(bare, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}),
            400, -32602)
    future = {"jsonrpc": "2.0", "id": 72, "method": "tools/list",
              "params": envelope(version="2099-01-01")}
    unsupported = refused(server.post(future, {"MCP-Protocol-Version": "2099-01-01",
                                               "Mcp-Method": "tools/list"}), 400, -32022)
    assert_valid(MODERN, "UnsupportedProtocolVersionError", unsupported)
    assert unsupported["error"]["data"] == {"supported": [MODERN], "requested": "2099-01-01"}


@pytest.mark.parametrize("framing", ["lf", "crlf"])
def test_http_sse_framing(framing):
    server = HttpFixture("--sse", framing)
    try:
        response = server.modern("tools/call",
                                 {"name": "search_structured", "arguments": {"q": "MCP"}})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.text
        eol = "\r\n" if framing == "crlf" else "\n"
        assert raw.startswith("data:" + eol + eol)
        if framing == "crlf":
            assert "\n" not in raw.replace("\r\n", "")
            assert not re.search(r"(^|\r\n)id:", raw)
        else:
            assert "\r" not in raw
            assert re.search(r"\nid: \d+\n", raw)
        assert "event: message" + eol in raw
        assert raw.endswith(eol + eol)
        message = check_response(MODERN, "tools/call", rpc(response))
        assert message["result"]["structuredContent"] == REFERENCE

        # Legacy over SSE: the session id still comes in a header.
        init = server.legacy("initialize", initialize_params("2025-06-18"))
        assert init.headers["content-type"].startswith("text/event-stream")
        session = init.headers["Mcp-Session-Id"]
        check_response("2025-06-18", "initialize", rpc(init))
        listed = server.legacy("tools/list", {}, session=session, version="2025-06-18")
        check_response("2025-06-18", "tools/list", rpc(listed))
        # Transport-level refusals stay plain JSON.
        refused = server.legacy("tools/list", {}, version="2025-06-18")
        assert refused.status_code == 400
        assert refused.headers["content-type"].startswith("application/json")
    finally:
        server.kill()


def test_http_session_ttl_and_reinitialize():
    server = HttpFixture("--session-ttl", "2")
    try:
        session = server.open_session("2025-11-25")
        for _ in range(2):
            ok = server.legacy("tools/list", {}, session=session, version="2025-11-25")
            assert ok.status_code == 200
        expired = server.legacy("tools/list", {}, session=session, version="2025-11-25")
        assert expired.status_code == 404
        assert server.legacy("ping", {}, session=session,
                             version="2025-11-25").status_code == 404
        again = server.open_session("2025-11-25")
        assert again != session
        ok = server.legacy("tools/list", {}, session=again, version="2025-11-25")
        assert ok.status_code == 200
    finally:
        server.kill()


def test_http_forced_versions():
    modern_only = HttpFixture("--protocol", MODERN)
    legacy_only = HttpFixture("--protocol", "2025-06-18")
    try:
        init = modern_only.legacy("initialize", initialize_params("2025-11-25"))
        assert init.status_code == 404
        assert rpc(init)["error"]["code"] == -32601
        assert modern_only.modern("server/discover").status_code == 200

        discover = legacy_only.modern("server/discover")
        assert discover.status_code == 404
        assert rpc(discover)["error"]["code"] == -32601
        listed = legacy_only.modern("tools/list")
        assert listed.status_code == 400
        assert rpc(listed)["error"]["code"] == -32022
        init = legacy_only.legacy("initialize", initialize_params("2025-11-25"))
        assert rpc(init)["result"]["protocolVersion"] == "2025-06-18"
    finally:
        modern_only.kill()
        legacy_only.kill()


def test_http_crash_closes_and_exits_3():
    server = HttpFixture("--break", "crash")
    try:
        assert server.modern("tools/call", {"name": "search_text",
                                            "arguments": {"q": "MCP"}}).status_code == 200
        with pytest.raises(httpx.TransportError):
            server.modern("tools/call", {"name": "search_embedded", "arguments": {"q": "MCP"}})
        assert server.proc.wait(timeout=TIMEOUT) == 3
    finally:
        server.kill()


def test_http_hang_leaves_other_requests_answered():
    server = HttpFixture("--break", "hang")
    try:
        with pytest.raises(httpx.ReadTimeout):
            server.modern("tools/call", {"name": "search_embedded", "arguments": {"q": "MCP"}},
                          timeout=0.5)
        fresh = httpx.Client(timeout=TIMEOUT)
        try:
            server.client.close()
            server.client = fresh
            listed = server.modern("tools/list")
            assert listed.status_code == 200
        finally:
            fresh.close()
    finally:
        server.kill()


def test_http_break_and_markers_and_log(tmp_path):
    server = HttpFixture("--break", "total-string", "--markers", "--log", str(tmp_path))
    try:
        result = rpc(server.modern("tools/call", {"name": "search_structured",
                                                  "arguments": {"q": "MCP"}}))["result"]
        info = json.loads((tmp_path / "markers.json").read_text(encoding="utf-8"))
        assert result["structuredContent"]["total"] == "2"
        assert result["structuredContent"]["hits"][0]["snippet"].startswith(
            f"[{info['markers']['structured']}] ")
        assert result["structuredContent"]["hits"][-1]["snippet"].endswith(
            f" [{info['tails']['structured']}]")
        # The break applies to the twin too; only the token tells the two apart.
        twin = json.loads(text_item(result))
        assert twin["total"] == "2"
        assert twin["hits"][0]["snippet"].startswith(f"[{info['markers']['twin']}] ")
        assert twin["hits"][-1]["snippet"].endswith(f" [{info['tails']['twin']}]")
        server.post(b"{broken")
        server.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    finally:
        server.kill()
    entries = [json.loads(line) for line in
               (tmp_path / "requests.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(e["transport"], e["method"], e["name"]) for e in entries] == [
        ("http", "tools/call", "search_structured"),
        ("http", "notifications/initialized", None)]
