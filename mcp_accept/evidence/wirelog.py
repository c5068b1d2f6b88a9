"""``wire.jsonl``: every message both ways, in order, one line each, flushed as written; the
compact JSON encoding its sizes are counted in; and the one reader of such a file
(:func:`read_entries`)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from mcp_accept.errors import DiskFull, is_disk_full
from mcp_accept.evidence.budget import ByteBudget
from mcp_accept.evidence.files import open_nofollow, open_read, utc_now
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.reasons import Reason

_strict = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _compact(value: Any) -> str:
    """Compact JSON, strict: a NaN or Infinity a server sent is written as the string of its
    name (the checks judge the number itself, kept in memory), so every line parses anywhere."""
    try:
        return _strict(value)
    except ValueError as exc:
        if not str(exc).startswith("Out of range float"):
            raise
        from mcp_accept.evidence.finite import finite_copy

        return _strict(finite_copy(value))
BATCH = 256  # items of a long array serialised by one call
PIECE_CAP = 1 << 20  # a batch that serialises larger than this is done again item by item
RAW_CAP = 4096  # characters of a received text that was not a message, kept as evidence


def compact_pieces(value: Any, measure: dict | None = None) -> Iterable[str]:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` in pieces.

    Joined, the pieces are exactly that text; but a 16 MiB result is never held as one
    string (nor as the list of every token the encoder builds before joining, which
    takes about twice the result's size): long arrays are serialised a batch of items at
    a time and objects key by key. A JSON string is never split across two pieces.

    ``measure`` maps ``id(v)`` of values inside ``value`` to None; each one met is
    measured on the way (as :func:`compact_size` counts) and its entry set to ``(v, size)``.
    """
    if measure and id(value) in measure:
        size = 0
        for piece in compact_pieces(value):
            size += len(piece) if piece.isascii() else len(piece.encode("utf-8", "surrogatepass"))
            yield piece
        measure[id(value)] = (value, size)
    elif isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        yield "{"
        for n, (key, item) in enumerate(value.items()):
            head = ("," if n else "") + _compact(key) + ":"
            if isinstance(item, (dict, list)):
                yield head
                yield from compact_pieces(item, measure)
            else:
                yield head + _compact(item)
        yield "}"
    elif isinstance(value, list) and len(value) > BATCH:
        yield "["
        for start in range(0, len(value), BATCH):
            part = value[start:start + BATCH]
            if start:
                yield ","
            text = _compact(part)  # C speed; an item-by-item look costs seconds on a million items
            if len(text) <= PIECE_CAP:
                yield text[1:-1]
                continue
            del text
            for n, item in enumerate(part):
                if n:
                    yield ","
                yield from compact_pieces(item, measure)
        yield "]"
    elif isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        yield "["
        for n, item in enumerate(value):
            if n:
                yield ","
            yield from compact_pieces(item, measure)
        yield "]"
    else:
        yield _compact(value)


def compact_size(value: Any, known: dict | None = None) -> int:
    """UTF-8 bytes of ``value`` as compact JSON (ensure_ascii off), counted piece by piece;
    or taken from ``known`` (:attr:`WireLog.result_sizes`) when it was counted as written."""
    seen = known.get(id(value)) if known else None
    if seen is not None and seen[0] is value:
        return seen[1]
    return sum(len(p) if p.isascii() else len(p.encode("utf-8", "surrogatepass")) for p in compact_pieces(value))


LINE_BUFFER = 1 << 20  # bytes of a wire.jsonl line gathered before they are written


class _OverBudget(Exception):
    """A line would pass the run's byte budget."""


def _write_all(fd: int, data: bytearray) -> int:
    with memoryview(data) as view:
        done = 0
        while done < len(view):
            done += os.write(fd, view[done:])
    return done


class WireLog:
    """Append-only ``wire.jsonl``: one line per message or event, flushed as written.

    ``entries`` keeps the parsed messages in memory as well, in order, for the checks:
    the checks judge what was recorded, never the live transport. Without ``keep`` it stays
    empty (the file is read back instead, :func:`read_entries`). With a ``budget`` every line
    is written within it, or not at all: the first line that does not fit is taken back, and
    nothing is written after it (:attr:`bounded`).
    """

    def __init__(self, path: Path | None, redactor: Redactor | None = None, transport: str = "stdio", *,
                 keep: bool = True, budget: ByteBudget | None = None):
        self.path = path
        self.redactor = redactor or Redactor()
        self.transport = transport
        self.keep = keep
        self.budget = budget
        self.bounded = False  # a line did not fit in the budget: nothing is written after it
        self._line_taken = 0  # bytes of the line being written taken from the budget
        self.entries: list[dict] = []
        # id(result) -> (result, compact UTF-8 size) of each received result, counted while it
        # was written: the run reports the largest without serialising it once more
        self.result_sizes: dict[int, tuple[Any, int]] = {}
        self.step: str | None = None
        self.era: str | None = None  # protocol version messages are currently sent under
        self._seq = 0
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._handle = None
        self._size = 0  # bytes of complete lines written
        self.full: OSError | None = None  # the write that found the disk full; nothing is written after it
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open_nofollow(path, "wb")

    def record(self, direction: str, *, message: Any = None, raw: str | None = None,
               event: str | None = None, detail: str | Reason | None = None, http: dict | None = None,
               era: str | None = None, kind: str | None = None) -> int:
        """Record one thing that crossed (or failed to cross) the wire; return its sequence number.

        ``direction`` is ``out`` (we sent), ``in`` (we received) or ``event`` (something
        happened: spawn, exit, timeout, violation). ``raw`` is the received text when it
        was not a JSON-RPC message, kept (cut to 4 KiB, after redaction) as evidence. ``kind``
        says what a violation is (the transports' kinds, :mod:`mcp_accept.transport.messages`).
        A ``detail`` given as a :class:`Reason` is written as its English text and as data
        (``reason_id``, ``reason_params``), the data only while masking left the text as it was.
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
            if kind:
                entry["kind"] = kind
            if detail:
                text = str(detail)
                entry["detail"] = self.redactor.text(text, edges=True)
                if isinstance(detail, Reason) and entry["detail"] == text:
                    entry.update(detail.as_json())
            if http:
                entry["http"] = http
            if raw is not None:
                entry["raw"] = self.redactor.cut(raw, RAW_CAP)
                if len(raw) > RAW_CAP:
                    entry["raw_truncated_from"] = len(raw)
            if message is not None:
                entry["message"] = message
            if self.keep:
                self.entries.append(entry)
            if self._handle is not None:
                self._write_line(entry)
            return self._seq

    def _write_line(self, entry: dict) -> None:
        # Serialised piece by piece (a large message is never one more string) and masked as
        # one text (a secret across two pieces too). A line up to LINE_BUFFER bytes goes out
        # in one os.write; a longer one in LINE_BUFFER steps, so memory stays flat. A write cut
        # short (a full disk, a file size limit, an interrupt) is taken back to the last
        # complete line: every line of the file stays JSON.
        fd = self._handle.fileno()
        message = entry.get("message")
        result = message.get("result") if entry["dir"] == "in" and isinstance(message, dict) else None
        measure = {id(result): None} if isinstance(result, (dict, list)) else None
        line = bytearray()
        written = self._line_taken = 0
        masking = self.redactor.stream()
        try:
            for piece in compact_pieces(entry, measure):
                line += masking.feed(piece).encode("utf-8", "backslashreplace")
                if len(line) >= LINE_BUFFER:
                    written += self._write_within(fd, line)
                    line.clear()
            line += masking.flush().encode("utf-8", "backslashreplace") + b"\n"
            written += self._write_within(fd, line)
        except BaseException as exc:
            try:
                os.ftruncate(fd, self._size)
                os.lseek(fd, self._size, os.SEEK_SET)
            except OSError:
                pass
            if self._line_taken:
                self.budget.give_back(self._line_taken, self.path.name)
            if isinstance(exc, _OverBudget):
                self.bounded = True
                self._handle.close()
                self._handle = None
                return
            if isinstance(exc, OSError) and is_disk_full(exc):
                self.full = exc
                self._handle.close()
                self._handle = None
                if threading.current_thread() is threading.main_thread():
                    raise DiskFull(exc, str(self.path)) from None
                return  # a reader thread: the run stops where its main thread looks (stop_if_full)
            raise
        self._size += written
        if measure and measure[id(result)] is not None:
            self.result_sizes[id(result)] = measure[id(result)]

    def _write_within(self, fd: int, data: bytearray) -> int:
        if self.budget is not None:
            if not self.budget.take(len(data), self.path.name):
                raise _OverBudget
            self._line_taken += len(data)
        return _write_all(fd, data)

    def stop_if_full(self) -> None:
        """Raise :class:`DiskFull` when a line could not be written for want of space."""
        if self.full is not None:
            raise DiskFull(self.full, str(self.path))

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None


def read_entries(path: Path, *, direction: str | None = None, tail_bytes: int | None = None) -> Iterator[dict]:
    """The entries of a ``wire.jsonl`` (or ``model.jsonl``) written by :class:`WireLog`, one line
    read at a time, in order; only those of ``direction`` when given. A line that is not a JSON
    object is passed over: the last one is cut short when the writer was killed. Bytes that
    are not UTF-8 are replaced, never fatal.

    ``tail_bytes``: only the whole lines within the file's last ``tail_bytes`` bytes (how a
    session ended is in its last events; the messages before them may be large). The file is
    opened under :func:`~mcp_accept.evidence.files.open_read`'s rules (no planted link)."""
    with open_read(path) as handle:
        if tail_bytes is not None:
            size = os.fstat(handle.fileno()).st_size
            if size > tail_bytes:
                handle.seek(size - tail_bytes - 1)
                if handle.read(1) != b"\n":
                    handle.readline()  # the line the cut fell in
        for line in handle:
            try:
                entry = json.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(entry, dict) and (direction is None or entry.get("dir") == direction):
                yield entry
