"""The type layer's first validation step (jsonschema-rs vouching for a valid result) runs
in the judging process only when its cost is bounded by its input: a schema of the
compiled fast path's keywords, schema and instance both small and shallow. Every other
pair, and the Python validator always, is validated in a forked child with a hard time
limit (tests/faults/test_faults_cost.py holds those bounds). The verdict is the same either
way: each case is judged with the in-process step and with it forced into the child."""

from __future__ import annotations

import tracemalloc

import pytest

from mcp_accept.checks import types
from mcp_accept.evidence import bounded

SMALL = {"type": "object", "properties": {"query": {"type": "string"}, "total": {"type": "integer"},
                                          "hits": {"type": "array", "items": {"$ref": "#/$defs/hit"}}},
         "required": ["query"], "$defs": {"hit": {"type": "object", "properties": {"id": {"type": "string"}}}}}
VALID = {"query": "MCP", "total": 1, "hits": [{"id": "d1"}]}
INVALID = {"query": 5, "total": 1, "hits": []}


@pytest.fixture
def forks(monkeypatch):
    """The forked calls made, by the function each ran (the calls still run)."""
    made: list[tuple[str, bool]] = []
    real = bounded.call

    def counting(fn, *args, seconds):
        made.append((fn.__name__, args[2]))
        return real(fn, *args, seconds=seconds)

    monkeypatch.setattr(bounded, "call", counting)
    return made


def judged(schema, instance, monkeypatch, in_process: bool):
    monkeypatch.setattr(types, "_cheap", (lambda s, i: types._within(s, types.CHEAP_SIZE, types.CHEAP_DEPTH)
                                          and types._within(i, types.CHEAP_SIZE, types.CHEAP_DEPTH)
                                          and types._fast_eligible(s)) if in_process else (lambda s, i: False))
    return types._validate_bounded(schema, instance)


def test_a_small_valid_result_of_a_simple_schema_is_vouched_for_without_a_fork(forks):
    assert types._cheap(SMALL, VALID)
    status, detail, runaway, kind = types._validate_bounded(SMALL, VALID)
    assert (status, kind, runaway) == ("PASS", types.VALID, None), detail
    assert forks == []


def test_a_small_invalid_result_forks_once_for_the_python_validator(forks, monkeypatch):
    here = judged(SMALL, INVALID, monkeypatch, in_process=True)
    assert forks == [("_validate_output", False)]  # the compiled step ran here, found nothing to vouch for
    forks.clear()
    child = judged(SMALL, INVALID, monkeypatch, in_process=False)
    assert forks == [("_validate_output", True), ("_validate_output", False)]
    assert here == child and here[0] == "FAIL" and here[3] == types.MISMATCH, here


@pytest.mark.parametrize("schema, instance", [
    ({"type": "object", "properties": {"query": {"type": "string", "pattern": "^M"}}}, VALID),
    ({"type": "object", "properties": {"query": {"type": "string", "format": "date"}}}, VALID),
    ({"type": "object", "properties": {"hits": {"type": "array", "contains": {"type": "object"}}}}, VALID),
    ({"type": "object", "properties": {"hits": {"type": "array", "uniqueItems": True}}},
     {"query": "MCP", "hits": [{"id": f"d{i}"} for i in range(2000)]}),
    ({"type": "object", "properties": {"total": {"enum": list(range(5000))}}}, VALID),
])
def test_a_costly_or_large_pair_is_validated_in_a_child(schema, instance, forks, monkeypatch):
    assert not types._cheap(schema, instance)
    got = types._validate_bounded(schema, instance)
    assert forks and forks[0] == ("_validate_output", True)
    assert got[0] == "PASS", got


@pytest.mark.parametrize("value, fits", [
    ("x" * 4096, True), ("x" * 4097, False),
    ([[[[[[]]]]]], True),
    (eval("[" * 40 + "]" * 40), False),  # deeper than CHEAP_DEPTH
    ({"n": 10 ** 30}, False),  # beyond 64 bits
    ({"n": 2 ** 62, "ok": True, "f": 1.5, "none": None}, True),
    (eval("[" * 33 + "]" * 33), True),  # the innermost list is CHEAP_DEPTH deep
    (eval("[" * 34 + "]" * 34), False),
    ([""] * 100_000, True),  # strings count by their length: many empty ones fit
    ({"k" * 4095: 1}, False),  # the key and the value's 8 are over
    ([{"a": 1}] * 2, True),
])
def test_the_size_measure_stops_at_its_limits(value, fits):
    assert types._within(value, types.CHEAP_SIZE, types.CHEAP_DEPTH) is fits


def test_the_size_measure_of_a_long_list_holds_no_entry_per_item():
    # the shape of a large search result: counting stops after a few hits, and the walk
    # must not have queued every hit before it did
    hits = {"hits": [{"id": f"d{i:06d}", "title": f"Result {i}"} for i in range(80_000)]}
    tracemalloc.start()
    try:
        fits = types._within(hits, types.CHEAP_SIZE, types.CHEAP_DEPTH)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fits is False
    assert peak < 64 * 1024, peak


def test_an_unsupported_dialect_is_refused_the_same_way_in_process(forks, monkeypatch):
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}
    here = judged(schema, VALID, monkeypatch, in_process=True)
    assert forks == []
    assert here == judged(schema, VALID, monkeypatch, in_process=False)
    assert here[3] == types.DIALECT
