"""The coverage index (mcp_accept/checks/coverage.yaml) against the code: every source a check
cites is a place the index holds, every check, verdict or runner function an entry names
exists, every entry says how it is kept or why it is not, and docs/rules.md is generated
from it. Then the citations themselves: real runs (stdio in every version, Streamable HTTP
in both eras) whose FAIL verdicts each name a page and section the index holds for the
version on the wire, junk on stdout citing the stdio transport, HTTP faults the Streamable
HTTP section; and the texts people read agree with each check's rule."""

from __future__ import annotations

import ast
import importlib
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, fixture_command, load_results, run_cli

from mcp_accept.checks.base import MUST, REGISTRY, SHOULD
from mcp_accept.checks.registry import load_all
from mcp_accept.output.results_writer import failures_by_rule
from mcp_accept.output.console import summary_line
from mcp_accept.protocol import VERSIONS

INDEX = ROOT / "mcp_accept" / "checks" / "coverage.yaml"
KEYWORDS = {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "REQUIRED"}
HOW = ("check", "verdict", "runner", "out_of_scope")
SPEC = re.compile(r"docs/specification/(\d{4}-\d\d-\d\d)/([\w/.-]+\.mdx)#([\w%-]+)")
BROKEN_HTTP = ROOT / "tests" / "servers" / "broken_http.py"
WIRE_SERVER = ROOT / "tests" / "servers" / "wire_server.py"
FAST = ("--timeout", "5")

load_all()


def entries() -> list[dict]:
    return yaml.safe_load(INDEX.read_text(encoding="utf-8"))["entries"]


def held() -> set[tuple[str, str, str]]:
    return {(v, e["page"], e["section"]) for e in entries() for v in e["versions"]}


def names(value) -> list[str]:
    return value if isinstance(value, list) else [value]


def resolve(dotted: str):
    """A module attribute named by a dotted path (module, then classes and functions)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


# -- the index itself ---------------------------------------------------------------------------

def test_every_entry_is_complete_and_says_how_it_is_kept_or_why_not():
    seen = set()
    for e in entries():
        where = e.get("id")
        assert where and where not in seen, f"duplicate or missing id {where!r}"
        seen.add(where)
        assert e["versions"] and set(e["versions"]) <= set(VERSIONS), where
        assert e["page"].endswith(".mdx") and e["section"], where
        kws = names(e["keyword"])
        assert kws == ["none"] or set(kws) <= KEYWORDS, where
        assert e["binds"] in ("server", "client", "both", "host"), where
        assert isinstance(e.get("says"), str) and len(e["says"]) > 10, where
        given = [k for k in HOW if e.get(k)]
        assert len(given) == 1, f"{where}: needs exactly one of {HOW}, has {given}"
        if e.get("out_of_scope"):
            assert isinstance(e["out_of_scope"], str) and len(e["out_of_scope"]) > 10, where


def test_every_named_check_is_registered_and_every_function_exists():
    for e in entries():
        for name in names(e.get("check") or []):
            assert name in REGISTRY, f"{e['id']}: no registered check {name!r}"
        for kind in ("runner", "verdict"):
            if e.get(kind):
                assert callable(resolve(e[kind])) or isinstance(resolve(e[kind]), type), e["id"]


def test_the_paraphrases_are_not_the_spec_words():
    """The index holds the place and a paraphrase; no entry says the sentence in the spec's
    keyword-bearing voice (the keywords stay in the keyword field)."""
    for e in entries():
        assert not re.search(r"\b(MUST|SHOULD|REQUIRED)\b", e["says"]), e["id"]


def test_the_run_time_reading_of_the_index_agrees_with_yaml_and_the_file_ships():
    from mcp_accept.checks.places import held as run_time

    assert run_time() == held()
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "checks/coverage.yaml" in data["tool"]["setuptools"]["package-data"]["mcp_accept"]


# -- sources the code cites ---------------------------------------------------------------------

def _cited_in_code() -> set[tuple[str, str, str | None, str]]:
    """(page, section, version or None, where) for every spec place written in the package:
    ("page.mdx", "section") tuples, spec*(…, "page.mdx", "section") calls and full
    docs/specification/<version>/… strings."""
    found = set()
    for path in sorted((ROOT / "mcp_accept").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            strings = None
            if isinstance(node, ast.Tuple) and len(node.elts) == 2:
                strings = node.elts
            elif isinstance(node, ast.Call) and len(node.args) >= 2:
                strings = node.args[-2:] if isinstance(node.args[-1], ast.Constant) else None
                if isinstance(node.args[0], ast.Constant) and len(node.args) >= 2:
                    strings = node.args[:2]
            if strings and all(isinstance(s, ast.Constant) and isinstance(s.value, str) for s in strings):
                page, section = strings[0].value, strings[1].value
                if page.endswith(".mdx") and re.fullmatch(r"[\w%-]+", section):
                    found.add((page, section, None, f"{where}:{node.lineno}"))
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for version, page, section in SPEC.findall(node.value):
                    found.add((page, section, version, f"{where}:{node.lineno}"))
    return found


def _known(page: str, section: str, version: str | None, places: set) -> bool:
    pages = {page, page.replace("basic/utilities/", "basic/patterns/")}
    if version:
        return any((version, p, section) in places for p in pages)
    return any((v, p, section) in places for v in VERSIONS for p in pages)


def test_every_source_a_check_registers_is_in_the_index():
    places = held()
    for name, found in REGISTRY.items():
        if found.source:
            assert _known(*found.source, None, places), f"check {name} cites {found.source}, not in the index"


def test_every_spec_place_written_in_the_code_is_in_the_index():
    places = held()
    cited = _cited_in_code()
    assert len(cited) > 20  # the scan finds the citations (tuples, calls, full paths)
    missing = sorted(f"{where}: {page}#{section}" + (f" ({version})" if version else "")
                     for page, section, version, where in cited if not _known(page, section, version, places))
    assert not missing, "cited but not in the index:\n" + "\n".join(missing)


def _fail_sources(results: dict, statuses=("FAIL",)) -> list[tuple[str, str, str, str]]:
    out = []
    for row in results["rows"]:
        for c in row.get("checks") or ():
            if c["status"] in statuses and c.get("source"):
                for version, page, section in SPEC.findall(c["source"]):
                    out.append((row["id"], c["check"], version, f"{page}#{section}"))
    return out


def _assert_in_index(sources, version: str):
    places = held()
    assert sources, "the run failed nothing: the case tests nothing"
    for row, check, cited_version, place in sources:
        assert cited_version == version, (row, check, place)
        page, section = place.split("#")
        assert (version, page, section) in places, f"{row} {check} cites {version} {place}, not in the index"


BREAKS = ("junk", "nan", "duplicate-key", "bad-uri", "bad-blob", "unknown-uri-empty", "twin-differs",
          "unknown-method-result", "bad-cursor-accepted", "dialect-unknown", "stray-progress", "stray-log",
          "stray-request", "stray-cancel", "undeclared-tools", "bad-image-data", "bad-meta-key",
          "reserved-error-code")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_fail_of_a_broken_fixture_cites_a_place_the_index_holds_in_its_version(tmp_path, transport, held_port):
    breaks = BREAKS if transport == "stdio" else tuple(b for b in BREAKS if b != "junk")
    args = [a for b in breaks for a in ("--break", b)]
    if transport == "stdio":
        where = ["--server", fixture_command(*args)]
    else:
        port = held_port()
        where = ["--url", f"http://127.0.0.1:{port}/mcp", "--server", fixture_command("--http", str(port), *args)]
    folder = tmp_path / "all"
    proc = run_cli("run", *where, "--out", str(folder), *FAST, "--protocol", "all", "-q", timeout=300)
    assert proc.returncode == 1, proc.stderr
    for version in VERSIONS:
        results = load_results(folder / version)
        sources = _fail_sources(results)
        _assert_in_index(sources, version)
        # a PASS or UNOBTAINABLE names a real place too (a legacy verdict on server/discover
        # cites 2026-07-28, where the rule is written)
        places = held()
        for row, check, cited_version, place in _fail_sources(results, ("PASS", "UNOBTAINABLE")):
            assert (cited_version, *place.split("#")) in places, (version, row, check, cited_version, place)
        # the rules across the session cite their own pages in every version
        failed = {check for _row, check, _v, _place in sources}
        assert {"progress_tokens_known", "log_messages_allowed", "cancellations_in_flight",
                "features_declared", "meta_keys_valid"} <= failed, failed
        if transport == "stdio":
            # junk on stdout breaks the stdio transport's MUST NOT, not only JSON-RPC's MUST
            stdio = ("basic/transports/stdio.mdx#stdio" if version == "2026-07-28"
                     else "basic/transports.mdx#stdio")
            assert ("W01", "no_protocol_violations", version, stdio) in sources, sources


# -- item: each FAIL cites the sentence it rests on ----------------------------------------------

@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
def test_an_http_answer_of_the_wrong_type_cites_the_streamable_http_section(tmp_path, version, held_port):
    port = held_port()
    command = shlex.join([sys.executable, str(BROKEN_HTTP), "--http", str(port), "--defect", "search_text=html"])
    folder = tmp_path / "run"
    proc = run_cli("run", "--url", f"http://127.0.0.1:{port}/mcp", "--server", command, "--out", str(folder),
                   *FAST, "--protocol", version, "-q")
    assert proc.returncode == 1, proc.stderr
    sources = _fail_sources(load_results(folder))
    _assert_in_index(sources, version)
    place = ("basic/transports/streamable-http.mdx#sending-messages" if version == "2026-07-28"
             else "basic/transports.mdx#sending-messages-to-the-server")
    assert ("W01", "no_protocol_violations", version, place) in sources, sources


def test_the_summary_counts_each_failed_check_under_its_own_rule(tmp_path):
    """L01 with a link whose URI is not RFC 3986 (must) and that carries a body (the sheet's
    rule): the row's failed_rule is must, yet the app failure is counted too, in results.json,
    on the summary line and in the report's verdict."""
    folder = tmp_path / "run"
    command = shlex.join([sys.executable, str(WIRE_SERVER), "--defect", "bad-link-uri", "--defect", "link-body"])
    proc = run_cli("run", "--server", command, "--out", str(folder), *FAST)
    assert proc.returncode == 1, proc.stderr
    results = load_results(folder)
    l01 = next(r for r in results["rows"] if r["id"] == "L01")
    assert l01["failed_rule"] == MUST
    rules = {c["rule"] for c in l01["checks"] if c["status"] == "FAIL" and c["layer"] != "sdk"}
    assert {MUST, "app"} <= rules
    counts = results["failures_by_rule"]
    assert counts == failures_by_rule(results["rows"])
    assert counts["app"] >= 1 and counts["must"] >= 1
    line = summary_line(results, folder)
    assert f"{counts['must']} break a MUST" in line and f"{counts['app']} the sheet's advice" in line
    assert line.split("Evidence:")[0] in proc.stdout.replace("\n", " ") or "Failed checks" in proc.stdout
    # `report` counts them the same way (one function for both)
    report = run_cli("report", str(folder)).stdout
    verdict = next(line for line in report.splitlines() if line.startswith("**Verdict:**"))
    assert (f"must {counts['must']}, profile (yours) {counts['profile']}, should {counts['should']}, "
            f"app (the sheet's advice) {counts['app']}" in verdict), verdict


# -- what people read agrees with each check's rule ----------------------------------------------

def test_the_sheet_prose_calls_a_rule_the_specs_only_where_a_check_of_the_row_enforces_one():
    sheet = yaml.safe_load((ROOT / "sheets" / "default.yaml").read_text(encoding="utf-8"))
    for row in sheet["rows"]:
        registered = {REGISTRY[c["check"]].rule for c in row.get("checks") or () if c["check"] in REGISTRY
                      and REGISTRY[c["check"]].layer != "sdk"}
        text = row.get("establishes") or {}
        en, ja = text.get("en", ""), text.get("ja", "")
        # "the spec's rule" says nothing of which rule; an app check must never be called the spec's
        assert "(the spec's rule)" not in en and "（仕様の規則）" not in ja, row["id"]
        for rule, en_mark, ja_mark in ((MUST, "(the spec's MUST)", "（仕様のMUST）"),
                                       (SHOULD, "(the spec's SHOULD)", "（仕様のSHOULD）")):
            if en_mark in en or ja_mark in ja:
                assert rule in registered, f"{row['id']} calls a rule the spec's {rule}, but its checks register {registered}"


# -- the generated page -------------------------------------------------------------------------

def test_docs_rules_is_generated_from_the_index_and_not_stale():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "rules_doc.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for name in REGISTRY:
        assert f"| `{name}` |" in text, name
