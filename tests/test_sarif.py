"""`report --format sarif` (SARIF 2.1.0, checked against the OASIS schema) and
`report --format github` (workflow-command annotations), over real runs of the fixture."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, fixture_command, run_cli

SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
# A FAIL row that failed its run is an error; one shown only, a warning for a SHOULD and a
# note (a notice) for the sheet's advice.
LEVELS = {"should": "warning", "app": "note"}
COMMANDS = {"should": "warning", "app": "notice"}


def level(row: dict, by_rule: dict) -> str:
    return "error" if row.get("gates", True) else by_rule.get(row.get("failed_rule") or "app", by_rule["app"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.mktemp("sarif")
    folders = []
    for mode in ("total-999", "size-wrong"):
        folder = base / mode
        done = run_cli("run", "--server", fixture_command("--break", mode), "--out", str(folder))
        # S03 breaks the profile's assertion; L01's size is the sheet's advice, shown only
        assert done.returncode == (1 if mode == "total-999" else 0), done.stderr
        folders.append(folder)
    # A copy whose S03 failure is re-labelled as a broken MUST, and whose reason holds the
    # characters workflow commands must escape: the formats must carry both through.
    edited = base / "edited"
    shutil.copytree(folders[0], edited)
    results = json.loads((edited / "results.json").read_text(encoding="utf-8"))
    for row in results["rows"]:
        if row["id"] == "S03":
            row["failed_rule"] = "must"
            row["reason"] = "100% wrong: total, hits\nsecond line\r"
        elif row["id"] == "X01":
            row["failed_rule"] = "should"
    (edited / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return folders + [edited]


def fail_rows(folder: Path) -> list[dict]:
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return [row for row in results["rows"] if row["status"] == "FAIL"]


def test_sarif_is_valid_2_1_0_with_one_result_per_fail_row(runs, tmp_path):
    from jsonschema import Draft4Validator, FormatChecker  # the schema declares draft-04

    def validator():
        return Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8")), format_checker=FormatChecker())

    out = tmp_path / "mcp.sarif"
    done = run_cli("report", *map(str, runs), "--format", "sarif", "--out", str(out))
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    errors = sorted(validator().iter_errors(document),
                    key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    wrong = json.loads(json.dumps(document))  # the schema does catch a wrong document
    wrong["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator().is_valid(wrong)
    assert document["version"] == "2.1.0" and len(document["runs"]) == len(runs)
    for folder, sarif_run in zip(runs, document["runs"]):
        expected = fail_rows(folder)
        results = sarif_run["results"]
        assert [r["ruleId"] for r in results] == [row["id"] for row in expected]
        for result, row in zip(results, expected):
            rule = row.get("failed_rule") or "app"
            assert result["level"] == level(row, LEVELS) and result["properties"]["rule"] == rule
            assert f"[{rule}]" in result["message"]["text"]
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            assert (out.parent / uri).is_file()  # the evidence, reachable from the report
            rules = sarif_run["tool"]["driver"]["rules"]
            assert rules[result["ruleIndex"]]["id"] == row["id"]
    levels = {r["level"] for run in document["runs"] for r in run["results"]}
    assert {"error", "note"} <= levels


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_github_annotations_one_per_fail_row_escaped(runs):
    done = run_cli("report", *map(str, runs), "--format", "github")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    expected = [row for folder in runs for row in fail_rows(folder)]
    assert len(lines) == len(expected)
    for line, row in zip(lines, expected):
        rule = row.get("failed_rule") or "app"
        command, _, rest = line[2:].partition(" ")
        assert command == level(row, COMMANDS), line
        properties, sep, message = rest.partition("::")
        assert sep and "\n" not in line and "\r" not in line
        assert properties.startswith("title=") and ":" not in properties and "," not in properties
        assert unescape(properties[len("title="):]).startswith(f"{row['id']} FAIL [{rule}]")
        assert unescape(message).startswith(row["reason"])
    edited = [line for line in lines if "100%25 wrong" in line]
    assert edited and edited[0].startswith("::error ")
    assert "100%25 wrong%3A total%2C hits" not in edited[0].split("::", 2)[2]  # ':' ',' stay in the message
    assert "100%25 wrong: total, hits%0Asecond line%0D" in edited[0]
