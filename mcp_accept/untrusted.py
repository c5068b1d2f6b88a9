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


def markdown_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell: one line, no raw HTML (``<``, ``>``, ``&``
    escaped), pipes and backticks escaped, control characters made visible."""
    if value is None:
        return ""
    text = plain_line(str(value).replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def inert_text(text: str) -> str:
    """What a report template prints of any value: controls made visible, no raw HTML tag
    (``<`` and ``>`` escaped; ``&`` left alone so that text escaped once stays readable)."""
    if "<" not in text and ">" not in text and text.isprintable():
        return text
    lines = [plain_line(line) for line in text.split("\n")]  # newlines are the template's own
    return "\n".join(lines).replace("<", "&lt;").replace(">", "&gt;")


def yaml_comment(text: Any) -> str:
    """Text safe inside a ``# ...`` YAML comment: one line, nothing that could end the
    comment and start a key."""
    return plain_line(text)
