"""The seven hosts against servers of a user's kind, not the fixture (tests/servers/user_server.py):
prose with quotes and control characters in every form, JSON of every kind in every form with a
listed resource_link, and a server that speaks only 2025-11-25. Each host row is checked against
what the recorded model.jsonl shows, by a search written here apart from the product's: the block
the row quotes is in the request it names, and the server's body is in that block (as text, with
the host's escaping undone, or as a JSON value) exactly where the row says the body reached the
model whole."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from hostkit import HOSTS_BIN, PYPI_VENVS, ROOT, processes_mentioning

SEVEN = ["claude-code", "codex", "continue", "fast-agent", "gemini-cli", "opencode", "qwen-code"]
SERVER = ROOT / "tests" / "servers" / "user_server.py"
SPEC = importlib.util.spec_from_file_location("user_server", SERVER)
USER = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(USER)
# name -> (the server's options, the profile's body kind, the resource's MIME type)
SERVERS = {"prose": (["--bodies", "prose"], "text", "text/plain"),
           "json": (["--bodies", "json"], "json", "application/json"),
           "only-2025-11-25": (["--bodies", "json", "--only", "2025-11-25"], "json", "application/json")}
SIZES = (1024, 65536)
# Hosts whose read tool hands the model a listed resource's body (measured: Gemini CLI offers
# read_mcp_resource once a server lists resources, which the fixture does not).
READS_LINKS = {"claude-code", "codex", "gemini-cli", "qwen-code"}


def strings_and_values(value, depth: int = 0):
    """Every string in a JSON value and every JSON value, opening strings that hold JSON (whole,
    or with words before or after it) up to a few levels."""
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from strings_and_values(item, depth)
    elif isinstance(value, list):
        for item in value:
            yield from strings_and_values(item, depth)
    elif isinstance(value, str) and depth < 5:
        decoder, start = json.JSONDecoder(), 0
        while True:
            starts = [i for i in (value.find("{", start), value.find("[", start)) if i >= 0]
            if value.startswith('"'):
                starts.append(0)
            if not starts:
                return
            start = min(starts)
            try:
                inner, start = decoder.raw_decode(value, start)
            except ValueError:
                start += 1
                continue
            yield from strings_and_values(inner, depth + 1)


def holds(block, text: str, value) -> bool:
    """Whether the server's body is in BLOCK: its text verbatim (or with CRLF made LF) inside a
    string, or its JSON value equal to one found (true is not 1)."""
    def same(a, b):
        return type(a) is type(b) and (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))

    for found in strings_and_values(block):
        if isinstance(found, str) and (text in found or text.replace("\r\n", "\n") in found.replace("\r\n", "\n")):
            return True
        if value is not None and same(found, value):
            return True
    return False


def contains(whole, part) -> bool:
    return whole == part or (isinstance(whole, dict) and any(contains(v, part) for v in whole.values())) or \
        (isinstance(whole, list) and any(contains(v, part) for v in whole))


@pytest.fixture(scope="module", params=list(SERVERS))
def measured(request, tmp_path_factory):
    name = request.param
    options, kind, mime = SERVERS[name]
    out = tmp_path_factory.mktemp(name)
    profile = out / "profile.yaml"
    profile.write_text(f"profile: user-{name}\ntools:\n  text: {{name: note, body: {kind}}}\n"
                       "  structured: {name: figures}\n"
                       f"  embedded: {{name: attachment, body: {kind}, mime_type: {mime}}}\n"
                       f"  link: {{name: attachment_link, body: {kind}, mime_type: {mime}}}\n"
                       "  large: {name: log, arguments: {size: '{bytes}'}}\n")
    bins = [HOSTS_BIN, *(ROOT / "tests" / "hosts" / venv / "bin" for venv in PYPI_VENVS.values())]
    env = dict(os.environ, PATH=os.pathsep.join([*map(str, bins), os.environ["PATH"]]))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--hosts", ",".join(SEVEN),
                           "--jobs", "2", "--large-sizes", ",".join(map(str, SIZES)),
                           "--server", f"{sys.executable} {SERVER} {' '.join(options)}", "--profile", str(profile),
                           "--out", str(out / "matrix")], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    matrix = json.loads((out / "matrix" / "matrix.json").read_text())
    rows = {row["host"]: row for row in matrix["rows"]}
    yield name, kind, rows, {item["id"]: item for item in matrix["advice"]}
    assert not processes_mentioning(str(out))


def model_requests(folder) -> dict[int, dict]:
    entries = (json.loads(line) for line in (folder / "model.jsonl").read_text().splitlines() if line.strip())
    return {e["seq"]: e for e in entries if e.get("dir") == "in"}


def body_of(name: str, kind: str) -> tuple[str, object]:
    text, value, _ = USER.body("prose" if name == "prose" else "json")
    return text, (value if kind == "json" else None)


@pytest.mark.parametrize("host", SEVEN)
def test_each_form_is_judged_as_model_jsonl_shows(measured, host):
    name, kind, rows, _ = measured
    row = rows[host]
    if name == "only-2025-11-25" and host == "gemini-cli":
        # Gemini CLI 0.61 asks for 2025-06-18 and drops a server that answers 2025-11-25: the row
        # says so, from the wire and the host's own words, and nothing is measured
        assert row["error"].startswith("measured nothing: Gemini CLI dropped the server: it asked for "
                                       "2025-06-18 and the server answered 2025-11-25"), row
        return
    assert not row.get("error"), row
    if name == "only-2025-11-25":
        assert row["protocol"] == "2025-11-25", row["protocol"]
    folder = type(ROOT)(row["folder"])
    requests = model_requests(folder)
    forms = json.loads((folder / "rows" / "H01.json").read_text())["observed"]["forms"]
    text, value = body_of(name, kind)
    _, structured_value, _ = USER.body("prose" if name == "prose" else "json")
    for form, (want_text, want_value) in {"text": (text, value), "embedded": (text, value),
                                          "structured": (USER.compact(structured_value), structured_value)}.items():
        exact = forms[form]["exact"]
        # the quoted block is what the host sent its model, in the request the row names
        assert contains(requests[exact["model_jsonl_seq"]]["message"], exact["block"]), (host, form)
        found = holds(exact["block"], want_text, want_value)
        assert (forms[form]["reached"] == "whole") is found, (host, form, forms[form]["reached"], exact["block"])
        assert found, (host, form)  # every one of these hosts hands these forms whole
        assert row[form] == "whole", (host, form, row[form])  # the matrix's cell says the same
    # the link: through the host's read tool where it has one that reads a listed resource
    h02 = json.loads((folder / "rows" / "H02.json").read_text())
    read = h02["observed"].get("read_tool_result")
    through = read is not None and holds(read, text, value)
    assert (h02["status"] == "PASS") is through is (host in READS_LINKS), (host, h02["reason"])
    if through:  # read in a second turn, and the matrix's cell says so
        assert row["link_body_via_tool"] == "whole" and row["cost"]["link"]["turns"] == 2, row
    # H03 filled by the profile's tools.large: the smallest size whole, as the block shows
    h03 = json.loads((folder / "rows" / "H03.json").read_text())
    assert h03["status"] in ("PASS", "FAIL"), h03["reason"]
    sizes = {s["bytes"]: s for s in h03["observed"]["sizes"]}
    assert set(sizes) == set(SIZES) and sizes[1024]["handling"] == "whole"
    assert row["H03"] == h03["status"]


def test_the_advice_on_links_counts_every_host_measured(measured):
    # a host that never read the link counts among those the body never reached, not out of the count
    _, _, rows, advice = measured
    hosts = {h for h, row in rows.items() if not row.get("error")}
    link = advice["link.reached"]
    assert sorted(link["read_tool"]) == sorted(hosts & READS_LINKS) and link["inline"] == []
    assert link["never"] == sorted(hosts - READS_LINKS) and link["m"] == len(hosts)
