"""X01 and the rows that feed it agree on what was had: a body that arrived but is not the kind
the profile declares is a form that differs (FAIL), and only a form that could not be had at
all leaves X01 UNOBTAINABLE."""

from __future__ import annotations

import json

import pytest

from conftest import fixture_command, load_results, run_cli


def run(tmp_path, *breaks: str, era: str = "2025-11-25") -> dict:
    folder = tmp_path / "run"
    args = [a for b in breaks for a in ("--break", b)]
    done = run_cli("run", "--server", fixture_command(*args), "--protocol", era, "--out", str(folder),
                   "--timeout", "5")
    assert done.returncode == 1, done.stderr
    rows = {r["id"]: r for r in load_results(folder)["rows"]}
    rows["folder"] = folder
    return rows


def detail(rows: dict, row_id: str, check: str) -> str:
    row = json.loads((rows["folder"] / "rows" / f"{row_id}.json").read_text(encoding="utf-8"))
    [v] = [c for c in row["checks"] if c["check"] == check]
    return v["detail"]


@pytest.mark.parametrize("era", ["2026-07-28", "2025-06-18"])
def test_a_text_body_of_another_kind_is_a_form_that_differs(tmp_path, era):
    rows = run(tmp_path, "text-prose", era=era)
    assert rows["T01"]["status"] == "FAIL" and rows["T01"]["failed_rule"] == "profile"
    assert rows["X01"]["status"] == "FAIL" and rows["X01"]["failed_rule"] == "profile"
    assert "the forms differ: text" in detail(rows, "X01", "forms_agree")


def test_a_form_never_had_leaves_x01_unobtainable_and_t01_agrees(tmp_path):
    rows = run(tmp_path, "is-error")
    # The text tool answered isError: no text body was had, by either row's account.
    assert rows["T01"]["status"] == "FAIL" and "the tool reported an error" in rows["T01"]["reason"]
    assert rows["X01"]["status"] == "UNOBTAINABLE"
    assert "text (" in detail(rows, "X01", "forms_agree")
