"""What makes a run fail: by default a MUST and the rules the user wrote in the profile; a
SHOULD and the sheet's advice are shown, and fail it only under --fail-on should|app; a
baseline of expected failures; a row switched off in the profile."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, fixture_command, load_results, run_cli

FIXTURE_PROFILE = ROOT / "sheets" / "profile-fixture.yaml"


def run(tmp_path: Path, mode: str, *args: str, out: str = "run"):
    done = run_cli("run", "--server", fixture_command("--break", mode), "--out", str(tmp_path / out), *args)
    return done, load_results(tmp_path / out) if (tmp_path / out / "results.json").exists() else None


def rows(results: dict) -> dict[str, dict]:
    return {row["id"]: row for row in results["rows"]}


def test_the_sheets_advice_is_shown_and_fails_the_run_only_when_asked(tmp_path):
    done, results = run(tmp_path, "size-wrong")
    l01 = rows(results)["L01"]
    assert l01["status"] == "FAIL" and l01["failed_rule"] == "app" and l01["gates"] is False
    assert done.returncode == 0, done.stdout
    assert results["fail_on"] == "profile"
    said = " ".join(done.stdout.split())
    assert "1 the sheet's advice" in said and "L01 shown, not failing the run (--fail-on profile" in said
    done, results = run(tmp_path, "size-wrong", "--fail-on", "app", out="app")
    assert done.returncode == 1 and rows(results)["L01"]["gates"] is True
    done, _ = run(tmp_path, "size-wrong", "--fail-on", "should", out="should")
    assert done.returncode == 0


def test_a_rule_of_the_profile_fails_the_run_by_default(tmp_path):
    done, results = run(tmp_path, "total-999")
    assert done.returncode == 1
    s03 = rows(results)["S03"]
    assert s03["failed_rule"] == "profile" and s03["gates"] is True
    assert "S03, X01 fail the run" in " ".join(done.stdout.split())
    done, _ = run(tmp_path, "total-999", "--fail-on", "must", out="must")
    assert done.returncode == 0


def test_a_baseline_accepts_known_failures_fails_new_ones_and_names_stale_ones(tmp_path):
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("expected_failures:\n"
                        "  - {row: S03, reason: 'issue 12: total counts every page'}\n"
                        "  - {row: X01, check: forms_agree, reason: 'same cause'}\n"
                        "  - {row: T01, reason: 'fixed long ago'}\n", encoding="utf-8")
    done, results = run(tmp_path, "total-999", "--baseline", str(baseline))
    assert done.returncode == 0, done.stdout
    got = rows(results)
    assert got["S03"]["status"] == "FAIL" and got["S03"]["gates"] is False
    assert got["S03"]["expected_failure"] == "issue 12: total counts every page"
    assert [e["still_fails"] for e in results["baseline"]["entries"]] == [True, True, False]
    said = " ".join(done.stdout.split())
    assert "S03, X01 expected by the baseline" in said
    assert f"Baseline {baseline}: stale: T01 no longer fails (fixed long ago); remove it." in said
    # a rerun is judged with the baseline the run was judged with, named as it was given
    again = tmp_path / "again"
    done = run_cli("rerun", str(tmp_path / "run"), "--out", str(again))
    assert done.returncode == 0, done.stdout + done.stderr
    rerun = load_results(again)
    assert rerun["baseline"] == results["baseline"]
    assert rows(rerun)["S03"]["expected_failure"] == "issue 12: total counts every page"
    # JSON is YAML: the same file as JSON, without X01: X01 is a new failure
    as_json = tmp_path / "baseline.json"
    as_json.write_text(json.dumps({"expected_failures": [{"row": "S03", "reason": "known"}]}), encoding="utf-8")
    done, results = run(tmp_path, "total-999", "--baseline", str(as_json), out="new")
    assert done.returncode == 1 and rows(results)["X01"]["gates"] is True
    # a row the sheet does not have: the file, the line and the field
    bad = tmp_path / "bad.yaml"
    bad.write_text("expected_failures:\n  - {row: S03, reason: x}\n  - {row: Z99, reason: y}\n", encoding="utf-8")
    done, _ = run(tmp_path, "total-999", "--baseline", str(bad), out="bad")
    assert done.returncode == 2
    assert f"{bad}:3: expected_failures[1].row: the sheet has no row \"Z99\"" in done.stderr


def test_a_row_switched_off_in_the_profile_says_so(tmp_path):
    profile = tmp_path / "profile.yaml"
    profile.write_text(FIXTURE_PROFILE.read_text(encoding="utf-8") + "rows: {X01: off}\n", encoding="utf-8")
    done, results = run(tmp_path, "embedded-differs", "--profile", str(profile))
    x01 = rows(results)["X01"]
    assert x01["status"] == "UNOBTAINABLE" and x01["reason_id"] == "row.off" and "checks" not in x01 or not x01["checks"]
    assert x01["reason"] == "switched off by the profile (rows: {X01: off}): none of its checks was run"
    assert rows(results)["E01"]["status"] == "FAIL"
    profile.write_text(FIXTURE_PROFILE.read_text(encoding="utf-8") + "rows:\n  Q01: off\n", encoding="utf-8")
    done, _ = run(tmp_path, "embedded-differs", "--profile", str(profile), out="bad")
    assert done.returncode == 2 and f"{profile}:" in done.stderr and "rows.Q01: the sheet has no row \"Q01\"" in done.stderr
