"""``mcp-accept verify``: every condition of the issue is listed, holds, and can fail."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import fixture_command, load_results, run_cli
from mcp_accept import fixture as fx
from mcp_accept import verify as vf
from mcp_accept.checks.base import FAIL, PASS, UNOBTAINABLE
from mcp_accept.checks.sdk import SdkInfo
from mcp_accept.errors import ExitStatus
from mcp_accept.protocol import LEGACY as LEGACY_VERSIONS, VERSIONS
from mcp_accept.running.execute import RunOptions, run
from mcp_accept.schemas import SchemaStore

MODERN, LEGACY, OLDEST = VERSIONS
STDIO, HTTP = vf.STDIO, vf.HTTP
# What the issue asks verify to show, by condition id; each must be there for every era.
REQUIRED = ("same-document", "reading-links", "total-string", "total-999", "twin-differs",
            "content-missing", "content-empty", "structured-null", "structured-false", "structured-zero",
            "structured-empty-string", "structured-empty-array", "external-ref", "requests",
            "sdk-total-string", "sdk-total-999", "sdk-twin-differs", "sdk-structured-missing",
            # the rule kinds
            "structured-missing", "preface-item", "no-output-schema", "is-error", "nan", "duplicate-key",
            "bad-uri", "bad-blob", "dialect-unknown", "ref-in-enum", "no-discover", "mrtr", "mrtr-endless",
            "paged-resources", "unknown-method-result", "bad-cursor-accepted", "legacy-32602",
            "structured-null-alone", "structured-false-alone", "structured-zero-alone",
            "structured-empty-string-alone", "structured-empty-array-alone",
            # rules across the session and the fields the schema leaves open (a mode for some
            # versions only is an "inert" condition under the same id in the others)
            "stray-progress", "stray-log", "log-declared", "stray-request", "stray-cancel",
            "undeclared-resources", "undeclared-tools", "unknown-uri-empty+undeclared-resources",
            "bad-image-data", "bad-meta-key", "reserved-error-code", "ttl-float", "text-prose", "empty-cursor")


def conditions(folder: Path) -> list[dict]:
    return json.loads((folder / "verify.json").read_text(encoding="utf-8"))["conditions"]


def by_id(folder: Path, transport: str = STDIO) -> dict[tuple[str, str], dict]:
    return {(c["id"], c["era"]): c for c in conditions(folder) if c["transport"] == transport}


def test_verify_exits_0_and_every_condition_holds(verify_run):
    done, folder = verify_run
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    found = conditions(folder)
    assert found and all(c["status"] == PASS for c in found), [c for c in found if c["status"] != PASS]
    ids = {(c["id"], c["era"]) for c in found if c["transport"] == STDIO}
    for era in VERSIONS:
        for cid in REQUIRED:
            assert (cid, era) in ids, (cid, era)
    over_http = {(c["id"], c["era"]) for c in found if c["transport"] == HTTP}
    for era in VERSIONS:
        assert {("passes-right", era), ("same-document", era), ("reading-links", era)} <= over_http
    for mode, eras in vf.HTTP_MODES.items():
        for era in eras:
            assert mode == vf.BASELINE or (mode, era) in over_http, (mode, era)
    # the console lists every condition, with a verdict
    for c in found:
        assert c["id"] in done.stdout
    assert f"{len(found)} conditions: {len(found)} hold, 0 do not" in done.stdout


def expected_exit(mode: str, era: str) -> int:
    if mode in vf.PASSING_MODES or era in vf.PASSES_IN.get(mode, ()):
        return 0
    if mode in vf.ERA_MODES and era not in vf.ERA_MODES[mode]:
        return 0  # the mode changes nothing in this version
    return 1


def test_every_break_mode_is_run_in_every_era_and_has_a_condition(verify_run):
    _, folder = verify_run
    report = json.loads((folder / "verify.json").read_text(encoding="utf-8"))
    ran = {(r["mode"], r["era"], r["transport"]) for r in report["runs"]}
    alone = {f"{m}+{vf.ALONE}" for m in vf.FALSY}
    assert {(m, e, t) for m, e, t in ran if t == STDIO} == \
        {(m, e, STDIO) for m in [vf.BASELINE, *fx.BREAK_MODES, *alone, *vf.COMBOS] for e in VERSIONS}
    assert {(m, e) for m, e, t in ran if t == HTTP} == {(m, e) for m, eras in vf.HTTP_MODES.items() for e in eras}
    named = {c["id"] for c in report["conditions"]}
    assert set(fx.BREAK_MODES) - {vf.ALONE} <= named
    assert all(f"--break {vf.ALONE}" in by_id(folder)[(f"{m}-alone", e)]["sent"] for m in vf.FALSY for e in VERSIONS)
    for entry in report["runs"]:
        assert (folder / entry["folder"] / "results.json").is_file()
        first = entry["mode"].split("+")[0]
        assert entry["exit_status"] == expected_exit(first, entry["era"]), entry


def test_markdown_and_json_say_the_same(verify_run):
    _, folder = verify_run
    text = (folder / "verify.md").read_text(encoding="utf-8")
    header = "| Condition | Era | Via | Sent | Rows | wire | type | meaning | sdk | Expected | Observed | Verdict |"
    assert header in text
    for c in conditions(folder):
        if c["era"] is None:
            continue
        line = next(l for l in text.splitlines() if l.startswith(f"| {c['id']}: ")
                    and f"| {c['era']} | {c['transport']} |" in l)
        assert f"**{c['status']}**" in line
        if c["evidence"]:
            assert (folder / c["evidence"]).is_file(), c["evidence"]


def test_conditions_show_each_layer(verify_run):
    _, folder = verify_run
    got = by_id(folder)
    for era in VERSIONS:
        assert got[("total-string", era)]["layers"]["wire"] == PASS
        assert got[("total-string", era)]["layers"]["type"] == FAIL
        assert got[("total-999", era)]["layers"]["meaning"] == FAIL
        assert "fixture.py --break total-999" == got[("total-999", era)]["sent"]
    assert got[("structured-null", "2026-07-28")]["layers"]["wire"] == PASS
    assert got[("structured-null", "2025-11-25")]["layers"]["wire"] == FAIL
    assert got[("structured-null", "2025-06-18")]["layers"]["wire"] == FAIL
    assert "0, call:structured 0, call:embedded 0" in got[("same-document", "2026-07-28")]["observed"]
    for era in VERSIONS:  # the presence of structuredContent is judged by the type layer, a MUST
        assert got[("structured-missing", era)]["layers"]["type"] == FAIL
        assert got[("structured-missing", era)]["layers"]["wire"] == PASS
        assert "S01 failed_rule must" in got[("structured-missing", era)]["observed"]


def test_rule_kinds_are_shown(verify_run):
    _, folder = verify_run
    got = by_id(folder)
    for era in VERSIONS:
        assert "S01 failed_rule app" in got[("no-output-schema", era)]["observed"]
        assert "--fail-on must would exit 0" in got[("no-output-schema", era)]["observed"]
        assert "the tool reported an error" in got[("is-error", era)]["observed"]
        assert "W01 failed_rule must" in got[("nan", era)]["observed"]
        assert "W01 failed_rule should" in got[("duplicate-key", era)]["observed"]
        assert "W03 failed_rule must" in got[("unknown-method-result", era)]["observed"]
        assert "W03 failed_rule should" in got[("bad-cursor-accepted", era)]["observed"]
    for era in LEGACY_VERSIONS:
        assert "L03 failed_rule should" in got[("legacy-32602", era)]["observed"]
        assert "L03 failed_rule should" in got[("unknown-uri-empty", era)]["observed"]
        # only the CallToolResult's structuredContent breaks the legacy wire
        alone = got[("structured-empty-array-alone", era)]
        assert alone["layers"]["wire"] == FAIL and "$.structuredContent" in alone["observed"]
        assert "W01 problems: 1" in alone["observed"]
    assert "L03 failed_rule must" in got[("unknown-uri-empty", MODERN)]["observed"]
    assert got[("structured-empty-array-alone", MODERN)]["layers"]["wire"] == PASS
    assert "S01 failed_rule app" in got[("dialect-unknown", OLDEST)]["observed"]
    assert "S01 failed_rule should" in got[("dialect-unknown", LEGACY)]["observed"]


# -- the conditions can fail: judged again over tampered runs -----------------------------------

def info_of(folder: Path) -> SdkInfo:
    """Whether the SDK was there when verify ran (as it said in verify.json)."""
    sdk = json.loads((folder / "verify.json").read_text(encoding="utf-8"))["sdk"]
    return SdkInfo(sdk["available"], sdk["version"], sdk["reason"])


def rejudge(folder: Path, tamper) -> dict[tuple[str, str], dict]:
    views = vf.load_views(folder)
    tamper(views)
    report = json.loads((folder / "verify.json").read_text(encoding="utf-8"))
    store = SchemaStore(None, allow_fetch=False)
    found = vf.build_conditions(views, info_of(folder), store, fetched=report["canary"]["connections"],
                                canary_alive=report["canary"]["probe_seen"])
    return {(c.id, c.era) if c.transport == STDIO else (c.id, c.era, c.transport): c for c in found}


def test_rejudging_untouched_runs_holds(verify_run):
    _, folder = verify_run
    assert all(c.status == PASS for c in rejudge(folder, lambda views: None).values())


def set_layer(views, mode, row_id, layer, status, eras=VERSIONS, transport=STDIO):
    for era in eras:
        for row in views[(mode, era, transport)].results["rows"]:
            if row["id"] == row_id:
                row["layers"][layer] = status


def set_row(views, mode, row_id, eras=VERSIONS, transport=STDIO, **fields):
    for era in eras:
        for row in views[(mode, era, transport)].results["rows"]:
            if row["id"] == row_id:
                row.update(fields)


def set_check(views, mode, row_id, check, eras=VERSIONS, **fields):
    """Change one check's verdict in the row evidence (rows/<ID>.json) of a run."""
    for era in eras:
        for verdict in views[(mode, era, STDIO)].evidence[row_id]["checks"]:
            if verdict["check"] == check:
                verdict.update(fields)


def test_a_meaning_check_that_never_fails_is_caught(verify_run):
    _, folder = verify_run
    got = rejudge(folder, lambda v: set_layer(v, "twin-differs", "S02", "meaning", PASS))
    assert got[("twin-differs", "2026-07-28")].status == FAIL
    assert got[("twin-differs", "2025-11-25")].status == FAIL
    assert got[("twin-differs", "2025-06-18")].status == FAIL
    assert got[("total-999", "2026-07-28")].status == PASS  # the others are untouched


def test_a_type_fail_on_a_twin_defect_is_caught(verify_run):
    _, folder = verify_run
    got = rejudge(folder, lambda v: set_layer(v, "twin-differs", "S01", "type", FAIL))
    assert got[("twin-differs", "2026-07-28")].status == FAIL


def test_an_extra_read_breaks_same_document(verify_run):
    _, folder = verify_run

    def extra_read(views):
        view = views[(vf.BASELINE, "2026-07-28", STDIO)]
        entry = next(e for e in view.wire if e.get("dir") == "out" and e.get("step") == "read:link")
        fake = copy.deepcopy(entry)
        fake["step"] = "call:embedded"
        view.wire.append(fake)

    got = rejudge(folder, extra_read)
    assert got[("same-document", "2026-07-28")].status == FAIL
    assert "call:embedded 1" in got[("same-document", "2026-07-28")].observed
    assert got[("same-document", "2025-11-25")].status == PASS


def test_an_invalid_request_breaks_the_requests_condition(verify_run):
    _, folder = verify_run

    def bad_request(views):
        view = views[("total-999", "2025-11-25", STDIO)]
        entry = next(e for e in view.wire if e.get("dir") == "out"
                     and (e.get("message") or {}).get("method") == "tools/call")
        entry["message"]["params"]["name"] = 42

    got = rejudge(folder, bad_request)
    assert got[("requests", "2025-11-25")].status == FAIL
    assert "total-999" in got[("requests", "2025-11-25")].observed
    assert got[("requests", "2026-07-28")].status == PASS


def test_a_connection_to_the_listener_breaks_external_ref(verify_run):
    _, folder = verify_run
    views = vf.load_views(folder)
    found = vf.build_conditions(views, info_of(folder), SchemaStore(None, allow_fetch=False), fetched=1,
                                canary_alive=True)
    assert {c.era for c in found if c.id == "external-ref" and c.status == FAIL} == set(VERSIONS)
    assert {c.era for c in found if c.id == "ref-in-enum" and c.status == FAIL} == set(VERSIONS)
    found = vf.build_conditions(views, info_of(folder), SchemaStore(None, allow_fetch=False), fetched=0,
                                canary_alive=False)
    assert all(c.status == FAIL for c in found if c.id in ("external-ref", "ref-in-enum"))


# -- the rule kinds: a check switched off, or enforcing the wrong rule, is caught -----------------

def test_a_wrong_rule_kind_is_caught(verify_run):
    _, folder = verify_run

    def wrong_rules(views):
        # S01 of a tool without outputSchema claimed as a MUST, in the row and in its check
        set_row(views, "no-output-schema", "S01", failed_rule="must")
        set_check(views, "duplicate-key", "W01", "no_protocol_violations", rule="must")
        set_row(views, "legacy-32602", "L03", eras=LEGACY_VERSIONS, failed_rule="must")
        set_row(views, "unknown-method-result", "W03", failed_rule="should")
        set_check(views, "dialect-unknown", "S01", "structured_valid", eras=(MODERN,), rule="must")

    got = rejudge(folder, wrong_rules)
    for era in VERSIONS:
        assert got[("no-output-schema", era)].status == FAIL
        assert "S01 failed_rule must" in got[("no-output-schema", era)].observed
        assert got[("duplicate-key", era)].status == FAIL
        assert got[("unknown-method-result", era)].status == FAIL
    for era in LEGACY_VERSIONS:
        assert got[("legacy-32602", era)].status == FAIL
    assert got[("dialect-unknown", MODERN)].status == FAIL
    assert got[("dialect-unknown", LEGACY)].status == PASS  # untouched
    assert got[("nan", MODERN)].status == PASS


def test_a_check_switched_off_is_caught(verify_run):
    _, folder = verify_run

    def switched_off(views):
        # the checks pass what they are for
        set_check(views, "nan", "W01", "no_protocol_violations", status=PASS)
        set_check(views, "bad-cursor-accepted", "W03", "invalid_cursor_error", status=PASS)
        set_check(views, "bad-uri", "L01", "link_item", status=PASS)
        set_check(views, "no-discover", "W02", "discover_implemented", eras=(MODERN,), status=UNOBTAINABLE)
        set_check(views, "no-output-schema", "S01", "output_schema_declared", status=PASS)
        set_layer(views, "structured-missing", "S01", "type", PASS)
        set_row(views, "is-error", "T01", reason="meaning [app]: the text differs")

    got = rejudge(folder, switched_off)
    for era in VERSIONS:
        for cid in ("nan", "bad-cursor-accepted", "bad-uri", "no-output-schema", "structured-missing", "is-error"):
            assert got[(cid, era)].status == FAIL, (cid, era)
    assert got[("no-discover", MODERN)].status == FAIL
    assert got[("bad-blob", MODERN)].status == PASS


def test_a_falsy_value_that_is_not_alone_is_caught(verify_run):
    """The legacy condition holds only when the CallToolResult's structuredContent is the one
    message W01 finds wrong: a second failing message (as the outputSchema of the plain falsy
    modes gives) breaks it."""
    _, folder = verify_run
    mode = f"structured-zero+{vf.ALONE}"

    def second_problem(views):
        for era in LEGACY_VERSIONS:
            for verdict in views[(mode, era, STDIO)].evidence["W01"]["checks"]:
                if verdict["check"] == "wire_messages_valid":
                    verdict["detail"] += "; #6 received ListToolsResult (x): $.tools[1].outputSchema: bad"

    got = rejudge(folder, second_problem)
    for era in LEGACY_VERSIONS:
        assert got[("structured-zero-alone", era)].status == FAIL
        assert "W01 problems: 2" in got[("structured-zero-alone", era)].observed
    assert got[("structured-zero-alone", MODERN)].status == PASS
    assert got[("structured-null-alone", LEGACY)].status == PASS


def test_round_trips_and_paging_are_checked_on_the_wire(verify_run):
    _, folder = verify_run

    def tamper(views):
        endless = views[("mrtr-endless", MODERN, STDIO)]
        last_out = max(i for i, e in enumerate(endless.wire) if e.get("step") == "call:structured"
                       and e.get("dir") == "out")
        del endless.wire[last_out]  # one round fewer than --max-rounds
        retry = [e for e in views[("mrtr", MODERN, STDIO)].wire if e.get("step") == "call:structured"
                 and e.get("dir") == "out"][-1]
        retry["message"]["params"].pop("requestState", None)  # the state was not echoed
        paged = views[("paged-resources", LEGACY, STDIO)]
        for verdict in paged.evidence["L02"]["checks"]:
            if verdict["check"] == "link_read_once":
                verdict["detail"] = verdict["detail"].replace("it is listed", "it is not listed")

    got = rejudge(folder, tamper)
    assert got[("mrtr-endless", MODERN)].status == FAIL
    assert f"{vf.MAX_ROUNDS - 1} requests" in got[("mrtr-endless", MODERN)].observed
    assert got[("mrtr", MODERN)].status == FAIL
    assert "echoed [None, None]" in got[("mrtr", MODERN)].observed
    assert got[("paged-resources", LEGACY)].status == FAIL
    assert got[("paged-resources", MODERN)].status == PASS


def test_an_http_run_is_judged_on_its_own(verify_run):
    _, folder = verify_run
    got = rejudge(folder, lambda v: set_row(v, vf.BASELINE, "T01", eras=(OLDEST,), transport=HTTP, status=FAIL))
    assert got[("passes-right", OLDEST, HTTP)].status == FAIL
    assert got[("passes-right", OLDEST)].status == PASS
    assert got[("passes-right", MODERN, HTTP)].status == PASS


def test_a_mode_without_a_condition_is_caught(verify_run, monkeypatch):
    _, folder = verify_run
    monkeypatch.setattr(vf.conditions, "break_modes", lambda: [*fx.BREAK_MODES, "a-new-defect"])
    got = rejudge(folder, lambda views: None)
    every = got[("every-mode", None)]
    assert every.status == FAIL and "a-new-defect" in every.observed


# -- no network access for an external $ref: a listener on the address sees nothing -------------

@pytest.mark.parametrize("era", VERSIONS)
def test_external_ref_is_refused_without_connecting(tmp_path, era):
    listener = vf.Canary()
    try:
        url = f"http://127.0.0.1:{listener.port}/x.json"
        outcome = run(RunOptions(server=fixture_command("--break", "external-ref", "--ref-url", url),
                                 protocol=era, out=tmp_path / "run", timeout=5, fail_on="app"))
        assert outcome.status == ExitStatus.FAILED
        seen_by_run = listener.count()
        counts_real_ones = listener.probe()  # the listener does count a real connection
    finally:
        listener.close()
    assert seen_by_run == 0
    assert counts_real_ones and listener.count() == 1
    rows = {r["id"]: r for r in load_results(tmp_path / "run")["rows"]}
    assert rows["S01"]["status"] == FAIL and rows["S01"]["layers"]["type"] == FAIL
    assert url in rows["S01"]["reason"] and "nothing was fetched" in rows["S01"]["reason"]


# -- bad input ------------------------------------------------------------------------------------

def test_out_that_is_a_file_is_bad_input(tmp_path):
    target = tmp_path / "taken"
    target.write_text("x")
    done = run_cli("verify", "--out", str(target))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--out" in done.stderr and "Traceback" not in done.stderr
    assert target.read_text() == "x"


def test_out_with_other_files_is_refused_untouched(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    done = run_cli("verify", "--out", str(tmp_path))
    assert done.returncode == 2 and "not empty" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


# -- rules across the session and open fields: a check that never fires is caught -------------------

def test_a_session_check_that_never_fails_is_caught(verify_run):
    _, folder = verify_run

    def silenced(views):
        set_check(views, "stray-progress", "W01", "progress_tokens_known", status=PASS)
        set_check(views, "log-declared", "W01", "log_messages_allowed", eras=LEGACY_VERSIONS, status=FAIL)
        set_check(views, "reserved-error-code", "W03", "invalid_cursor_error", eras=(MODERN,), rule="should")
        set_check(views, "text-prose", "X01", "forms_agree", status=UNOBTAINABLE)

    got = rejudge(folder, silenced)
    for era in VERSIONS:
        assert got[("stray-progress", era)].status == FAIL
        assert got[("text-prose", era)].status == FAIL
        assert got[("stray-cancel", era)].status == PASS  # untouched
    for era in LEGACY_VERSIONS:
        assert got[("log-declared", era)].status == FAIL
    assert got[("log-declared", MODERN)].status == PASS
    assert got[("reserved-error-code", MODERN)].status == FAIL
    assert got[("reserved-error-code", LEGACY)].status == PASS


def test_session_modes_run_over_http_in_their_versions(verify_run):
    _, folder = verify_run
    over_http = by_id(folder, HTTP)
    for mode in vf.SESSION_CONDITIONS:
        eras = vf.HTTP_MODES.get(mode, ())
        assert eras or "+" in mode, mode
        for era in eras:
            assert over_http[(mode, era)]["status"] == PASS, (mode, era)


def test_every_verdict_and_exit_status_is_the_one_kept(verify_run):
    # Each run's exit status, row statuses, broken rules and check outcomes, held equal to
    # tests/data/verdicts.json: a change of verdict must be made on purpose, by writing that file
    # again with scripts/verdicts.py (reason texts, times and paths are left out of it). A row the
    # file does not hold yet is a new verdict, not a changed one, and is let through.
    import importlib.util

    spec = importlib.util.spec_from_file_location("verdicts", Path(__file__).parent.parent / "scripts" / "verdicts.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    _done, folder = verify_run
    found = script.verdicts(folder)
    kept = json.loads(script.KEPT.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(kept)
    changed = [f"{run} {row}: {kept[run]['rows'].get(row)} -> {found[run]['rows'].get(row)}"
               for run in kept for row in sorted(kept[run]["rows"])
               if kept[run]["rows"].get(row) != found[run]["rows"].get(row)]
    changed += [f"{run}: exit {kept[run]['exit']} -> {found[run]['exit']}"
                for run in kept if kept[run]["exit"] != found[run]["exit"]]
    assert not changed, "\n".join(changed[:20])
