"""Type layer: ``structuredContent`` against the tool's declared ``outputSchema``.

The schema comes from the server, so it is treated as hostile: ``$ref`` is resolved
through ``referencing`` with a registry that refuses every retrieval (a reference
that leaves the schema fails the row and nothing is fetched or read), endless
recursion is caught, and ``pattern`` is matched with a time limit.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag, urljoin

import referencing
import referencing.exceptions
import referencing.jsonschema
import regex
from jsonschema import validators as _validators
from jsonschema.exceptions import SchemaError, ValidationError, best_match

from mcp_accept.checks import FAIL, PASS, UNOBTAINABLE, Context, Verdict, call_outcome, check

PATTERN_SECONDS = 1.0
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
                    refs.append(urldefrag(urljoin(scope, node[key]))[0])
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


class RetrievalRefused(Exception):
    pass


def _refuse(uri: str):
    raise RetrievalRefused(f"refused to retrieve {uri}")


def _bounded_pattern(validator, pattern, instance, schema):
    if not validator.is_type(instance, "string"):
        return
    try:
        found = regex.search(pattern, instance, timeout=PATTERN_SECONDS)
    except TimeoutError:
        yield ValidationError(f"pattern {pattern!r} took longer than {PATTERN_SECONDS:g}s; refused")
        return
    except regex.error as exc:
        yield ValidationError(f"pattern {pattern!r} does not compile: {exc}")
        return
    if not found:
        yield ValidationError(f"{instance!r:.80} does not match {pattern!r}")


def _bounded_pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            try:
                found = regex.search(pattern, key, timeout=PATTERN_SECONDS)
            except TimeoutError:
                yield ValidationError(f"patternProperties {pattern!r} took longer than "
                                      f"{PATTERN_SECONDS:g}s; refused")
                return
            except regex.error as exc:
                yield ValidationError(f"patternProperties {pattern!r} does not compile: {exc}")
                return
            if found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def validate_output(schema: Any, instance: Any) -> tuple[str, str]:
    """Validate ``instance`` against a server-supplied schema; return (status, detail)."""
    if not isinstance(schema, (dict, bool)):
        return FAIL, f"outputSchema is a {type(schema).__name__}, not a JSON Schema"
    outside = external_refs(schema)
    if outside:
        return FAIL, ("outputSchema refers outside itself (" + ", ".join(outside[:3]) +
                      "); refused, nothing was fetched")
    base_cls = _validators.validator_for(schema, default=_validators.Draft202012Validator)
    cls = _validators.extend(base_cls, {"pattern": _bounded_pattern,
                                        "patternProperties": _bounded_pattern_properties})
    try:
        base_cls.check_schema(schema)
    except SchemaError as exc:
        return FAIL, f"outputSchema is not a valid schema: {exc.message[:200]}"
    except RecursionError:
        return FAIL, "outputSchema nests too deeply to check"
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
    except RecursionError:
        return FAIL, "outputSchema recurses without end; refused"
    except (referencing.exceptions.Unresolvable, RetrievalRefused) as exc:
        return FAIL, f"outputSchema has a reference that cannot be resolved locally ({exc}); refused"
    except Exception as exc:  # a hostile schema must not crash the run
        name = type(exc).__name__
        if "Unresolvable" in name or "Referencing" in name:
            return FAIL, f"outputSchema has a reference that cannot be resolved locally; refused"
        return FAIL, f"outputSchema could not be applied ({name}: {str(exc)[:200]})"
    if errors:
        error = best_match(errors)
        message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
        return FAIL, f"structuredContent does not match outputSchema at {error.json_path}: {message}"
    return PASS, "structuredContent validates against outputSchema"


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
