"""Text that came from a server (or any file we did not write) stays text wherever it lands.

A tool name, a reason quoting a server's message or a server's name can hold anything:
ANSI escapes that repaint a terminal, rich markup such as ``[bold]``, raw HTML, Markdown
table pipes, newlines that would start a new YAML key. Each place that shows such text
goes through one function here.
"""

from __future__ import annotations

import re
from typing import Any

# C0 and C1 control characters (tab kept), DEL, and the ANSI escape sequences built from them.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# Unicode that reorders or hides text (bidi overrides, zero-width joiners aside).
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match) -> str:
    return "\\x%02x" % ord(match.group()) if ord(match.group()) < 0x100 else "\\u%04x" % ord(match.group())


def plain_line(text: Any) -> str:
    """``text`` on one line with every control character and ANSI escape made visible
    (``\\x1b``...), lone surrogates shown as escapes: safe for any terminal or file."""
    text = str(text)
    text = _ANSI.sub(lambda m: m.group().replace("\x1b", "\\x1b"), text)
    text = _CONTROL.sub(_shown, text)
    text = _BIDI.sub(_shown, text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def console_text(text: Any) -> str:
    """For the console, which prints through rich: controls made visible and markup
    escaped, so ``[bold]`` or ``[link=...]`` in a server's text is shown as it is."""
    from rich.markup import escape

    return escape(plain_line(text))


# What Markdown (CommonMark with GitHub's tables, strikethrough and emoji codes) would read
# as markup inside a line of text; each is escaped only where it would take effect, so that
# the text reads as it was written (no "&gt;=", no "\\_" inside snake_case).
_MD_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~])")  # a backslash that would escape what follows
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")  # "&amp;" and the like would become a character
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # a tag, a comment or an autolink would open
_MD_PIPE = re.compile(r"\|")  # a new table cell
# a code span, emphasis, strikethrough: each needs a pair, so a lone one is left as it is
_MD_PAIRED = (re.compile(r"`"), re.compile(r"\*"), re.compile(r"~"),
              re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"))  # "_" never inside a word
_QUOTE_START = re.compile(r"^(\s*)>")  # a Markdown quote
_MD_LINK = re.compile(r"\](?=[(\[])")  # "[text](url)" and "[text][ref]"
_MD_EMOJI = re.compile(r":(?=[A-Za-z][A-Za-z0-9_+-]*:)")  # ":warning:"


def markdown_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell, shown as it is: one line, control characters
    made visible, and every character that would act as markup there escaped (raw HTML,
    entities, pipes, code spans, emphasis, links, emoji codes)."""
    if value is None:
        return ""
    text = plain_line(str(value).replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    text = _MD_BACKSLASH.sub(r"\\\\", text)
    text = _MD_ENTITY.sub("&amp;", text)
    text = _MD_TAG.sub("&lt;", text)
    text = _MD_PIPE.sub(r"\\|", text)
    for mark in _MD_PAIRED:
        if len(mark.findall(text)) > 1:
            text = mark.sub(lambda m: "\\" + m.group(), text)
    text = _MD_LINK.sub(r"\\]", text)
    return _MD_EMOJI.sub(r"\\:", text)


def markdown_prose(value: Any) -> str:
    """Markdown written by the sheet's author (what a row establishes, its procedure): kept as
    written, `code` included, on one line with control characters made visible; only raw HTML
    and entities are neutralised."""
    if value is None:
        return ""
    text = plain_line(str(value).replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    return _MD_TAG.sub("&lt;", _MD_ENTITY.sub("&amp;", text))


def inert_text(text: str) -> str:
    """What a Markdown template prints of any value: controls made visible, no raw HTML tag
    or comment (a ``<`` that would open one is escaped), no quote opened by a ``>`` at the
    start of one of its own lines; any other ``<``, ``>`` or ``&`` is left as written (``>= 0`` stays
    readable, and text escaped once is not escaped again)."""
    if "<" not in text and ">" not in text and text.isprintable():
        return text
    lines = [plain_line(line) for line in text.split("\n")]  # newlines are the template's own
    lines = [_MD_TAG.sub("&lt;", line) for line in lines]
    # only a line the value itself begins can start a quote (its first line follows the template's text)
    return "\n".join([lines[0]] + [_QUOTE_START.sub(r"\1&gt;", line) for line in lines[1:]])


def yaml_comment(text: Any) -> str:
    """Text safe inside a ``# ...`` YAML comment: one line, nothing that could end the
    comment and start a key."""
    return plain_line(text)
