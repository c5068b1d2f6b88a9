"""Sheets, profiles, execution conditions and results files: load, validate, explain.

(The profile's model and the checks only a profile needs are in :mod:`mcp_accept.profile`;
it reads its file through the loader here.)

Every file a user hands over is read here. Whatever is wrong with it (missing,
unreadable, not UTF-8, bad YAML, a duplicate key, a value the schema refuses) comes
back as one :class:`~mcp_accept.errors.InputError` naming the file, the 1-based line
of the offending node and the field path (``rows[3].kind``); never a traceback.

The shape of each file is given by a JSON Schema shipped in the top-level ``schemas/`` folder;
the checks no schema can express (unique row ids, JMESPath that compiles, values that
look like credentials) are made here.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import yaml

if TYPE_CHECKING:  # jsonschema is imported when a file is invalid (80 ms saved on valid ones)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

from .data import data_path
from .credentials import check_condition_value, looks_like_credential
from .errors import InputError

__all__ = [
    "CONDITION_KEYS", "ROW_ID_RE", "DEFAULT_UNKNOWN_URI", "TOOL_FORMS", "format_path", "Check",
    "Row", "Sheet", "ToolRef", "Profile", "data_path", "default_sheet_path",
    "default_profile_path", "load_yaml",
    "load_sheet", "load_profile", "load_conditions", "parse_set", "validate_results",
]

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

ROW_ID_RE = re.compile(r"^[A-Z][0-9]{2}$")


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Check:
    layer: str
    check: str


@dataclass(frozen=True)
class Row:
    id: str
    kind: str
    title: dict
    establishes: dict
    steps: tuple[str, ...] = ()
    checks: tuple[Check, ...] = ()
    options: dict = field(default_factory=dict)
    procedure: dict | None = None
    forms: tuple[str, ...] = ()

    @property
    def automated(self) -> bool:
        return self.procedure is None


@dataclass(frozen=True)
class Sheet:
    name: str
    version: int
    title: dict
    rows: tuple[Row, ...]
    path: Path

    def row(self, row_id: str) -> Row:
        for row in self.rows:
            if row.id == row_id:
                return row
        raise KeyError(row_id)

    def ids(self) -> list[str]:
        return [row.id for row in self.rows]


# --------------------------------------------------------------------------- package data


def default_sheet_path() -> Path:
    return data_path("sheets", "default.yaml")


def default_profile_path() -> Path:
    return data_path("sheets", "profile-fixture.yaml")


# Profiles live in mcp_accept.profile (which reads files through the loader below); these
# names stay importable from here.
_PROFILE_NAMES = frozenset({"DEFAULT_UNKNOWN_URI", "TOOL_FORMS", "BODY_KINDS", "ToolRef", "Profile",
                            "Expected", "load_profile"})


def __getattr__(name: str) -> Any:
    if name in _PROFILE_NAMES:
        from . import profile

        return getattr(profile, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _validator(schema_name: str) -> "Draft202012Validator":
    from jsonschema import Draft202012Validator

    path = data_path("schemas", f"{schema_name}.schema.json")
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


@functools.cache
def _fast_validator(schema_name: str):
    """jsonschema-rs for the same schema, to say quickly that a file is valid; None when it
    is not installed or cannot take the schema. Errors are always found and worded by
    the Python validator."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    path = data_path("schemas", f"{schema_name}.schema.json")
    try:
        return jsonschema_rs.validator_for(json.loads(path.read_text(encoding="utf-8")),
                                           validate_formats=False)
    except Exception:
        return None


# --------------------------------------------------------------------------- reading

# A path inside a document: keys (str) and list indices (int).
DocPath = tuple
# Where each path sits: path -> (1-based line, YAML node or None).
Index = dict


def _read_text(path: Path, shown: str) -> str:
    if path.is_dir():
        raise InputError("is a directory, not a file", file=shown)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=shown) from None
    except PermissionError:
        raise InputError("cannot be read: permission denied", file=shown) from None
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", file=shown) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", file=shown,
                         line=line) from None
    return text[1:] if text.startswith("\ufeff") else text


class _Loader(yaml.SafeLoader):
    """Safe YAML that reads like YAML 1.2 on the points that bite: only true/false
    are booleans (``off``, ``no``, ``yes`` stay strings) and dates stay strings."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                              re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))
_Loader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)

if hasattr(yaml, "CSafeLoader"):
    class _FastLoader(yaml.CSafeLoader):
        """The same rules parsed by libyaml: about ten times faster on a sheet. When it
        refuses a file, the pure-Python loader parses it again to word the error."""

    _FastLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
    _FastLoader.yaml_constructors = _Loader.yaml_constructors
else:  # PyYAML built without libyaml
    _FastLoader = _Loader

_MERGE_TAG = "tag:yaml.org,2002:merge"
_MAX_NODES = 1_000_000


def _line_of_node(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _yaml_error(exc: yaml.YAMLError, text: str, shown: str) -> InputError:
    if isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position) + 1
        char = exc.character
        shown_char = f"U+{char:04X}" if isinstance(char, int) else repr(char)
        return InputError(f"character {shown_char} is not allowed in YAML", file=shown,
                          line=line)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"YAML syntax: {problem}" + (f" ({context})" if context else "")
    return InputError(message, file=shown, line=mark.line + 1 if mark else None)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_aliases(root: yaml.Node, shown: str) -> None:
    """Refuse recursive aliases and alias bombs before anything walks the data."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise InputError("an alias refers to a node that contains it; recursive data is "
                             "not supported", file=shown, line=_line_of_node(node))
        open_nodes.add(key)
        total = 1 + sum(size(child) for child in _children(node))
        open_nodes.discard(key)
        if total > _MAX_NODES:
            raise InputError("aliases expand to too many nodes", file=shown,
                             line=_line_of_node(node))
        sizes[key] = total
        return total

    size(root)


def _key_of(loader: _Loader, key_node: yaml.Node, path: DocPath, shown: str) -> str:
    key = loader.construct_object(key_node) if isinstance(key_node, yaml.ScalarNode) else None
    if not isinstance(key, str):
        raise InputError("mapping keys must be strings (quote this one)", file=shown,
                         line=_line_of_node(key_node), field=format_path(path) or None)
    return key


def _index_yaml(loader: _Loader, root: yaml.Node, shown: str) -> Index:
    """Line of every key and item, refusing duplicate keys and non-string keys."""
    index: Index = {(): (_line_of_node(root), root)}
    seen: set[int] = set()

    def walk(node: yaml.Node, path: DocPath) -> None:
        if id(node) in seen:  # an alias: its first occurrence is already indexed
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first_line: dict[str, int] = {}
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = _key_of(loader, key_node, path, shown)
                line = _line_of_node(key_node)
                if key in first_line:
                    raise InputError(f"duplicate key (first given at line {first_line[key]})",
                                     file=shown, line=line, field=format_path(path + (key,)))
                first_line[key] = line
                index[path + (key,)] = (line, value_node)
                walk(value_node, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                index[path + (i,)] = (_line_of_node(item), item)
                walk(item, path + (i,))

    walk(root, ())
    return index


def _parse_yaml(text: str, shown: str, loader_class: type = _FastLoader) -> tuple[Any, Index]:
    loader = None
    try:
        loader = loader_class(text)
        node = loader.get_single_node()
        if node is None:
            return None, {}
        _check_aliases(node, shown)
        index = _index_yaml(loader, node, shown)
        return loader.construct_document(node), index
    except yaml.YAMLError as exc:
        if loader_class is not _Loader:
            return _parse_yaml(text, shown, _Loader)  # its messages name the problem better
        raise _yaml_error(exc, text, shown) from None
    except RecursionError:
        raise InputError("nested too deeply", file=shown) from None
    finally:
        if loader is not None:
            loader.dispose()


def _read_yaml_mapping(path: str | Path, shown: str) -> tuple[dict, Index]:
    text = _read_text(Path(path), shown)
    data, index = _parse_yaml(text, shown)
    _require_mapping(data, index, shown)
    return data, index


def _require_mapping(data: Any, index: Index, shown: str) -> None:
    if data is None and not index:
        raise InputError("the file is empty; expected a mapping", file=shown)
    if not isinstance(data, dict):
        raise InputError(f"the top level must be a mapping, not {_type_name(data)}",
                         file=shown, line=_line(index, ()))


# --------------------------------------------------------------------------- validation


def format_path(path: Iterable) -> str:
    """``("rows", 3, "kind")`` -> ``rows[3].kind``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def _line(index: Index, path: DocPath) -> int | None:
    for end in range(len(path), -1, -1):
        hit = index.get(tuple(path[:end]))
        if hit is not None:
            return hit[0]
    return None


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string",
               "integer": "an integer", "number": "a number", "boolean": "a boolean",
               "null": "null"}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _show(value: Any) -> str:
    """A short, safe rendering of a value for a message (credentials never shown)."""
    if isinstance(value, str):
        if looks_like_credential(value):
            return "(a value that looks like a credential)"
        return json.dumps(value if len(value) <= 40 else value[:37] + "...", ensure_ascii=False)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return _type_name(value)


def _unknown_keys(error: ValidationError) -> list[str]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = set(schema.get("properties", {}))
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    instance = error.instance if isinstance(error.instance, dict) else {}
    return [k for k in instance
            if k not in known and not any(p.search(str(k)) for p in patterns)]


def _pick_alternative(error: ValidationError) -> ValidationError | None:
    """Of an anyOf failure, the branch worth explaining (not the bare null one)."""
    branches = [e for e in error.context or []
                if not (isinstance(e.schema, dict) and e.schema.get("type") == "null")]
    return branches[0] if branches else None


def _describe(error: ValidationError) -> tuple[DocPath, str]:
    """The path and a plain message for one schema error."""
    if error.validator in ("anyOf", "oneOf"):
        inner = _pick_alternative(error)
        if inner is not None:
            return _describe(inner)
    path: DocPath = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    custom = schema.get("x-message")
    kind, value = error.validator, error.validator_value
    if kind == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        missing = [p for p in value if p not in instance]
        return path, custom or f"missing required field '{missing[0] if missing else value[0]}'"
    if kind == "additionalProperties":
        extra = _unknown_keys(error)
        allowed = ", ".join(schema.get("properties", {}))
        message = custom or ("unknown field" + (f"; allowed: {allowed}" if allowed else ""))
        return (path + (extra[0],) if extra else path), message
    if custom:
        return path, custom
    if kind == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        words = [_TYPE_WORDS.get(t, t) for t in wanted]
        listed = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
        return path, f"must be {listed}, not {_type_name(error.instance)}"
    if kind == "enum":
        choices = ", ".join(_show(v) for v in value)
        return path, f"must be one of {choices} (found {_show(error.instance)})"
    if kind == "const":
        return path, f"must be {_show(value)} (found {_show(error.instance)})"
    if kind == "pattern":
        return path, f"does not match the pattern {value}"
    if kind == "minItems":
        return path, "must not be empty" if value == 1 else f"needs at least {value} items"
    if kind == "minLength":
        return path, "must not be empty"
    if kind == "uniqueItems":
        return path, "must not repeat an item"
    if kind == "minimum":
        return path, f"must be at least {value}"
    if kind in ("not", None):
        return path, "is not allowed here"
    return path, error.message


def _validate(data: Any, index: Index, schema_name: str, shown: str) -> None:
    fast = _fast_validator(schema_name)
    if fast is not None:
        try:
            if fast.is_valid(data):
                return
        except Exception:  # a value it cannot take (e.g. .inf): the Python validator decides
            pass
    errors = list(_validator(schema_name).iter_errors(data))
    if not errors:
        return
    found = []
    for error in errors:
        path, message = _describe(error)
        found.append((_line(index, path) or 0, -len(path), format_path(path), message))
    line, _, where, message = min(found)
    raise InputError(message, file=shown, line=line or None, field=where or None)


def load_yaml(path: str | Path, schema_name: str) -> dict:
    """Read a YAML file and validate it against ``schemas/<schema_name>.schema.json``."""
    return _load(path, schema_name)[0]


def _load(path: str | Path, schema_name: str) -> tuple[dict, Index, str]:
    shown = str(path)
    data, index = _read_yaml_mapping(path, shown)
    _validate(data, index, schema_name, shown)
    return data, index, shown


# --------------------------------------------------------------------------- sheets


def _row(raw: dict) -> Row:
    return Row(
        id=raw["id"],
        kind=raw["kind"],
        title=dict(raw["title"]),
        establishes=dict(raw["establishes"]),
        steps=tuple(raw.get("steps", ())),
        checks=tuple(Check(c["layer"], c["check"]) for c in raw.get("checks", ())),
        options=dict(raw.get("options") or {}),
        procedure=dict(raw["procedure"]) if "procedure" in raw else None,
        forms=tuple(raw.get("forms", ())),
    )


def load_sheet(path: str | Path | None = None) -> Sheet:
    """Load and check a sheet; ``None`` loads the default sheet shipped with the package."""
    target = Path(path) if path is not None else default_sheet_path()
    data, index, shown = _load(target, "sheet")
    first: dict[str, int] = {}
    for i, raw in enumerate(data["rows"]):
        where = ("rows", i, "id")
        if raw["id"] in first:
            raise InputError(f"duplicate row id {raw['id']} (first at rows[{first[raw['id']]}])",
                             file=shown, line=_line(index, where), field=format_path(where))
        first[raw["id"]] = i
    return Sheet(name=data["sheet"], version=data["version"], title=dict(data["title"]),
                 rows=tuple(_row(raw) for raw in data["rows"]), path=target)


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


def _option_value(text: str) -> Any:
    """An option value read as a YAML scalar, as it would be in the sheet."""
    try:
        value = yaml.load(text, Loader=_Loader) if text.strip() else text
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (str, int, float, bool)) or value is None else text


def _condition_from_set(key: str, text: str, source: str) -> Any:
    check_condition_value(key, text, source=source)
    if key in INTEGER_CONDITIONS:
        if not re.fullmatch(r"[0-9]+", text.strip()):
            raise InputError(f"must be a whole number of bytes (found {_show(text)})",
                             file=source, field=key)
        return int(text.strip())
    return text


def parse_set(items: list[str], sheet: Sheet, *,
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
        value = _option_value(text)
        from mcp_accept.checks import row_option_problem

        problem = row_option_problem((c.check for c in sheet.row(row_id).checks), option, value)
        if problem:
            raise InputError(problem, file=source, field=key)
        options.setdefault(row_id, {})[option] = value
    _validate(conditions, {}, "conditions", source)
    return conditions, options


# --------------------------------------------------------------------------- results.json

_JSON_WS = re.compile(r"[ \t\n\r]*")


def _index_json(text: str, shown: str) -> Index:
    """Line of every key and item of an already valid JSON text; duplicate keys refused."""
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    scan = json.JSONDecoder().scan_once
    index: Index = {}

    def line_at(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + 1

    def skip(pos: int) -> int:
        return _JSON_WS.match(text, pos).end()

    def value(pos: int, path: DocPath) -> int:
        pos = skip(pos)
        if text[pos] == "{":
            return members(pos, path)
        if text[pos] == "[":
            return items(pos, path)
        return scan(text, pos)[1]

    def members(pos: int, path: DocPath) -> int:
        pos, first = skip(pos + 1), {}
        while text[pos] != "}":
            line = line_at(pos)
            key, pos = json.decoder.scanstring(text, pos + 1)
            if key in first:
                raise InputError(f"duplicate key (first given at line {first[key]})",
                                 file=shown, line=line, field=format_path(path + (key,)))
            first[key] = line
            index[path + (key,)] = (line, None)
            pos = skip(value(skip(pos) + 1, path + (key,)))  # past ':' and the value
            pos = skip(pos + 1) if text[pos] == "," else pos
        return pos + 1

    def items(pos: int, path: DocPath) -> int:
        pos, i = skip(pos + 1), 0
        while text[pos] != "]":
            index[path + (i,)] = (line_at(pos), None)
            pos = skip(value(pos, path + (i,)))
            pos, i = (skip(pos + 1) if text[pos] == "," else pos), i + 1
        return pos + 1

    start = skip(0)
    index[()] = (line_at(start), None)
    value(start, ())
    return index


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_results(data: dict, index: Index, shown: str) -> None:
    for key, value in data["conditions"].items():
        check_condition_value(f"conditions.{key}", value, source=shown,
                              line=_line(index, ("conditions", key)))
    counts = {status: 0 for status in data["summary"]}
    first: dict[str, int] = {}
    for i, row in enumerate(data["rows"]):
        if row["id"] in first:
            where = ("rows", i, "id")
            raise InputError(f"duplicate row id {row['id']} (first at rows[{first[row['id']]}])",
                             file=shown, line=_line(index, where), field=format_path(where))
        first[row["id"]] = i
        counts[row["status"]] += 1
    for status, count in data["summary"].items():
        if count != counts[status]:
            where = ("summary", status)
            raise InputError(f"says {count} but the rows hold {counts[status]}", file=shown,
                             line=_line(index, where), field=format_path(where))


def validate_results(path: str | Path) -> dict:
    """Load a results.json and check it against ``results.schema.json``, and that its
    summary counts its rows, no row id repeats and no condition holds a credential.
    Returns the parsed document."""
    shown = str(path)
    text = _read_text(Path(path), shown)
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", file=shown, line=exc.lineno) from None
    except ValueError as exc:
        raise InputError(f"not valid JSON: {exc}", file=shown) from None
    except RecursionError:
        raise InputError("nested too deeply", file=shown) from None
    try:
        index = _index_json(text, shown)
    except RecursionError:
        raise InputError("nested too deeply", file=shown) from None
    _require_mapping(data, index, shown)
    _validate(data, index, "results", shown)
    _check_results(data, index, shown)
    return data
