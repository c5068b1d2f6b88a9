"""``mcp-accept verify``: every condition of the issue is listed, holds, and can fail."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import fixture_command, load_results, run_cli
from mcp_accept import fixture as fx
from mcp_accept import verify as vf
from mcp_accept.checks import FAIL, PASS
from mcp_accept.checks.sdk import SdkInfo
from mcp_accept.errors import ExitStatus
from mcp_accept.execute import RunOptions, run
from mcp_accept.schemas import SchemaStore

# What the issue asks verify to show, by condition id; each must be there for both eras.
REQUIRED = ("same-document", "reading-links", "total-string", "total-999", "twin-differs",
            "content-missing", "content-empty", "structured-null", "structured-false", "structured-zero",
            "structured-empty-string", "structured-empty-array", "external-ref", "requests",
            "sdk-total-string", "sdk-total-999", "sdk-twin-differs", "sdk-structured-missing")


def conditions(folder: Path) -> list[dict]:
    return json.loads((folder / "verify.json").read_text(encoding="utf-8"))["conditions"]


def by_id(folder: Path) -> dict[tuple[str, str], dict]:
    return {(c["id"], c["era"]): c for c in conditions(folder)}


def test_verify_exits_0_and_every_condition_holds(verify_run):
    done, folder = verify_run
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    found = conditions(folder)
    assert found and all(c["status"] == PASS for c in found), [c for c in found if c["status"] != PASS]
    ids = {(c["id"], c["era"]) for c in found}
    for era in vf.ERAS:
        for cid in REQUIRED:
            assert (cid, era) in ids, (cid, era)
    # the console lists every condition, with a verdict
    for c in found:
        assert c["id"] in done.stdout
    assert f"{len(found)} conditions: {len(found)} hold, 0 do not" in done.stdout


def test_every_break_mode_is_run_in_both_eras_and_has_a_condition(verify_run):
    _, folder = verify_run
    report = json.loads((folder / "verify.json").read_text(encoding="utf-8"))
    ran = {(r["mode"], r["era"]) for r in report["runs"]}
    assert ran == {(m, e) for m in [vf.BASELINE, *fx.BREAK_MODES] for e in vf.ERAS}
    named = {c["id"] for c in report["conditions"]}
    assert set(fx.BREAK_MODES) <= named
    for entry in report["runs"]:
        assert (folder / entry["folder"] / "results.json").is_file()
        assert entry["exit_status"] == (0 if entry["mode"] == vf.BASELINE else 1), entry


def test_markdown_and_json_say_the_same(verify_run):
    _, folder = verify_run
    text = (folder / "verify.md").read_text(encoding="utf-8")
    header = "| Condition | Era | Sent | Rows | wire | type | meaning | sdk | Expected | Observed | Verdict |"
    assert header in text
    for c in conditions(folder):
        line = next(l for l in text.splitlines() if l.startswith(f"| {c['id']}: ") and f"| {c['era']} |" in l)
        assert f"**{c['status']}**" in line
        if c["evidence"]:
            assert (folder / c["evidence"]).is_file(), c["evidence"]


def test_conditions_show_each_layer(verify_run):
    _, folder = verify_run
    got = by_id(folder)
    for era in vf.ERAS:
        assert got[("total-string", era)]["layers"]["wire"] == PASS
        assert got[("total-string", era)]["layers"]["type"] == FAIL
        assert got[("total-999", era)]["layers"]["meaning"] == FAIL
        assert "fixture.py --break total-999" == got[("total-999", era)]["sent"]
    assert got[("structured-null", "2026-07-28")]["layers"]["wire"] == PASS
    assert got[("structured-null", "2025-11-25")]["layers"]["wire"] == FAIL
    assert "0, call:structured 0, call:embedded 0" in got[("same-document", "2026-07-28")]["observed"]


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
    return {(c.id, c.era): c for c in found}


def test_rejudging_untouched_runs_holds(verify_run):
    _, folder = verify_run
    assert all(c.status == PASS for c in rejudge(folder, lambda views: None).values())


def set_layer(views, mode, row_id, layer, status):
    for era in vf.ERAS:
        for row in views[(mode, era)].results["rows"]:
            if row["id"] == row_id:
                row["layers"][layer] = status


def test_a_meaning_check_that_never_fails_is_caught(verify_run):
    _, folder = verify_run
    got = rejudge(folder, lambda v: set_layer(v, "twin-differs", "S02", "meaning", PASS))
    assert got[("twin-differs", "2026-07-28")].status == FAIL
    assert got[("twin-differs", "2025-11-25")].status == FAIL
    assert got[("total-999", "2026-07-28")].status == PASS  # the others are untouched


def test_a_type_fail_on_a_twin_defect_is_caught(verify_run):
    _, folder = verify_run
    got = rejudge(folder, lambda v: set_layer(v, "twin-differs", "S01", "type", FAIL))
    assert got[("twin-differs", "2026-07-28")].status == FAIL


def test_an_extra_read_breaks_same_document(verify_run):
    _, folder = verify_run

    def extra_read(views):
        view = views[(vf.BASELINE, "2026-07-28")]
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
        view = views[("total-999", "2025-11-25")]
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
    assert {c.era for c in found if c.id == "external-ref" and c.status == FAIL} == set(vf.ERAS)
    found = vf.build_conditions(views, info_of(folder), SchemaStore(None, allow_fetch=False), fetched=0,
                                canary_alive=False)
    assert all(c.status == FAIL for c in found if c.id == "external-ref")


# -- no network access for an external $ref: a listener on the address sees nothing -------------

@pytest.mark.parametrize("era", vf.ERAS)
def test_external_ref_is_refused_without_connecting(tmp_path, era):
    listener = vf.Canary()
    try:
        url = f"http://127.0.0.1:{listener.port}/x.json"
        outcome = run(RunOptions(server=fixture_command("--break", "external-ref", "--ref-url", url),
                                 protocol=era, out=tmp_path / "run", timeout=5))
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
