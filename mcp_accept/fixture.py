#!/usr/bin/env python3
"""Reference MCP server for mcp-accept: one file, standard library only.

It serves four tools that hand back the same search-result document in the four
forms a tool result can take (text, structuredContent, embedded resource,
resource_link), over stdio (default) or Streamable HTTP (``--http PORT``), in both
protocol eras:

* 2026-07-28 (stateless): every request carries ``params._meta`` with the protocol
  version and the client capabilities; ``server/discover`` describes the server.
* 2025-11-25 and 2025-06-18 (legacy): ``initialize`` negotiates a version; over HTTP
  the answer hands out an ``Mcp-Session-Id``.

Break modes (``--break NAME``, repeatable) inject one defect each, so that every
verdict of the runner can be shown to fire. Marker mode (``--markers``) gives each
form its own tokens, one opening its body and one closing it, so that a body shown cut
short can be told from a whole one (the structured tool's text twin too, so its document
differs from structuredContent by those tokens; the rows that compare documents, S02, X01 and T01, E01,
L02 against the reference, fail in marker mode by design) and
``--log DIR`` records every start's tokens (markers.json) and every message received
(requests.jsonl), for the observation of hosts.

Marker mode alone also lists three host tools, which show what a host does with results
that are large, images or binary (without ``--markers`` tools/list holds the four search
tools only):

* ``search_large`` ``{"bytes": N}`` (1 <= N <= 16 MiB): one text item of exactly N bytes
  of ASCII, in lines of 1024 bytes. The head token (``MKG-``) opens line 0, every later
  line opens with its position marker ``[@OFFSET]``, OFFSET being the byte offset of its
  ``[`` (k * 1024 for line k), and the tail token (``MKGZ-``) is the last bytes of the
  body, after a space; a marker that would run into the tail is left out. Where a host
  cut the body: take the last whole marker ``[@X]`` that reached the model and the L bytes
  seen from its ``[`` on; the cut is at X + L bytes. Below 30 bytes the two tokens do not
  both fit: the body is the first N bytes of "HEAD TAIL".
* ``search_image``: an image item (a 64x64 PNG whose colours are drawn from its token
  ``MKI-``, the token also in its tEXt chunk) and a text item naming that token.
* ``search_blob``: two embedded resources with blob bodies, a one-page PDF whose text
  stream opens with its head token (``MKP-``) and ends with its tail token (``MKPZ-``),
  and a PNG (token ``MKB-`` in its tEXt chunk); ``resources/read`` of their URIs answers
  the same bodies.

markers.json keeps their tokens, sizes and SHA-256 under ``host_tools`` (this start) and
``host_tools_history`` (every start with markers that used the folder, oldest first).

Copy this file anywhere and run ``python fixture.py --help``.
"""

from __future__ import annotations

import argparse
import base64
import copy
import datetime
import hashlib
import itertools
import json
import os
import re
import secrets
import socket
import struct
import sys
import tempfile
import threading
import urllib.parse
import zlib

try:  # locks markers.json while a start adds itself to the history
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

# ----- identity and protocol constants --------------------------------------------

FIXTURE_NAME = "mcp-accept-fixture"
FIXTURE_VERSION = "0.1.0"
SERVER_INFO = {"name": FIXTURE_NAME, "version": FIXTURE_VERSION}

# The protocol facts this server needs, copied from mcp_accept.protocol (this file imports
# nothing of the package); tests/test_protocol_facts.py holds the copies equal.
MODERN_VERSION = "2026-07-28"
MODERN_VERSIONS = (MODERN_VERSION,)
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18")
DEFAULT_LEGACY_VERSION = "2025-11-25"
ALL_VERSIONS = MODERN_VERSIONS + LEGACY_VERSIONS

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

HEADER_VERSION = "MCP-Protocol-Version"
HEADER_SESSION = "Mcp-Session-Id"
HEADER_METHOD = "Mcp-Method"
HEADER_NAME = "Mcp-Name"

LINK_URI = "search://results/demo-v1"
LINK_NAME = "search-demo-v1.json"
MIME_JSON = "application/json"
DEFAULT_REF_URL = "http://127.0.0.1:9/mcp-accept-canary.json"
INSTRUCTIONS = (
    "Reference server of mcp-accept. The four search tools return the same "
    "document as text, structuredContent, an embedded resource and a resource_link."
)

# JSON-RPC and MCP error codes used here.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SESSION_NOT_FOUND = -32001
LEGACY_RESOURCE_NOT_FOUND = -32002
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022

CACHEABLE_METHODS = frozenset({
    "server/discover", "tools/list", "resources/list",
    "resources/templates/list", "resources/read",
})

# ----- break modes: one defect each (--break NAME) ---------------------------------

BREAK_MODES = {
    "total-string": 'structuredContent and its text twin carry "total": "2" (a string)',
    "total-999": "structuredContent and its text twin carry total 999 with two hits",
    "twin-differs": "structuredContent is right but its text twin differs (a title changed)",
    "content-missing": "the structured tool's result has no content key at all",
    "content-empty": "the structured tool's result has content: []",
    "structured-missing": "the structured tool's result has no structuredContent key, though its "
                          "outputSchema is declared",
    "structured-null": "structuredContent is null; outputSchema {\"type\": \"null\"}",
    "structured-false": "structuredContent is false; outputSchema {\"const\": false}",
    "structured-zero": "structuredContent is 0; outputSchema {\"type\": \"integer\"}",
    "structured-empty-string": "structuredContent is \"\"; outputSchema {\"type\": \"string\"}",
    "structured-empty-array": "structuredContent is []; outputSchema {\"type\": \"array\", \"maxItems\": 0}",
    "external-ref": "the outputSchema is {\"$ref\": URL} pointing outside itself (--ref-url)",
    "unknown-uri-empty": "resources/read of an unknown URI answers contents: [] instead of an error",
    "size-wrong": "the resource_link's size is the real byte length + 7",
    "embedded-differs": "the embedded resource's body differs from the document (a title changed)",
    "crash": "calling search_embedded ends the process (exit 3) without an answer",
    "hang": "tools/call of search_embedded is never answered",
    "junk": "a non-JSON line is written to stdout before every answer (stdio)",
    "preface-item": "the text tool's result opens with a prose text item before the JSON one",
    "no-output-schema": "the structured tool declares no outputSchema (its result keeps structuredContent)",
    "is-error": "the text tool answers a result with isError: true (a quota message)",
    "nan": "the text tool's result carries an extra field whose value is NaN (not JSON)",
    "duplicate-key": "the text tool's result names one key twice",
    "bad-uri": "the resource_link and its contents use the URI \"%s\" (a space: not RFC 3986)"
               % "search://results/demo v1",
    "bad-blob": "the embedded resource carries its body as a blob that is not base64",
    "dialect-unknown": "the outputSchema declares \"$schema\" draft-04, a dialect mcp-accept does not support",
    "ref-in-enum": "the outputSchema holds {\"$ref\": URL} (--ref-url) as data inside an enum",
    "no-discover": "2026-07-28: server/discover answers -32601; every other request is served",
    "mrtr": "2026-07-28: the structured tool first answers resultType input_required with "
            "requestState only; the retry carrying it gets the complete result",
    "mrtr-endless": "2026-07-28: the structured tool answers input_required (requestState only) every time",
    "paged-resources": "resources/list has two pages; the link's resource is listed on page 2",
    "unknown-method-result": "an unknown method is answered with an empty result instead of error -32601",
    "bad-cursor-accepted": "tools/list ignores a cursor it never handed out and answers the whole list",
    "legacy-32602": "2025-11-25 and 2025-06-18: reading an unknown URI gives -32602 instead of -32002",
    "legacy-object-schema": "2025-11-25 and 2025-06-18: the structured tool keeps its object outputSchema "
                            "whatever structured-* mode is given with it (the falsy value alone is wrong)",
    "stray-progress": "before the text tool's answer, a notifications/progress for a token the client never sent",
    "stray-log": "before the text tool's answer, a notifications/message, though no logging capability is "
                 "declared (and, in 2026-07-28, no request set a log level)",
    "log-declared": "the logging capability is declared and a notifications/message comes before the text "
                    "tool's answer (allowed in 2025-11-25 and 2025-06-18; 2026-07-28 asks for the request's "
                    "log level)",
    "stray-request": "2025-11-25 and 2025-06-18: before the text tool's answer, a roots/list request, though "
                     "the client declared no roots capability",
    "stray-cancel": "before the text tool's answer, a notifications/cancelled naming the client's own request",
    "undeclared-resources": "the resources capability is not declared; resources are served all the same",
    "undeclared-tools": "the tools capability is not declared; tools are served all the same",
    "bad-image-data": "the text tool's result ends with an image item whose data is not base64",
    "bad-meta-key": "the text tool's text item carries _meta key \"%s\" (its name does not begin with a "
                    "letter or digit)" % "com.example/-note",
    "reserved-error-code": "an invalid cursor is refused with -32050, a code 2026-07-28 reserves and does not "
                           "define",
    "ttl-float": "2026-07-28: ttlMs is written 0.0, a number with an integer value (valid)",
    "text-prose": "the text tool's only text item is prose, not the JSON document",
    "empty-cursor": "tools/list has two pages, and the cursor of the second page is the empty string",
}

# Values of the break modes added for the rule kinds.
BAD_LINK_URI = "search://results/demo v1"  # a space is not allowed in an RFC 3986 URI
UNSUPPORTED_DIALECT = "http://json-schema.org/draft-04/schema#"
TOOL_ERROR_TEXT = "Search backend quota exceeded for q=%s; retry after 60 seconds"
PREFACE_TEXT = "Search results for q=%s (JSON below):"
DUPLICATED_FIELD = '"fixtureNote":"first"'  # written twice on the wire in break mode duplicate-key
MRTR_STATE = "fixture-mrtr-state-1"
RESOURCES_PAGE_2 = "fixture-resources-page-2"
BAD_META_KEY = "com.example/-note"
RESERVED_CODE = -32050  # in 2026-07-28's range for the specification, and not defined by it
PROGRESS_TOKEN = "fixture-progress-1"
PROSE_TEXT = "Found results for %s: MCP guide, Report design."
TOOLS_PAGE_2 = ""  # break mode empty-cursor: the second page's cursor is the empty string

# Falsy structuredContent values and the outputSchema each is declared with.
FALSY_STRUCTURED = {
    "structured-null": (None, {"type": "null"}),
    "structured-false": (False, {"const": False}),
    "structured-zero": (0, {"type": "integer"}),
    "structured-empty-string": ("", {"type": "string"}),
    "structured-empty-array": ([], {"type": "array", "maxItems": 0}),
}

JUNK_LINE = "fixture: this line is not JSON-RPC (break mode junk)"

# Marker mode: one token per carrier of the document, "MK" + a letter + "-" + a random
# part of its own (10 hex digits), so that a model shown one token cannot make up another.
# "twin" is the text item beside structuredContent in search_structured's result.
# Each carrier has two tokens: the head token opens the body (the first hit's snippet),
# the tail token ("MK" + letter + "Z-" + random) closes it (the last hit's snippet), so an
# answer that shows the head but not the tail tells of a body cut short.
MARKER_FORMS = (("text", "T"), ("structured", "S"), ("twin", "W"), ("embedded", "E"),
                ("link", "L"))

# The host tools, listed in marker mode only: what a host does with a large text, an image
# and binary blobs. Their tokens take letters of their own, none of the forms' letters, so
# no token of one can be taken for a token of the other.
LARGE_TOOL, IMAGE_TOOL, BLOB_TOOL = "search_large", "search_image", "search_blob"
HOST_TOOLS = (LARGE_TOOL, IMAGE_TOOL, BLOB_TOOL)
HOST_TOKENS = (("large", "G"), ("image", "I"), ("pdf", "P"), ("png", "B"))
LARGE_MAX_BYTES = 16 * 1024 * 1024
# Every line of a large body is this long (the newline included) and opens with its offset,
# so a cut anywhere can be placed within the line it falls in.
LARGE_LINE = 1024
LARGE_FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
PDF_URI = "search://blobs/demo-report.pdf"
PNG_URI = "search://blobs/demo-chart.png"
MIME_PDF = "application/pdf"
MIME_PNG = "image/png"
IMAGE_SIDE, IMAGE_CELLS = 64, 8  # search_image: 64x64 pixels in 8x8 cells of one colour each
BLOB_PNG_SIDE, BLOB_PNG_CELLS = 32, 4

# ----- the search document and its schemas ----------------------------------------

INPUT_SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string"}},
    "required": ["q"],
}

LARGE_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"bytes": {
        "type": "integer", "minimum": 1, "maximum": LARGE_MAX_BYTES,
        "description": "length of the text to return, in UTF-8 bytes (1 to 16777216)",
    }},
    "required": ["bytes"],
    "additionalProperties": False,
}

# The inputSchema docs/specification/2026-07-28/server/tools.mdx#tool recommends for a tool
# without parameters (the same in 2025-11-25): it accepts only an empty object.
NO_INPUT_SCHEMA = {"type": "object", "additionalProperties": False}

OUTPUT_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["query", "total", "hits"],
    "properties": {
        "query": {"type": "string"},
        "total": {"type": "integer", "minimum": 0},
        "hits": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "title", "snippet"],
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "snippet": {"type": "string"},
                },
            },
        },
    },
}

REFERENCE_HITS = (
    {"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
    {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."},
)


def reference_document(q: str = "MCP") -> dict:
    """The document every tool returns: two hits for "MCP", none for anything else."""
    hits = [dict(h) for h in REFERENCE_HITS] if q == "MCP" else []
    return {"query": q, "total": len(hits), "hits": hits}


def compact(value) -> str:
    """The serialisation used for every body: compact, UTF-8 characters kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def link_uri(q: str) -> str:
    if q == "MCP":
        return LINK_URI
    return LINK_URI + "?q=" + urllib.parse.quote(q, safe="")


def query_of_uri(uri):
    """The query a link URI stands for, or None when this server has no such resource."""
    if not isinstance(uri, str):
        return None
    if uri == LINK_URI:
        return "MCP"
    prefix = LINK_URI + "?q="
    if uri.startswith(prefix):
        return urllib.parse.unquote(uri[len(prefix):])
    return None


def utc_now() -> str:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _altered(doc: dict, hit_index: int, suffix: str) -> dict:
    """A copy of doc with one hit's title changed (or the query, when there are no hits)."""
    out = copy.deepcopy(doc)
    hits = out.get("hits") or []
    if hits:
        hits[min(hit_index, len(hits) - 1)]["title"] += suffix
    else:
        out["query"] = str(out.get("query", "")) + suffix
    return out


# ----- JSON-RPC plumbing -------------------------------------------------------------

class RpcError(Exception):
    """A JSON-RPC error answer, with the HTTP status it travels with."""

    def __init__(self, code, message, data=None, status=200):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.status = status

    def payload(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class Reply:
    """What the server does with one incoming message."""

    __slots__ = ("message", "status", "action", "version", "before")

    def __init__(self, message=None, status=200, action=None, version=None):
        self.message = message  # dict to send, or None for no answer
        self.status = status  # HTTP status to use
        self.action = action  # None, "crash" or "hang"
        self.version = version  # the negotiated version of an initialize
        self.before = []  # messages sent ahead of the answer, on its stream


class Connection:
    """Per-connection state: the stdio stream, or one HTTP request (and its session)."""

    def __init__(self, legacy_version=None):
        self.legacy_version = legacy_version
        self.fixed_era = None


def error_message(msg_id, code, message, data=None) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id,
            "error": RpcError(code, message, data).payload()}


# ----- marker mode: head and tail tokens, the log of starts and requests -------------

def new_token(letter: str, tail: bool, taken: set) -> str:
    """"MK" + letter (+ "Z" for a tail) + "-" + a random part no other token has."""
    part = secrets.token_hex(5)
    while part in taken:
        part = secrets.token_hex(5)
    taken.add(part)
    return "MK%s%s-%s" % (letter, "Z" if tail else "", part)


def new_markers(tail: bool = False, taken=None) -> dict:
    """form -> token, every token with its own random part (never two alike);
    ``tail``: the tokens closing each body ("MK" + letter + "Z-")."""
    parts = taken if taken is not None else set()
    return {form: new_token(letter, tail, parts) for form, letter in MARKER_FORMS}


# ----- marker mode: the bodies of the host tools ---------------------------------------

def large_body(size: int, head: str, tail: str) -> str:
    """search_large's text: exactly ``size`` ASCII bytes in lines of LARGE_LINE bytes.

    Line 0 opens with ``head``, line k >= 1 with ``[@OFFSET]`` (OFFSET = k * LARGE_LINE, the
    byte offset of its ``[``), and the body ends with a space and ``tail``. A marker that
    would run into that space is left out, so every marker present is whole. Too short for
    both tokens, the body is the first ``size`` bytes of ``head + " " + tail``."""
    if size < len(head) + 1 + len(tail):
        return (head + " " + tail)[:size]
    tail_at = size - len(tail) - 1  # where the space before the tail token goes
    filler = LARGE_FILLER * (LARGE_LINE // len(LARGE_FILLER) + 1)
    lines = []
    for start in range(0, tail_at, LARGE_LINE):
        opening = head if start == 0 else "[@%d]" % start
        if start and start + len(opening) > tail_at:
            opening = ""
        prefix = opening + " " if opening else ""
        lines.append(prefix + filler[:LARGE_LINE - 1 - len(prefix)] + "\n")
    return "".join(lines)[:tail_at] + " " + tail


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    # A chunk's CRC covers its type and data, not its length (PNG spec, 5.3).
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def marker_png(token: str, side: int, cells: int) -> bytes:
    """A side x side RGB PNG of cells x cells squares whose colours are drawn from ``token``
    (so every start's image differs), with ``token`` in a tEXt chunk."""
    need = cells * cells * 3
    colours = b"".join(hashlib.sha256(("%s:%d" % (token, i)).encode("ascii")).digest()
                       for i in range(need // 32 + 1))
    cell = side // cells
    rows = []
    for y in range(side):
        row = bytearray(b"\x00")  # filter type None
        for x in range(side):
            at = ((y // cell) * cells + x // cell) * 3
            row += colours[at:at + 3]
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n"
            + _png_chunk(b"IHDR", header)
            + _png_chunk(b"tEXt", b"Comment\x00" + token.encode("ascii"))
            + _png_chunk(b"tEXt", b"Software\x00" + ("%s %s" % (FIXTURE_NAME, FIXTURE_VERSION)).encode("ascii"))
            + _png_chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + _png_chunk(b"IEND", b""))


def _pdf_string(text: str) -> str:
    return "(%s)" % text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def marker_pdf(head: str, tail: str) -> bytes:
    """A one-page PDF (1.4, Helvetica, uncompressed) whose text stream opens with ``head``
    and ends with ``tail``, the demo document's hits between them; the xref table holds the
    real byte offset of every object."""
    lines = [head, "Search report for MCP: 2 hits"]
    lines += ["%s %s: %s" % (h["id"], h["title"], h["snippet"]) for h in REFERENCE_HITS]
    lines.append(tail)
    stream = "\n".join(["BT", "/F1 12 Tf", "16 TL", "72 720 Td"]
                       + ["%s Tj T*" % _pdf_string(line) for line in lines] + ["ET"]).encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
         b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    # The second line's bytes above 127 tell file tools the file is binary (PDF 1.7, 7.5.2).
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref_at)
    return bytes(out)


class HostAssets:
    """The tokens and bodies of the host tools for one start of the fixture."""

    def __init__(self, run: str, taken: set):
        letters = dict(HOST_TOKENS)
        self.run = run
        self.large_head = new_token(letters["large"], False, taken)
        self.large_tail = new_token(letters["large"], True, taken)
        self.image_token = new_token(letters["image"], False, taken)
        self.pdf_head = new_token(letters["pdf"], False, taken)
        self.pdf_tail = new_token(letters["pdf"], True, taken)
        self.png_token = new_token(letters["png"], False, taken)
        self.image = marker_png(self.image_token, IMAGE_SIDE, IMAGE_CELLS)
        self.pdf = marker_pdf(self.pdf_head, self.pdf_tail)
        self.png = marker_png(self.png_token, BLOB_PNG_SIDE, BLOB_PNG_CELLS)
        self.blobs = {PDF_URI: (MIME_PDF, self.pdf), PNG_URI: (MIME_PNG, self.png)}

    def describe(self) -> dict:
        """What markers.json keeps of them (``host_tools``)."""
        def body(data: bytes) -> dict:
            return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}

        return {
            "run": self.run,
            # The same tokens by tool, shaped as a start's "markers" and "tails" (form -> token),
            # so a reader of the starts' tokens can read these alike.
            "markers": {"large": self.large_head, "image": self.image_token,
                        "blob": self.pdf_head, "blob_png": self.png_token},
            "tails": {"large": self.large_tail, "blob": self.pdf_tail},
            "large": {"tool": LARGE_TOOL, "head": self.large_head, "tail": self.large_tail,
                      "line_bytes": LARGE_LINE, "position_marker": "[@OFFSET]",
                      "max_bytes": LARGE_MAX_BYTES},
            "image": dict({"tool": IMAGE_TOOL, "token": self.image_token, "mimeType": MIME_PNG,
                           "width": IMAGE_SIDE, "height": IMAGE_SIDE}, **body(self.image)),
            "blob": {
                "tool": BLOB_TOOL,
                "pdf": dict({"uri": PDF_URI, "mimeType": MIME_PDF, "head": self.pdf_head,
                             "tail": self.pdf_tail}, **body(self.pdf)),
                "png": dict({"uri": PNG_URI, "mimeType": MIME_PNG, "token": self.png_token,
                             "width": BLOB_PNG_SIDE, "height": BLOB_PNG_SIDE}, **body(self.png)),
            },
        }


class _FileLock:
    """An exclusive lock on a file, held between processes (flock, or msvcrt on Windows)."""

    def __init__(self, path: str):
        self.path = path
        self._fh = None

    def __enter__(self):
        self._fh = open(self.path, "a+b")
        if fcntl is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX)
        else:
            self._fh.seek(0)
            msvcrt.locking(self._fh.fileno(), msvcrt.LK_LOCK, 1)
        return self

    def __exit__(self, *exc):
        try:
            if fcntl is not None:
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            else:
                self._fh.seek(0)
                msvcrt.locking(self._fh.fileno(), msvcrt.LK_UNLCK, 1)
        finally:
            self._fh.close()
        return False


def _earlier_info(path: str) -> dict:
    """An existing markers.json, or {} when there is none. A file that cannot be read is
    set aside (renamed), never silently lost."""
    try:
        with open(path, encoding="utf-8") as fh:
            info = json.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        aside = "%s.unreadable-%s" % (path, secrets.token_hex(3))
        _log("markers.json cannot be read (%s); kept as %s, history restarted" % (exc, aside))
        try:
            os.replace(path, aside)
        except OSError:
            pass
        return {}
    return info if isinstance(info, dict) else {}


def _earlier_host_tools(info: dict) -> list:
    """The host tools of every earlier start with markers (``host_tools_history``)."""
    history = info.get("host_tools_history")
    if isinstance(history, list):
        return [entry for entry in history if isinstance(entry, dict)]
    return [info["host_tools"]] if isinstance(info.get("host_tools"), dict) else []


def _earlier_starts(info: dict) -> list:
    """The history kept in an existing markers.json: every earlier start of the fixture
    with this log folder. A file written before the history existed counts as one start."""
    history = info.get("history")
    if isinstance(history, list):
        return [entry for entry in history if isinstance(entry, dict)]
    if isinstance(info.get("run"), str):
        return [{key: info.get(key) for key in ("run", "markers", "tails", "pid", "started_at")
                 if key in info}]
    return []


class RequestLog:
    """markers.json and requests.jsonl under --log DIR.

    markers.json names this start of the fixture (``run``, ``markers``: the head token of
    each form, ``tails``: the tail token of each form, ``pid``, ``started_at``) and keeps
    ``history``: the same keys for every start that used
    this folder, oldest first, this one last. A host may start the fixture several times
    in one session; each start has its own tokens, and all of them stay known.

    In marker mode it also holds ``host_tools`` (HostAssets.describe: this start's tokens,
    sizes and SHA-256 of the host tools' bodies, with its ``run``) and keeps
    ``host_tools_history``: the same for every start with markers, oldest first. They sit
    beside ``history``, whose entries keep their five keys.
    """

    def __init__(self, folder: str, run: str, markers, tails=None, host_tools=None):
        self.folder = folder
        self.run = run
        os.makedirs(folder, exist_ok=True)
        start = {"run": run, "markers": markers, "pid": os.getpid(), "started_at": utc_now()}
        if tails:
            start["tails"] = tails
        path = os.path.join(folder, "markers.json")
        with _FileLock(os.path.join(folder, ".markers.lock")):
            earlier = _earlier_info(path)
            info = dict(start, history=_earlier_starts(earlier) + [start])
            host_history = _earlier_host_tools(earlier) + ([host_tools] if host_tools else [])
            if host_tools:
                info["host_tools"] = host_tools
            if host_history:
                info["host_tools_history"] = host_history
            fd, tmp = tempfile.mkstemp(prefix=".markers-", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(info, fh, ensure_ascii=False, indent=2)
                    fh.write("\n")
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        self._lock = threading.Lock()
        self._fh = open(os.path.join(folder, "requests.jsonl"), "a", encoding="utf-8")

    def record(self, transport: str, msg: dict) -> None:
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        name = params.get("name")
        uri = params.get("uri")
        entry = {
            "t": utc_now(),
            "transport": transport,
            "method": msg.get("method"),
            "id": msg.get("id"),
            "name": name if isinstance(name, str) else None,
            "uri": uri if isinstance(uri, str) else None,
            "run": self.run,
        }
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()


# ----- the server: tools, resources and both protocol eras, shared by the transports -

class Fixture:
    """The protocol logic, shared by both transports."""

    def __init__(self, protocol="auto", breaks=(), ref_url=DEFAULT_REF_URL,
                 markers=False, sticky=False, log=None):
        self.protocol = protocol
        self.breaks = frozenset(breaks)
        self.ref_url = ref_url
        self.sticky = sticky
        self.log = log
        self.run = secrets.token_hex(4)
        self.markers = self.tails = self.assets = None
        if markers:
            taken = set()
            self.markers = new_markers(taken=taken)
            self.tails = new_markers(tail=True, taken=taken)
            self.assets = HostAssets(self.run, taken)

    @property
    def host_tools(self):
        """What markers.json keeps of the host tools; None without markers."""
        return self.assets.describe() if self.assets is not None else None

    # ----- documents ---------------------------------------------------------------

    def encode(self, obj) -> str:
        """The text of one message as it goes on the wire."""
        text = compact(obj)
        if "duplicate-key" in self.breaks:
            # json cannot write an object with a key twice: the second copy is spliced in.
            text = text.replace(DUPLICATED_FIELD, DUPLICATED_FIELD + ',"fixtureNote":"second"', 1)
        return text

    def document(self, q: str, form: str) -> dict:
        doc = reference_document(q)
        if self.markers and doc["hits"]:
            doc["hits"][0]["snippet"] = "[%s] %s" % (self.markers[form], doc["hits"][0]["snippet"])
            doc["hits"][-1]["snippet"] += " [%s]" % self.tails[form]
        return doc

    def link_body(self, q: str) -> str:
        return compact(self.document(q, "link"))

    # ----- era selection -----------------------------------------------------------

    def modern_enabled(self) -> bool:
        return self.protocol in ("auto", MODERN_VERSION)

    def legacy_enabled(self) -> bool:
        return self.protocol == "auto" or self.protocol in LEGACY_VERSIONS

    def era_of(self, method, params) -> str:
        """'modern' or 'legacy': which era a request belongs to."""
        if method == "initialize":
            return "legacy"
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and META_VERSION in meta:
            return "modern"
        # No envelope: a legacy request, unless only the modern era is served or the
        # method exists in the modern era alone.
        if self.protocol == MODERN_VERSION:
            return "modern"
        if self.protocol == "auto" and method == "server/discover":
            return "modern"
        return "legacy"

    def supported_modern(self) -> list:
        return list(MODERN_VERSIONS) if self.modern_enabled() else []

    def capabilities(self) -> dict:
        caps = {"tools": {}, "resources": {}}
        if "undeclared-tools" in self.breaks:
            del caps["tools"]
        if "undeclared-resources" in self.breaks:
            del caps["resources"]
        if "log-declared" in self.breaks:
            caps["logging"] = {}
        return caps

    def before_answer(self, era, msg_id, method, params) -> list:
        """What the session break modes send ahead of the text tool's answer (on its stream)."""
        if method != "tools/call" or params.get("name") != "search_text":
            return []
        out = []
        if "stray-progress" in self.breaks:
            out.append({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": PROGRESS_TOKEN, "progress": 1, "total": 2}})
        if "stray-log" in self.breaks or "log-declared" in self.breaks:
            out.append({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "logger": "fixture", "data": "searching the demo index"}})
        if "stray-request" in self.breaks and era == "legacy":
            out.append({"jsonrpc": "2.0", "id": "fixture-roots-1", "method": "roots/list"})
        if "stray-cancel" in self.breaks:
            out.append({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": msg_id, "reason": "break mode stray-cancel"}})
        return out

    # ----- message entry point -----------------------------------------------------

    def handle(self, msg, conn: Connection, transport: str, on_request=None) -> Reply:
        """Answer one decoded JSON value received from the client.

        ``on_request(era, msg)`` may raise RpcError to refuse a request (the HTTP
        header rules live there).
        """
        if not isinstance(msg, dict):
            return Reply(error_message(None, INVALID_REQUEST,
                                       "Invalid request: expected one JSON object"), 400)
        if "method" not in msg:
            # A response or something shapeless from the client: nothing to answer.
            if "id" in msg and ("result" in msg or "error" in msg):
                return Reply(None, 202)
            return Reply(error_message(msg.get("id") if _valid_id(msg.get("id")) else None,
                                       INVALID_REQUEST, "Invalid request: no method"), 400)
        if self.log is not None:
            self.log.record(transport, msg)
        method = msg.get("method")
        is_request = "id" in msg
        if not isinstance(method, str) or msg.get("jsonrpc") != "2.0":
            if not is_request:
                return Reply(None, 202)
            msg_id = msg["id"] if _valid_id(msg["id"]) else None
            return Reply(error_message(msg_id, INVALID_REQUEST,
                                       "Invalid request: jsonrpc must be \"2.0\" and method a string"),
                         400)
        if not is_request:
            return Reply(None, 202)  # notifications get no answer
        msg_id = msg["id"]
        if not _valid_id(msg_id):
            return Reply(error_message(None, INVALID_REQUEST,
                                       "Invalid request: id must be a string or an integer"), 400)
        params = msg.get("params")
        if params is not None and not isinstance(params, dict):
            return Reply(error_message(msg_id, INVALID_PARAMS, "params must be an object"), 400)
        params = params or {}
        era = self.era_of(method, params)
        try:
            if self.sticky:
                if conn.fixed_era is None:
                    conn.fixed_era = era
                elif conn.fixed_era != era:
                    raise RpcError(INVALID_REQUEST, "era fixed by first request",
                                   {"fixedEra": conn.fixed_era, "requestedEra": era}, 400)
            if on_request is not None:
                on_request(era, msg)
            if era == "modern":
                reply = self._modern(msg_id, method, params)
            else:
                reply = self._legacy(msg_id, method, params, conn)
            if reply.message is not None and "result" in reply.message:
                reply.before = self.before_answer(era, msg_id, method, params)
            return reply
        except RpcError as exc:
            return Reply({"jsonrpc": "2.0", "id": msg_id, "error": exc.payload()}, exc.status)

    # ----- the two eras ----------------------------------------------------------

    def _modern(self, msg_id, method, params) -> Reply:
        meta = params.get("_meta")
        requested = meta.get(META_VERSION) if isinstance(meta, dict) else None
        if not self.modern_enabled():
            if method == "server/discover":
                raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover", None, 404)
            raise RpcError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                           {"supported": [self.protocol], "requested": _as_text(requested)}, 400)
        if not isinstance(meta, dict) or not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS,
                           "Missing params._meta[\"%s\"]" % META_VERSION, None, 400)
        if not isinstance(meta.get(META_CAPS), dict):
            raise RpcError(INVALID_PARAMS,
                           "Missing params._meta[\"%s\"]" % META_CAPS, None, 400)
        if requested not in MODERN_VERSIONS:
            raise RpcError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                           {"supported": self.supported_modern(), "requested": requested}, 400)
        if method == "server/discover" and "no-discover" in self.breaks:
            raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover", None, 404)
        if method == "server/discover":
            result = {
                "supportedVersions": self.supported_modern(),
                "capabilities": self.capabilities(),
                "instructions": INSTRUCTIONS,
            }
        elif self._asks_for_input(method, params):
            # basic/patterns/mrtr.mdx: no inputRequests, only a requestState to echo back.
            state = params.get("requestState")
            if "mrtr-endless" in self.breaks:
                rounds = int(state.rpartition("-")[2]) if isinstance(state, str) and state[-1:].isdigit() else 0
                state = "fixture-mrtr-round-%d" % (rounds + 1)
            else:
                state = MRTR_STATE
            result = {"resultType": "input_required", "requestState": state}
        else:
            try:
                result, action = self._common(method, params, modern=True)
            except RpcError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    exc.status = 404
                raise
            if action is not None:
                return Reply(None, 200, action)
        stamped = {"resultType": "complete"}
        stamped.update(result)
        stamped["_meta"] = {META_SERVER_INFO: dict(SERVER_INFO)}
        if method in CACHEABLE_METHODS:
            stamped["ttlMs"] = 0.0 if "ttl-float" in self.breaks else 0
            stamped["cacheScope"] = "private"
        return Reply({"jsonrpc": "2.0", "id": msg_id, "result": stamped})

    def _asks_for_input(self, method, params) -> bool:
        """Break modes mrtr and mrtr-endless: whether this 2026-07-28 call is answered
        input_required (mrtr: until the retry carries the requestState handed out)."""
        if method != "tools/call" or params.get("name") != "search_structured":
            return False
        if "mrtr-endless" in self.breaks:
            return True
        return "mrtr" in self.breaks and params.get("requestState") != MRTR_STATE

    def _legacy(self, msg_id, method, params, conn: Connection) -> Reply:
        if method == "initialize":
            if not self.legacy_enabled():
                raise RpcError(METHOD_NOT_FOUND, "Method not found: initialize", None, 404)
            requested = params.get("protocolVersion")
            if self.protocol in LEGACY_VERSIONS:
                version = self.protocol
            elif requested in LEGACY_VERSIONS:
                version = requested
            else:
                version = DEFAULT_LEGACY_VERSION
            conn.legacy_version = version
            result = {
                "protocolVersion": version,
                "capabilities": self.capabilities(),
                "serverInfo": dict(SERVER_INFO),
                "instructions": INSTRUCTIONS,
            }
            return Reply({"jsonrpc": "2.0", "id": msg_id, "result": result}, version=version)
        if method == "server/discover":
            raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover")
        result, action = self._common(method, params, modern=False)
        if action is not None:
            return Reply(None, 200, action)
        return Reply({"jsonrpc": "2.0", "id": msg_id, "result": result})

    # ----- methods served in both eras ------------------------------------------

    def _common(self, method, params, modern):
        if method == "ping":
            return {}, None
        if method == "resources/list" and "paged-resources" in self.breaks:
            return self._resources_page((params or {}).get("cursor")), None
        if method == "tools/list" and "empty-cursor" in self.breaks:
            return self._tools_page(params, modern), None
        if method in ("tools/list", "resources/list") and "cursor" in (params or {}) \
                and not (method == "tools/list" and "bad-cursor-accepted" in self.breaks):
            # Every list fits on one page, so the fixture never hands out a cursor: any cursor
            # it is given is invalid (server/utilities/pagination.mdx, error handling).
            raise RpcError(RESERVED_CODE if "reserved-error-code" in self.breaks else INVALID_PARAMS,
                           "Invalid cursor")
        if method == "tools/list":
            return {"tools": self.tools(modern)}, None
        if method == "tools/call":
            return self.call_tool(params)
        if method == "resources/list":
            return {"resources": []}, None
        if method == "resources/templates/list":
            return {"resourceTemplates": []}, None
        if method == "resources/read":
            return self.read_resource(params, modern), None
        if "unknown-method-result" in self.breaks:
            return {}, None
        raise RpcError(METHOD_NOT_FOUND, "Method not found: %s" % method)

    def _resources_page(self, cursor) -> dict:
        """Break mode paged-resources: page 1 is empty and hands out a cursor; page 2 lists
        the link's resource."""
        if cursor is None:
            return {"resources": [], "nextCursor": RESOURCES_PAGE_2}
        if cursor != RESOURCES_PAGE_2:
            raise RpcError(INVALID_PARAMS, "Invalid cursor")
        return {"resources": [{"uri": LINK_URI, "name": LINK_NAME, "mimeType": MIME_JSON}]}

    def _tools_page(self, params, modern) -> dict:
        """Break mode empty-cursor: page 1 holds the first two tools and hands out the cursor
        "", which is a cursor like any other (server/utilities/pagination.mdx)."""
        tools = self.tools(modern)
        if "cursor" not in params:
            return {"tools": tools[:2], "nextCursor": TOOLS_PAGE_2}
        if params["cursor"] != TOOLS_PAGE_2:
            raise RpcError(INVALID_PARAMS, "Invalid cursor")
        return {"tools": tools[2:]}

    def tools(self, modern=True) -> list:
        output_schema = OUTPUT_SCHEMA
        for name, (_value, schema) in FALSY_STRUCTURED.items():
            if name in self.breaks and (modern or "legacy-object-schema" not in self.breaks):
                output_schema = schema
        if "external-ref" in self.breaks:
            output_schema = {"$ref": self.ref_url}
        if "dialect-unknown" in self.breaks:
            output_schema = dict(output_schema, **{"$schema": UNSUPPORTED_DIALECT})
        if "ref-in-enum" in self.breaks:
            # enum holds data: the {"$ref": URL} in it is a value compared, never resolved.
            output_schema = copy.deepcopy(output_schema)
            output_schema["properties"]["source"] = {"enum": ["demo-index", {"$ref": self.ref_url}]}
        common = {"inputSchema": copy.deepcopy(INPUT_SCHEMA)}
        return self._search_tools(output_schema, common) + (
            self._host_tools() if self.assets is not None else [])

    def _host_tools(self) -> list:
        return [
            {"name": LARGE_TOOL, "title": "Search (large text)",
             "description": "Return one text item of exactly `bytes` UTF-8 bytes (1 to 16777216): "
                            "a marker token at its start and end, and position markers "
                            "[@OFFSET] at the start of every 1024-byte line.",
             "inputSchema": copy.deepcopy(LARGE_INPUT_SCHEMA)},
            {"name": IMAGE_TOOL, "title": "Search (image)",
             "description": "Return a small PNG chart of the demo index as an image item, and "
                            "a text item naming its marker token.",
             "inputSchema": copy.deepcopy(NO_INPUT_SCHEMA)},
            {"name": BLOB_TOOL, "title": "Search (binary resources)",
             "description": "Return the demo report as two embedded resources with base64 "
                            "bodies: a PDF and a PNG chart.",
             "inputSchema": copy.deepcopy(NO_INPUT_SCHEMA)},
        ]

    def _search_tools(self, output_schema, common) -> list:
        return [
            dict(name="search_text", title="Search (text)",
                 description="Search the demo index; the result is the JSON document as a text item.",
                 **copy.deepcopy(common)),
            dict(name="search_structured", title="Search (structured)",
                 description="Search the demo index; the result is structuredContent with a text twin.",
                 **({} if "no-output-schema" in self.breaks else {"outputSchema": copy.deepcopy(output_schema)}),
                 **copy.deepcopy(common)),
            dict(name="search_embedded", title="Search (embedded resource)",
                 description="Search the demo index; the result embeds the document as a resource.",
                 **copy.deepcopy(common)),
            dict(name="search_link", title="Search (resource link)",
                 description="Search the demo index; the result links to the document, "
                             "to be read with resources/read.",
                 **copy.deepcopy(common)),
        ]

    def call_tool(self, params):
        name = params.get("name")
        if self.assets is not None and name in HOST_TOOLS:
            return self._host_tool(name, params.get("arguments")), None
        if name not in ("search_text", "search_structured", "search_embedded", "search_link"):
            raise RpcError(INVALID_PARAMS, "Unknown tool: %s" % _as_text(name))
        args = params.get("arguments")
        if not isinstance(args, dict) or not isinstance(args.get("q"), str):
            return {"content": [{"type": "text", "text": "Invalid arguments: q must be a string"}],
                    "isError": True}, None
        q = args["q"]
        if name == "search_text":
            return self._text(q), None
        if name == "search_structured":
            return self._structured(q), None
        if name == "search_embedded":
            if "crash" in self.breaks:
                return None, "crash"
            if "hang" in self.breaks:
                return None, "hang"
            doc = self.document(q, "embedded")
            if "embedded-differs" in self.breaks:
                doc = _altered(doc, 0, " (stale copy)")
            resource = {"uri": link_uri(q), "mimeType": MIME_JSON, "text": compact(doc)}
            if "bad-blob" in self.breaks:
                # base64 of the body, spoiled by a character base64 does not have
                del resource["text"]
                resource["blob"] = base64.b64encode(compact(doc).encode("utf-8")).decode("ascii") + "!"
            return {"content": [{"type": "resource", "resource": resource}]}, None
        size = len(self.link_body(q).encode("utf-8"))
        if "size-wrong" in self.breaks:
            size += 7
        uri = BAD_LINK_URI if "bad-uri" in self.breaks and q == "MCP" else link_uri(q)
        link = {"type": "resource_link", "uri": uri, "name": LINK_NAME,
                "mimeType": MIME_JSON, "size": size}
        return {"content": [link]}, None

    def _host_tool(self, name, args) -> dict:
        """search_large, search_image, search_blob. Every input is validated, and bad
        arguments are a tool execution error, not a protocol error
        (docs/specification/2026-07-28/server/tools.mdx#error-handling, #security-considerations)."""
        assets = self.assets
        if args is not None and not isinstance(args, dict):
            return _tool_error("Invalid arguments: arguments must be an object")
        args = args or {}
        if name == LARGE_TOOL:
            size = args.get("bytes")
            if isinstance(size, float) and size.is_integer():
                size = int(size)  # JSON Schema's integer is any number with no fraction
            if not isinstance(size, int) or isinstance(size, bool) \
                    or not 1 <= size <= LARGE_MAX_BYTES:
                return _tool_error("Invalid arguments: bytes must be an integer from 1 to %d "
                                   "(16 MiB), got %s" % (LARGE_MAX_BYTES, _as_text(size)))
            extra = sorted(set(args) - {"bytes"})
            if extra:
                return _tool_error("Invalid arguments: %s takes only bytes, got %s"
                                   % (name, ", ".join(extra)))
            return {"content": [{"type": "text",
                                 "text": large_body(size, assets.large_head, assets.large_tail)}]}
        if args:
            return _tool_error("Invalid arguments: %s takes no arguments, got %s"
                               % (name, ", ".join(sorted(args))))
        if name == IMAGE_TOOL:
            return {"content": [
                {"type": "image", "data": _b64(assets.image), "mimeType": MIME_PNG},
                {"type": "text", "text": "The image item before this text is a %dx%d PNG chart "
                                         "of the demo index; its marker token is %s."
                                         % (IMAGE_SIDE, IMAGE_SIDE, assets.image_token)},
            ]}
        return {"content": [{"type": "resource", "resource": self._blob_contents(uri)}
                            for uri in (PDF_URI, PNG_URI)]}

    def _blob_contents(self, uri) -> dict:
        mime, data = self.assets.blobs[uri]
        return {"uri": uri, "mimeType": mime, "blob": _b64(data)}

    def _text(self, q) -> dict:
        if "is-error" in self.breaks:
            return {"content": [{"type": "text", "text": TOOL_ERROR_TEXT % q}], "isError": True}
        content = [{"type": "text", "text": compact(self.document(q, "text"))}]
        if "text-prose" in self.breaks:
            content = [{"type": "text", "text": PROSE_TEXT % q}]
        if "bad-meta-key" in self.breaks:
            content[0]["_meta"] = {BAD_META_KEY: "a key whose name opens with a hyphen"}
        if "bad-image-data" in self.breaks:
            content.append({"type": "image", "data": "iVBORw0KGgo!not-base64", "mimeType": MIME_PNG})
        if "preface-item" in self.breaks:
            content.insert(0, {"type": "text", "text": PREFACE_TEXT % q})
        result = {"content": content}
        if "nan" in self.breaks:
            result["fixtureScore"] = float("nan")  # json writes NaN, which JSON does not have
        if "duplicate-key" in self.breaks:
            result["fixtureNote"] = "first"  # written twice by Fixture.encode
        return result

    def _structured(self, q) -> dict:
        structured = self.document(q, "structured")
        if "total-string" in self.breaks:
            structured["total"] = str(structured["total"])
        if "total-999" in self.breaks:
            structured["total"] = 999
        twin = structured
        if self.markers:
            # The twin is the same document with a token of its own, so an observer can
            # tell which of the two carriers reached the model.
            twin = json.loads(compact(structured)
                              .replace(self.markers["structured"], self.markers["twin"])
                              .replace(self.tails["structured"], self.tails["twin"]))
        if "twin-differs" in self.breaks:
            twin = _altered(twin, 1, " (draft)")
        for mode, (value, _schema) in FALSY_STRUCTURED.items():
            if mode in self.breaks:
                structured = copy.deepcopy(value)
                twin = structured
        result = {}
        if "content-empty" in self.breaks:
            result["content"] = []
        elif "content-missing" not in self.breaks:
            result["content"] = [{"type": "text", "text": compact(twin)}]
        if "structured-missing" not in self.breaks:
            result["structuredContent"] = structured
        return result

    def read_resource(self, params, modern) -> dict:
        uri = params.get("uri")
        if self.assets is not None and isinstance(uri, str) and uri in self.assets.blobs:
            return {"contents": [self._blob_contents(uri)]}
        q = query_of_uri(uri)
        if q is None and "bad-uri" in self.breaks and uri == BAD_LINK_URI:
            q = "MCP"
        if q is None:
            if "unknown-uri-empty" in self.breaks:
                return {"contents": []}
            code = INVALID_PARAMS if modern or "legacy-32602" in self.breaks else LEGACY_RESOURCE_NOT_FOUND
            raise RpcError(code, "Resource not found", {"uri": _as_text(uri)})
        return {"contents": [{"uri": uri, "mimeType": MIME_JSON, "text": self.link_body(q)}]}


def _valid_id(value) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _tool_error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _as_text(value):
    return value if isinstance(value, str) else compact(value)


def _log(text: str) -> None:
    try:
        sys.stderr.write("%s: %s\n" % (FIXTURE_NAME, text))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# ----- stdio transport -------------------------------------------------------------

def serve_stdio(fixture: Fixture) -> int:
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    conn = Connection()

    def send(obj) -> None:
        if "junk" in fixture.breaks:
            stdout.write((JUNK_LINE + "\n").encode("utf-8"))
        stdout.write((fixture.encode(obj) + "\n").encode("utf-8"))
        stdout.flush()

    _log("serving stdio (protocol %s, breaks: %s)"
         % (fixture.protocol, ",".join(sorted(fixture.breaks)) or "none"))
    try:
        for raw in stdin:
            line = raw.strip()
            if not line:
                continue
            try:
                msg = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                send(error_message(None, PARSE_ERROR, "Parse error: %s" % exc))
                continue
            reply = fixture.handle(msg, conn, "stdio")
            if reply.action == "crash":
                _log("break mode crash: exiting with status 3")
                stdout.flush()
                return 3
            if reply.action == "hang":
                _log("break mode hang: request left unanswered")
                continue
            for early in reply.before:
                send(early)
            if reply.message is not None:
                send(reply.message)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    return 0


# ----- Streamable HTTP transport ---------------------------------------------------

_B64_HEADER = re.compile(r"^=\?base64\?(.*)\?=$", re.IGNORECASE)


def decode_header_value(value):
    """Header values that are not ASCII travel as =?base64?...?=."""
    if value is None:
        return None
    match = _B64_HEADER.match(value.strip())
    if not match:
        return value.strip()
    try:
        return base64.b64decode(match.group(1), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return value


def _http_classes():
    """The HTTP server and handler classes, defined at the first --http run: importing
    http.server (and with it email, ssl and http.client) is a third of the start-up of a
    stdio fixture, which never needs it."""
    global _HTTP_CLASSES
    if _HTTP_CLASSES is not None:
        return _HTTP_CLASSES
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class FixtureHTTPServer(ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True

        def __init__(self, address, fixture: Fixture, sse=None, session_ttl=None):
            super().__init__(address, FixtureHandler)
            self.fixture = fixture
            self.sse = sse
            self.session_ttl = session_ttl
            self.sessions = {}  # id -> {"version": ..., "used": n}
            self.lock = threading.Lock()
            self.event_ids = itertools.count(1)
            self.stopping = threading.Event()
            self.exit_status = 0
            self.allowed_hosts = set()

        def set_allowed_hosts(self, host: str, port: int) -> None:
            names = {"127.0.0.1", "localhost", url_host(host)}
            self.allowed_hosts = {("%s:%d" % (n, port)).lower() for n in names}

        def crash(self) -> None:
            self.exit_status = 3
            self.stopping.set()
            threading.Thread(target=self.shutdown, daemon=True).start()


    class FixtureHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # small answers must not wait for delayed ACKs
        server_version = "%s/%s" % (FIXTURE_NAME, FIXTURE_VERSION)

        # ---- plumbing --------------------------------------------------------------

        def log_message(self, fmt, *args):  # noqa: D401 - keep the server's access log on stderr
            _log("http %s" % (fmt % args))

        def _send_json(self, status, obj, headers=()):
            data = self.server.fixture.encode(obj).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_empty(self, status, headers=()):
            self.send_response(status)
            self.send_header("Content-Length", "0")
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()

        def _send_sse(self, obj, headers=(), before=()):
            crlf = self.server.sse == "crlf"
            eol = "\r\n" if crlf else "\n"
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            # Some servers open the stream with an event whose data is empty.
            self.wfile.write(("data:" + eol + eol).encode("utf-8"))
            self.wfile.flush()
            for message in (*before, obj):
                lines = ["event: message"]
                if not crlf:
                    lines.append("id: %d" % next(self.server.event_ids))
                lines.append("data: " + self.server.fixture.encode(message))
                self.wfile.write((eol.join(lines) + eol + eol).encode("utf-8"))
                self.wfile.flush()

        def _answer(self, status, obj, headers=(), before=()):
            # Messages ahead of the answer need a stream: the answer becomes an SSE stream then.
            if status == 200 and (self.server.sse or before):
                self._send_sse(obj, headers, before)
            else:
                self._send_json(status, obj, headers)

        def _read_body(self) -> bytes:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = 0
            return self.rfile.read(length) if length > 0 else b""

        def _gate(self) -> bool:
            """Host and path rules shared by every HTTP method; False when answered."""
            host = (self.headers.get("Host") or "").strip().lower()
            if host not in self.server.allowed_hosts:
                self._send_json(421, error_message(None, INVALID_REQUEST,
                                                   "Misdirected request: Host %r is not served here"
                                                   % host))
                return False
            path = urllib.parse.urlsplit(self.path).path
            if path != "/mcp":
                self._send_json(404, error_message(None, INVALID_REQUEST,
                                                   "Not found: the MCP endpoint is /mcp"))
                return False
            return True

        def _session(self, required=True):
            """The legacy session named by Mcp-Session-Id; raises RpcError with the status."""
            sid = self.headers.get(HEADER_SESSION)
            if not sid:
                if required:
                    raise RpcError(INVALID_REQUEST, "Bad request: Mcp-Session-Id header is required",
                                   None, 400)
                return None, None
            with self.server.lock:
                session = self.server.sessions.get(sid)
            if session is None:
                raise RpcError(SESSION_NOT_FOUND, "Session not found", None, 404)
            return sid, session

        # ---- HTTP methods ---------------------------------------------------------

        def do_GET(self):
            if self._gate():
                self._send_json(405, error_message(None, INVALID_REQUEST,
                                                   "Method not allowed: this server opens no GET stream"),
                                [("Allow", "POST, DELETE")])

        do_PUT = do_PATCH = do_HEAD = do_GET

        def do_DELETE(self):
            if not self._gate():
                return
            try:
                sid, _session = self._session(required=True)
            except RpcError as exc:
                self._send_json(exc.status, error_message(None, exc.code, exc.message))
                return
            with self.server.lock:
                self.server.sessions.pop(sid, None)
            self._send_empty(200)

        def do_POST(self):
            body = self._read_body()
            if not self._gate():
                return
            try:
                msg = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                self._send_json(400, error_message(None, PARSE_ERROR, "Parse error: %s" % exc))
                return
            fixture = self.server.fixture
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                # A notification: only an unknown session is refused.
                try:
                    self._session(required=False)
                except RpcError as exc:
                    if fixture.log is not None:
                        fixture.log.record("http", msg)
                    self._send_json(exc.status, error_message(None, exc.code, exc.message))
                    return
            state = {"sid": None, "session": None}
            conn = Connection()

            def on_request(era, request):
                if era == "modern":
                    if fixture.modern_enabled():
                        self._check_modern_headers(request)
                    return
                method = request["method"]
                if method == "initialize":
                    header = (self.headers.get(HEADER_VERSION) or "").strip()
                    if header in MODERN_VERSIONS:
                        raise RpcError(INVALID_REQUEST,
                                       "Bad request: initialize must not carry "
                                       "MCP-Protocol-Version: %s" % header, None, 400)
                    return
                if not self.headers.get(HEADER_SESSION) and (
                        self.headers.get(HEADER_METHOD)
                        or (self.headers.get(HEADER_VERSION) or "").strip() in MODERN_VERSIONS):
                    # Modern headers but no envelope in the body.
                    raise RpcError(INVALID_PARAMS,
                                   "Missing params._meta[\"%s\"]" % META_VERSION, None, 400)
                sid, session = self._session(required=True)
                negotiated = session["version"]
                header = (self.headers.get(HEADER_VERSION) or "").strip()
                if header != negotiated:
                    raise RpcError(INVALID_REQUEST,
                                   "Bad request: MCP-Protocol-Version must be %s (got %r)"
                                   % (negotiated, header or None), None, 400)
                with self.server.lock:
                    session["used"] += 1
                    expired = (self.server.session_ttl is not None
                               and session["used"] > self.server.session_ttl)
                    if expired:
                        self.server.sessions.pop(sid, None)
                if expired:
                    raise RpcError(SESSION_NOT_FOUND, "Session not found (expired)", None, 404)
                state["sid"], state["session"] = sid, session
                conn.legacy_version = negotiated

            reply = fixture.handle(msg, conn, "http", on_request)
            if reply.action == "crash":
                _log("break mode crash: closing the connection and shutting down")
                self.close_connection = True
                self.server.crash()
                return
            if reply.action == "hang":
                _log("break mode hang: request left unanswered")
                self.server.stopping.wait()
                self.close_connection = True
                return
            if reply.message is None:
                self._send_empty(202)
                return
            headers = []
            if reply.version is not None and "result" in reply.message:
                sid = secrets.token_hex(16)
                with self.server.lock:
                    self.server.sessions[sid] = {"version": reply.version, "used": 0}
                headers.append((HEADER_SESSION, sid))
            self._answer(reply.status, reply.message, headers, reply.before)

        def _check_modern_headers(self, request):
            params = request.get("params") or {}
            meta = params.get("_meta") if isinstance(params, dict) else None
            version = meta.get(META_VERSION) if isinstance(meta, dict) else None
            if version is None:
                return  # no envelope at all: answered -32602 by the protocol layer
            method = request["method"]
            checks = [(HEADER_VERSION, version), (HEADER_METHOD, method)]
            if method == "tools/call":
                checks.append((HEADER_NAME, params.get("name")))
            elif method == "resources/read":
                checks.append((HEADER_NAME, params.get("uri")))
            for header, expected in checks:
                got = decode_header_value(self.headers.get(header))
                if got != expected:
                    raise RpcError(HEADER_MISMATCH,
                                   "Header mismatch: %s is %r, the body says %r"
                                   % (header, got, expected), None, 400)


    class FixtureHTTPServer6(FixtureHTTPServer):
        address_family = socket.AF_INET6

    _HTTP_CLASSES = {"FixtureHTTPServer": FixtureHTTPServer, "FixtureHandler": FixtureHandler,
                     "FixtureHTTPServer6": FixtureHTTPServer6}
    return _HTTP_CLASSES


_HTTP_CLASSES = None


def __getattr__(name):
    # fixture.FixtureHandler and the servers stay importable (test servers subclass them)
    if name in ("FixtureHTTPServer", "FixtureHandler", "FixtureHTTPServer6"):
        return _http_classes()[name]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def url_host(host: str) -> str:
    return "[%s]" % host if ":" in host else host


def serve_http(fixture: Fixture, host: str, port: int, sse, session_ttl) -> int:
    classes = _http_classes()
    server_class = classes["FixtureHTTPServer6" if ":" in host else "FixtureHTTPServer"]
    try:
        server = server_class((host, port), fixture, sse=sse, session_ttl=session_ttl)
    except OSError as exc:
        _log("cannot listen on %s:%d: %s" % (host, port, exc))
        return 3
    real_port = server.server_address[1]
    server.set_allowed_hosts(host, real_port)
    sys.stdout.write("listening on http://%s:%d/mcp\n" % (url_host(host), real_port))
    sys.stdout.flush()
    _log("serving Streamable HTTP (protocol %s, breaks: %s)"
         % (fixture.protocol, ",".join(sorted(fixture.breaks)) or "none"))
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        server.exit_status = 130
    finally:
        server.stopping.set()
        server.server_close()
    return server.exit_status


# ----- command line --------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fixture.py",
        description="Reference MCP server of mcp-accept (stdio by default).",
        epilog="Break modes: " + ", ".join(BREAK_MODES) + ". "
               "Host tools (marker mode only): search_large {\"bytes\": N} returns one text "
               "item of exactly N bytes (1 to 16 MiB) in 1024-byte lines, the head token "
               "(MKG-) opening it, [@OFFSET] opening every later line (OFFSET: the byte offset "
               "of its '['), the tail token (MKGZ-) ending it; search_image returns a PNG image "
               "item (token MKI-) and a text item naming its token; search_blob returns a PDF "
               "(tokens MKP-, MKPZ-) and a PNG (token MKB-) as embedded blob resources. "
               "markers.json keeps their tokens and SHA-256 under host_tools.",
    )
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="serve Streamable HTTP on PORT (0 picks a free port) instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--sse", choices=("lf", "crlf"),
                        help="answer HTTP requests as text/event-stream with these line ends")
    parser.add_argument("--protocol", default="auto", choices=("auto",) + ALL_VERSIONS,
                        help="protocol versions served (default auto: all)")
    parser.add_argument("--sticky", action="store_true",
                        help="stdio: the first request fixes the era for the whole process")
    parser.add_argument("--session-ttl", type=int, metavar="N",
                        help="HTTP: a legacy session expires after N requests")
    parser.add_argument("--break", dest="breaks", action="append", default=[], metavar="NAME",
                        help="inject a defect (repeatable); see --list-breaks")
    parser.add_argument("--list-breaks", action="store_true", help="list the break modes and exit")
    parser.add_argument("--ref-url", default=DEFAULT_REF_URL,
                        help="URL of the outside $ref used by --break external-ref")
    parser.add_argument("--markers", action="store_true",
                        help="give each result form (and the structured tool's text twin) "
                             "its own marker tokens, and list the host tools search_large, "
                             "search_image and search_blob")
    parser.add_argument("--log", metavar="DIR",
                        help="keep markers.json (the tokens of every start) and a "
                             "requests.jsonl log in DIR")
    parser.add_argument("--version", action="version",
                        version="%s %s" % (FIXTURE_NAME, FIXTURE_VERSION))
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_breaks:
        for name, text in BREAK_MODES.items():
            print("%-24s %s" % (name, text))
        return 0
    unknown = [b for b in args.breaks if b not in BREAK_MODES]
    if unknown:
        sys.stderr.write("fixture.py: error: unknown break mode %r (known: %s)\n"
                         % (unknown[0], ", ".join(BREAK_MODES)))
        return 2
    if args.session_ttl is not None and args.session_ttl < 0:
        sys.stderr.write("fixture.py: error: --session-ttl must be 0 or more\n")
        return 2
    fixture = Fixture(protocol=args.protocol, breaks=args.breaks, ref_url=args.ref_url,
                      markers=args.markers, sticky=args.sticky)
    if args.log:
        try:
            fixture.log = RequestLog(args.log, fixture.run, fixture.markers, fixture.tails,
                                     fixture.host_tools)
        except OSError as exc:
            sys.stderr.write("fixture.py: error: cannot write the log folder %s: %s\n"
                             % (args.log, exc))
            return 2
    if args.http is not None:
        return serve_http(fixture, args.host, args.http, args.sse, args.session_ttl)
    return serve_stdio(fixture)


if __name__ == "__main__":
    sys.exit(main())
