"""Schemas and results that cost without bound to check: uniqueItems over 60,000 objects, an
enum of 300,000 objects, a chain of 20,000 $refs, a pattern of a megabyte, contains nested
four deep over 800,000 items. Each check is stopped at its budget (a child process killed at
the hard limit, see mcp_accept/evidence/bounded.py): S01 FAILs saying so, the other rows are judged as
usual, and the run's peak memory stays within a generous bound (its time is measured by
benchmarks/hostile.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faultkit import assert_complete, hostile, measured, rows_by_id

DOC_HITS = [{"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
            {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."}]


def unique_items():
    hits = [{"id": f"d{i}", "n": [i]} for i in range(60_000)]
    schema = {"type": "object", "properties": {"hits": {
        "type": "array", "uniqueItems": True,
        "items": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^d"}}}}}}
    return schema, {"query": "MCP", "total": len(hits), "hits": hits}


def huge_enum():
    schema = {"type": "object", "properties": {"total": {"enum": [{"k": i} for i in range(300_000)]}}}
    return schema, None


def ref_chain():
    n = 20_000
    defs = {f"a{i}": {"$ref": f"#/$defs/a{i + 1}"} for i in range(n)}
    defs[f"a{n}"] = {"type": "integer"}
    return {"$defs": defs, "type": "object", "properties": {"total": {"$ref": "#/$defs/a0"}}}, None


def megabyte_pattern():
    return {"type": "object", "properties": {"query": {"type": "string", "pattern": "(?:a|b)" * 150_000 + "x"}}}, None


def nested_contains():
    cube = [[[[0] * 30 for _ in range(30)] for _ in range(30)] for _ in range(30)]
    inner: dict = {"const": 5}
    for _ in range(4):
        inner = {"type": "array", "contains": inner}
    schema = {"type": "object", "properties": {"hits": inner}}
    return schema, {"query": "MCP", "total": 2, "hits": cube}


CASES = {"uniqueItems-60k": unique_items, "enum-300k": huge_enum, "ref-chain-20k": ref_chain,
         "pattern-1MB": megabyte_pattern, "contains-4-deep": nested_contains}


@pytest.mark.parametrize("name", list(CASES))
def test_costly_schema_is_bounded(name: str, tmp_path: Path) -> None:
    schema, structured = CASES[name]()
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema))
    extra = ["--output-schema", schema_file]
    if structured is not None:
        (tmp_path / "structured.json").write_text(json.dumps(structured))
        extra += ["--structured", tmp_path / "structured.json"]
    folder = tmp_path / "run"
    # every FAIL makes exit 1 here (--fail-on app): the hostile schema is what is judged
    got = measured(["run", "--server", hostile(*extra), "--out", str(folder), "--timeout", "10", "--fail-on", "app",
                    "--max-bytes", str(256 * 1024 * 1024)], tmp_path / "console")
    assert got["code"] == 1, (got["stdout"][-2000:], got["stderr"][-2000:])
    results = assert_complete(folder)
    rows = rows_by_id(results)
    s01 = rows["S01"]
    assert s01["status"] == "FAIL", s01
    # stopped at the budget, or (a fast machine) judged within it: never unbounded
    judged = ("is not one of", "does not contain items", "valid under the given schema")
    assert any(words in s01["reason"] for words in ("too costly to check", "recurses without end",
                                                     "nests too deeply", *judged)), s01["reason"]
    evidence = json.loads((folder / s01["evidence"]).read_text())
    assert any(c["status"] == "FAIL" and c["layer"] == "type" for c in evidence["checks"]), evidence["checks"]
    for row_id in ("T01", "E01", "L02"):
        assert rows[row_id]["status"] == "PASS", rows[row_id]
    print(f"{name}: peak RSS {got['rss_mib']:.0f} MiB")  # its time: benchmarks/hostile.py (schemas)
    assert got["rss_mib"] < 3072, got


def test_deep_jmespath_expression_is_a_clear_error(tmp_path: Path) -> None:
    """A profile expression nested 3000 deep: one line naming file, line and field, exit 2,
    never a RecursionError."""
    from faultkit import assert_one_line_error
    from conftest import run_cli

    expr = "(" * 3000 + "total" + ")" * 3000
    profile = tmp_path / "deep.yaml"
    profile.write_text("profile: deep\ntools:\n  structured: {name: search_structured, arguments: {q: MCP}}\n"
                       f"assertions:\n  - name: deep\n    expr: \"{expr}\"\n", encoding="utf-8")
    proc = run_cli("run", "--profile", str(profile), "--out", str(tmp_path / "run"))
    assert_one_line_error(proc, "deep.yaml:6", "assertions[0].expr", "nested too deeply")


def test_run_timeout_bounds_negotiation(tmp_path: Path) -> None:
    """A server that never answers discover nor initialize, with --timeout 30 per request:
    --run-timeout 3 ends the negotiation anyway (exit 3, the cause says why)."""
    from faultkit import server, process_gone, read_pids

    folder, pidfile = tmp_path / "run", tmp_path / "pids"
    got = measured(["run", "--server", server("--mode", "hang", "--on", "server/discover,initialize",
                                              "--pidfile", pidfile),
                    "--timeout", "30", "--run-timeout", "3", "--out", str(folder)], tmp_path / "console")
    assert got["code"] == 3, (got["stdout"][-2000:], got["stderr"][-2000:])
    results = json.loads((folder / "results.json").read_text())
    assert "no answer before --run-timeout (3s) ran out" in (results.get("cause") or ""), results.get("cause")
    for pid in read_pids(pidfile):
        assert process_gone(pid)
    # how soon: benchmarks/hostile.py (h2), against the 3 s themselves
