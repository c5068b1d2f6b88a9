"""Type-layer verdicts name the rule they enforce (S01): declaring an outputSchema is the
sheet's rule; a declared one binds the server (structuredContent present and conforming: a
MUST); a dialect mcp-accept does not support is refused with that reason; a reference that
leaves the schema is refused without a connection, while a "$ref" held as data is not one.
Each case runs mcp-accept against a real server process."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from conftest import fixture_command, load_results, run_cli
from mcp_accept.checks.types import external_refs
from mcp_accept.verify import Canary

SERVER = Path(__file__).resolve().parent / "servers" / "wire_server.py"
FAST = ("--timeout", "5")


def server(*args: str) -> str:
    return shlex.join([sys.executable, str(SERVER), *args])


def s01(tmp_path: Path, command: str, protocol: str | None = None) -> dict:
    folder = tmp_path / "run"
    extra = ("--protocol", protocol) if protocol else ()
    proc = run_cli("run", "--server", command, "--out", str(folder), *FAST, *extra)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    return next(r for r in load_results(folder)["rows"] if r["id"] == "S01")


def check(row: dict, name: str) -> dict:
    [found] = [c for c in row["checks"] if c["check"] == name]
    return found


@pytest.fixture
def canary():
    listener = Canary()  # counts every connection made to a loopback port
    assert listener.probe()  # it does see connections, so a zero below means none was made
    yield listener
    listener.close()


def test_a_tool_without_output_schema_fails_the_sheets_rule_only(tmp_path):
    row = s01(tmp_path, server("--defect", "no-output-schema"))
    assert row["status"] == "FAIL" and row["failed_rule"] == "app"
    assert check(row, "output_schema_declared")["rule"] == "app"
    assert "the spec makes outputSchema optional: this is the sheet's rule, not a spec violation" in row["reason"]
    # structuredContent is there, but there is nothing to validate it against
    assert check(row, "structured_valid")["status"] == "UNOBTAINABLE"


def test_no_output_schema_and_no_structured_content_is_still_no_spec_failure(tmp_path):
    row = s01(tmp_path, server("--defect", "no-structured"))
    assert row["status"] == "FAIL" and row["failed_rule"] == "app"
    assert check(row, "structured_valid")["rule"] == "app"
    assert "so the spec does not require it" in row["reason"]


def test_a_declared_schema_binds_the_server_to_return_structured_content(tmp_path):
    row = s01(tmp_path, fixture_command("--break", "structured-missing"))
    assert row["status"] == "FAIL" and row["failed_rule"] == "must"
    found = check(row, "structured_valid")
    assert found["layer"] == "type" and found["rule"] == "must"
    assert found["source"].endswith("server/tools.mdx#output-schema")
    assert "structuredContent is absent although an outputSchema is declared" in row["reason"]
    assert not [c for c in row["checks"] if c["layer"] == "wire"]  # presence is a type-layer matter


def test_a_falsy_structured_content_is_present(tmp_path):
    assert s01(tmp_path, fixture_command("--break", "structured-null"))["status"] == "PASS"


def test_structured_content_that_does_not_conform_breaks_a_must(tmp_path):
    row = s01(tmp_path, fixture_command("--break", "total-string"))
    assert row["status"] == "FAIL" and check(row, "structured_valid")["rule"] == "must"
    assert "does not match outputSchema at $.total" in row["reason"]


@pytest.mark.parametrize("dialect", ["http://json-schema.org/draft-04/schema#",
                                     "https://example.org/schemas/my-dialect"])
def test_an_unsupported_dialect_is_refused_with_that_reason(tmp_path, dialect):
    schema = {"$schema": dialect, "type": "object"}
    row = s01(tmp_path, server("--output-schema", json.dumps(schema)), protocol="2026-07-28")
    assert row["status"] == "FAIL" and row["failed_rule"] == "should"
    found = check(row, "structured_valid")
    assert found["source"] == "docs/specification/2026-07-28/basic/index.mdx#schema-dialect"
    assert "dialect not supported" in row["reason"] and dialect in row["reason"]


def test_an_unsupported_dialect_in_2025_06_18_breaks_no_rule_of_that_version(tmp_path):
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}
    row = s01(tmp_path, server("--output-schema", json.dumps(schema)), protocol="2025-06-18")
    assert row["status"] == "FAIL" and row["failed_rule"] == "app"
    assert "dialect not supported" in row["reason"]


def test_a_draft_07_schema_is_validated_as_draft_07(tmp_path):
    # In draft-07 the keywords beside `$ref` are ignored; read as 2020-12, "type": "string"
    # would refuse the object.
    schema = {"$schema": "http://json-schema.org/draft-07/schema#",
              "definitions": {"doc": {"type": "object", "required": ["hits"]}},
              "$ref": "#/definitions/doc", "type": "string"}
    assert s01(tmp_path, server("--output-schema", json.dumps(schema)))["status"] == "PASS"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    assert s01(tmp_path, server("--output-schema", json.dumps(schema)))["status"] == "FAIL"


def test_a_ref_held_as_enum_data_is_harmless_and_nothing_is_fetched(tmp_path, canary):
    # `enum` holds instances: the validator compares them with the value, never resolves
    # them, so {"$ref": URL} there is data and the schema is not refused.
    schema = {"type": "object", "properties": {
        "query": {"enum": ["MCP", {"$ref": canary.url}, "$ref"]},
        "total": {"type": "integer", "default": {"$ref": canary.url}}}}
    before = canary.count()
    row = s01(tmp_path, server("--output-schema", json.dumps(schema)))
    assert row["status"] == "PASS", row["reason"]
    assert canary.count() == before


def test_a_ref_in_a_property_named_enum_is_refused_and_nothing_is_fetched(tmp_path, canary):
    # the keys of `properties` are names: a property named "enum" holds a schema
    schema = {"type": "object", "properties": {"enum": {"$ref": canary.url}}}
    before = canary.count()
    row = s01(tmp_path, server("--output-schema", json.dumps(schema)), protocol="2026-07-28")
    assert row["status"] == "FAIL" and row["failed_rule"] == "should"
    found = check(row, "structured_valid")
    assert found["source"] == "docs/specification/2026-07-28/basic/index.mdx#ref-resolution"
    assert "refers outside itself" in row["reason"] and canary.url.split("#")[0] in row["reason"]
    assert canary.count() == before


def test_a_pointer_into_enum_data_makes_it_a_schema(tmp_path, canary):
    # a local $ref may land anywhere in the document; what it lands on is used as a schema
    schema = {"type": "object", "properties": {"query": {"$ref": "#/$defs/choices/enum/1"}},
              "$defs": {"choices": {"enum": ["MCP", {"$ref": canary.url}]}}}
    before = canary.count()
    row = s01(tmp_path, server("--output-schema", json.dumps(schema)), protocol="2025-11-25")
    assert row["status"] == "FAIL" and row["failed_rule"] == "app"  # 2025-11-25 has no $ref section
    assert "refers outside itself" in row["reason"]
    assert canary.count() == before


@pytest.mark.parametrize("schema, outside", [
    ({"enum": [{"$ref": "http://x.test/a"}]}, []),
    ({"const": {"$ref": "http://x.test/a"}, "default": {"$ref": "http://x.test/b"},
      "examples": [{"$ref": "http://x.test/c"}]}, []),
    ({"properties": {"enum": {"$ref": "http://x.test/a"}}}, ["http://x.test/a"]),
    ({"properties": {"const": {"items": {"$ref": "http://x.test/a"}}}}, ["http://x.test/a"]),
    ({"x-annotation": {"$ref": "http://x.test/a"}}, []),  # an unknown keyword is no schema position
    ({"x-annotation": {"$ref": "http://x.test/a"}, "$ref": "#/x-annotation"}, ["http://x.test/a"]),
    ({"$id": "https://x.test/s", "$defs": {"a": {}}, "$ref": "s#/$defs/a"}, []),
])
def test_only_schema_positions_are_walked(schema, outside):
    assert external_refs(schema) == outside
