"""Type layer: ``structuredContent`` against the tool's declared ``outputSchema``.

The schema comes from the server, so it is treated as hostile: ``$ref`` is resolved
through ``referencing`` with a registry that refuses every retrieval (a reference
that leaves the schema fails the row and nothing is fetched or read), endless
recursion is caught, ``pattern`` is matched with a time limit and the whole
validation has a time budget.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from urllib.parse import urldefrag, urljoin

# referencing, regex and jsonschema are imported where they are used: about 100 ms that a
# result passing the jsonschema-rs check (below) never needs.

from mcp_accept.checks import FAIL, PASS, UNOBTAINABLE, Context, Verdict, call_outcome, check

PATTERN_SECONDS = 1.0  # one pattern match
VALIDATION_SECONDS = 3.0  # one whole validation, patterns included
DEFAULT_BASE = "urn:mcp-accept:output-schema"
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def external_refs(schema: Any, base: str = DEFAULT_BASE) -> list[str]:
    """Every reference in ``schema`` that points outside it, resolved against its ``$id`` scopes."""
    known: set[str] = set()
    refs: list[str] = []

    def walk(node: Any, scope: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                scope = urldefrag(urljoin(scope, node["$id"]))[0]
                known.add(scope)
            for key in REF_KEYWORDS:
                if isinstance(node.get(key), str):
                    refs.append(_target(scope, node[key]))
            for key, value in node.items():
                if key not in ("const", "enum", "examples", "default"):
                    walk(value, scope)
        elif isinstance(node, list):
            for value in node:
                walk(value, scope)

    root = base
    if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
        root = urldefrag(urljoin(base, schema["$id"]))[0]
    known.add(root)
    walk(schema, root)
    return sorted({ref for ref in refs if ref not in known})


def _target(scope: str, ref: str) -> str:
    """The document a reference points into, resolved as ``referencing`` does: a bare
    fragment stays in the current scope (``urljoin`` cannot join one onto a ``urn:``)."""
    if ref.startswith("#"):
        return scope
    return urldefrag(urljoin(scope, ref))[0]


class RetrievalRefused(Exception):
    pass


def _refuse(uri: str):
    raise RetrievalRefused(f"refused to retrieve {uri}")


class OverBudget(Exception):
    """Validation ran past its time budget."""


class _Budget:
    """The time one validation may take, shared by every keyword it runs.

    ``pattern`` and ``patternProperties`` are matched with ``regex`` and a timeout (the
    standard ``re`` cannot be stopped); every other keyword checks the clock before it
    runs, which bounds schemas that blow up by combination (nested ``anyOf``...) too.
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.runaway: str | None = None  # the pattern that ran out of time, if one did

    def left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OverBudget
        return left

    def search(self, pattern: str, text: str):
        import regex

        try:
            return regex.search(pattern, text, timeout=min(self.left(), PATTERN_SECONDS))
        except TimeoutError:
            self.runaway = pattern
            raise OverBudget from None


def _keywords(base_cls, budget: _Budget) -> dict:
    import regex
    from jsonschema.exceptions import ValidationError
    def clocked(fn):
        def keyword(validator, value, instance, schema):
            budget.left()
            yield from fn(validator, value, instance, schema)
        return keyword

    def pattern(validator, value, instance, schema):
        if not validator.is_type(instance, "string"):
            return
        try:
            found = budget.search(value, instance)
        except regex.error as exc:
            yield ValidationError(f"pattern {value!r} does not compile: {exc}")
            return
        if not found:
            yield ValidationError(f"{instance!r:.80} does not match {value!r}")

    def pattern_properties(validator, value, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        for expr, subschema in value.items():
            for key, item in instance.items():
                try:
                    found = budget.search(expr, key)
                except regex.error as exc:
                    yield ValidationError(f"patternProperties {expr!r} does not compile: {exc}")
                    return
                if found:
                    yield from validator.descend(item, subschema, path=key, schema_path=expr)

    out = {name: clocked(fn) for name, fn in base_cls.VALIDATORS.items()}
    out["pattern"] = pattern
    out["patternProperties"] = pattern_properties
    return out


def validate_output(schema: Any, instance: Any) -> tuple[str, str]:
    """Validate ``instance`` against a server-supplied schema; return (status, detail)."""
    return _validated(schema, instance)[:2]


# The last validation of this thread: the sdk layer asks about the same pair again, and a
# refused validation must not cost its time budget twice. Runs may go on in threads.
_last = threading.local()


def _validated(schema: Any, instance: Any) -> tuple[str, str, str | None]:
    entry = getattr(_last, "entry", None)
    if entry is not None and entry[0] is schema and entry[1] is instance:
        return entry[2]
    outcome = _validate_output(schema, instance)
    _last.entry = (schema, instance, outcome)
    return outcome


def runaway(schema: Any, instance: Any) -> str | None:
    """Why validating ``instance`` against ``schema`` cannot be bounded (a pattern that
    backtracks without end, or a schema that ran past the budget), or None. A client
    that validates with the standard library would hang on such a pair."""
    return _validated(schema, instance)[2]


# The fast path: jsonschema-rs (compiled) checks a large structuredContent in milliseconds
# where the pure-Python validator takes seconds. It is taken only for schemas whose every
# keyword costs time linear in the instance and means the same to both validators (no
# pattern, format or multipleOf; anyOf/oneOf/allOf only over scalar leaves), and only to
# say PASS: anything it refuses goes through the bounded Python validator for the verdict.
_FAST_LEAF = frozenset({
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems",
    "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
})
_FAST_NODE = _FAST_LEAF | {"$schema", "$id", "$anchor", "$ref", "$defs", "definitions", "properties",
                           "required", "additionalProperties", "items", "prefixItems",
                           "anyOf", "oneOf", "allOf"}


def _fast_eligible(schema: Any, depth: int = 0) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > 64 or not set(schema) <= _FAST_NODE:
        return False
    for key in ("properties", "$defs", "definitions"):
        value = schema.get(key, {})
        if not isinstance(value, dict) or not all(_fast_eligible(v, depth + 1) for v in value.values()):
            return False
    for key in ("additionalProperties", "items"):
        if key in schema and not _fast_eligible(schema[key], depth + 1):
            return False
    items = schema.get("prefixItems", [])
    if not isinstance(items, list) or not all(_fast_eligible(v, depth + 1) for v in items):
        return False
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key, [])
        if not isinstance(branches, list) or not all(
                isinstance(b, bool) or (isinstance(b, dict) and set(b) <= _FAST_LEAF) for b in branches):
            return False
    return True


def _ref_loop(schema: Any) -> bool:
    """Whether following ``$ref`` alone, without stepping into the instance, comes back to
    where it started (``a -> b -> a``, or ``{"$ref": "#"}``). Such a schema never ends:
    the Python validator refuses it, while jsonschema-rs would call it valid."""
    def target(node: Any) -> Any:
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        found = schema
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(found, dict) and part in found:
                found = found[part]
            elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
                found = found[int(part)]
            else:
                return None
        return found

    def nodes(node: Any):
        if isinstance(node, dict):
            yield node
            for value in node.values():
                yield from nodes(value)
        elif isinstance(node, list):
            for value in node:
                yield from nodes(value)

    for start in nodes(schema):
        seen, node = {id(start)}, target(start)
        while node is not None:
            if id(node) in seen:
                return True
            seen.add(id(node))
            node = target(node)
    return False


def _fast_valid(schema: Any, instance: Any) -> bool:
    """True when jsonschema-rs can vouch that ``instance`` is valid; False means "ask the
    Python validator" (not installed, schema not eligible, or not valid)."""
    if not _fast_eligible(schema) or _ref_loop(schema):
        return False
    try:
        import jsonschema_rs
    except ImportError:
        return False
    try:
        return jsonschema_rs.validator_for(schema, retriever=_refuse).is_valid(instance)
    except Exception:  # anything it cannot take is left to the Python validator
        return False


def _validate_output(schema: Any, instance: Any) -> tuple[str, str, str | None]:
    if not isinstance(schema, (dict, bool)):
        return FAIL, f"outputSchema is a {type(schema).__name__}, not a JSON Schema", None
    outside = external_refs(schema)
    if outside:
        return FAIL, ("outputSchema refers outside itself (" + ", ".join(outside[:3]) +
                      "); refused, nothing was fetched"), None
    if _fast_valid(schema, instance):  # jsonschema-rs refuses an invalid schema: never a PASS then
        return PASS, "structuredContent validates against outputSchema", None
    import referencing
    import referencing.exceptions
    import referencing.jsonschema
    from jsonschema import validators as _validators
    from jsonschema.exceptions import SchemaError, best_match

    base_cls = _validators.validator_for(schema, default=_validators.Draft202012Validator)
    try:
        base_cls.check_schema(schema)
    except SchemaError as exc:
        return FAIL, f"outputSchema is not a valid schema: {exc.message[:200]}", None
    except RecursionError:
        return FAIL, "outputSchema nests too deeply to check", None
    budget = _Budget(VALIDATION_SECONDS)
    cls = _validators.extend(base_cls, _keywords(base_cls, budget))
    base = schema.get("$id", DEFAULT_BASE) if isinstance(schema, dict) else DEFAULT_BASE
    spec = referencing.jsonschema.specification_with(
        schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
        if isinstance(schema, dict) else "https://json-schema.org/draft/2020-12/schema",
        default=referencing.jsonschema.DRAFT202012)
    registry = referencing.Registry(retrieve=_refuse).with_resource(base, spec.create_resource(schema))
    try:
        validator = cls(schema, registry=registry)
        errors = []
        for error in validator.iter_errors(instance):
            errors.append(error)
            if len(errors) >= 20:
                break
    except OverBudget:
        if budget.runaway is not None:
            return FAIL, (f"outputSchema pattern {budget.runaway!r} took longer than "
                          f"{PATTERN_SECONDS:g}s to match; refused"), f"pattern {budget.runaway!r}"
        return FAIL, (f"validating against outputSchema took longer than {VALIDATION_SECONDS:g}s; "
                      "refused"), "the schema's validation"
    except RecursionError:
        return FAIL, "outputSchema recurses without end; refused", None
    except (referencing.exceptions.Unresolvable, RetrievalRefused) as exc:
        return FAIL, f"outputSchema has a reference that cannot be resolved locally ({exc}); refused", None
    except Exception as exc:  # a hostile schema must not crash the run
        name = type(exc).__name__
        if "Unresolvable" in name or "Referencing" in name:
            return FAIL, "outputSchema has a reference that cannot be resolved locally; refused", None
        return FAIL, f"outputSchema could not be applied ({name}: {str(exc)[:200]})", None
    if errors:
        error = best_match(errors)
        message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
        return FAIL, f"structuredContent does not match outputSchema at {error.json_path}: {message}", None
    return PASS, "structuredContent validates against outputSchema", None


def declared_tool(ctx: Context, form: str) -> dict | None:
    ref = ctx.profile.tools.get(form)
    if ref is None:
        return None
    return ctx.recording.tools.get(ref.name)


@check("output_schema_declared", "type")
def output_schema_declared(ctx: Context) -> Verdict:
    name = "output_schema_declared"
    if "structured" not in ctx.profile.tools:
        return Verdict(name, "type", UNOBTAINABLE, "the profile names no structured tool")
    listing = ctx.step("tools/list")
    seqs = listing.seqs if listing else []
    tool = declared_tool(ctx, "structured")
    tool_name = ctx.profile.tools["structured"].name
    if tool is None:
        early = call_outcome(ctx, "structured", name, "type")[1]
        if early is not None and early.status == UNOBTAINABLE:  # not offered, and the call failed
            return early
        return Verdict(name, "type", FAIL, f"tools/list does not list {tool_name}", seqs)
    if "outputSchema" not in tool:
        return Verdict(name, "type", FAIL, f"{tool_name} declares no outputSchema in tools/list", seqs)
    return Verdict(name, "type", PASS, f"{tool_name} declares an outputSchema", seqs)


@check("structured_valid", "type")
def structured_valid(ctx: Context) -> Verdict:
    name = "structured_valid"
    result, early = call_outcome(ctx, "structured", name, "type")
    if early:
        return early
    seqs = list(ctx.step("call:structured").seqs)
    tool = declared_tool(ctx, "structured")
    if tool is None or "outputSchema" not in tool:
        return Verdict(name, "type", UNOBTAINABLE, "no outputSchema to validate against", seqs)
    if "structuredContent" not in result:
        return Verdict(name, "type", FAIL, "structuredContent is absent although an outputSchema is declared",
                       seqs)
    status, detail = validate_output(tool["outputSchema"], result["structuredContent"])
    return Verdict(name, "type", status, detail, seqs)
