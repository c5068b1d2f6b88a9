"""Type layer: ``structuredContent`` against the tool's declared ``outputSchema``: present
(null, false, 0, "" and [] are present) and conforming, in a dialect mcp-accept supports.

The schema comes from the server, so it is treated as hostile: ``$ref`` is resolved
through ``referencing`` with a registry that refuses every retrieval (a reference
that leaves the schema fails the row and nothing is fetched or read), endless
recursion is caught, ``pattern`` is matched with a time limit and the whole
validation has a time budget.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any
from urllib.parse import urldefrag, urljoin

# referencing, regex and jsonschema are imported where they are used: about 100 ms that a
# result passing the jsonschema-rs check (below) never needs.

from mcp_accept.checks.base import (APP, FAIL, MUST, PASS, SHOULD, UNOBTAINABLE, Context, Verdict, call_outcome, check, spec_for)
from mcp_accept.evidence.redaction import clip  # a cut the run's redaction can see (a secret's start before it)
from mcp_accept.protocol import MODERN, SCHEMA_USAGE_VERSIONS, VERSIONS
from mcp_accept.reasons import Reason, declare, reason

# The reasons this module's verdicts give: id and English template (collected into
# mcp_accept.reasons.REASONS; translated in the message catalog, else shown in English).
declare({
    # S01
    "structured.declares-schema": "{tool} declares an outputSchema",
    "structured.valid": "structuredContent validates against outputSchema",
    "structured.mismatch": "structuredContent does not match outputSchema at {path}: {detail}",
    "structured.absent-declared": "structuredContent is absent although an outputSchema is declared",
    "structured.external-ref": "outputSchema refers outside itself ({ref})",
    "structured.refused": "refused, nothing was fetched",
})

PATTERN_SECONDS = 1.0  # one pattern match
VALIDATION_SECONDS = 3.0  # one whole validation, patterns included (clock checks between keywords)
# The hard limit: the validation runs in a child process killed after this long, so that one
# keyword that runs long (uniqueItems over 50,000 items, a huge enum, a megabyte pattern being
# compiled) is stopped too. See mcp_accept/evidence/bounded.py.
HARD_SECONDS = VALIDATION_SECONDS + 3.0
TOO_COSTLY = "too costly to check"
DEFAULT_BASE = "urn:mcp-accept:output-schema"
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


# Where a schema holds schemas (JSON Schema draft-06 to 2020-12). Every other keyword's value
# is data or an annotation: `enum`, `const`, `default`, `examples` hold instances, and the
# keys of `properties` are names, so a property named "enum" is a schema like any other.
SCHEMA_KEYWORDS = frozenset({
    "additionalProperties", "additionalItems", "contains", "propertyNames", "if", "then", "else",
    "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items",
})
SCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
SCHEMA_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                                 "dependentSchemas", "dependencies"})


def external_refs(schema: Any, base: str = DEFAULT_BASE) -> list[str]:
    """Every reference in ``schema`` that points outside it, resolved against its ``$id`` scopes.

    Only schema positions are walked: a ``{"$ref": ...}`` inside ``enum`` data is a value
    the validator compares, never resolves. But a local reference (``#/enum/0``) may point
    anywhere in the document, data included, and what it lands on is used as a schema: such
    targets are walked too.
    """
    resources: dict[str, Any] = {}  # base URI -> the schema that opened it
    refs: list[tuple[str, str]] = []  # (scope, reference)
    seen: set[int] = set()

    def walk(node: Any, scope: str) -> None:
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node.get("$id"), str):
            scope = urldefrag(urljoin(scope, node["$id"]))[0]
            resources.setdefault(scope, node)
        for key in REF_KEYWORDS:
            if isinstance(node.get(key), str):
                refs.append((scope, node[key]))
        for key, value in node.items():
            if key in SCHEMA_KEYWORDS and isinstance(value, dict):
                walk(value, scope)
            elif key in SCHEMA_LIST_KEYWORDS and isinstance(value, list):
                for item in value:
                    walk(item, scope)
            elif key in SCHEMA_MAP_KEYWORDS and isinstance(value, dict):
                for item in value.values():
                    walk(item, scope)

    root = base
    if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
        root = urldefrag(urljoin(base, schema["$id"]))[0]
    resources[root] = schema
    walk(schema, root)
    done = 0
    while done < len(refs):  # walking a pointer's target may add references
        scope, ref = refs[done]
        done += 1
        document = _target(scope, ref)
        fragment = ref.partition("#")[2]
        if document in resources and fragment.startswith("/"):
            walk(_pointer(resources[document], fragment), document)
    return sorted({_target(scope, ref) for scope, ref in refs} - set(resources))


def _pointer(document: Any, fragment: str) -> Any:
    """The node a JSON Pointer fragment (``/a/0/b``) names in ``document``, or None."""
    from urllib.parse import unquote

    node = document
    for part in unquote(fragment).split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


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


# What a validation found, for the rule its verdict enforces (see RULES_BY_OUTCOME).
VALID, MISMATCH, INVALID_SCHEMA, DIALECT, EXTERNAL, BOUNDS = (
    "valid", "mismatch", "invalid-schema", "dialect", "external", "bounds")

# The JSON Schema dialects mcp-accept validates, by the `$schema` that names them. They are
# the dialects with `$id` (draft-04 and older name it `id`): the guard against references
# that leave the schema reads `$id` scopes, and would misjudge a schema scoped by `id`.
DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
}


def dialect_of(schema: Any) -> str | None:
    """The `$schema` of ``schema`` as its canonical URI when mcp-accept supports it (absent
    means 2020-12: basic/index.mdx#schema-dialect), else None."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return "https://json-schema.org/draft/2020-12/schema"
    declared = schema["$schema"]
    if not isinstance(declared, str):
        return None
    canonical = declared[:-1] if declared.endswith("#") else declared
    return canonical if canonical in DIALECTS else None


def validate_output(schema: Any, instance: Any) -> tuple[str, str | Reason]:
    """Validate ``instance`` against a server-supplied schema; return (status, detail)."""
    return _validated(schema, instance)[:2]


def validation_kind(schema: Any, instance: Any) -> str:
    """What the validation of the pair found: VALID, MISMATCH, INVALID_SCHEMA, DIALECT,
    EXTERNAL or BOUNDS."""
    return _validated(schema, instance)[3]


# The last validation of this thread: the sdk layer asks about the same pair again, and a
# refused validation must not cost its time budget twice. Runs may go on in threads.
_last = threading.local()


def _validated(schema: Any, instance: Any) -> tuple[str, str | Reason, str | None, str]:
    entry = getattr(_last, "entry", None)
    if entry is not None and entry[0] is schema and entry[1] is instance:
        return entry[2]
    outcome = _validate_bounded(schema, instance)
    _last.entry = (schema, instance, outcome)
    return outcome


def _validate_bounded(schema: Any, instance: Any) -> tuple[str, str, str | None, str]:
    """Validate in a forked child, in two steps: first what needs no Python validator (the
    dialect, references that leave the schema, jsonschema-rs vouching for a valid result;
    in this process when its cost is bounded, see `_cheap`), then, only if that settled
    nothing, the Python validator. A run whose results are
    valid never imports jsonschema, referencing or regex (0.13 s and 10 MiB). The two steps
    share one time limit."""
    from mcp_accept.evidence import bounded

    _warm_imports(compiled_only=True)  # the child must not import: another thread may hold the import lock
    hard = bounded.seconds_left(HARD_SECONDS)
    started = time.monotonic()
    settled = False  # the first step already ran here and could not tell
    if _cheap(schema, instance):
        try:
            outcome = _validate_output(schema, instance, True)
        except Exception:  # noqa: BLE001 - the child below meets it again and words it
            outcome = None
        else:
            if outcome is not None:
                return outcome
            settled = True
    try:
        outcome = None if settled else bounded.call(_validate_output, schema, instance, True, seconds=hard)
        if outcome is None:
            _warm_imports()
            left = max(0.05, hard - (time.monotonic() - started))
            outcome = bounded.call(_validate_output, schema, instance, False, seconds=left)
        return outcome
    except bounded.TooCostly as exc:
        why = f"took longer than {hard:g}s" if exc.why == "time" else exc.why
        return (FAIL, f"validating against outputSchema {why}; {TOO_COSTLY}, refused",
                "the schema's validation", BOUNDS)
    except RuntimeError as exc:
        return FAIL, f"outputSchema could not be applied ({clip(str(exc), 200)})", None, INVALID_SCHEMA


# The first step runs in this process, without a fork (a few milliseconds of a run, more
# under load), only when its cost is bounded by what it is given: a schema that
# `_fast_eligible` accepts (no pattern, format, contains, not, if, unevaluated*; anyOf,
# oneOf and allOf over scalar leaves only, so each instance node meets one chain of
# schema nodes), and a schema and an instance each under CHEAP_SIZE (enum, const and
# uniqueItems compare at most that much) and CHEAP_DEPTH (no deep recursion in the
# compiled validator). Everything else, and the Python validator always, runs forked.
CHEAP_SIZE = 4096  # strings by their length, every other value as 8, containers as 2 plus their keys
CHEAP_DEPTH = 32


def _within(value: Any, size: int, depth: int) -> bool:
    """Whether ``value`` measures at most ``size`` and nests at most ``depth`` deep; stops
    counting as soon as it is over, so a large value costs no more than a small one: the
    walk holds an iterator per level, never a pending entry per item (a list of 79,000 hits
    would take megabytes of them before the count stopped)."""
    levels = [iter((value,))]  # levels[n] yields the nodes n deep
    total = 0
    while levels:
        node = next(levels[-1], _DONE)
        if node is _DONE:
            levels.pop()
            continue
        if len(levels) - 1 > depth:
            return False
        if isinstance(node, str):
            total += len(node)
        elif isinstance(node, dict):
            total += 2
            for key in node:
                total += len(key) if isinstance(key, str) else 8
                if total > size:
                    return False
            levels.append(iter(node.values()))
        elif isinstance(node, list):
            total += 2
            levels.append(iter(node))
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) >= 1 << 63:
            return False  # a huge integer: its conversion is the compiled validator's business
        else:
            total += 8
        if total > size:
            return False
    return True


_DONE = object()


def _cheap(schema: Any, instance: Any) -> bool:
    """Whether the compiled first step may run here rather than in a child (see CHEAP_SIZE)."""
    return (_within(schema, CHEAP_SIZE, CHEAP_DEPTH) and _within(instance, CHEAP_SIZE, CHEAP_DEPTH)
            and _fast_eligible(schema))


def _warm_imports(compiled_only: bool = False) -> None:
    try:
        import jsonschema_rs  # noqa: F401
    except ImportError:
        pass
    if compiled_only:
        return
    import referencing  # noqa: F401
    import referencing.exceptions  # noqa: F401
    import referencing.jsonschema  # noqa: F401
    import regex  # noqa: F401
    from jsonschema import validators  # noqa: F401
    from jsonschema.exceptions import best_match  # noqa: F401


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
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            return None  # another document, or an anchor: not followed here
        return _pointer(schema, ref[1:])

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


def fast_valid(schema: Any, instance: Any) -> bool:
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


def _validate_output(schema: Any, instance: Any,
                     compiled_only: bool = False) -> tuple[str, str, str | None, str] | None:
    """(status, detail, runaway, kind) of validating ``instance`` against ``schema``; with
    ``compiled_only``, None when only the Python validator can tell."""
    if not isinstance(schema, (dict, bool)):
        return FAIL, f"outputSchema is a {type(schema).__name__}, not a JSON Schema", None, INVALID_SCHEMA
    dialect = dialect_of(schema)
    if dialect is None:
        supported = ", ".join(DIALECTS.values())
        return FAIL, (f"outputSchema declares $schema {_short(schema.get('$schema'))}: dialect not "
                      f"supported (mcp-accept validates {supported}); not validated"), None, DIALECT
    outside = external_refs(schema)
    if outside:
        return FAIL, reason("list.parts", parts=[reason("structured.external-ref", ref=", ".join(outside[:3])),
                                                reason("structured.refused")]), None, EXTERNAL
    if fast_valid(schema, instance):  # jsonschema-rs refuses an invalid schema: never a PASS then
        return PASS, reason("structured.valid"), None, VALID
    if compiled_only:
        return None
    import referencing
    import referencing.exceptions
    import referencing.jsonschema
    from jsonschema import validators as _validators
    from jsonschema.exceptions import SchemaError, best_match

    base_cls = _validators.validator_for({"$schema": dialect})
    try:
        base_cls.check_schema(schema)
    except SchemaError as exc:
        return FAIL, f"outputSchema is not a valid schema: {clip(exc.message, 200)}", None, INVALID_SCHEMA
    except RecursionError:
        return FAIL, "outputSchema nests too deeply to check", None, BOUNDS
    from mcp_accept.evidence.bounded import seconds_left

    budget = _Budget(seconds_left(VALIDATION_SECONDS))
    cls = _validators.extend(base_cls, _keywords(base_cls, budget))
    base = schema.get("$id", DEFAULT_BASE) if isinstance(schema, dict) else DEFAULT_BASE
    spec = referencing.jsonschema.specification_with(dialect, default=referencing.jsonschema.DRAFT202012)
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
            return FAIL, (f"outputSchema pattern {budget.runaway!r:.200} took longer than "
                          f"{PATTERN_SECONDS:g}s to match; {TOO_COSTLY}, refused"), \
                f"pattern {budget.runaway!r:.200}", BOUNDS
        return FAIL, (f"validating against outputSchema took longer than {budget.seconds:g}s; "
                      f"{TOO_COSTLY}, refused"), "the schema's validation", BOUNDS
    except RecursionError:
        return FAIL, "outputSchema recurses without end; refused", None, BOUNDS
    except (referencing.exceptions.Unresolvable, RetrievalRefused) as exc:
        return (FAIL, f"outputSchema has a reference that cannot be resolved locally ({exc}); refused",
                None, INVALID_SCHEMA)
    except Exception as exc:  # a hostile schema must not crash the run
        name = type(exc).__name__
        if "Unresolvable" in name or "Referencing" in name:
            return FAIL, "outputSchema has a reference that cannot be resolved locally; refused", None, INVALID_SCHEMA
        return FAIL, f"outputSchema could not be applied ({name}: {clip(str(exc), 200)})", None, INVALID_SCHEMA
    if errors:
        error = best_match(errors)
        message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
        return (FAIL, reason("structured.mismatch", path=error.json_path, detail=message), None, MISMATCH)
    return PASS, reason("structured.valid"), None, VALID


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# The rule a failed validation breaks, by what failed and the version on the wire: (rule,
# (page, section)) for the versions whose spec words it, else the app rule of this sheet.
RULES_BY_OUTCOME: dict[str, dict[str, tuple[str, tuple[str, str] | None]]] = {
    # structured results from a server MUST match the declared output schema (every version)
    MISMATCH: {v: (MUST, ("server/tools.mdx", "output-schema")) for v in VERSIONS},
    # a schema MUST be valid under the dialect it declares, or the default one (2025-11-25 on;
    # 2025-06-18 has no JSON Schema usage section)
    INVALID_SCHEMA: {v: (MUST, ("basic/index.mdx", "schema-validation")) for v in SCHEMA_USAGE_VERSIONS},
    # JSON Schema 2020-12 is RECOMMENDED; a client MUST meet a dialect it does not support
    # with a suitable error rather than break (that is this FAIL)
    DIALECT: {v: (SHOULD, ("basic/index.mdx", "schema-dialect")) for v in SCHEMA_USAGE_VERSIONS},
    # a schema that cannot be validated because an external $ref is unresolved SHOULD be refused;
    # implementations MUST NOT dereference network URIs (2026-07-28 only)
    EXTERNAL: {MODERN: (SHOULD, ("basic/index.mdx", "ref-resolution"))},
    # the bounds are mcp-accept's own (the spec asks validators for bounds, not schemas)
    BOUNDS: {},
}


def outcome_rule(kind: str, version: str | None) -> tuple[str, tuple[str, str] | None]:
    return RULES_BY_OUTCOME.get(kind, {}).get(version or MODERN, (APP, None))


def declared_tool(ctx: Context, form: str) -> dict | None:
    ref = ctx.profile.tools.get(form)
    if ref is None:
        return None
    return ctx.recording.tools.get(ref.name)


# Declaring an outputSchema is optional in every version (server/tools.mdx#output-schema
# leaves it to the tool): requiring one is this sheet's rule.
@check("output_schema_declared", "type", rule=APP)
def output_schema_declared(ctx: Context) -> Verdict:
    name = "output_schema_declared"
    if "structured" not in ctx.profile.tools:
        return Verdict(name, "type", UNOBTAINABLE, reason("profile.no-tool", form="structured"))
    listing = ctx.step("tools/list")
    seqs = listing.seqs if listing else []
    tool = declared_tool(ctx, "structured")
    tool_name = ctx.profile.tools["structured"].name
    if tool is None:
        early = call_outcome(ctx, "structured", name, "type")[1]
        if early is not None and early.status == UNOBTAINABLE:  # not offered, and the call failed
            return early
        return Verdict(name, "type", FAIL, reason("profile.not-listed", tool=tool_name), seqs)
    if "outputSchema" not in tool:
        return Verdict(name, "type", FAIL, f"{tool_name} declares no outputSchema in tools/list "
                       "(the spec makes outputSchema optional: this is the sheet's rule, not a spec "
                       "violation)", seqs)
    return Verdict(name, "type", PASS, reason("structured.declares-schema", tool=tool_name), seqs)


@check("structured_valid", "type", rule=MUST, source=("server/tools.mdx", "output-schema"))
def structured_valid(ctx: Context) -> Verdict:
    """structuredContent is present and conforms to the declared outputSchema. Present means
    not absent: null, false, 0, "" and [] are present."""
    name = "structured_valid"
    result, early = call_outcome(ctx, "structured", name, "type")
    if early:
        return early
    seqs = list(ctx.step("call:structured").seqs)
    tool = declared_tool(ctx, "structured")
    present = "structuredContent" in result
    if tool is None or "outputSchema" not in tool:
        if not present:
            return Verdict(name, "type", FAIL, "structuredContent is absent; the tool declares no "
                           "outputSchema, so the spec does not require it (the profile's structured "
                           "tool is expected to return it)", seqs, rule=APP)
        kind = type(result["structuredContent"]).__name__
        return Verdict(name, "type", UNOBTAINABLE,  # the spec's MUST binds declared schemas only
                       f"structuredContent is present ({kind}); no outputSchema to validate it against", seqs,
                       rule=APP)
    if not present:
        return Verdict(name, "type", FAIL, reason("structured.absent-declared"), seqs)
    schema, instance = tool["outputSchema"], result["structuredContent"]
    status, detail = validate_output(schema, instance)
    if status == PASS:
        return Verdict(name, "type", PASS, detail, seqs)
    rule, where = outcome_rule(validation_kind(schema, instance), ctx.version)
    return Verdict(name, "type", status, detail, seqs, rule=rule,
                   source=spec_for(ctx.version, *where) if where else None)


# Sheets written before the presence check moved to the type layer name it structured_present:
# it answers to that name too, so a copied sheet keeps working.
check("structured_present", "type", rule=MUST, source=("server/tools.mdx", "output-schema"))(structured_valid)
