"""The fixture's host tools (marker mode only): search_large, search_image, search_blob.

The fixture runs as a real process over stdio and Streamable HTTP; every answer is validated
against the official schema of the version on the wire, the bodies are decoded by hand here
(PNG chunks and their CRCs, the PDF's xref table), and their tokens and SHA-256 are compared
with what markers.json says. Without --markers, tools/list must stay the four search tools.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import zlib

import pytest
from jsonschema import Draft202012Validator

from conftest import fixture_command, load_results, run_cli, statuses
from test_fixture import (LEGACY, MODERN, TOOLS, HttpFixture, check_response,  # noqa: F401
                          rpc, stdio)

HOST_TOOLS = ("search_large", "search_image", "search_blob")
MIB = 1024 * 1024
MAX_BYTES = 16 * MIB
LINE = 1024  # the large body's line length (docs/fixture.md, marker mode)
MARKER = re.compile(r"\[@(\d+)\]")
FORM_PREFIXES = {"MKT", "MKS", "MKW", "MKE", "MKL"}  # the letters the result forms use
ERAS = (MODERN, *LEGACY)


# ----- drivers ---------------------------------------------------------------------

class Client:
    """One era over one stdio fixture: every answer validated against that era's schema."""

    def __init__(self, server, version):
        self.server, self.version = server, version
        self.modern = version == MODERN
        if not self.modern:
            check_response(version, "initialize", server.initialize(version))

    def ask(self, method, params) -> dict:
        return check_response(self.version, method,
                              self.server.ask(method, params, modern=self.modern))

    def call(self, name, arguments=None) -> dict:
        params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
        return self.ask("tools/call", params)["result"]


def marker_client(stdio, tmp_path, version=MODERN, *args):
    log = tmp_path / f"log-{version}"
    client = Client(stdio("--markers", "--log", str(log), *args), version)
    client.ask("ping", {})  # answered once the start has written markers.json
    return client, log


def host_tools_of(log) -> dict:
    return json.loads((log / "markers.json").read_text(encoding="utf-8"))["host_tools"]


def text_of(result) -> str:
    assert "isError" not in result or result["isError"] is False
    [item] = result["content"]
    assert item["type"] == "text"
    return item["text"]


# ----- decoding the bodies by hand -------------------------------------------------

def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The chunks of a PNG, each CRC checked (PNG spec, 5.3 and 5.4)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert len(body) == length and crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert pos == len(data)
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    return chunks


def png_pixels(data: bytes) -> tuple[int, int, set, dict]:
    """Width, height, the set of colours and the tEXt entries of an 8-bit RGB PNG."""
    chunks = png_chunks(data)
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(
        ">IIBBBBB", chunks[0][1])
    assert (depth, colour, compression, filtering, interlace) == (8, 2, 0, 0, 0)
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = 1 + width * 3
    assert len(raw) == height * stride
    colours = set()
    for y in range(height):
        row = raw[y * stride:(y + 1) * stride]
        assert row[0] == 0  # filter type None: the pixels can be read as they are
        colours.update(row[1 + x * 3:4 + x * 3] for x in range(width))
    texts = dict(body.split(b"\x00", 1) for kind, body in chunks if kind == b"tEXt")
    return width, height, colours, {k.decode(): v.decode() for k, v in texts.items()}


def pdf_texts(data: bytes) -> list[str]:
    """Check a one-page PDF's structure (header, xref offsets, trailer, stream length) and
    return the strings its content stream shows, in order."""
    assert data.startswith(b"%PDF-1.")
    assert data.rstrip().endswith(b"%%EOF")
    startxref = int(re.search(rb"startxref\n(\d+)\n%%EOF\n?$", data).group(1))
    table = re.match(rb"xref\n0 (\d+)\n", data[startxref:])
    assert table, data[startxref:startxref + 20]
    count = int(table.group(1))
    entries = data[startxref + table.end():startxref + table.end() + 20 * count]
    assert entries[:20] == b"0000000000 65535 f \n"
    for number in range(1, count):
        entry = entries[20 * number:20 * number + 20]
        assert re.fullmatch(rb"\d{10} 00000 n \n", entry), entry
        assert data[int(entry[:10]):].startswith(b"%d 0 obj\n" % number), number
    trailer = data[startxref + table.end() + 20 * count:]
    assert re.match(rb"trailer\n<< /Size %d /Root 1 0 R >>\n" % count, trailer)
    assert b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>" in data
    stream = re.search(rb"<< /Length (\d+) >>\nstream\n", data)
    length = int(stream.group(1))
    content = data[stream.end():stream.end() + length]
    assert data[stream.end() + length:].startswith(b"\nendstream\nendobj\n")
    assert content.startswith(b"BT") and content.endswith(b"ET")
    return [s.decode("ascii") for s in re.findall(rb"\(((?:[^()\\]|\\.)*)\) Tj", content)]


def cut_at(seen: str) -> int:
    """Where a large body was cut, read off the end of what reached the model
    (docs/fixture.md): the last position marker [@X] that came whole, plus the bytes seen
    from its '[' on. No marker: the cut fell in line 0, whose bytes were all seen."""
    markers = list(MARKER.finditer(seen))
    if not markers:
        return len(seen.encode("utf-8"))
    last = markers[-1]
    return int(last.group(1)) + len(seen[last.start():].encode("utf-8"))


def check_large(body: str, size: int, head: str, tail: str) -> None:
    assert len(body.encode("utf-8")) == size and body.isascii()
    if size < len(head) + 1 + len(tail):
        assert body == (head + " " + tail)[:size]
        return
    assert body.startswith(head + " ") and body.endswith(" " + tail)
    assert body.count(head) == 1 and body.count(tail) == 1
    lines = body.split("\n")
    assert all(len(line) == LINE - 1 for line in lines[:-1])  # 1024 bytes with the newline
    found = [(m.start(), int(m.group(1))) for m in MARKER.finditer(body)]
    # Each marker names its own byte offset and opens its line; every line that has room
    # before the tail holds one.
    tail_at = size - len(tail) - 1
    expected = [k * LINE for k in range(1, size // LINE + 1)
                if k * LINE + len("[@%d]" % (k * LINE)) <= tail_at]
    assert [offset for offset, _ in found] == expected
    assert all(offset == named for offset, named in found)


# ----- without --markers nothing changes --------------------------------------------

@pytest.mark.parametrize("version", ERAS)
def test_without_markers_tools_list_is_the_four_search_tools(stdio, version):
    plain = Client(stdio(), version)
    tools = plain.ask("tools/list", {})["result"]["tools"]
    assert [t["name"] for t in tools] == list(TOOLS)
    # The host tools do not exist there: calling one is the unknown-tool error.
    for name in HOST_TOOLS:
        answer = plain.ask("tools/call", {"name": name, "arguments": {"bytes": 10}})
        assert answer["error"]["code"] == -32602 and name in answer["error"]["message"]
    # In marker mode the four come first, unchanged, and the host tools after them.
    marked = Client(stdio("--markers"), version)
    marked_tools = marked.ask("tools/list", {})["result"]["tools"]
    assert [t["name"] for t in marked_tools] == [*TOOLS, *HOST_TOOLS]
    assert marked_tools[:4] == tools


@pytest.mark.parametrize("version", ERAS)
def test_host_tools_declare_input_schemas(stdio, version):
    client = Client(stdio("--markers"), version)
    tools = {t["name"]: t for t in client.ask("tools/list", {})["result"]["tools"]}
    for name in HOST_TOOLS:
        tool = tools[name]
        assert tool["description"] and tool["title"]
        Draft202012Validator.check_schema(tool["inputSchema"])
        assert tool["inputSchema"]["type"] == "object"
    large = Draft202012Validator(tools["search_large"]["inputSchema"])
    assert large.is_valid({"bytes": 1}) and large.is_valid({"bytes": MAX_BYTES})
    for bad in ({}, {"bytes": 0}, {"bytes": MAX_BYTES + 1}, {"bytes": "10"}, {"bytes": 1.5},
                {"bytes": 10, "q": "MCP"}):
        assert not large.is_valid(bad), bad
    for name in ("search_image", "search_blob"):
        empty = Draft202012Validator(tools[name]["inputSchema"])
        assert empty.is_valid({}) and not empty.is_valid({"q": "MCP"})


# ----- search_large -----------------------------------------------------------------

@pytest.mark.parametrize("version", ERAS)
def test_search_large_is_exactly_the_bytes_asked(stdio, tmp_path, version):
    client, log = marker_client(stdio, tmp_path, version)
    tokens = host_tools_of(log)["large"]
    head, tail = tokens["head"], tokens["tail"]
    assert re.fullmatch(r"MKG-[0-9a-f]{10}", head) and re.fullmatch(r"MKGZ-[0-9a-f]{10}", tail)
    sizes = (1, 13, 29, 30, 31, 100, 1023, 1024, 1025, 1024 + 22, 1024 + 23, 4096, 65537, MIB)
    for size in sizes:
        check_large(text_of(client.call("search_large", {"bytes": size})), size, head, tail)
    # Every call of one start gives the same body for the same size.
    assert text_of(client.call("search_large", {"bytes": 4096})) == \
        text_of(client.call("search_large", {"bytes": 4096}))


def test_search_large_at_the_limit(stdio, tmp_path):
    client, log = marker_client(stdio, tmp_path)
    tokens = host_tools_of(log)["large"]
    body = text_of(client.call("search_large", {"bytes": MAX_BYTES}))
    check_large(body, MAX_BYTES, tokens["head"], tokens["tail"])
    assert body[MAX_BYTES - LINE * 2:].count("[@") >= 1


def test_search_large_cut_is_read_off_the_last_position_marker(stdio, tmp_path):
    client, log = marker_client(stdio, tmp_path)
    tokens = host_tools_of(log)["large"]
    body = text_of(client.call("search_large", {"bytes": MIB}))
    # A host that cuts the text anywhere: the marker seen last says where, even when only
    # the end of what it kept is known (a model quoting its last lines, a window).
    for cut in (1, 15, 1023, 1024, 1027, 1031, 2000, 25_000 * 4, 262_144, 500_001, MIB - 20):
        seen = body[:cut]
        assert cut_at(seen) == cut, cut
        assert tokens["head"][:cut] in seen and tokens["tail"] not in seen
        if cut > 3 * LINE:
            for window in (LINE + 1, 2 * LINE, 3 * LINE):
                assert cut_at(seen[-window:]) == cut, (cut, window)
    assert cut_at(body) == MIB  # whole, tail included
    # A cut inside a marker leaves it unreadable; the marker before it still says where.
    partial = body[:5 * LINE + 3]
    assert partial.endswith("\n[@5") and cut_at(partial[-LINE - 3:]) == 5 * LINE + 3


@pytest.mark.parametrize("arguments, shown", [
    ({"bytes": 0}, "0"), ({"bytes": -1}, "-1"), ({"bytes": MAX_BYTES + 1}, str(MAX_BYTES + 1)),
    ({"bytes": "4096"}, "4096"), ({"bytes": True}, "true"), ({"bytes": 1.5}, "1.5"),
    ({}, "null"), (None, "null"), ({"bytes": 10, "q": "MCP"}, "q"),
])
def test_search_large_refuses_bad_sizes_with_a_tool_error(stdio, arguments, shown):
    client = Client(stdio("--markers"), MODERN)
    result = client.call("search_large", arguments)
    assert result["isError"] is True
    [item] = result["content"]
    assert item["type"] == "text" and "Invalid arguments" in item["text"]
    assert "bytes" in item["text"] and shown in item["text"]
    if "q" not in (arguments or {}):
        assert "from 1 to 16777216" in item["text"]


def test_search_large_takes_an_integral_number(stdio):
    # JSON Schema's "integer" is any number without a fraction, 4096.0 included.
    client = Client(stdio("--markers"), MODERN)
    assert len(text_of(client.call("search_large", {"bytes": 4096.0})).encode("utf-8")) == 4096


# ----- search_image and search_blob -------------------------------------------------

@pytest.mark.parametrize("version", ERAS)
def test_search_image_is_a_png_with_its_token_named(stdio, tmp_path, version):
    client, log = marker_client(stdio, tmp_path, version)
    described = host_tools_of(log)["image"]
    token = described["token"]
    assert re.fullmatch(r"MKI-[0-9a-f]{10}", token)
    result = client.call("search_image")
    assert client.call("search_image", {}) == result
    image, text = result["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    data = base64.b64decode(image["data"], validate=True)
    assert hashlib.sha256(data).hexdigest() == described["sha256"]
    assert len(data) == described["size"]
    width, height, colours, texts = png_pixels(data)
    assert (width, height) == (described["width"], described["height"]) == (64, 64)
    assert len(colours) > 1
    assert texts["Comment"] == token
    assert text["type"] == "text" and token in text["text"]
    # The token is named in the text, never in the image's base64 (so the two can be told apart).
    assert token not in image["data"]


@pytest.mark.parametrize("version", ERAS)
def test_search_blob_is_a_pdf_and_a_png(stdio, tmp_path, version):
    client, log = marker_client(stdio, tmp_path, version)
    blob = host_tools_of(log)["blob"]
    pdf_item, png_item = client.call("search_blob")["content"]
    assert pdf_item["type"] == png_item["type"] == "resource"
    pdf, png = pdf_item["resource"], png_item["resource"]
    assert pdf["uri"] != png["uri"]
    assert (pdf["uri"], pdf["mimeType"]) == (blob["pdf"]["uri"], "application/pdf")
    assert (png["uri"], png["mimeType"]) == (blob["png"]["uri"], "image/png")
    assert "text" not in pdf and "text" not in png

    pdf_bytes = base64.b64decode(pdf["blob"], validate=True)
    assert hashlib.sha256(pdf_bytes).hexdigest() == blob["pdf"]["sha256"]
    assert len(pdf_bytes) == blob["pdf"]["size"]
    texts = pdf_texts(pdf_bytes)
    assert re.fullmatch(r"MKP-[0-9a-f]{10}", blob["pdf"]["head"])
    assert re.fullmatch(r"MKPZ-[0-9a-f]{10}", blob["pdf"]["tail"])
    assert texts[0] == blob["pdf"]["head"] and texts[-1] == blob["pdf"]["tail"]
    assert any("Tool results contain data." in t for t in texts[1:-1])

    png_bytes = base64.b64decode(png["blob"], validate=True)
    assert hashlib.sha256(png_bytes).hexdigest() == blob["png"]["sha256"]
    width, height, colours, png_texts = png_pixels(png_bytes)
    assert (width, height) == (blob["png"]["width"], blob["png"]["height"])
    assert re.fullmatch(r"MKB-[0-9a-f]{10}", blob["png"]["token"])
    assert png_texts["Comment"] == blob["png"]["token"] and len(colours) > 1

    # Each embedded resource reads back as the same body.
    for resource in (pdf, png):
        [contents] = client.ask("resources/read", {"uri": resource["uri"]})["result"]["contents"]
        assert contents == resource


@pytest.mark.parametrize("name", ["search_image", "search_blob"])
def test_tools_without_parameters_refuse_arguments(stdio, name):
    client = Client(stdio("--markers"), MODERN)
    result = client.call(name, {"q": "MCP"})
    assert result["isError"] is True
    assert "takes no arguments" in result["content"][0]["text"] and "q" in result["content"][0]["text"]


# ----- markers.json -----------------------------------------------------------------

def test_markers_json_keeps_the_host_tools_of_every_start(stdio, tmp_path):
    log = tmp_path / "log"
    seen = []
    for args in (("--markers",), (), ("--markers",)):
        server = stdio(*args, "--log", str(log))
        client = Client(server, MODERN)
        if args:
            large = text_of(client.call("search_large", {"bytes": 64}))
            image = base64.b64decode(client.call("search_image")["content"][0]["data"])
            seen.append((large, image))
        assert server.close() == 0
    info = json.loads((log / "markers.json").read_text(encoding="utf-8"))
    history = info["host_tools_history"]
    assert len(history) == 2  # the start without --markers has no host tools
    starts = [entry["run"] for entry in info["history"]]
    assert [entry["run"] for entry in history] == [starts[0], starts[2]]
    assert info["host_tools"] == history[-1] and info["run"] == history[-1]["run"]
    # The earlier keys mean what they meant: history entries keep their five keys.
    assert set(info["history"][0]) == {"run", "markers", "tails", "pid", "started_at"}
    for entry, (large, image) in zip(history, seen):
        assert large.startswith(entry["large"]["head"] + " ")
        assert large.endswith(" " + entry["large"]["tail"])
        assert hashlib.sha256(image).hexdigest() == entry["image"]["sha256"]
    # Every start draws new tokens, and new images.
    first, last = history
    assert first["large"]["head"] != last["large"]["head"]
    assert first["image"]["sha256"] != last["image"]["sha256"]
    assert first["blob"]["pdf"]["sha256"] != last["blob"]["pdf"]["sha256"]


def test_every_token_of_a_start_is_its_own(stdio, tmp_path):
    client, log = marker_client(stdio, tmp_path)
    info = json.loads((log / "markers.json").read_text(encoding="utf-8"))
    host = info["host_tools"]
    host_tokens = [host["large"]["head"], host["large"]["tail"], host["image"]["token"],
                   host["blob"]["pdf"]["head"], host["blob"]["pdf"]["tail"], host["blob"]["png"]["token"]]
    every = [*info["markers"].values(), *info["tails"].values(), *host_tokens]
    parts = [token.split("-")[1] for token in every]
    assert len(set(parts)) == len(parts)
    # No host token has the prefix of a form's token, so neither is taken for the other.
    assert not {token.split("-")[0].rstrip("Z") for token in host_tokens} & FORM_PREFIXES
    assert host["large"]["line_bytes"] == LINE and host["large"]["max_bytes"] == MAX_BYTES
    # The same tokens, shaped as a start's markers and tails.
    assert host["markers"] == {"large": host["large"]["head"], "image": host["image"]["token"],
                               "blob": host["blob"]["pdf"]["head"], "blob_png": host["blob"]["png"]["token"]}
    assert host["tails"] == {"large": host["large"]["tail"], "blob": host["blob"]["pdf"]["tail"]}
    client.call("search_blob")
    entries = [json.loads(line) for line in
               (log / "requests.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["name"] for e in entries if e["method"] == "tools/call"] == ["search_blob"]


# ----- Streamable HTTP --------------------------------------------------------------

def test_host_tools_over_http(tmp_path):
    server = HttpFixture("--markers", "--log", str(tmp_path))
    try:
        host = host_tools_of(tmp_path)

        def modern(name, arguments):
            response = server.modern("tools/call", {"name": name, "arguments": arguments})
            assert response.status_code == 200, response.text
            return check_response(MODERN, "tools/call", rpc(response))["result"]

        names = [t["name"] for t in check_response(
            MODERN, "tools/list", rpc(server.modern("tools/list")))["result"]["tools"]]
        assert names == [*TOOLS, *HOST_TOOLS]
        for size in (1, 4096, MIB):
            check_large(text_of(modern("search_large", {"bytes": size})), size,
                        host["large"]["head"], host["large"]["tail"])
        assert modern("search_large", {"bytes": 0})["isError"] is True
        image = modern("search_image", {})["content"][0]
        assert hashlib.sha256(base64.b64decode(image["data"])).hexdigest() == host["image"]["sha256"]
        pdf, png = (item["resource"] for item in modern("search_blob", {})["content"])
        assert pdf_texts(base64.b64decode(pdf["blob"]))[-1] == host["blob"]["pdf"]["tail"]
        png_chunks(base64.b64decode(png["blob"]))

        # The legacy era, in a session.
        version = LEGACY[0]
        session = server.open_session(version)

        def legacy(method, params):
            response = server.legacy(method, params, session=session, version=version)
            assert response.status_code == 200, response.text
            return check_response(version, method, rpc(response))["result"]

        large = legacy("tools/call", {"name": "search_large", "arguments": {"bytes": 4096}})
        check_large(text_of(large), 4096, host["large"]["head"], host["large"]["tail"])
        read = legacy("resources/read", {"uri": png["uri"]})
        assert read["contents"] == [png]
    finally:
        server.kill()


# ----- the project's own wire checks ------------------------------------------------

@pytest.mark.parametrize("version", ERAS)
def test_the_runner_finds_the_host_tools_valid_on_the_wire(tmp_path, version):
    # A profile that makes the runner call the host tools, so W01 judges their results
    # (the rows that compare documents cannot pass on random tokens; W01 must).
    profile = tmp_path / "host-tools.yaml"
    profile.write_text(
        "profile: host-tools\n"
        "tools:\n"
        "  text: {name: search_large, arguments: {bytes: 4096}, body: text}\n"
        "  structured: {name: search_image, arguments: {}}\n"
        "  embedded: {name: search_blob, arguments: {}, body: bytes, mime_type: application/pdf}\n"
        "reference: null\n"
        "unknown_uri: search://results/does-not-exist\n", encoding="utf-8")
    out = tmp_path / "run"
    done = run_cli("run", "--server", fixture_command("--markers"), "--profile", str(profile),
                   "--protocol", version, "--out", str(out))
    assert done.returncode in (0, 1), done.stderr
    results = load_results(out)
    assert statuses(results)["W01"] == "PASS"
    assert statuses(results)["T01"] == "PASS"  # the large text item is a text item
    calls = [json.loads(line) for line in (out / "wire.jsonl").read_text(encoding="utf-8").splitlines()]
    called = {json.dumps(entry) for entry in calls}
    assert all(any(name in line for line in called) for name in HOST_TOOLS)
