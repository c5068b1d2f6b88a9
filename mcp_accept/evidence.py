"""The run folder: atomic writes, the wire log, redaction of secrets.

Everything mcp-accept writes goes through this module, so that two promises hold
in one place: a file is either whole or absent (temporary file, then rename), and
no secret the user handed us (header values, ``env:`` values) reaches a file.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Iterable

REDACTED = "[REDACTED]"
MIN_SECRET = 4  # shorter values would mask unrelated text and hide nothing worth hiding
EDGE_MIN = 6  # the shortest piece of a secret masked at the cut end of a text

# Header names whose values are always masked in the wire log, whatever the user said.
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}
)


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Redactor:
    """Replaces every known secret value in text with ``[REDACTED]``.

    A secret is masked in every form it can take on its way into a file: as given,
    URL-encoded, JSON-escaped, escaped for a Markdown cell or HTML, and base64-encoded at
    any alignment inside a longer base64 text (an ``Authorization: Basic`` value, a
    server that echoes headers encoded). Callers redact before they cut, truncate or
    escape; :meth:`text` with ``edges=True`` also masks a piece of a secret left at either
    end of a text that was cut before it got here, and :class:`StreamRedactor` masks a
    secret split across the chunks of a stream.
    """

    def __init__(self, secrets: Iterable[str] = (), header_names: Iterable[str] = ()):
        self._secrets: list[str] = []  # as given
        self._forms: list[str] = []  # every form to mask, longest first
        self._pattern: re.Pattern | None = None
        self.header_names = set(SENSITIVE_HEADERS)
        for name in header_names:
            self.header_names.add(name.lower())
        for secret in secrets:
            self.add(secret)

    @property
    def longest(self) -> int:
        return len(self._forms[0]) if self._forms else 0

    def add(self, secret: str) -> None:
        # Very short values would mask unrelated text and hide nothing worth hiding.
        if not secret or len(secret) < MIN_SECRET or secret in self._secrets:
            return
        self._secrets.append(secret)
        forms = set(_encoded_forms(secret))
        self._forms = sorted(set(self._forms) | {f for f in forms if len(f) >= MIN_SECRET},
                             key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(f) for f in self._forms))

    def text(self, value: str, *, edges: bool = False) -> str:
        if self._pattern is None or not value:
            return value
        value = self._pattern.sub(REDACTED, value)
        if edges:
            value = self._edges(value)
        return value

    def _edges(self, value: str) -> str:
        """Mask the start of a secret at the end of ``value`` and its end at the start."""
        for form in self._forms:
            for k in range(min(len(form) - 1, len(value)), EDGE_MIN - 1, -1):
                if value.endswith(form[:k]):
                    value = value[:-k] + REDACTED
                    break
            for k in range(min(len(form) - 1, len(value)), EDGE_MIN - 1, -1):
                if value.startswith(form[-k:]):
                    value = REDACTED + value[k:]
                    break
        return value

    def cut(self, value: str, limit: int) -> str:
        """``value`` redacted, then cut to ``limit`` characters (never the other way round)."""
        value = self.text(value, edges=True)
        return value if len(value) <= limit else value[:limit]

    def stream(self) -> "StreamRedactor":
        return StreamRedactor(self)

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[list[str]]:
        out = []
        for name, value in headers:
            shown = REDACTED if name.lower() in self.header_names else self.text(value)
            out.append([name, shown])
        return out


class StreamRedactor:
    """Redacts a text that arrives in chunks: the end of each chunk that could be the
    start of a secret is held back until the next chunk (or :meth:`flush`) shows."""

    def __init__(self, redactor: Redactor):
        self.redactor = redactor
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = self._held + chunk
        keep = max(0, self.redactor.longest - 1)
        if not keep:
            self._held = ""
            return text
        masked = self.redactor.text(text)
        # A secret that starts before the last ``keep`` characters ends inside ``text`` and
        # is masked already; one that starts later may go on in the next chunk.
        cut = max(0, len(masked) - keep)
        self._held = masked[cut:]
        return masked[:cut]

    def flush(self) -> str:
        held, self._held = self._held, ""
        return self.redactor.text(held, edges=True)


def _encoded_forms(secret: str) -> Iterable[str]:
    """``secret`` and the forms it takes when encoded or escaped on its way to a file."""
    import base64
    import html
    from urllib.parse import quote, quote_plus

    yield secret
    yield json.dumps(secret)[1:-1]  # inside a JSON string
    yield json.dumps(secret, ensure_ascii=False)[1:-1]
    yield quote(secret, safe="")
    yield quote_plus(secret, safe="")
    yield quote(secret)
    yield html.escape(secret)
    yield secret.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")  # a Markdown cell
    raw = secret.encode("utf-8", "surrogatepass")
    # base64 at each of the three alignments inside a longer encoded text: only the
    # characters that depend on the secret's bytes alone are searched for.
    for lead in range(3):
        data = b"\0" * lead + raw
        start = -(-lead * 4 // 3)
        end = (len(data) * 8) // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(data).decode("ascii")[start:end]
            if len(core) >= 2 * MIN_SECRET:
                yield core


class UnsafeFolder(Exception):
    """Something planted in the run folder would make us write outside it."""


def open_nofollow(path: Path, mode: str = "wb"):
    """Open a file of the run folder for writing, never through a symlink planted there
    (``O_NOFOLLOW``: a symlink at ``path`` fails the open instead of being followed)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_APPEND if mode.startswith("a") else os.O_TRUNC
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeFolder(f"{path} is a symbolic link; mcp-accept writes no file through one") from None
        raise exc
    return os.fdopen(fd, mode, buffering=0 if "b" in mode and mode.startswith("a") else -1)


# What a run writes into its folder: none of these may be a symbolic link.
RUN_FILES = ("wire.jsonl", "stderr.log", "server-stdout.log", "results.json", "sheet.md",
             "crash-report.txt", "runner-error.log", ".mcp-accept.lock")
RUN_DIRS = ("rows", "evidence")


def planted_links(folder: Path) -> list[str]:
    """The names in a run folder that are symbolic links where mcp-accept writes."""
    found = [name for name in RUN_FILES + RUN_DIRS if (folder / name).is_symlink()]
    for sub in RUN_DIRS:
        if (folder / sub).is_dir() and not (folder / sub).is_symlink():
            found += [f"{sub}/{p.name}" for p in (folder / sub).iterdir() if p.is_symlink()]
    return found


class FolderLock:
    """An exclusive lock on a run folder for the length of one run.

    ``fcntl.flock`` on a lock file inside the folder: the kernel drops it when the process
    ends, however it ends, so a crashed or killed run never leaves the folder locked (a
    lock by file existence would). POSIX only; elsewhere no lock is taken."""

    NAME = ".mcp-accept.lock"

    def __init__(self, folder: Path):
        self.path = Path(folder) / self.NAME
        self._fd: int | None = None

    def acquire(self) -> bool:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC,
                     0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def _replace(path: Path, fill) -> None:
    """Build a temporary file beside ``path`` with ``fill(fd, tmp)``, then rename it into place,
    so readers see the old file or the new one, never half; on any failure nothing is left."""
    path = Path(path)
    import tempfile  # here, not above: 1.4 MiB a run carries through its largest answer otherwise

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


_durability = threading.local()


@contextlib.contextmanager
def durable_only(*names: str):
    """Within the block, only files with one of ``names`` are fsynced before their rename.

    A run writes a dozen files at its end; an fsync each cost a sixth of a run. The rename
    alone already gives readers the old file or the new one; the fsync adds that the file
    survives a power cut. ``results.json``, written after the row files, is the one that
    says a run is complete: its fsync commits the file system's journal, and with it (on
    ext4's default ``data=ordered``, and wherever renames are ordered) the files renamed
    into place before it."""
    before = getattr(_durability, "names", None)
    _durability.names = frozenset(names)
    try:
        yield
    finally:
        _durability.names = before


def _wants_fsync(path: Path) -> bool:
    names = getattr(_durability, "names", None)
    return names is None or Path(path).name in names


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    sync = _wants_fsync(path)

    def fill(fd: int, tmp: str) -> None:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            handle.write(text)
            if sync:
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
        # id(result) -> (result, compact UTF-8 size) of each received result, counted while it
        # was written: the run reports the largest without serialising it once more
        self.result_sizes: dict[int, tuple[Any, int]] = {}
        self.step: str | None = None
        self.era: str | None = None  # protocol version messages are currently sent under
        self._seq = 0
        self._lock = threading.Lock()
        self._start = time.monotonic()
        self._handle = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open_nofollow(path, "wb")

    def record(self, direction: str, *, message: Any = None, raw: str | None = None,
               event: str | None = None, detail: str | None = None, http: dict | None = None,
               era: str | None = None) -> int:
        """Record one thing that crossed (or failed to cross) the wire; return its sequence number.

        ``direction`` is ``out`` (we sent), ``in`` (we received) or ``event`` (something
        happened: spawn, exit, timeout, violation). ``raw`` is the received text when it
        was not a JSON-RPC message, kept (cut to 4 KiB, after redaction) as evidence.
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
                entry["detail"] = self.redactor.text(detail, edges=True)
            if http:
                entry["http"] = http
            if raw is not None:
                entry["raw"] = self.redactor.cut(raw, RAW_CAP)
                if len(raw) > RAW_CAP:
                    entry["raw_truncated_from"] = len(raw)
            if message is not None:
                entry["message"] = message
            self.entries.append(entry)
            if self._handle is not None:
                self._write_line(entry)
            return self._seq

    def _write_line(self, entry: dict) -> None:
        # piece by piece: a large message is not serialised whole once more. A line cut
        # short by an interrupt is taken back, so every line of the file stays JSON.
        handle = self._handle
        start = handle.tell()
        message = entry.get("message")
        result = message.get("result") if entry["dir"] == "in" and isinstance(message, dict) else None
        measure = {id(result): None} if isinstance(result, (dict, list)) else None
        try:
            for piece in compact_pieces(entry, measure):
                handle.write(self.redactor.text(piece).encode("utf-8", "backslashreplace"))
            handle.write(b"\n")
            handle.flush()
            if measure and measure[id(result)] is not None:
                self.result_sizes[id(result)] = measure[id(result)]
        except BaseException:
            try:
                handle.seek(start)
                handle.truncate()
                handle.flush()
            except (OSError, ValueError):
                pass
            raise

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
