"""HTTP header values of the 2026-07-28 Streamable HTTP transport.

``Mcp-Name`` and ``Mcp-Param-{Name}`` values that are not plain printable ASCII go as
``=?base64?…?=``. A tool may ask, with ``x-mcp-header`` on a property of its
``inputSchema``, for an argument to be mirrored into an ``Mcp-Param-{Name}`` header;
clients must do so, and must treat a tool whose annotation breaks the rules as invalid.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from mcp_accept.protocol import HEADER_PARAM_PREFIX

_HEADER_SAFE = re.compile(r"[\x20-\x7e]*")
_SENTINEL = re.compile(r"=\?base64\?.*\?=")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 tchar
_SAFE_INT = 2**53 - 1
_MISSING = object()


def header_value(value: str) -> str:
    """A header value as sent: plain printable ASCII as it is, anything else as ``=?base64?...?=``."""
    if _HEADER_SAFE.fullmatch(value) and value == value.strip() and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def _annotations(node: Any, path: tuple, on_chain: bool, out: list) -> None:
    """Every ``x-mcp-header`` in a schema: (property path, property schema, statically reachable?)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "x-mcp-header":
                out.append((path, node, on_chain))
            elif key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    _annotations(sub, path + (name,), on_chain, out)
            else:
                _annotations(value, path + (key,), False, out)
    elif isinstance(node, list):
        for item in node:
            _annotations(item, path, False, out)


def _problem(name: Any, prop: dict, on_chain: bool, seen: set[str]) -> str | None:
    if not on_chain:
        return "x-mcp-header is only allowed on a property reached through `properties` alone"
    if not isinstance(name, str) or not name or not _TOKEN.fullmatch(name):
        return f"x-mcp-header {name!r} is not an HTTP field-name token"
    if name.lower() in seen:
        return f"x-mcp-header {name!r} is used twice"
    kind = prop.get("type")
    if kind not in ("string", "integer", "boolean"):
        return f"x-mcp-header {name!r} is on a property of type {kind!r}; only string, integer, boolean"
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) <= _SAFE_INT else None
    if isinstance(value, str):
        return value
    return None


def param_headers(input_schema: Any, arguments: Any) -> tuple[list[tuple[str, str]], list[str]]:
    """The ``Mcp-Param-*`` headers a ``tools/call`` must carry, and what is wrong with the annotations."""
    found: list = []
    _annotations(input_schema, (), True, found)
    headers, problems, seen = [], [], set()
    for path, prop, on_chain in found:
        name = prop.get("x-mcp-header")
        problem = _problem(name, prop, on_chain, seen)
        where = ".".join(str(p) for p in path) or "(root)"
        if problem:
            problems.append(f"{where}: {problem}")
            continue
        seen.add(name.lower())
        value: Any = arguments
        for key in path:
            value = value.get(key, _MISSING) if isinstance(value, dict) else _MISSING
        if value is _MISSING or value is None:
            continue  # no value, no header
        text = _text(value)
        if text is None:
            problems.append(f"{where}: argument value {value!r} cannot be mirrored into a header")
            continue
        headers.append((f"{HEADER_PARAM_PREFIX}{name}", header_value(text)))
    return headers, problems
