"""The run folder: atomic writes, the wire log, redaction of secrets.

Everything mcp-accept writes goes through this module, so that two promises hold
in one place: a file is either whole or absent (temporary file, then rename), and
no secret the user handed us (header values, ``env:`` values) reaches a file.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterable

REDACTED = "[REDACTED]"

# Header names whose values are always masked in the wire log, whatever the user said.
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}
)


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Redactor:
    """Replaces every known secret value in text with ``[REDACTED]``."""

    def __init__(self, secrets: Iterable[str] = (), header_names: Iterable[str] = ()):
        self._secrets: list[str] = []
        self.header_names = set(SENSITIVE_HEADERS)
        for name in header_names:
            self.header_names.add(name.lower())
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        # Very short values would mask unrelated text and hide nothing worth hiding.
        if secret and len(secret) >= 4 and secret not in self._secrets:
            self._secrets.append(secret)
            self._secrets.sort(key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[list[str]]:
        out = []
        for name, value in headers:
            shown = REDACTED if name.lower() in self.header_names else self.text(value)
            out.append([name, shown])
        return out


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def _replace(path: Path, fill) -> None:
    """Build a temporary file beside ``path`` with ``fill(fd, tmp)``, then rename it into place,
    so readers see the old file or the new one, never half; on any failure nothing is left."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        fill(fd, tmp)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""

    def fill(fd: int, tmp: str) -> None:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    _replace(path, fill)


def atomic_copy(source: Path, target: Path) -> None:
    """Copy a file so that ``target`` is whole or absent."""

    def fill(fd: int, tmp: str) -> None:
        os.close(fd)
        shutil.copyfile(source, tmp)

    _replace(target, fill)


def atomic_write_json(path: Path, data: Any, redactor: Redactor | None = None) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if redactor is not None:
        text = redactor.text(text)
    atomic_write_text(path, text)


_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
BATCH = 256  # items of a long array serialised by one call


def _bulky(value: Any) -> bool:
    if isinstance(value, list):
        return len(value) > BATCH
    if isinstance(value, dict):
        return any(isinstance(v, (dict, list)) and len(v) > BATCH for v in value.values())
    return False


def compact_pieces(value: Any) -> Iterable[str]:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` in pieces.

    Joined, the pieces are exactly that text; but a 16 MiB result is never held as one
    string (nor as the list of every token the encoder builds before joining, which
    takes about twice the result's size): long arrays are serialised a batch of items at
    a time and objects key by key. A JSON string is never split across two pieces.
    """
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        yield "{"
        for n, (key, item) in enumerate(value.items()):
            head = ("," if n else "") + _compact(key) + ":"
            if isinstance(item, (dict, list)):
                yield head
                yield from compact_pieces(item)
            else:
                yield head + _compact(item)
        yield "}"
    elif isinstance(value, list) and len(value) > BATCH:
        yield "["
        for start in range(0, len(value), BATCH):
            part = value[start:start + BATCH]
            if start:
                yield ","
            if any(_bulky(item) for item in part):
                for n, item in enumerate(part):
                    if n:
                        yield ","
                    yield from compact_pieces(item)
            else:
                yield _compact(part)[1:-1]
        yield "]"
    elif isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        yield "["
        for n, item in enumerate(value):
            if n:
                yield ","
            yield from compact_pieces(item)
        yield "]"
    else:
        yield _compact(value)


def compact_size(value: Any) -> int:
    """UTF-8 bytes of ``value`` as compact JSON (ensure_ascii off), counted piece by piece."""
    return sum(len(p) if p.isascii() else len(p.encode("utf-8", "surrogatepass")) for p in compact_pieces(value))


class WireLog:
    """Append-only ``wire.jsonl``: one line per message or event, flushed as written.

    ``entries`` keeps the parsed messages in memory as well, in order, for the checks:
    the checks judge what was recorded, never the live transport.
    """

    def __init__(self, path: Path | None, redactor: Redactor | None = None, transport: str = "stdio"):
        self.path = path
        self.redactor = redactor or Redactor()
        self.transport = transport
        self.entries: list[dict] = []
        self.step: str | None = None
        self.era: str | None = None  # protocol version messages are currently sent under
        self._seq = 0
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._handle = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n")

    def record(self, direction: str, *, message: Any = None, raw: str | None = None,
               event: str | None = None, detail: str | None = None, http: dict | None = None,
               era: str | None = None) -> int:
        """Record one thing that crossed (or failed to cross) the wire; return its sequence number.

        ``direction`` is ``out`` (we sent), ``in`` (we received) or ``event`` (something
        happened: spawn, exit, timeout, violation). ``raw`` is the received text when it
        was not a JSON-RPC message, kept (cut to 4 KiB) as evidence.
        """
        with self._lock:
            self._seq += 1
            entry: dict[str, Any] = {
                "seq": self._seq,
                "t": utc_now(),
                "ms": round((time.monotonic() - self._start) * 1000, 1),
                "dir": direction,
                "transport": self.transport,
                "step": self.step,
            }
            if era or self.era:
                entry["era"] = era or self.era
            if event:
                entry["event"] = event
            if detail:
                entry["detail"] = self.redactor.text(detail)
            if http:
                entry["http"] = http
            if raw is not None:
                entry["raw"] = self.redactor.text(raw[:4096])
                if len(raw) > 4096:
                    entry["raw_truncated_from"] = len(raw)
            if message is not None:
                entry["message"] = message
            self.entries.append(entry)
            if self._handle is not None:
                # piece by piece: a large message is not serialised whole once more
                for piece in compact_pieces(entry):
                    self._handle.write(self.redactor.text(piece))
                self._handle.write("\n")
                self._handle.flush()
            return self._seq

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
