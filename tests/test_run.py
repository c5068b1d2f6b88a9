"""`mcp-accept run` over stdio against the fixture: verdicts, versions, evidence, exit codes."""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from conftest import FIXTURE, SCHEMA_DIR, fixture_command, load_results, run_cli, statuses
from mcp_accept.errors import InputError
from mcp_accept.running.execute import RunOptions, run
from mcp_accept.inputs.results import validate_results
from mcp_accept.inputs.sheet import load_sheet

AUTOMATED = ["W01", "W02", "W03", "T01", "S01", "S02", "S03", "E01", "L01", "L02", "L03", "X01"]
MANUAL = ["H01", "H02", "H03"]
FALSY = ["structured-null", "structured-false", "structured-zero", "structured-empty-string",
         "structured-empty-array"]

# Which rows each break mode turns to FAIL, in the 2026-07-28 era. Each set follows from
# what the defect breaks (DESIGN §1-2) and is documented in the README's break-mode table.
EXPECTED_FAILS = {
    "total-string": {"S01", "S03", "X01"},  # type; the assertion compares "2" with 2; forms differ
    "total-999": {"S03", "X01"},  # only meaning can see it
    "twin-differs": {"S02"},  # meaning alone
    "content-missing": {"W01", "S02"},  # wire; and no twin is left to compare
    "content-empty": {"S02"},  # valid on the wire, but the twin is gone
    # absent: S01 fails; S02 and X01 have nothing to compare (UNOBTAINABLE)
    "structured-missing": {"S01", "S03"},
    **{mode: {"S03", "X01"} for mode in FALSY},  # present and valid; not the search document
    "external-ref": {"S01"},  # refused without a fetch
    "unknown-uri-empty": {"L03"},
    "size-wrong": {"L01"},
    "embedded-differs": {"E01", "X01"},
    # everything from the crash on, the W03 probes included; X01 lacks forms (UNOBTAINABLE)
    "crash": {"W03", "E01", "L01", "L02", "L03"},
    "hang": {"E01"},  # the one call that never answers; X01 lacks that form
    "junk": {"W01"},  # a non-JSON line on stdout is a protocol violation
}
# Modes whose rows fail only a SHOULD or the sheet's advice: shown FAIL, but by default
# (--fail-on profile) the run does not fail on them.
SHOWN_ONLY = {"content-empty", "external-ref", "size-wrong", "twin-differs"}
# In the legacy era the wire schema adds what it forbids: non-object structuredContent and an
# outputSchema that is not an object schema.
LEGACY_EXTRA = {**{mode: {"W01"} for mode in FALSY}, "external-ref": {"W01"}}


def run_fixture(tmp_path: Path, *fixture_args: str, protocol: str = "auto", timeout: float = 5.0,
                **kwargs) -> dict:
    opts = RunOptions(server=fixture_command(*fixture_args), protocol=protocol, timeout=timeout,
                      out=tmp_path / "run", **kwargs)
    outcome = run(opts)
    results = load_results(outcome.folder)
    results["_exit"] = int(outcome.status)
    return results


def failing(results: dict) -> set[str]:
    return {rid for rid, status in statuses(results).items() if status == "FAIL"}


def test_default_run_from_another_folder_passes_every_automated_row(tmp_path):
    proc = run_cli("run", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    results = load_results(tmp_path / "out")
    got = statuses(results)
    sheet = load_sheet()  # the rows below, and any row added beside them
    assert [r["id"] for r in results["rows"]] == sheet.ids()
    assert set(AUTOMATED + MANUAL) <= set(sheet.ids())
    assert all(got[r.id] == ("PASS" if r.automated else "PENDING") for r in sheet.rows), got
    assert results["conditions"]["protocol_version_on_wire"] == "2026-07-28"
    assert results["conditions"]["transport"] == "stdio"
    assert results["conditions"]["server_name"] == "mcp-accept-fixture"
    # console: a table of rows and a one-line summary
    assert "W01" in proc.stdout and "X01" in proc.stdout
    automated = sum(r.automated for r in sheet.rows)
    assert f"{automated} PASS, 0 FAIL, 0 UNOBTAINABLE, {len(sheet.rows) - automated} PENDING" in proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout


def test_default_out_folder_is_created_under_the_working_directory(tmp_path):
    proc = run_cli("run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    folders = list((tmp_path / "mcp-accept-runs").iterdir())
    assert len(folders) == 1 and (folders[0] / "results.json").is_file()


def test_run_folder_holds_complete_evidence(tmp_path):
    results = run_fixture(tmp_path)
    folder = tmp_path / "run"
    validate_results(folder / "results.json")  # the contract validates against its own schema
    for row in results["rows"]:
        if row["status"] == "PENDING":
            assert row["evidence"] is None
            continue
        evidence = json.loads((folder / row["evidence"]).read_text())
        assert evidence["id"] == row["id"] and evidence["status"] == row["status"]
        assert evidence["checks"], row["id"]
        assert {c["layer"] for c in evidence["checks"]} <= {"wire", "type", "meaning", "sdk"}
    lines = (folder / "wire.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))
    sent = [e for e in entries if e["dir"] == "out"]
    assert sent[0]["message"]["method"] == "server/discover"
    assert {e["message"].get("method") for e in sent} >= {"tools/list", "tools/call", "resources/read"}
    sheet = (folder / "sheet.md").read_text()
    assert "| S01 |" in sheet and "protocol_version_on_wire" in sheet
    # the schema pins used are named with their hashes
    pins = {s["version"]: s["sha256"] for s in results["schemas"]}
    digest = hashlib.sha256((SCHEMA_DIR / "2026-07-28" / "schema.json").read_bytes()).hexdigest()
    assert pins == {"2026-07-28": digest}


def test_copied_out_fixture_runs_by_its_file_name(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "fixture.py")
    proc = run_cli("run", "--server", f"{sys.executable} fixture.py", "--out", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = statuses(load_results(tmp_path / "out"))
    assert all(got[r] == "PASS" for r in AUTOMATED)


def test_fixture_path_command_prints_the_shipped_file():
    proc = run_cli("fixture", "--path")
    assert proc.returncode == 0
    assert Path(proc.stdout.strip()).read_bytes() == FIXTURE.read_bytes()


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
def test_legacy_versions_pass_with_w02_unobtainable(tmp_path, version):
    results = run_fixture(tmp_path, "--protocol", version)
    got = statuses(results)
    assert got["W02"] == "UNOBTAINABLE"
    assert "legacy" in next(r for r in results["rows"] if r["id"] == "W02")["reason"]
    assert all(got[r] == "PASS" for r in AUTOMATED if r != "W02"), got
    assert results["conditions"]["protocol_version_on_wire"] == version
    assert results["_exit"] == 0


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18"])
def test_forcing_a_legacy_version_from_the_runner(tmp_path, version):
    results = run_fixture(tmp_path, protocol=version)
    assert results["conditions"]["protocol_version_on_wire"] == version
    wire = [json.loads(line) for line in (tmp_path / "run" / "wire.jsonl").read_text().splitlines()]
    methods = [e["message"].get("method") for e in wire if e["dir"] == "out"]
    assert methods[0] == "initialize" and "server/discover" not in methods
    assert failing(results) == set()


def test_server_that_fixes_its_era_on_the_first_request_gets_a_fresh_process(tmp_path):
    results = run_fixture(tmp_path, "--protocol", "2025-11-25", "--sticky")
    wire = (tmp_path / "run" / "wire.jsonl").read_text().splitlines()
    spawns = [line for line in wire if '"event":"spawn"' in line]
    assert len(spawns) == 2
    assert results["conditions"]["protocol_version_on_wire"] == "2025-11-25"
    assert failing(results) == set()


@pytest.mark.parametrize("mode", sorted(EXPECTED_FAILS))
def test_break_mode_fails_exactly_its_rows(tmp_path, mode):
    results = run_fixture(tmp_path, "--break", mode, timeout=1.0)
    assert failing(results) == EXPECTED_FAILS[mode]
    assert results["_exit"] == (0 if mode in SHOWN_ONLY else 1)
    assert any(row["gates"] for row in results["rows"] if row["status"] == "FAIL") == (mode not in SHOWN_ONLY)
    for row in results["rows"]:
        if row["status"] == "FAIL":
            assert row["reason"] and (tmp_path / "run" / row["evidence"]).is_file()


@pytest.mark.parametrize("mode", sorted(EXPECTED_FAILS))
def test_break_mode_in_the_legacy_era(tmp_path, mode):
    results = run_fixture(tmp_path, "--break", mode, protocol="2025-11-25", timeout=1.0)
    assert failing(results) == EXPECTED_FAILS[mode] | LEGACY_EXTRA.get(mode, set())


def test_total_as_string_is_caught_by_type_not_wire(tmp_path):
    results = run_fixture(tmp_path, "--break", "total-string")
    s01 = json.loads((tmp_path / "run" / "rows" / "S01.json").read_text())
    by_check = {c["check"]: c for c in s01["checks"]}
    assert by_check["structured_valid"]["status"] == "FAIL"
    assert "total" in by_check["structured_valid"]["detail"]
    assert statuses(results)["W01"] == "PASS"
    assert next(r for r in results["rows"] if r["id"] == "S01")["layers"]["type"] == "FAIL"


def test_twin_mode_exact_and_off(tmp_path):
    exact = run_fixture(tmp_path / "a", sets=["S02.mode=exact"])
    assert statuses(exact)["S02"] == "PASS"  # the fixture's twin is the compact dump
    off = run_fixture(tmp_path / "b", sets=["S02.mode=off"])
    assert statuses(off)["S02"] == "UNOBTAINABLE"


def test_profile_without_a_tool_makes_its_rows_unobtainable(tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text(
        "profile: partial\n"
        "tools:\n"
        "  structured: {name: search_structured, arguments: {q: MCP}}\n"
        "reference: null\n"
        "assertions:\n  - {name: sum, expr: 'total == length(hits)'}\n")
    results = run_fixture(tmp_path, profile=profile)
    got = statuses(results)
    assert got["T01"] == got["E01"] == got["L01"] == got["L02"] == "UNOBTAINABLE"
    assert got["S01"] == got["S02"] == got["S03"] == "PASS"
    assert got["X01"] == "UNOBTAINABLE"  # one form alone cannot be compared
    assert not failing(results)


def test_without_official_schemas_wire_rows_are_unobtainable_and_the_rest_still_run(tmp_path):
    empty = tmp_path / "no-schemas"
    empty.mkdir()
    results = run_fixture(tmp_path, schema_dir=empty)
    got = statuses(results)
    assert got["W01"] == "UNOBTAINABLE"
    assert "schema" in next(r for r in results["rows"] if r["id"] == "W01")["reason"]
    assert got["S01"] == got["X01"] == got["L03"] == "PASS"
    assert results["schemas"] == []


def test_a_schema_whose_hash_differs_from_its_pin_is_refused(tmp_path):
    bad = tmp_path / "tampered"
    for version in ("2026-07-28", "2025-11-25", "2025-06-18"):
        (bad / version).mkdir(parents=True)
        data = (SCHEMA_DIR / version / "schema.json").read_text()
        (bad / version / "schema.json").write_text(data.replace('"object"', '"object" ', 1))
    results = run_fixture(tmp_path, schema_dir=bad)
    w01 = next(r for r in results["rows"] if r["id"] == "W01")
    assert w01["status"] == "UNOBTAINABLE" and "does not match the pin" in w01["reason"]


def test_unstartable_server_exits_3_with_complete_results(tmp_path):
    proc = run_cli("run", "--server", "no-such-command-here --flag", "--out", str(tmp_path / "o"))
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr
    results = load_results(tmp_path / "o")
    assert {statuses(results)[r] for r in AUTOMATED} == {"UNOBTAINABLE"}


def test_server_that_never_answers_exits_3(tmp_path):
    proc = run_cli("run", "--server", f"{sys.executable} -c 'import time; time.sleep(60)'",
                   "--timeout", "0.5", "--out", str(tmp_path / "o"))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    results = load_results(tmp_path / "o")
    assert "no answer within 0.5s" in results["cause"]  # said once, for the run
    assert next(r for r in results["rows"] if r["id"] == "W01")["reason"].startswith("see run: ")


def test_hand_filled_rows_survive_a_later_run(tmp_path):
    run_fixture(tmp_path)
    path = tmp_path / "run" / "results.json"
    data = json.loads(path.read_text())
    h01 = next(r for r in data["rows"] if r["id"] == "H01")
    h01.update(status="PASS", reason="seen in the answer", evidence="answer.txt", filled_by="observe")
    data["summary"] = {status: sum(r["status"] == status for r in data["rows"])
                       for status in ("PASS", "FAIL", "UNOBTAINABLE", "PENDING")}
    path.write_text(json.dumps(data))
    again = run_fixture(tmp_path)
    assert statuses(again)["H01"] == "PASS"
    assert next(r for r in again["rows"] if r["id"] == "H01")["filled_by"] == "observe"


def test_credential_like_condition_is_refused_and_never_written(tmp_path):
    secret = "Bearer abcdefghijklmnop1234567890"
    proc = run_cli("run", "--set", f"auth_context={secret}", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2
    assert secret not in proc.stdout + proc.stderr
    assert "auth_context" in proc.stderr
    assert not (tmp_path / "o").exists() or not any(
        secret in p.read_text(errors="replace") for p in (tmp_path / "o").rglob("*") if p.is_file())


def test_bad_protocol_value_is_one_line_exit_2():
    proc = run_cli("run", "--protocol", "2024-01-01")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--protocol" in proc.stderr


def test_the_profile_twin_mode_applies_unless_a_row_option_overrides_it(tmp_path):
    profile = tmp_path / "p.yaml"
    base = (Path(__file__).parent.parent / "sheets" / "profile-fixture.yaml").read_text()
    profile.write_text(base.replace("twin: json-equal", "twin: off"))
    assert "twin: off" in profile.read_text()
    assert statuses(run_fixture(tmp_path / "a", profile=profile))["S02"] == "UNOBTAINABLE"
    overridden = run_fixture(tmp_path / "b", profile=profile, sets=["S02.mode=json-equal"])
    assert statuses(overridden)["S02"] == "PASS"


def test_a_lone_surrogate_from_a_server_is_kept_in_the_wire_log(tmp_path):
    from mcp_accept.evidence.wirelog import WireLog

    log = WireLog(tmp_path / "wire.jsonl")
    log.record("in", message={"jsonrpc": "2.0", "id": 1, "result": {"text": "a\ud800b"}})
    log.record("event", event="after")
    log.close()
    lines = (tmp_path / "wire.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and "\\ud800" in lines[0]


def test_the_wire_log_reader_passes_over_a_torn_line_and_reads_a_tail(tmp_path):
    from mcp_accept.evidence.wirelog import WireLog, read_entries

    path = tmp_path / "wire.jsonl"
    log = WireLog(path)
    log.record("out", message={"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "a\u2028b"}})
    log.record("in", message={"jsonrpc": "2.0", "id": 1, "result": {"text": "y" * 20000}})
    log.record("event", event="proxy-end", detail="pipe closed")
    log.close()
    with open(path, "ab") as handle:
        handle.write(b'{"seq": 4, "dir": "ev\xff')  # a line cut by a kill, not UTF-8 either
    assert [e["seq"] for e in read_entries(path)] == [1, 2, 3]
    assert read_entries(path).__next__()["message"]["params"]["x"] == "a\u2028b"
    assert [e["seq"] for e in read_entries(path, direction="in")] == [2]
    assert [e["event"] for e in read_entries(path, tail_bytes=8192)] == ["proxy-end"]
    assert [e["seq"] for e in read_entries(path, tail_bytes=path.stat().st_size)] == [1, 2, 3]


def test_a_given_profile_naming_tools_the_server_does_not_list_stops_the_run(tmp_path):
    """A profile written for another server: refused as bad input once tools/list is read,
    before any tool is called, naming the file, the line and the field; the folder is whole."""
    profile = tmp_path / "p.yaml"
    base = (Path(__file__).parent.parent / "sheets" / "profile-fixture.yaml").read_text()
    profile.write_text(base.replace("search_text", "find_text").replace("search_link", "find_link"))
    with pytest.raises(InputError) as raised:
        run_fixture(tmp_path, profile=profile)
    error = raised.value
    assert (error.file, error.field) == (str(profile), "tools.text.name")
    assert "find_text" in profile.read_text().splitlines()[error.line - 1]
    assert '"find_text"' in error.message and '"search_text"' in error.message and '"find_link"' in error.message
    results = load_results(tmp_path / "run")
    assert results["cause"] == error.one_line()
    assert all(s in ("UNOBTAINABLE", "PENDING") for s in statuses(results).values())


def test_the_built_in_profile_on_another_server_leaves_its_rows_unobtainable_with_a_hint(tmp_path):
    """No --profile: the fixture's tools are not this server's, the rows cannot be established
    (rather than FAIL), and the reason says to map them with --profile."""
    server = shlex.join([sys.executable, str(Path(__file__).parent / "servers" / "shapes_server.py")])
    outcome = run(RunOptions(server=server, timeout=5.0, out=tmp_path / "run"))
    results = load_results(outcome.folder)
    got = statuses(results)
    assert got["T01"] == got["S01"] == got["E01"] == got["L01"] == "UNOBTAINABLE"
    t01 = next(r for r in results["rows"] if r["id"] == "T01")
    assert "lists no tool 'search_text'" in t01["reason"] and "--profile" in t01["reason"]
    assert "-32602" in t01["reason"] or "JSON-RPC error" in t01["reason"]  # how the server refused is kept
    assert outcome.status == 0


def test_a_listed_tool_whose_call_fails_is_a_fail(tmp_path):
    results = run_fixture(tmp_path, "--break", "crash", timeout=1.0)
    assert statuses(results)["E01"] == "FAIL"
    assert "lists no tool" not in next(r for r in results["rows"] if r["id"] == "E01")["reason"]
