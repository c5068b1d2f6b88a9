"""Following the protocol as a client must: input_required round trips, discovery, paging.

Real servers only: ``tests/servers/mrtr_sdk_server.py`` (the official SDK, whose tool asks
for a second round with a sealed ``requestState``) and ``tests/servers/variant_server.py``
(the fixture with one protocol variant per ``--mode``), over stdio and Streamable HTTP.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from conftest import SERVERS, fixture_command, load_results, run_cli, start_http_server, stop_http_server

MODERN = "2026-07-28"


def variant(*modes: str, protocol: str | None = None) -> str:
    argv = [sys.executable, str(SERVERS / "variant_server.py")]
    for mode in modes:
        argv += ["--mode", mode]
    if protocol:
        argv += ["--protocol", protocol]
    return shlex.join(argv)


def run_here(folder: Path, **options):
    from mcp_accept.running.execute import RunOptions, run

    return run(RunOptions(out=folder, offline=True, timeout=10, **options))


def rows(results: dict) -> dict[str, dict]:
    return {row["id"]: row for row in results["rows"]}


def wire(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines()]


def calls_of(entries: list[dict], step: str) -> list[dict]:
    """The messages of one step, in order, as (dir, message)."""
    return [e for e in entries if e.get("step") == step and "message" in e]


def test_sdk_server_round_trip_is_followed_with_the_exact_state(tmp_path):
    folder = tmp_path / "run"
    outcome = run_here(folder, server=shlex.join([sys.executable, str(SERVERS / "mrtr_sdk_server.py")]))
    by_id = rows(outcome.results)
    assert outcome.results["conditions"]["protocol_version_on_wire"] == MODERN
    assert by_id["T01"]["status"] == "PASS", by_id["T01"]["reason"]
    step = outcome.recording.steps["call:text"]
    assert step.rounds == 2 and step.incomplete is None
    messages = calls_of(wire(folder), "call:text")
    assert [e["dir"] for e in messages] == ["out", "in", "out", "in"]
    first, asked, retry, final = (e["message"] for e in messages)
    assert asked["result"]["resultType"] == "input_required"
    assert retry["id"] != first["id"]  # a retry is a new request
    assert retry["params"]["requestState"] == asked["result"]["requestState"]  # echoed exactly
    assert "inputResponses" not in retry["params"]  # nothing was asked, nothing is answered
    assert retry["params"]["arguments"] == first["params"]["arguments"]
    assert final["result"]["resultType"] == "complete"
    # every round is the step's evidence; the row judges the final result
    assert step.seqs == [e["seq"] for e in messages]
    assert step.reply.message == final


def test_a_server_that_never_completes_is_bounded_by_max_rounds(tmp_path):
    folder = tmp_path / "run"
    done = run_cli("run", "--server", variant("mrtr-never"), "--out", str(folder), "--max-rounds", "3",
                   "--timeout", "10")
    assert done.returncode in (0, 1), done.stderr
    t01 = rows(load_results(folder))["T01"]
    assert t01["status"] == "UNOBTAINABLE"
    assert 'still answered resultType "input_required" after 3 rounds (--max-rounds 3)' in t01["reason"]
    sent = [e["message"] for e in calls_of(wire(folder), "call:text") if e["dir"] == "out"]
    got = [e["message"] for e in calls_of(wire(folder), "call:text") if e["dir"] == "in"]
    assert len(sent) == 3 and len({m["id"] for m in sent}) == 3
    assert "requestState" not in sent[0]["params"]
    for earlier, later in zip(got, sent[1:]):
        assert later["params"]["requestState"] == earlier["result"]["requestState"]


def test_input_requests_for_an_undeclared_capability_fail_a_must_without_retry(tmp_path):
    folder = tmp_path / "run"
    outcome = run_here(folder, server=variant("mrtr-ask"))
    t01 = rows(outcome.results)["T01"]
    assert t01["status"] == "FAIL" and t01["failed_rule"] == "must"
    assert "elicitation/create" in t01["reason"] and "declares no client capabilities" in t01["reason"]
    checks = json.loads((folder / "rows" / "T01.json").read_text())["checks"]
    assert any("mrtr.mdx#server-requirements-basic-workflow" in (c.get("source") or "") for c in checks)
    sent = [e for e in calls_of(wire(folder), "call:text") if e["dir"] == "out"]
    assert len(sent) == 1  # the client cannot construct the inputs, so it must not retry


def test_input_required_with_neither_field_fails_the_must_of_mrtr(tmp_path):
    # mrtr.mdx, Server Requirements: inputRequests, requestState or both MUST be present
    folder = tmp_path / "run"
    outcome = run_here(folder, server=variant("mrtr-bare"))
    w02 = rows(outcome.results)["W02"]
    assert w02["status"] == "FAIL" and w02["failed_rule"] == "must", w02
    assert "neither inputRequests nor requestState" in w02["reason"]
    checks = json.loads((folder / "rows" / "W02.json").read_text())["checks"]
    assert any((c.get("source") or "").endswith("mrtr.mdx#server-requirements-basic-workflow")
               for c in checks if c["status"] == "FAIL")
    assert rows(outcome.results)["W01"]["status"] == "PASS"  # the schema itself requires resultType only


def test_a_modern_server_without_discover_fails_the_must(tmp_path):
    for protocol in ("auto", MODERN):
        folder = tmp_path / protocol
        outcome = run_here(folder, server=variant("no-discover", protocol=MODERN), protocol=protocol)
        assert outcome.results["conditions"]["protocol_version_on_wire"] == MODERN, protocol
        w02 = rows(outcome.results)["W02"]
        assert w02["status"] == "FAIL" and w02["failed_rule"] == "must", (protocol, w02)
        assert "servers MUST implement server/discover" in w02["reason"]
        assert rows(outcome.results)["T01"]["status"] == "PASS"  # the rest is judged as usual
        discover = [e["message"] for e in wire(folder) if e.get("dir") == "out" and "message" in e]
        assert discover[0]["method"] == "server/discover"  # sent first, in either mode


def test_discover_passes_on_the_fixture_and_is_unobtainable_in_legacy(tmp_path):
    modern = rows(run_here(tmp_path / "m").results)["W02"]
    assert modern["status"] == "PASS" and "server/discover lists 2026-07-28" in modern["reason"]
    legacy = rows(run_here(tmp_path / "l", protocol="2025-11-25").results)["W02"]
    assert legacy["status"] == "UNOBTAINABLE"


def test_resources_list_is_followed_to_the_page_holding_the_link(tmp_path):
    folder = tmp_path / "run"
    outcome = run_here(folder, server=variant("paged-resources"))
    assert "search://results/demo-v1" in outcome.recording.listed_uris
    l02 = rows(outcome.results)["L02"]
    assert l02["status"] == "PASS" and "it is listed in resources/list" in l02["reason"]
    pages = [e["message"] for e in wire(folder) if e.get("dir") == "out" and "message" in e
             and e["message"].get("method") == "resources/list"]
    # the second page's cursor is an empty string: a cursor all the same (pagination.mdx)
    assert [p["params"].get("cursor") for p in pages] == [None, ""]
    assert set(outcome.recording.steps) >= {"resources/list", "resources/list#2"}


def test_round_trips_over_streamable_http(tmp_path):
    proc, url = start_http_server(str(SERVERS / "variant_server.py"), "--mode", "mrtr-once", "--http", "0")
    try:
        folder = tmp_path / "run"
        outcome = run_here(folder, url=url, protocol=MODERN)
    finally:
        stop_http_server(proc)
    assert rows(outcome.results)["T01"]["status"] == "PASS", rows(outcome.results)["T01"]["reason"]
    assert outcome.recording.steps["call:text"].rounds == 2
    sent = [e for e in calls_of(wire(folder), "call:text") if e["dir"] == "out"]
    assert sent[1]["message"]["params"]["requestState"] == "opaque state: echo me exactly"
    headers = {k.lower(): v for k, v in sent[1]["http"]["headers"]}
    assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "search_text"


def test_max_rounds_must_be_positive(tmp_path):
    done = run_cli("run", "--max-rounds", "0", "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "--max-rounds" in done.stderr and "Traceback" not in done.stderr


def test_forcing_2026_07_28_on_a_legacy_only_server_judges_nothing_by_it(tmp_path):
    # The server answers server/discover with -32601 and a 2026-07-28 tools/list with a legacy
    # result (no resultType): it never claimed 2026-07-28, so no row is judged by its rules.
    folder = tmp_path / "run"
    outcome = run_here(folder, server=fixture_command("--protocol", "2025-11-25"), protocol=MODERN)
    assert int(outcome.status) == 3
    got = {r["id"]: r["status"] for r in outcome.results["rows"] if not r["id"].startswith("H")}
    assert set(got.values()) == {"UNOBTAINABLE"}, got
    assert "server/discover" in outcome.results["cause"]
    sent = [e["message"]["method"] for e in wire(folder) if e["dir"] == "out"]
    assert sent == ["server/discover", "tools/list"]  # one modern request to tell, nothing more
