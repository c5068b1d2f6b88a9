"""Execution conditions: the keys every run records, a conditions file (``--conditions``) and
the ``--set KEY=VALUE`` items (a condition, or a row's option such as ``S02.mode=exact``)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from mcp_accept.evidence.credentials import check_condition_value
from mcp_accept.errors import InputError
from mcp_accept.inputs.files import Index, _line, _Loader, _parse_yaml, _read_text, _require_mapping, _show, _validate

if TYPE_CHECKING:
    from mcp_accept.inputs.sheet import Sheet

CONDITION_KEYS: tuple[str, ...] = (
    "server_name",
    "server_commit",
    "server_sdk_and_version",
    "host_product",
    "host_version",
    "client_sdk_and_version",
    "transport",
    "protocol_version_on_wire",
    "model_and_settings",
    "resource_read_route",
    "auth_context",
    "result_size_utf8_bytes",
    "model_visible_capture_method",
    "executed_at_utc",
    "evidence_path_or_id",
)
INTEGER_CONDITIONS = frozenset({"result_size_utf8_bytes"})


# --------------------------------------------------------------------------- conditions


def _as_written(data: dict, index: Index) -> dict:
    """Text-valued conditions keep their text: ``host_version: 1.10`` is "1.10", not 1.1."""
    out = dict(data)
    for key, value in data.items():
        if key in INTEGER_CONDITIONS or value is None or isinstance(value, str):
            continue
        node = index.get((key,), (None, None))[1]
        if isinstance(node, yaml.ScalarNode) and not isinstance(value, (list, dict)):
            out[key] = node.value
    return out


def load_conditions(path: str | Path | None = None) -> dict:
    """Conditions from a YAML file (``None`` or an empty file -> ``{}``). Keys left
    empty (null) are dropped, so they never override what the runner observed."""
    if path is None:
        return {}
    shown = str(path)
    data, index = _parse_yaml(_read_text(Path(path), shown), shown)
    if data is None and not index:
        return {}  # an empty file (or only comments): no conditions
    _require_mapping(data, index, shown)
    data = _as_written(data, index)
    for key, value in data.items():
        check_condition_value(str(key), value, source=shown, line=_line(index, (key,)))
    _validate(data, index, "conditions", shown)
    return {key: value for key, value in data.items() if value is not None}


# --------------------------------------------------------------------------- --set

_OPTION_KEY = re.compile(r"^([A-Z][0-9]{2})\.([A-Za-z_][A-Za-z0-9_-]*)$")


def _option_value(text: str, source: str = "--set", field: str | None = None) -> Any:
    """An option value read as a YAML scalar, as it would be in the sheet; a number JSON
    cannot carry (infinite, NaN, past 64 bits) is refused as it would be there."""
    try:
        value = yaml.load(text, Loader=_Loader) if text.strip() else text
    except (yaml.YAMLError, ValueError, KeyError, IndexError, TypeError, RecursionError):
        # a 5,000-digit integer (ValueError), "!!bool maybe" (KeyError), "!!int" (IndexError)
        if re.fullmatch(r"\s*[-+]?[0-9_]+\s*", text):
            raise InputError("the integer is out of range", file=source, field=field) from None
        return text
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{text.strip()[:20]} is not a finite number", file=source, field=field)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2 ** 63:
        raise InputError("the integer is out of range", file=source, field=field)
    return value if isinstance(value, (str, int, float, bool)) or value is None else text


def _condition_from_set(key: str, text: str, source: str) -> Any:
    check_condition_value(key, text, source=source)
    if key in INTEGER_CONDITIONS:
        if not re.fullmatch(r"[0-9]{1,18}", text.strip()):
            raise InputError(f"must be a whole number of bytes (found {_show(text)})",
                             file=source, field=key)
        return int(text.strip())
    return text


def parse_set(items: list[str], sheet: "Sheet", *,
              source: str = "--set") -> tuple[dict, dict[str, dict]]:
    """Split ``KEY=VALUE`` items into conditions and per-row options.

    ``KEY`` is a condition key, or ``ROWID.option`` (``S02.mode=exact``). A later item
    wins over an earlier one with the same key. Option values are read as YAML scalars.
    """
    conditions: dict[str, Any] = {}
    options: dict[str, dict] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            named = key if re.fullmatch(r"[A-Za-z0-9_.-]+", key) else None
            raise InputError("expected KEY=VALUE", file=source, field=named)
        if key in CONDITION_KEYS:
            conditions[key] = _condition_from_set(key, text, source)
            continue
        match = _OPTION_KEY.match(key)
        if not match:
            raise InputError("unknown key: not a condition (" + ", ".join(CONDITION_KEYS)
                             + ") nor ROWID.option", file=source, field=key)
        row_id, option = match.groups()
        if row_id not in sheet.ids():
            raise InputError(f"no row {row_id} in sheet {sheet.name}", file=source, field=key)
        check_condition_value(key, text, source=source)
        value = _option_value(text, source, key)
        from mcp_accept.checks.registry import row_option_problem

        problem = row_option_problem((c.check for c in sheet.row(row_id).checks), option, value)
        if problem:
            raise InputError(problem, file=source, field=key)
        options.setdefault(row_id, {})[option] = value
    _validate(conditions, {}, "conditions", source)
    return conditions, options


