"""Strict JSON out: whatever the tool writes parses with any JSON parser.

A server may send NaN or Infinity (Python's json reads them as floats), and a string may
hold a lone surrogate (JSON's ``"\\ud800"`` escape). Neither has a place in a strict JSON
text written with ``ensure_ascii=False``: a number that is not finite is written as the
string of its name (``"NaN"``, ``"Infinity"``, ``"-Infinity"``), and a lone surrogate as
the escape it came as.
"""

from __future__ import annotations

import json
import math
from typing import Any

NAMES = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def finite_copy(value: Any) -> Any:
    """``value`` with every float that is not finite replaced by the string of its name."""
    stack: list = []
    root = [value]
    stack.append((root, 0))
    while stack:
        holder, key = stack.pop()
        node = holder[key]
        if isinstance(node, float) and not math.isfinite(node):
            holder[key] = NAMES[repr(node)]
        elif isinstance(node, dict):
            copy = dict(node)
            holder[key] = copy
            stack.extend((copy, k) for k in copy)
        elif isinstance(node, (list, tuple)):
            copy = list(node)
            holder[key] = copy
            stack.extend((copy, i) for i in range(len(copy)))
    return root[0]


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud800``): inside a JSON
    string that is the same value; anywhere else, visible and encodable."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def strict_dumps(value: Any, **options) -> str:
    """``json.dumps`` that writes no NaN, no Infinity and no lone surrogate."""
    try:
        text = json.dumps(value, allow_nan=False, **options)
    except ValueError:
        text = json.dumps(finite_copy(value), allow_nan=False, **options)
    return without_surrogates(text)
