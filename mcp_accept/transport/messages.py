"""Turning received bytes into JSON-RPC messages, and matching answers to requests.

Both transports feed what they receive into an :class:`Inbox`; the protocol layer
waits on it for the answer to one request. Whatever arrives that is not that
answer (notifications, server requests, answers with the wrong id, a second answer,
junk) is recorded in the wire log as it is, and as a violation where it breaks
the protocol.
"""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.protocol import MODERN, is_legacy, is_modern
from mcp_accept.reasons import Reason, reason
from mcp_accept.transport.base import Reply

# Deeper messages are refused as they arrive: everything that later walks a message
# (schema validation, comparisons, the evidence files) recurses, and must not run out
# of stack on what a server sent. No real MCP message comes near this.
MAX_DEPTH = 128
# What a server may send during one step besides the answers awaited (notifications, server
# requests, stray answers, junk lines, SSE events): past either cap the rest is counted, not
# recorded, and one violation says so; the step still waits for its answer. A server that
# never stops talking then costs bounded disk and memory, and the run goes on.
MAX_STEP_MESSAGES = 1000
MAX_STEP_BYTES = 16 * 1024 * 1024


# What a recorded violation is, kept with it in the wire log (``kind``) so that the rule it
# breaks and the spec sentence it cites are decided from what happened, never from its wording.
UNREADABLE = "unreadable"  # bytes that are no JSON-RPC message object (not JSON, a batch, too deep)
# A line on a stdio server's stdout that is no JSON at all (a banner, a log line, a print): what
# belongs on stderr. Named as such in the run's cause and W01's reason (noise_reason).
STDOUT_NOISE = "stdout-noise"
NOT_UTF8 = "not-utf-8"
NOT_A_NUMBER_FLAW = "not-a-number"  # NaN or Infinity in a message that was read
DUPLICATE_KEY_FLAW = "duplicate-key"
BAD_MESSAGE = "message"  # an answer with a wrong or repeated id, a message of no kind, a body not decoded
SERVER_REQUEST = "server-request"  # a JSON-RPC request from the server where the version forbids one
HTTP_ANSWER = "http-answer"  # an HTTP status or content type Streamable HTTP does not allow
SESSION_ID = "session-id"
TOOL_HEADER = "x-mcp-header"  # a tool whose x-mcp-header cannot be honoured
OWN_LIMIT = "own-limit"  # a limit of this run (--max-bytes, the per-step cap) or the runner's own failure
# An answer compressed though the request asked for none, and decoded all the same: no MCP rule
# forbids it, so it is this run's own expectation (app), as a limit is.
DECODED_ANYWAY = "decoded-anyway"


@dataclass
class Decoded:
    message: Any = None
    reason: str | Reason | None = None  # set when the bytes are not a usable message
    raw: str | None = None
    flaws: list[tuple[str, str]] | None = None  # (kind, text): what breaks JSON in a message still read
    kind: str | None = None  # what the reason is (UNREADABLE or NOT_UTF8)
    noise: bool = False  # no JSON at all (not UTF-8, not JSON, or a bare string or number): no message gone wrong


# Flaws of a received message that Python's json reads anyway. RFC 8259 section 6: numbers
# outside the grammar, Infinity and NaN among them, are not allowed; section 4: an object's
# member names SHOULD not repeat (a reader keeps one of
# them, which one is up to the reader). MCP messages MUST follow JSON-RPC 2.0, whose messages
# are JSON (basic/index.mdx#messages).
NOT_A_NUMBER = "is not a JSON number (RFC 8259 section 6)"
DUPLICATE_KEY = "duplicate object key"


class _Duplicated(dict):
    """An object that named a key more than once (the last value is kept, as json does)."""

    twice: list[str]


_CONTAINERS = (dict, list)
# A member's name ends in a quote followed by a colon (whitespace may come between), and
# nothing else outside a string does: so these marks are never fewer than the members.
_SPACED_COLON = re.compile(r'"[ \t\r\n]+:')


def _shape(value: Any, stop: int) -> tuple[int, int]:
    """How deeply arrays and objects nest in ``value`` (given up once ``stop`` is reached)
    and how many members its objects hold, level by level without recursion."""
    depth = members = 0
    level = [value] if isinstance(value, _CONTAINERS) else []
    while level:
        depth += 1
        if depth >= stop:
            return depth, members
        below: list = []
        for node in level:
            if isinstance(node, dict):
                members += len(node)
                below += [v for v in node.values() if isinstance(v, _CONTAINERS)]
            else:
                below += [v for v in node if isinstance(v, _CONTAINERS)]
        level = below
    return depth, members


def _loads(text: str) -> tuple[Any, bool, int | None]:
    """The JSON value of ``text``, whether it held a flaw (NaN, (-)Infinity, a duplicate
    key) and, when known already, how deeply it nests. Flawed values are still read (as
    Python floats; the last of the duplicates) so that the rest of the message can be
    judged; :func:`_flaws` says where they are.

    Most messages have no flaw, and a hook per object makes a large message's parse three
    times slower than json's own; so the text is parsed plainly first, and parsed again
    with the hooks only when it may hold a flaw: a NaN or Infinity anywhere in the text
    (perhaps inside a string), or fewer members in the objects read than member names
    written (a duplicate key, or a string that contains a quote and a colon)."""
    if "NaN" not in text and "Infinity" not in text:
        value = json.loads(text)
        depth, members = _shape(value, MAX_DEPTH + 1)
        if depth > MAX_DEPTH or members == text.count('":') + len(_SPACED_COLON.findall(text)):
            return value, False, depth
        del value
    flawed: list[bool] = []

    def pairs(items: list) -> dict:
        # Called by the C scanner once per object: a dict and a length compare keep the
        # common case about as fast as json's own dict building.
        found = dict(items)
        if len(found) == len(items):
            return found
        flawed.append(True)
        marked = _Duplicated(found)
        seen: set[str] = set()
        marked.twice = sorted({key for key, _ in items if key in seen or seen.add(key)})
        return marked

    def constant(name: str) -> float:
        flawed.append(True)
        return float(name)

    # A decoder per message: messages are decoded on several reader threads at once.
    decoder = json.JSONDecoder(object_pairs_hook=pairs, parse_constant=constant)
    return decoder.decode(text), bool(flawed), None


def _flaws(message: Any) -> list[tuple[str, str]]:
    """Where ``message`` holds NaN/Infinity or objects with duplicate keys, as JSON paths, each
    with its kind, in the order of their texts. Only called when the parse saw one of them;
    replaces marked objects by plain dicts."""
    flaws: list[tuple[str, str]] = []
    stack: list[tuple[Any, str, Any, Any]] = [(message, "$", None, None)]
    while stack:
        node, path, parent, key = stack.pop()
        if isinstance(node, _Duplicated):
            names = ", ".join(repr(k) for k in node.twice[:3])
            flaws.append((DUPLICATE_KEY_FLAW, f"{DUPLICATE_KEY} {names} at {path} (RFC 8259 section 4: "
                                              "names SHOULD be unique; the last value was kept)"))
            node = dict(node)
            if parent is not None:
                parent[key] = node
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}", node, k) for k, v in node.items()
                         if isinstance(v, (dict, list, float)))
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]", node, i) for i, v in enumerate(node)
                         if isinstance(v, (dict, list, float)))
        elif isinstance(node, float) and (node != node or node in (_INF, -_INF)):
            flaws.append((NOT_A_NUMBER_FLAW, f"{json.dumps(node)} at {path} {NOT_A_NUMBER}"))
    return sorted(flaws, key=lambda flaw: flaw[1])


_INF = float("inf")


def decode_message(data: bytes | bytearray | str) -> Decoded:
    if isinstance(data, (bytes, bytearray)):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Decoded(reason=f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                           raw=data[:4096].decode("utf-8", "replace"), kind=NOT_UTF8, noise=True)
    else:
        text = data
    try:
        message, flawed, depth = _loads(text)
    except RecursionError:
        return Decoded(reason="JSON nested too deeply to read", raw=text[:4096], kind=UNREADABLE)
    except ValueError as exc:
        return Decoded(reason=reason("transport.not-json", detail=f"{exc.msg} at {exc.pos}"), raw=text[:4096],
                       kind=UNREADABLE, noise=True)
    if not isinstance(message, dict):
        shape = "a batch (array)" if isinstance(message, list) else type(message).__name__
        return Decoded(reason=f"not a JSON-RPC message object: {shape}", raw=text[:4096], kind=UNREADABLE,
                       noise=not isinstance(message, list))
    if (depth if depth is not None else nesting_depth(message)) > MAX_DEPTH:
        return Decoded(reason=f"JSON nested more than {MAX_DEPTH} levels deep; not read",
                       raw=text[:4096], kind=UNREADABLE)
    if flawed:
        flaws = _flaws(message)
        if isinstance(message, _Duplicated):
            message = dict(message)
        return Decoded(message=message, flaws=flaws)
    return Decoded(message=message)


def nesting_depth(value: Any, stop: int = MAX_DEPTH + 1) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar is 0), counted without
    recursion and given up once ``stop`` is reached."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if deepest >= stop:
            return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


class Inbox:
    def __init__(self, log: WireLog):
        self.log = log
        self._queue: queue.Queue = queue.Queue()
        self.closed_reason: str | Reason | None = None
        self.answered: set = set()
        self.flood: dict = {}  # per step: [messages, bytes, told]; shared by the inboxes of one transport
        self._lock = threading.Lock()

    # -- producer side (reader threads) ----------------------------------------------------
    def put_decoded(self, decoded: Decoded, http: dict | None = None, size: int = 0) -> None:
        message = decoded.message
        awaited = (isinstance(message, dict) and "method" not in message and "id" in message
                   and _hashable(message["id"]) and message["id"] not in self.answered)
        if self._over_cap(size or len(decoded.raw or "")):
            if awaited:  # maybe the answer: kept unrecorded until it proves to be (wait_for)
                self._queue.put(("quiet", (message, http)))
            return
        if decoded.message is None:
            self.log.record("event", event="violation", detail=decoded.reason or "unreadable message",
                            raw=decoded.raw, http=http, kind=decoded.kind or UNREADABLE)
            return
        seq = self.log.record("in", message=decoded.message, http=http)
        for kind, flaw in decoded.flaws or ():
            self.violation(f"message #{seq}: {flaw}", kind=kind, http=http)
        self._queue.put(("msg", decoded.message))

    def violation(self, detail: str | Reason, *, kind: str, raw: str | None = None,
                  http: dict | None = None) -> None:
        """Record what breaks the protocol; ``kind`` is one of this module's violation kinds."""
        if self._over_cap(len(raw or "")):
            return
        self.log.record("event", event="violation", detail=detail, raw=raw, http=http, kind=kind)

    def _over_cap(self, size: int) -> bool:
        """Count one more unasked-for thing in this step; True once the step's cap is passed."""
        step = self.log.step
        with self._lock:
            counts = self.flood.setdefault(step, [0, 0, False])
            counts[0] += 1
            counts[1] += size
            over = counts[0] > MAX_STEP_MESSAGES or counts[1] > MAX_STEP_BYTES
            tell = over and not counts[2]
            counts[2] = counts[2] or over
        if tell:
            self.log.record("event", event="violation", detail=(
                f"the server sent more than {MAX_STEP_MESSAGES} messages or {MAX_STEP_BYTES} bytes "
                f"besides the answers during step {step!r}; the rest of this step's messages are "
                "dropped unrecorded"), kind=OWN_LIMIT)
        return over

    def close(self, why: str | Reason) -> None:
        with self._lock:
            if self.closed_reason is None:
                self.closed_reason = why
        self._queue.put(("closed", why))

    def empty(self) -> bool:
        return self._queue.empty()

    # -- consumer side ---------------------------------------------------------------------
    def wait_for(self, request_id: Any, reply: Reply, *, deadline: float, era: str | None,
                 answer: Callable[[dict], None] | None = None) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reply.failure = _no_answer_in_time(reply)
                reply.meta["timed_out"] = True
                return
            try:
                kind, item = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if kind == "closed":
                self._queue.put((kind, item))  # later waits see it too
                reply.failure = item
                return
            if kind == "quiet":  # past the step's cap: only the answer itself is recorded
                item, http = item
                mid = item["id"]
                if not (mid == request_id and type(mid) is type(request_id) and mid not in self.answered):
                    continue
                self.log.record("in", message=item, http=http)
            if self._take(item, request_id, reply, era, answer):
                return

    def _take(self, message: dict, request_id: Any, reply: Reply, era: str | None, answer) -> bool:
        if "method" in message:
            reply.others.append(message)
            if "id" in message:
                if is_modern(era):
                    self._flag(reply, f"server sent a JSON-RPC request ({message.get('method')!r}), "
                               f"which {MODERN} forbids; not answered", SERVER_REQUEST)
                elif answer is not None:
                    answer(message)
            return False
        if "id" in message and ("result" in message or "error" in message):
            mid = message["id"]
            if mid == request_id and type(mid) is type(request_id) and mid not in self.answered:
                self.answered.add(mid)
                reply.message = message
                return True
            if _hashable(mid) and mid in self.answered:
                self._flag(reply, f"a second answer for id {mid!r}", BAD_MESSAGE)
            else:
                self._flag(reply, f"an answer for id {mid!r} while waiting for id {request_id!r}", BAD_MESSAGE)
            reply.others.append(message)
            return False
        self._flag(reply, "a message that is neither request, notification nor response", BAD_MESSAGE)
        reply.others.append(message)
        return False

    def _flag(self, reply: Reply, detail: str, kind: str) -> None:
        if len(reply.violations) < MAX_STEP_MESSAGES:
            reply.violations.append(detail)
        self.violation(detail, kind=kind)


def timed_out(reply: Reply) -> bool:
    """Whether ``reply`` has no answer because its timeout passed (the server may yet answer)."""
    return bool(reply.meta.get("timed_out"))


# The failures that say an answer was larger than --max-bytes: it came, and this run refused it.
TOO_LARGE = ("transport.answer-too-large", "transport.dropped-unread")


def too_large(reply: Reply) -> bool:
    """Whether ``reply`` has no answer because one larger than ``--max-bytes`` was dropped."""
    return isinstance(reply.failure, Reason) and reply.failure.id in TOO_LARGE


def violation_rule(kind: str | None) -> str:
    """Which kind of rule a recorded violation of ``kind`` breaks: ``must`` (JSON-RPC 2.0,
    which every MCP message MUST follow: basic/index.mdx#messages), ``should`` (a duplicate
    object key: RFC 8259 section 4 says names SHOULD be unique) or ``app`` (a limit of this run,
    such as --max-bytes or the per-step cap on unasked-for messages, or the runner's own
    failure to read)."""
    if kind == DUPLICATE_KEY_FLAW:
        return "should"
    if kind in (OWN_LIMIT, DECODED_ANYWAY):
        return "app"
    return "must"


# Where the transports' rules are written: 2026-07-28 gives each transport a page of its own,
# earlier versions hold both in basic/transports.mdx (page, section) by version.
_LEGACY_TRANSPORTS = "basic/transports.mdx"


def violation_source(kind: str | None, transport: str | None, version: str | None) -> tuple[str, str]:
    """The spec page and section a ``must`` violation of ``kind`` breaks, in ``version`` (the
    modern layout when none was agreed): the most specific sentence, not the general JSON-RPC one.

    On stdio, a line that cannot be read as a message breaks the rule that a server MUST NOT
    put anything but valid MCP messages on stdout (the stdio section); bytes that are not
    UTF-8 break the rule that JSON-RPC messages MUST be UTF-8 on either transport; HTTP status
    and content-type faults break the Streamable HTTP section on sending messages; a server's
    JSON-RPC request where 2026-07-28 forbids one breaks its transport's section on receiving
    messages; a tool whose x-mcp-header cannot be honoured breaks tools.mdx#x-mcp-header;
    answers with a wrong or repeated id stay with basic/index.mdx#messages (JSON-RPC 2.0)."""
    modern = not is_legacy(version)
    http = "http" in (transport or "").lower()
    if kind == NOT_UTF8:
        return ("basic/transports/index.mdx", "messages") if modern else (_LEGACY_TRANSPORTS, "transports")
    if kind == TOOL_HEADER and modern:
        return ("server/tools.mdx", "x-mcp-header")
    if kind == SERVER_REQUEST:
        if http:
            return ("basic/transports/streamable-http.mdx", "receiving-messages")
        return ("basic/transports/stdio.mdx", "receiving-messages")
    if http and kind == HTTP_ANSWER:
        return (("basic/transports/streamable-http.mdx", "sending-messages") if modern
                else (_LEGACY_TRANSPORTS, "sending-messages-to-the-server"))
    if kind == SESSION_ID:
        return (_LEGACY_TRANSPORTS, "session-management")
    if not http and kind in (UNREADABLE, STDOUT_NOISE):
        return ("basic/transports/stdio.mdx", "stdio") if modern else (_LEGACY_TRANSPORTS, "stdio")
    return ("basic/index.mdx", "messages")


# The server's line is quoted up to this many characters: enough to recognise a banner or a
# log line, short enough for one line on the command line.
NOISE_SHOWN = 60


def noise_reason(raw: str) -> Reason:
    """What a stdio server wrote to its stdout that is no message, said as a reason: the line
    (its start) and the rule it breaks (basic/transports.mdx#stdio in every version: "The
    server MUST NOT write anything to its stdout that is not a valid MCP message")."""
    line = " ".join(raw.split())
    if len(line) > NOISE_SHOWN:
        line = line[:NOISE_SHOWN - 3] + "..."
    return reason("stdout.noise", line=line)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _no_answer_in_time(reply: Reply) -> str | Reason:
    timeout = reply.meta.get("timeout")
    if isinstance(timeout, (int, float)):
        return reason("transport.timeout", seconds=f"{timeout:g}")
    return "no answer within the timeout"
