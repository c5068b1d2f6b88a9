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
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from mcp_accept.evidence import WireLog
from mcp_accept.transport.base import Reply

MODERN = "2026-07-28"
# Deeper messages are refused as they arrive: everything that later walks a message
# (schema validation, comparisons, the evidence files) recurses, and must not run out
# of stack on what a server sent. No real MCP message comes near this.
MAX_DEPTH = 128


@dataclass
class Decoded:
    message: Any = None
    reason: str | None = None  # set when the bytes are not a usable message
    raw: str | None = None


def decode_message(data: bytes | str) -> Decoded:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Decoded(reason=f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                           raw=data[:4096].decode("utf-8", "replace"))
    else:
        text = data
    try:
        message = json.loads(text)
    except RecursionError:
        return Decoded(reason="JSON nested too deeply to read", raw=text[:4096])
    except ValueError as exc:
        return Decoded(reason=f"not JSON ({exc.msg} at {exc.pos})", raw=text[:4096])
    if not isinstance(message, dict):
        kind = "a batch (array)" if isinstance(message, list) else type(message).__name__
        return Decoded(reason=f"not a JSON-RPC message object: {kind}", raw=text[:4096])
    if nesting_depth(message) > MAX_DEPTH:
        return Decoded(reason=f"JSON nested more than {MAX_DEPTH} levels deep; not read",
                       raw=text[:4096])
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
        self.closed_reason: str | None = None
        self.answered: set = set()
        self._lock = threading.Lock()

    # -- producer side (reader threads) ----------------------------------------------------
    def put_decoded(self, decoded: Decoded, http: dict | None = None) -> None:
        if decoded.message is None:
            self.violation(decoded.reason or "unreadable message", raw=decoded.raw, http=http)
            return
        self.log.record("in", message=decoded.message, http=http)
        self._queue.put(("msg", decoded.message))

    def violation(self, detail: str, *, raw: str | None = None, http: dict | None = None) -> None:
        self.log.record("event", event="violation", detail=detail, raw=raw, http=http)

    def close(self, reason: str) -> None:
        with self._lock:
            if self.closed_reason is None:
                self.closed_reason = reason
        self._queue.put(("closed", reason))

    def empty(self) -> bool:
        return self._queue.empty()

    # -- consumer side ---------------------------------------------------------------------
    def wait_for(self, request_id: Any, reply: Reply, *, deadline: float, era: str | None,
                 answer: Callable[[dict], None] | None = None) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reply.failure = f"no answer within {_seconds(reply, deadline)}"
                return
            try:
                kind, item = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if kind == "closed":
                self._queue.put((kind, item))  # later waits see it too
                reply.failure = item
                return
            if self._take(item, request_id, reply, era, answer):
                return

    def _take(self, message: dict, request_id: Any, reply: Reply, era: str | None, answer) -> bool:
        if "method" in message:
            reply.others.append(message)
            if "id" in message:
                if era == MODERN:
                    self._flag(reply, f"server sent a JSON-RPC request ({message.get('method')!r}), "
                               "which 2026-07-28 forbids; not answered")
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
                self._flag(reply, f"a second answer for id {mid!r}")
            else:
                self._flag(reply, f"an answer for id {mid!r} while waiting for id {request_id!r}")
            reply.others.append(message)
            return False
        self._flag(reply, "a message that is neither request, notification nor response")
        reply.others.append(message)
        return False

    def _flag(self, reply: Reply, detail: str) -> None:
        reply.violations.append(detail)
        self.violation(detail)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _seconds(reply: Reply, deadline: float) -> str:
    timeout = reply.meta.get("timeout")
    return f"{timeout:g}s" if isinstance(timeout, (int, float)) else "the timeout"
