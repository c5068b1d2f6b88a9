"""Redaction: every secret the user handed over (header values, ``env:`` values, URL query
tokens) is masked in whatever mcp-accept writes or prints, in each encoding it may take."""

from __future__ import annotations

import json
import re
from typing import Iterable

REDACTED = "[REDACTED]"
MIN_SECRET = 4  # shorter values would mask unrelated text and hide nothing worth hiding
EDGE_MIN = 6  # the shortest piece of a secret masked at the cut end of a text

# Header names whose values are always masked in the wire log, whatever the user said.
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}
)


CUT_MARK = "…"  # ends a text cut by clip(): a secret's start just before it is masked too
ELLIPSIS = "..."  # how other cuts end a text (``text[:77] + "..."``): treated the same way
_BREAKS = re.compile(r"\r|\n|\\r|\\n")  # line breaks, raw or JSON-escaped
_BREAK_HINT = re.compile(r"[\r\n]|\\[rn]")
# A run of base64 characters and line breaks, taken from its start (linear, however long)
_WRAPPED = re.compile(r"(?<![A-Za-z0-9+/=_\\\r\n-])[A-Za-z0-9+/=_\\\r\n-]{8,}")


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, :data:`CUT_MARK` at the cut. A server's text (an
    error message echoing a header) is often cut before the run's redaction sees it; the mark
    lets that redaction mask the start of a secret the cut left behind."""
    return text if len(text) <= limit else text[:limit] + CUT_MARK


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
        self._heads: re.Pattern | None = None  # the first MIN_SECRET characters of each form
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
        self._heads = re.compile("|".join(sorted({re.escape(f[:MIN_SECRET]) for f in self._forms})))

    def text(self, value: str, *, edges: bool = False) -> str:
        if self._pattern is None or not value:
            return value
        value = self._pattern.sub(REDACTED, value)
        if _BREAK_HINT.search(value):
            value = _WRAPPED.sub(self._wrapped, value)
        if CUT_MARK in value or ELLIPSIS in value:
            value = self._before_cuts(value)
        if edges:
            value = self._edges(value)
        return value

    def _wrapped(self, match: re.Match) -> str:
        """A block of base64 broken into lines (MIME's 76 columns, PEM's 64, with LF or CRLF,
        raw or JSON-escaped): masked whole when, joined again, it holds an encoded secret."""
        block = match.group()
        if not _BREAK_HINT.search(block):
            return block  # one line: searched as it is already
        joined = _BREAKS.sub("", block)
        return REDACTED if self._pattern.search(joined) else block

    def _before_cuts(self, value: str) -> str:
        """Mask the start of a secret left just before a :data:`CUT_MARK` or ``...`` (a text
        cut there before it was redacted, as ``text[:77] + "..."`` does): four characters of a
        secret are enough to mask."""
        return self._before_mark(self._before_mark(value, ELLIPSIS), CUT_MARK)

    def _before_mark(self, value: str, mark: str) -> str:
        if mark not in value:
            return value
        parts = value.split(mark)
        reach = self.longest - 1
        for n, part in enumerate(parts[:-1]):
            if not self._heads.search(part, max(0, len(part) - reach)):
                continue  # no secret starts near the cut (one search instead of one per form)
            for form in self._forms:
                tail = part[-(len(form) - 1):]
                start = tail.find(form[:MIN_SECRET])  # the earliest start is the longest piece
                while start >= 0 and not form.startswith(tail[start:]):
                    start = tail.find(form[:MIN_SECRET], start + 1)
                if start >= 0:
                    parts[n] = part[:len(part) - len(tail) + start] + REDACTED
                    break
        return mark.join(parts)

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
        longest = self.redactor.longest
        # a wrapped base64 form is longer by its line breaks (up to four characters, JSON-escaped)
        keep = max(0, longest - 1 + 4 * (longest // 40 + 1)) if longest else 0
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


