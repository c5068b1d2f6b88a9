"""Reading the files a user hands over: YAML and JSON with the line of every value, checked
against the JSON Schemas shipped in the top-level ``schemas/`` folder.

Whatever is wrong with a file (missing, unreadable, not UTF-8, bad YAML, a duplicate key, a
value the schema refuses) comes back as one :class:`~mcp_accept.errors.InputError` naming the
file, the 1-based line of the offending node and the field path (``rows[3].kind``); never a
traceback. What each kind of file means is read elsewhere: sheets in :mod:`mcp_accept.inputs.sheet`,
profiles in :mod:`mcp_accept.inputs.profile`, conditions in :mod:`mcp_accept.inputs.conditions`, results
in :mod:`mcp_accept.inputs.results`.
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import yaml

if TYPE_CHECKING:  # jsonschema is imported when a file is invalid (80 ms saved on valid ones)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

from mcp_accept.evidence.credentials import looks_like_credential
from mcp_accept.data import data_path
from mcp_accept.errors import InputError

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


# The tags whose values are JSON's: a user's file describes JSON data (arguments sent to a
# server, values expected back), so a set, bytes, a Python object or an ordered-pairs list
# has no meaning in it and is refused by name rather than passed on to crash later.
_JSON_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in
                       ("str", "int", "float", "bool", "null", "map", "seq", "merge", "timestamp"))
# Integers a 64-bit field can hold: a longer one is a typo or an attack, and Python's own
# guard (4300 digits) would raise from deep inside the parser.
_INT_BOUND = 2 ** 63
_INT_CHARS = 40  # longer digit strings are refused before being converted at all


def _check_node(loader: _Loader, node: yaml.Node, path: DocPath, shown: str) -> None:
    """Refuse what JSON cannot carry: a tag outside JSON's, an integer past 64 bits, or a
    float that is not finite (``.inf``, ``.nan``, ``1e999``)."""
    field = format_path(path) or None
    tag = node.tag or ""
    if tag not in _JSON_TAGS:
        shown_tag = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
        raise InputError(f"the YAML tag {shown_tag[:60]} is not supported: only plain JSON-like values "
                         "(strings, numbers, true/false, null, lists, mappings)", file=shown,
                         line=_line_of_node(node), field=field)
    if not isinstance(node, yaml.ScalarNode) or tag not in (
            "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"):
        return
    if len(node.value) > _INT_CHARS and tag.endswith(":int"):
        raise InputError(f"an integer of {len(node.value)} characters is out of range "
                         f"(at most {_INT_BOUND - 1} in size)", file=shown, line=_line_of_node(node),
                         field=field)
    try:
        value = loader.construct_object(node)
    except (ValueError, KeyError, IndexError, TypeError, OverflowError):  # "!!float abc", "!!bool maybe", "!!int"
        kind = tag.rsplit(":", 1)[-1]
        raise InputError(f"{node.value[:20]!r} is not {'an' if kind == 'int' else 'a'} {kind} (tag !!{kind})",
                         file=shown, line=_line_of_node(node), field=field) from None
    if isinstance(value, int) and abs(value) >= _INT_BOUND:
        raise InputError(f"the integer is out of range (at most {_INT_BOUND - 1} in size)", file=shown,
                         line=_line_of_node(node), field=field)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{node.value[:20]} is not a finite number: JSON has no infinity or NaN",
                         file=shown, line=_line_of_node(node), field=field)


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
        _check_node(loader, node, path, shown)
        if isinstance(node, yaml.MappingNode):
            first_line: dict[str, int] = {}
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                _check_node(loader, key_node, path, shown)
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


def _read_yaml_mapping(path: str | Path, shown: str, text: str | None = None) -> tuple[dict, Index]:
    """The file's mapping and where each part of it sits; ``text``: the file as
    :func:`_read_text` read it already."""
    if text is None:
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
# JSON Schema's name for the type of a value YAML or JSON was read into (bool before int: a
# bool is an int in Python)
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
               (dict, "object"), (type(None), "null"))


def _type_name(value: Any) -> str:
    kind = next((name for python, name in _JSON_TYPES if isinstance(value, python)), None)
    return _TYPE_WORDS[kind] if kind else f"a {type(value).__name__}"


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


def _load(path: str | Path, schema_name: str, text: str | None = None) -> tuple[dict, Index, str]:
    shown = str(path)
    data, index = _read_yaml_mapping(path, shown, text)
    _validate(data, index, schema_name, shown)
    return data, index, shown


# --------------------------------------------------------------------------- JSON files

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


JSON_INT_DIGITS = 4000  # below Python's own guard (4300), so the message is ours


def _bounded_int(text: str) -> int:
    if len(text) > JSON_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits is too long (at most {JSON_INT_DIGITS})")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range for a number")
    return value


def strict_json_loads(text: str) -> Any:
    """``json.loads`` for files the user or a host hands over: NaN, Infinity, numbers out of
    range and integers longer than JSON_INT_DIGITS are refused (ValueError), nesting deeper
    than the interpreter can walk too (ValueError, not RecursionError)."""
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_bounded_int,
                          parse_float=_finite_float)
    except RecursionError:
        raise ValueError("nested too deeply") from None



def read_json(path: str | Path) -> tuple[Any, Index, str]:
    """A JSON file (NaN and Infinity refused), the line of each of its values, and its name
    as messages show it."""
    shown = str(path)
    text = _read_text(Path(path), shown)
    try:
        data = strict_json_loads(text)
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
    return data, index, shown
