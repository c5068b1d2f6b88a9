"""Searching a large answer or transcript without holding it.

An answer file, or the text a host handed its model as read from a debug transcript, can
be hundreds of megabytes. :class:`StreamedText` keeps only a way to reopen it and reads it
a few megabytes at a time: one pass finds every marker token asked for (the line of each
hit, lines counted as ``str.splitlines`` counts them) and every token of a known shape
that no fixture start gave out. A token can sit across two reads: reads are cut after a
line break, and a line longer than LONG_LINE is cut with an overlap longer than any token.
"""

from __future__ import annotations

import bisect
import codecs
import re
from typing import Callable, Iterable, Iterator

CHUNK = 4 << 20  # bytes read at a time
LONG_LINE = 1 << 20  # a line longer than this is searched in overlapping windows
MAX_MATCHES = 1000  # distinct matches kept per shape: enough to name strangers, bounded on any input
OVERLAP = 1024  # longer than any token searched for: a token cut by a window is whole in the next
# The line ends str.splitlines knows (\r\n counts once), so line numbers agree with it.
BREAKS = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_RARE_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_RARE = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _has_rare_breaks(text: str) -> bool:
    # a single character is found by memchr: ten of them cost less than one regex pass
    return any(ch in text for ch in (_RARE[:6] if text.isascii() else _RARE))


def _breaks_in(text: str) -> int:
    if not _has_rare_breaks(text):
        return text.count("\n")
    return sum(1 for _ in BREAKS.finditer(text))


def _last_break_end(text: str) -> int:
    """Where the text after its last line end starts (0: no line end)."""
    cut = text.rfind("\n") + 1
    tail = text[cut:]
    if not _has_rare_breaks(tail):
        return cut
    end = cut
    for match in BREAKS.finditer(text, cut):
        end = match.end()
    if end == len(text) and text.endswith("\r"):
        end -= 1  # its \n may come with the next read
    return end


def decoded_chunks(open_binary: Callable) -> Iterator[str]:
    """The file's text (invalid UTF-8 replaced), a chunk at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    with open_binary() as handle:
        first = True
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            text = decoder.decode(chunk)
            if first:
                text, first = (text[1:] if text.startswith("\ufeff") else text), False
            if text:
                yield text
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def shape_pattern(prefix: str, length: int) -> re.Pattern:
    """A token of this shape standing alone: ``prefix`` and ``length`` letters or digits, with
    no letter or digit either side (case ignored)."""
    return re.compile(r"(?<![0-9A-Za-z])" + re.escape(prefix) + r"[0-9A-Za-z]{%d}(?![0-9A-Za-z])" % length,
                      re.IGNORECASE)


def search(chunks: Iterable[str], tokens: Iterable[str],
           shapes: Iterable[tuple[str, int]] = ()) -> tuple[dict[str, list[int]], list[str]]:
    """The 1-based lines holding each token (case ignored; keys lower-cased) and, shape by
    shape, the words of each shape found: ``(prefix, n)`` is the prefix (case ignored)
    followed by n ASCII letters or digits, with no letter or digit on either side. One pass
    over ``chunks``; every search is a plain substring search (a regex over hundreds of
    megabytes costs seconds a pattern)."""
    wanted = sorted({t.lower() for t in tokens if t})
    shapes = [(prefix.lower(), length) for prefix, length in shapes]
    found: dict[str, set[int]] = {t: set() for t in wanted}
    matched: list[list[str]] = [[] for _ in shapes]
    shape_patterns = [shape_pattern(prefix, length) for prefix, length in shapes]
    seen: set[str] = set()
    base, buf, resumed = 1, "", False

    def look(text: str, start: int, stop: int) -> None:
        """Hits that begin at or after ``start`` and end at or before ``stop``."""
        lowered = text.lower()
        if len(lowered) != len(text):  # lower() changed lengths: search line by line instead
            return look_by_line(text, start, stop)
        rare = _has_rare_breaks(text)
        ends = [m.end() for m in BREAKS.finditer(text)] if rare else None

        def line_of(pos: int) -> int:
            return base + (bisect.bisect_right(ends, pos) if rare else text.count("\n", 0, pos))

        for token in wanted:
            pos = lowered.find(token, start)
            while 0 <= pos and pos + len(token) <= stop:
                found[token].add(line_of(pos))
                pos = lowered.find(token, pos + 1)
        for i, (prefix, length) in enumerate(shapes):
            pos = lowered.find(prefix, start)
            while 0 <= pos:
                end = pos + len(prefix) + length
                if end > stop:
                    break
                if (not (pos and _alnum(text[pos - 1])) and all(_alnum(c) for c in text[pos + len(prefix):end])
                        and not (end < len(text) and _alnum(text[end]))):
                    word = text[pos:end]
                    if word not in seen and len(matched[i]) < MAX_MATCHES:
                        seen.add(word)
                        matched[i].append(word)
                pos = lowered.find(prefix, pos + 1)

    def look_by_line(text: str, start: int, stop: int) -> None:
        first = base + _breaks_in(text[:start])
        for number, line in enumerate(text[start:stop].splitlines(), first):
            low = line.lower()
            for token in wanted:
                if token in low:
                    found[token].add(number)
            for i, pattern in enumerate(shape_patterns):
                for match in pattern.finditer(line):
                    if match.group(0) not in seen and len(matched[i]) < MAX_MATCHES:
                        seen.add(match.group(0))
                        matched[i].append(match.group(0))

    for chunk in chunks:
        buf += chunk
        cut = _last_break_end(buf)
        start = 1 if resumed else 0
        if cut:
            look(buf, start, cut)
            base += _breaks_in(buf[:cut])
            buf, resumed = buf[cut:], False
        elif len(buf) > LONG_LINE:  # one very long line: search it, keep a window's overlap
            look(buf, start, len(buf) - OVERLAP)
            buf, resumed = buf[-2 * OVERLAP:], True
    if buf:
        look(buf, 1 if resumed else 0, len(buf))
    return {t: sorted(lines) for t, lines in found.items()}, [m for group in matched for m in group]


class StreamedText:
    """Text kept in a file, searched a chunk at a time; never read whole.

    ``opener`` gives a new binary handle on the text each time it is called."""

    def __init__(self, opener: Callable, name: str = ""):
        self.opener = opener
        self.name = name
        self._lines: dict[str, list[int]] = {}

    def chunks(self) -> Iterator[str]:
        return decoded_chunks(self.opener)

    def blank(self) -> bool:
        return all(not chunk.strip() for chunk in self.chunks())

    def search(self, tokens: Iterable[str], shapes: Iterable[tuple[str, int]] = ()) -> list[str]:
        """Find every token of ``tokens`` (kept for :meth:`lines`) and what ``shapes`` match."""
        lines, matched = search(self.chunks(), tokens, shapes)
        self._lines.update(lines)
        return matched

    def lines(self, token: str) -> list[int]:
        key = token.lower()
        if key not in self._lines:
            self.search([token])
        return self._lines.get(key, [])


def text_lines(text) -> Iterator[str]:
    """The lines of a str or a StreamedText, split at ``\\n`` only (the end of a JSON Lines
    record; U+2028 and the like may sit inside a JSON string), ends removed."""
    chunks = [text] if isinstance(text, str) else text.chunks()
    parts: list[str] = []  # the line being read, in pieces (no copy per read of a long line)
    for chunk in chunks:
        if "\n" not in chunk:
            parts.append(chunk)
            continue
        first, *middle, last = chunk.split("\n")
        parts.append(first)
        yield "".join(parts)
        yield from middle
        parts = [last]
    rest = "".join(parts)
    if rest:
        yield rest
