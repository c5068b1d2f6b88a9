"""What every transport offers the protocol layer."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.reasons import Reason

DEFAULT_MAX_BYTES = 64 * 1024 * 1024


def wire_text(message: Any) -> str:
    """``message`` as compact JSON text to send. Text the server handed us may hold lone
    surrogates (JSON allows ``"\\ud800"``), which UTF-8 cannot encode: such a message goes
    out with ASCII escapes, which say the same JSON."""
    import json

    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
    return text


class TransportClosed(Exception):
    """The connection or process is gone for good; nothing more can be sent."""


@dataclass
class Reply:
    """What came back for one request (or notification) we sent.

    ``message`` is the matching JSON-RPC response, or ``None`` with ``failure`` saying why
    (timeout, the server exited, an HTTP error, too large...): a :class:`Reason` where the
    catalog has the words, else text. ``others`` holds messages that
    arrived meanwhile and were not the answer; ``violations`` what broke the protocol.
    """

    request: dict
    message: dict | None = None
    failure: str | Reason | None = None
    others: list[dict] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def result(self) -> Any:
        if self.message is not None and "result" in self.message:
            return self.message["result"]
        return None

    @property
    def error(self) -> dict | None:
        if self.message is not None and isinstance(self.message.get("error"), dict):
            return self.message["error"]
        return None

    @property
    def has_result(self) -> bool:
        return self.message is not None and "result" in self.message

    def describe_failure(self) -> str | Reason:
        if self.failure:
            return self.failure
        if self.error is not None:
            # cut with a mark: the run's redaction masks a secret's start left at the cut
            from mcp_accept.evidence.redaction import clip

            return f"JSON-RPC error {self.error.get('code')}: {clip(str(self.error.get('message')), 200)}"
        if self.message is not None and not self.has_result:
            return "answer has neither result nor error"
        return "no answer"


class Transport(abc.ABC):
    """Sends JSON-RPC messages to one server and records both directions in ``log``."""

    name: str = ""

    def __init__(self, log: WireLog, *, max_bytes: int = DEFAULT_MAX_BYTES):
        self.log = log
        self.max_bytes = max_bytes
        self.era: str | None = None  # protocol version the current messages are sent under
        self.legacy_version: str | None = None  # negotiated legacy version, once known
        self.tools: dict[str, dict] = {}  # tool definitions from tools/list, by name
        # the first line the server wrote where only messages may go and that is no JSON at all
        # (a stdio server's banner or log line): said in the run's cause as soon as it is seen
        self.noise: str | None = None

    @abc.abstractmethod
    def open(self) -> None: ...

    @abc.abstractmethod
    def request(self, message: dict, *, timeout: float) -> Reply: ...

    @abc.abstractmethod
    def notify(self, message: dict, *, timeout: float) -> Reply: ...

    def restart(self) -> None:
        """Start over on a fresh connection (a new process for stdio)."""
        self.close()
        self.open()

    def exited_unread(self) -> bool:
        """Whether the server ended on its own before reading anything (then starting it
        again is pointless); only a transport that starts a process can tell."""
        return False

    def end_session(self, *, timeout: float) -> None:
        """Tell the server we are done, where the transport has such a thing."""

    @abc.abstractmethod
    def close(self) -> None: ...

    def describe(self) -> dict:
        return {"transport": self.name}
