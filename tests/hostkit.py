"""What the tests of `mcp-accept host test` share: where the pinned hosts are installed, running
one host against the fixture with a decoy HOME, and reading back what the run recorded
(`results.json`, `host-run.json`, `rows/<ID>.json`, `model.jsonl`, the proxy's `wire.jsonl`).

Each helper holds the one version of a check every host's tests make; what only one host does
(opencode's empty `node_modules`, Continue's refused version check, ...) stays in its own file,
as a check after the shared one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_accept.hosts.registry import ADAPTERS
from mcp_accept.hosts.adapters.base import HostContext, Launch
from mcp_accept.hosts.adapters.framework import DrivenFramework, DrivenNodeFramework

ROOT = Path(__file__).resolve().parent.parent
HOSTS_BIN = ROOT / "tests" / "hosts" / "node_modules" / ".bin"
PINNED = json.loads((ROOT / "tests" / "hosts" / "package.json").read_text())["dependencies"]
NPM_INSTALL = "npm install --prefix tests/hosts (see .ci/run)"
FORMS = ("text", "structured", "embedded")
# The fixture's tools, as a host that offers them under their own names lists them.
FIXTURE_TOOLS = ["search_text", "search_structured", "search_embedded", "search_link", "search_large",
                 "search_image", "search_blob"]
SHAPES = ROOT / "tests" / "servers" / "shapes_server.py"
# The forms of tests/servers/shapes_server.py, a server that is not the fixture: two text items, a
# pretty-printed text twin, Markdown embedded, a link read back as bytes, a prose log.
SHAPES_PROFILE = """profile: shapes
tools:
  text: {name: summary_with_preface}
  structured: {name: stats_pretty}
  embedded: {name: report_markdown, mime_type: text/markdown}
  link: {name: report_json_link, body: bytes}
  large: {name: report_log, arguments: {chars: '{bytes}'}}
"""


# A host from PyPI (fast-agent) is pinned in a virtual environment of its own (see .ci/run).
# Each PyPI host lives in a virtual environment of its own (.ci/run makes them): their pinned
# dependencies differ, and one host's packages must not change what another hands its model.
PYPI_VENVS = {"fast-agent-mcp": "fast-agent-venv", "mistral-vibe": "vibe-venv"}
# Frameworks whose dependencies conflict with the project's have one too; the others are in the
# project's own environment.
FRAMEWORK_VENVS = ("langchain-venv", "google-adk-venv")


def framework_interpreter(adapter) -> str:
    """An interpreter that has framework ADAPTER's package: this one, else one of the framework
    venvs .ci/run makes; with none the test skips, saying how to install it."""
    from unittest import mock

    bins = [ROOT / "tests" / "hosts" / venv / "bin" for venv in FRAMEWORK_VENVS]
    path = os.pathsep.join([*(str(b) for b in bins if b.is_dir()), os.environ.get("PATH", "")])
    with mock.patch.dict(os.environ, PATH=path):
        found = adapter.find(None)
    if not found:
        pytest.skip(f"{adapter.product} is not installed: {adapter.install_hint()}")
    return found


def host_bin(name: str, folder: Path | None = None, install: str | None = None) -> str:
    """The binary of host NAME (a key of ADAPTERS) to test: the pinned one under FOLDER (by
    default where the npm hosts or each PyPI host is pinned), else one on PATH. With neither the
    test skips, saying how to install it."""
    adapter = ADAPTERS[name]
    if isinstance(adapter, DrivenNodeFramework):
        found = adapter.find(str(folder or ROOT / "tests" / "hosts"))
        if not found:
            pytest.skip(f"{adapter.product} is not installed: node on PATH and its packages by {NPM_INSTALL}")
        return found
    if isinstance(adapter, DrivenFramework):
        return framework_interpreter(adapter)
    if adapter.pypi_package:
        venv = PYPI_VENVS[adapter.pypi_package]
        folder = folder or ROOT / "tests" / "hosts" / venv / "bin"
        install = install or f"the tests/hosts/{venv} .ci/run makes"
    folder = folder or HOSTS_BIN
    install = install or NPM_INSTALL
    local = folder / adapter.binary
    found = str(local) if local.exists() else shutil.which(adapter.binary)
    if not found:
        pytest.skip(f"{adapter.product} is not installed: {install}")
    return found


def run_host(tmp_path: Path, name: str, *args: str, binary: str | None = None, out: Path | None = None,
             codes: tuple[int, ...] = (0, 1)) -> Path:
    """Run `python -m mcp_accept host test NAME --host-bin BINARY --out OUT ARGS` with HOME and
    XDG_CONFIG_HOME on a decoy folder; assert it ended in one of CODES (by default a verdict: exit
    0 or 1) and left the user's HOME alone. Returns the run folder (OUT, by default tmp_path/run)."""
    binary = binary or host_bin(name)
    out = out or tmp_path / "run"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", name, "--host-bin", binary,
                           "--out", str(out), *args], capture_output=True, text=True, timeout=240, env=env)
    # the host keeps its config in the run's private HOME (no ~/.qwen, ~/.continue, ... here):
    # all that may appear in the user's is mcp-accept's own cache of compiled templates, which
    # every command of it keeps
    written = sorted(str(p.relative_to(decoy)) for p in decoy.rglob("*"))
    assert all(w == ".cache" or w.startswith(".cache/mcp-accept") for w in written), written
    assert done.returncode in codes, done.stderr
    return out


def run_on_shapes_offline(tmp_path: Path, name: str) -> tuple[Path, dict, dict, dict, dict]:
    """run_on_shapes, and what every such run shows: the shapes server measured, the host ended
    by itself, loopback only. Returns the folder, its rows, host-run.json, what the model was
    handed by call id (handed_outputs) and what the server answered by tool (results_by_tool)."""
    folder, rows, results, facts = run_on_shapes(tmp_path, name, "--large-sizes", "1024,65536",
                                                 profile=SHAPES_PROFILE)
    assert results["conditions"]["server_name"] == "shapes" and facts["host_exit"] == 0
    assert_offline(facts)
    return folder, rows, facts, handed_outputs(folder), results_by_tool(folder, facts)


def run_once(factory, name: str) -> tuple[Path, dict, dict, dict]:
    """One run of NAME against the fixture, for a module's tests to share (``tmp_path_factory``):
    its folder, rows, results.json and host-run.json."""
    folder = run_host(factory.mktemp("fixture"), name)
    return folder, *rows_of(folder), facts_of(folder)


def run_over_http(tmp_path: Path, name: str, binary: str | None = None) -> tuple[Path, dict, dict]:
    """Run NAME against the proxy's Streamable HTTP side and check what every host's HTTP run
    shows: the transport on the sheet and H01 passing. Returns the run folder, its rows by id and
    host-run.json, for the host's own checks."""
    folder = run_host(tmp_path, name, "--transport", "http", binary=binary)
    rows, results = rows_of(folder)
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    facts = facts_of(folder)
    # host test stopped the HTTP proxy itself: how that process ended is not the host's doing
    assert facts["server_shutdown"]["ended_by"].startswith("mcp-accept")
    assert not [q for q in facts["host_quirks"] if "stopped its server" in q["quirk"]]
    return folder, rows, facts


def rows_of(folder: Path) -> tuple[dict, dict]:
    """The rows of a run's results.json by id, and the whole of it."""
    results = json.loads((folder / "results.json").read_text())
    return {row["id"]: row for row in results["rows"]}, results


def facts_of(folder) -> dict:
    """What `host test` recorded of the host itself (host-run.json): version, exit, connects, ..."""
    return json.loads((folder / "host-run.json").read_text())


def observed(folder: Path, row: str) -> dict:
    """What one host row observed, from rows/<ROW>.json."""
    return json.loads((folder / "rows" / f"{row}.json").read_text())["observed"]


def assert_forms_whole(folder: Path, rows: dict) -> dict:
    """H01 passed, and the text, structured and embedded results each reached the model whole.
    Returns H01's forms, for what the host's own tests say of each."""
    forms = observed(folder, "H01")["forms"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert {forms[f]["reached"] for f in FORMS} == {"whole"}
    return forms


def assert_responses_forms(folder: Path, rows: dict, handed: dict) -> None:
    """What the Responses API frameworks measured alike hand: H01 whole with the text twin alone,
    the text item an ``input_text``, the image an ``input_image`` data URL, H03 whole to 1 MiB."""
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    [text] = handed[call_id_of(folder, "text")]
    assert text["type"] == "input_text" and "MKT-" in text["text"]
    image = handed[call_id_of(folder, "image")][0]
    assert image["type"] == "input_image" and image["image_url"].startswith("data:image/png;base64,")
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert len(handed[call_id_of(folder, "large-1048576")][0]["text"]) == 1048576


def assert_pinned_run(facts: dict, results: dict, version: str, name: str | None = None,
                      api: str | None = None) -> None:
    """The host that ran is VERSION (the pinned one), the sheet says so, and it exited 0 on its own
    (no timeout). With NAME, VERSION is also the one that host's adapter was tested against; with
    API, the host spoke that model API to the stand-in."""
    assert facts["version"] == version
    assert results["conditions"]["host_version"] == version
    assert facts["host_exit"] == 0 and not facts["timed_out"]
    if name is not None:
        assert version == ADAPTERS[name].tested_version
    if api is not None:
        assert facts["api"] == api


def run_pinned(tmp_path: Path, name: str, version: str, api: str,
               binary: str | None = None) -> tuple[Path, dict, dict, dict]:
    """Run NAME against the fixture and check it ran as pinned (:func:`assert_pinned_run`, with the
    model API it speaks). Returns the run folder, its rows by id, results.json and host-run.json."""
    folder = run_host(tmp_path, name, binary=binary)
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert_pinned_run(facts, results, version, name, api=api)
    return folder, rows, results, facts


def run_over_http_offering(tmp_path: Path, name: str, tools: set | list, scheme: str | None = None,
                           binary: str | None = None, offline: bool = True) -> tuple[Path, dict, dict]:
    """:func:`run_over_http`, and the host offered its model TOOLS (a set: in any order; a list:
    in that order), named by SCHEME when given; with OFFLINE, it reached nothing but loopback
    (:func:`assert_offline`) and the fixture's link was read by no route (H02 failed)."""
    folder, rows, facts = run_over_http(tmp_path, name, binary)
    if scheme is not None:
        assert facts["tool_name_scheme"] == scheme
    offered = set(facts["offered_tools"]) if isinstance(tools, set) else facts["offered_tools"]
    assert offered == tools
    if offline:
        assert_offline(facts)
        assert rows["H02"]["status"] == "FAIL"
    return folder, rows, facts


def extras_interpreter(distribution: str, install: str) -> str:
    """This interpreter, which has a framework's DISTRIBUTION where the test extras are installed;
    without it the test skips, saying INSTALL."""
    import importlib.metadata

    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(install)
    return sys.executable


def fixture_tools(scheme: str) -> set[str]:
    return {scheme.format(tool=tool) for tool in FIXTURE_TOOLS}


# The shapes server's own bodies under the names of the fixture's forms: prose, a structured result
# whose tool declares no outputSchema (its text twin says total 2, its structuredContent 3),
# Markdown and a link; no large tool, so H03 cannot be measured.
STALE_PROFILE = {"profile": "shapes-stale", "tools": {
    "text": {"name": "summary_prose", "body": "text"},
    "structured": {"name": "stats_stale"},
    "embedded": {"name": "report_markdown", "mime_type": "text/markdown"},
    "link": {"name": "report_json_link", "body": "bytes"}}}


def run_on_shapes(tmp_path: Path, name: str, *args: str, profile: dict | str = STALE_PROFILE,
                  binary: str | None = None) -> tuple[Path, dict, dict, dict]:
    """Run NAME against the shapes server (a server that is not the fixture) under PROFILE (a
    mapping, or a profile's YAML text) and check the sheet names that server. Returns the run
    folder, its rows by id, results.json and host-run.json."""
    import yaml

    written = tmp_path / "shapes.yaml"
    written.write_text(profile if isinstance(profile, str) else yaml.safe_dump(profile))
    folder = run_host(tmp_path, name, "--server", f"{sys.executable} {SHAPES}", "--profile", str(written), *args,
                      binary=binary)
    rows, results = rows_of(folder)
    facts = facts_of(folder)
    assert results["conditions"]["server_name"] != "mcp-accept-fixture"
    assert_offline(facts)
    return folder, rows, results, facts


def assert_shapes_forms(folder: Path, rows: dict, found: bool = True, passed: bool = True) -> dict:
    """Under :data:`STALE_PROFILE`: (with PASSED) H01 passed, the text and the embedded result
    reached the model whole (with FOUND, the text as the server's own body), H02 failed and H03
    could not be measured. Returns H01's forms."""
    if passed:
        assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    forms = observed(folder, "H01")["forms"]
    if found:
        assert forms["text"]["found"].startswith("the server's own body")
    assert forms["text"]["reached"] == "whole" and forms["embedded"]["reached"] == "whole"
    assert rows["H02"]["status"] == "FAIL" and rows["H03"]["status"] == "UNOBTAINABLE"
    return forms


def handed_by_call(requests: list[dict]) -> dict[str, object]:
    """What the last request (Chat Completions) handed the model for each call: its tool message's
    content, by call id."""
    return {m.get("tool_call_id"): m.get("content") for m in requests[-1]["message"]["messages"]
            if m.get("role") == "tool"}


def handed_and_after(folder: Path) -> tuple[dict, dict]:
    """From the longest conversation the host sent (Chat Completions; a side call holds no tool
    message): what each scripted step's tool message handed the model, and the JSON of the user
    message right after it ("" where none follows: where a host moves a result's media)."""
    step = call_ids(folder)
    messages = max((r["message"].get("messages") or [] for r in model_requests(folder)), key=len)
    tool_messages = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    handed = {key: tool_messages[call]["content"] for key, call in step.items()}
    after = {}
    for index, message in enumerate(messages[:-1]):
        if message.get("role") == "tool" and messages[index + 1].get("role") == "user":
            after[message["tool_call_id"]] = json.dumps(messages[index + 1]["content"])
    return handed, {key: after.get(call, "") for key, call in step.items()}


def assert_ai_sdk_handed(folder: Path, rows: dict) -> tuple[dict, dict]:
    """What opencode and Kilo Code (one code base) hand their model of the fixture's forms: every
    form whole, of the structured result only its text twin; the link dropped
    (:func:`assert_link_dropped`); the image's text in its tool message and its PNG in a user
    message after it; nothing of the blob's in its tool message. Returns :func:`handed_and_after`'s
    two mappings, for the host's own checks."""
    handed, after = handed_and_after(folder)
    forms = assert_forms_whole(folder, rows)
    assert forms["structured"]["model_saw"] == ["text twin"]
    assert forms["structured"]["structuredContent"] == "absent"
    assert_link_dropped(folder, rows, handed)
    assert "MKI-" in handed["image"]
    assert after["image"].startswith('[{"type": "text", "text": "Attached media from tool result:"}')
    assert "data:image/png;base64,iVBORw0KGgo" in after["image"]
    assert handed["blob"] == ""
    return handed, after


def scripted_requests(folder: Path, facts: dict, path: str) -> list[dict]:
    """The host's requests to its model: all to PATH, one per scripted call and one for the final
    text, and no side request. Returns them."""
    requests = model_requests(folder)
    assert all(r["http"]["path"] == path for r in requests)
    assert len(requests) == 13 and facts["side_calls"] == []
    return requests


def assert_link_unread(folder: Path, rows: dict, read_tool: str | None = None, body_absent: bool = True) -> dict:
    """H02 failed: the host did not read the link by itself, and offered READ_TOOL (None: no tool
    that reads a resource); with BODY_ABSENT, the link's result carried no body. Returns H02's
    observation."""
    h02 = observed(folder, "H02")
    assert rows["H02"]["status"] == "FAIL", rows["H02"]["reason"]
    assert h02["host_read_by_itself"] is False and h02["read_tool_offered"] == read_tool
    if body_absent:
        assert h02["body_in_link_result"] == "absent"
    return h02


def assert_link_dropped(folder: Path, rows: dict, handed: dict) -> None:
    """The host dropped the resource_link item: the model was handed an empty result, with no URI
    to give the host's read_mcp_resource, so the body reached it by no route (a FAIL saying so)."""
    assert handed["link"] == ""
    h02 = assert_link_unread(folder, rows, "read_mcp_resource")
    assert h02["body_via_read_tool"] is None
    assert "no URI" in rows["H02"]["reason"], rows["H02"]["reason"]


LARGE_SIZES = (1024, 8192, 32768, 65536, 262144, 1048576)


def assert_large_saved(folder: Path, rows: dict, bracket: tuple[int, int], handling: str, saved_to: str,
                       characters: range, saved_whole: bool = False) -> dict:
    """H03 failed: every size up to BRACKET[0] reached the model whole; from BRACKET[1] the host
    saved the result to a file under SAVED_TO (the whole of it, with SAVED_WHOLE) and handed a
    preview of a length in CHARACTERS, HANDLING as the row says. Returns the sizes by bytes."""
    h03 = observed(folder, "H03")
    assert rows["H03"]["status"] == "FAIL", rows["H03"]["reason"]
    assert h03["threshold_bracket_bytes"] == list(bracket)
    sizes = {s["bytes"]: s for s in h03["sizes"]}
    whole = [b for b in LARGE_SIZES if b <= bracket[0]]
    assert [sizes[b]["handling"] for b in whole] == ["whole"] * len(whole)
    for size in (b for b in LARGE_SIZES if b >= bracket[1]):
        assert sizes[size]["handling"] == handling, sizes[size]
        assert sizes[size]["saved_to"].startswith(saved_to)
        assert sizes[size]["handed_characters"] in characters
        if saved_whole:
            assert sizes[size]["saved_file_whole"] is True
    return sizes


def assert_every_size_whole(folder: Path, rows: dict) -> None:
    """H03 passed: every large size reached the model whole, 1 MiB too."""
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert all(s["handling"] == "whole" for s in observed(folder, "H03")["sizes"])


def assert_responses_driver(folder: Path, facts: dict, tools: list[str], user_agent: str) -> list[dict]:
    """A framework's driver offered its model the server's TOOLS under their own names and nothing
    else, asked the Responses API once per call and once for the final text, each request from
    the framework itself (its User-Agent starts USER_AGENT), and printed "done". Returns the
    requests."""
    assert facts["offered_tools"] == tools and facts["tool_name_scheme"] == "{tool}"
    requests = model_requests(folder)
    assert len(requests) == 13 and facts["side_calls"] == []
    assert {r["http"]["path"] for r in requests} == {"/v1/responses"}
    assert all(r["http"]["headers"]["user-agent"].startswith(user_agent) for r in requests)
    assert (folder / "host-stdout.txt").read_text().strip() == "done"
    return requests


def assert_ai_sdk_config(ctx: HostContext, folder: str, plugin: str) -> dict:
    """What opencode and Kilo Code (one code base) are configured with, in their config folder
    FOLDER of the private HOME: the stand-in as an OpenAI-compatible provider for both models,
    the proxy as a local MCP server, every permission denied first, and the plugin PLUGIN
    pre-seeded in the folder's package-lock.json (so nothing is installed). Returns the config."""
    config = json.loads((ctx.home / ".config" / folder / f"{folder}.json").read_text())
    provider = config["provider"]["mcpaccept"]
    assert provider["npm"] == "@ai-sdk/openai-compatible"
    assert provider["options"]["baseURL"] == "http://127.0.0.1:5/v1"
    assert config["model"] == config["small_model"] == "mcpaccept/stand-in"
    assert config["mcp"]["mcpaccept"] == {"type": "local", "command": ctx.mcp_command, "enabled": True,
                                          "timeout": 60000}
    assert next(iter(config["permission"].items())) == ("*", "deny")
    lock = json.loads((ctx.home / ".config" / folder / "package-lock.json").read_text())
    assert plugin in lock["packages"][""]["dependencies"]
    return config


def assert_ai_sdk_remote(tmp_path: Path, name: str, folder: str) -> None:
    """For a Streamable HTTP run, host NAME (opencode, Kilo Code) is given the proxy's URL as a
    remote MCP server, with no OAuth."""
    http = HostContext(folder=tmp_path / "http", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                       mcp_url="http://127.0.0.1:6/mcp")
    ADAPTERS[name].prepare(http, "/bin/true")
    remote = json.loads((http.home / ".config" / folder / f"{folder}.json").read_text())["mcp"]["mcpaccept"]
    assert remote["type"] == "remote" and remote["url"] == "http://127.0.0.1:6/mcp" and remote["oauth"] is False


def prepare_stdio(tmp_path: Path, name: str) -> tuple[HostContext, Launch]:
    """What host NAME's adapter writes and would launch for a stdio run in tmp_path/run (the
    host binary /bin/true: nothing runs), for checks that its files and environment stay in
    the run folder and leave the user's settings out."""
    ctx = HostContext(folder=tmp_path / "run", model_url="http://127.0.0.1:5", server_name="mcpaccept",
                      mcp_command=[sys.executable, "-m", "mcp_accept", "proxy"])
    return ctx, ADAPTERS[name].prepare(ctx, "/bin/true")


def prepare_driver(tmp_path: Path, name: str, driver: str) -> tuple[HostContext, Launch]:
    """:func:`prepare_stdio` for framework NAME: the interpreter runs its DRIVER program by its file,
    which imports nothing of mcp-accept, and is handed the proxy's command in the environment the
    drivers' contract names."""
    ctx, launch = prepare_stdio(tmp_path, name)
    assert launch.argv[1].endswith(f"mcp_accept/hosts/drivers/{driver}")
    assert json.loads(launch.env["MCP_ACCEPT_SERVER_COMMAND"]) == ctx.mcp_command
    assert "import mcp_accept" not in Path(launch.argv[1]).read_text()
    return ctx, launch


def model_log(folder: Path) -> list[dict]:
    """Every entry of model.jsonl: what the stand-in model was asked ("in") and answered ("out")."""
    return [json.loads(line) for line in (folder / "model.jsonl").read_text().splitlines()]


def model_requests(folder: Path) -> list[dict]:
    """The requests the host sent its stand-in model, in order."""
    return [e for e in model_log(folder) if e["dir"] == "in"]


def handed_outputs(folder: Path) -> dict[str, object]:
    """What the host's last request handed the model as each call's result, by call id: a
    Responses API ``function_call_output``'s ``output``, a Chat Completions tool message's
    ``content``."""
    message = model_requests(folder)[-1]["message"]
    if "input" in message:
        return {i.get("call_id"): i.get("output") for i in message["input"] if i.get("type") == "function_call_output"}
    return {m.get("tool_call_id"): m.get("content") for m in message.get("messages") or [] if m.get("role") == "tool"}


def call_ids(folder: Path) -> dict[str, str]:
    """Each step of the script (``text``, ``large-65536``, ...) and the id the stand-in gave its
    call (a step's position, and so its id, depends on the script)."""
    actions = [((e.get("http") or {}).get("action") or {}) for e in model_log(folder) if e["dir"] == "out"]
    return {a["step"]: a["call_id"] for a in actions if a.get("call_id")}


def call_id_of(folder: Path, step: str) -> str:
    """The id the stand-in gave the call of one script step; no such call fails the test."""
    ids = call_ids(folder)
    if step not in ids:
        raise AssertionError(f"no call of step {step}")
    return ids[step]


def wire(folder: Path, facts: dict) -> list[dict]:
    """Every message the recording proxy saw between the host and the server (its wire.jsonl)."""
    text = (folder / facts["proxy_folder"] / "wire.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def image_stretch(folder: Path) -> str:
    """A stretch of the PNG the server sent, from the proxy's wire: past the header every PNG shares."""
    for entry in wire(folder, facts_of(folder)):
        for item in ((entry.get("message") or {}).get("result") or {}).get("content") or []:
            if item.get("type") == "image":
                return item["data"][60:120]
    raise AssertionError("the server sent no image")


def server_starts(folder: Path) -> list[list[str]]:
    """Each server the host started (one proxy each, stdio), as the methods the host sent it, sorted
    by name (the order of calls within one start is the wire's)."""
    starts = []
    for wire_file in (folder / "proxy").glob("*/wire.jsonl"):
        entries = [json.loads(line) for line in wire_file.read_text().splitlines()]
        starts.append(sorted(e["message"].get("method") for e in entries
                             if e["dir"] == "out" and isinstance(e.get("message"), dict) and e["message"].get("method")))
    return starts


def tool_calls(folder: Path, facts: dict) -> list[dict]:
    """The host's ``tools/call`` requests as the proxy recorded them, HTTP headers and all."""
    return [e for e in wire(folder, facts)
            if e["dir"] == "out" and (e.get("message") or {}).get("method") == "tools/call"]


def assert_version_header(folder: Path, facts: dict, version: str) -> list[dict]:
    """Over Streamable HTTP the host sent MCP-Protocol-Version: VERSION (its header's name in any
    case) with every tools/call it made, and made some. Returns those calls."""
    calls = tool_calls(folder, facts)
    assert calls and all({k.lower(): v for k, v in e["http"]["headers"]}.get("mcp-protocol-version")
                         == version for e in calls)
    return calls


def results_by_tool(folder: Path, facts: dict) -> dict[str, dict]:
    """What the server answered each tool the host called, by the tool's name, from the proxy's record."""
    answered = {e["message"].get("id"): e["message"].get("result") for e in wire(folder, facts)
                if e["dir"] == "in" and isinstance(e.get("message"), dict) and "result" in e["message"]}
    return {e["message"]["params"]["name"]: answered[e["message"]["id"]] for e in tool_calls(folder, facts)}


def assert_offline(facts: dict) -> None:
    """The host ran in its network namespace and, where strace can tell, connected to loopback
    only (its stand-in model on 127.0.0.1), never anywhere else."""
    assert facts["network_guard"].startswith("network namespace")
    if shutil.which("strace"):
        assert facts["connects"]["other"] == {}, facts["connects"]
        assert facts["connects"]["loopback"], "the host reached its stand-in model on 127.0.0.1"


def processes_mentioning(text: str) -> list[str]:
    """Live processes whose command line holds TEXT (a run folder): none may outlive its run."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{pid}: {cmdline[:200]}")
    return found
