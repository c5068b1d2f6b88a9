"""Output that fits where it goes: piped or on a terminal, quiet or verbose, JSON, and the
filled sheet a reviewer reads, in English and in Japanese."""

from __future__ import annotations

import io
import json
import re

import pytest

from conftest import fixture_command, load_results, run_cli

from mcp_accept.checks.registry import load_all
from mcp_accept.inputs.sheet import load_sheet
from mcp_accept.output.console import QUIET, VERBOSE, Environment, cell_width, print_run
from mcp_accept.output.i18n import translate_reason, untranslated_parts
from mcp_accept.output.render import render_run
from mcp_accept.reasons import reason
from mcp_accept.untrusted import markdown_cell, markdown_prose

load_all()  # the check modules declare their reasons
ROWS = len(load_sheet().rows)  # the default sheet's

BOX = set("┏┃━┡│└┳╇┩┗┛┓─")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A run of the fixture as it is, and one with a defect (total 999 with two hits)."""
    base = tmp_path_factory.mktemp("output")
    good, bad = base / "good", base / "bad"
    done = run_cli("run", "--out", str(good), "--lang", "ja")
    assert done.returncode in (0, 1), done.stderr
    done = run_cli("run", "--server", fixture_command("--break", "total-999"), "--out", str(bad))
    assert done.returncode == 1, done.stderr
    return good, bad


def printed(results, **facts) -> str:
    out = io.StringIO()
    print_run(results, "runs/x", Environment(stdout=out, stderr=io.StringIO(), **facts))
    return out.getvalue()


def test_piped_tables_have_no_box_drawing_and_fit_80_columns(runs):
    text = printed(load_results(runs[1]), stdout_isatty=False, width=80)
    assert not BOX & set(text) and "\x1b" not in text
    table = text.splitlines()[:-1]  # the summary line is one line, wrapped by the terminal
    assert all(len(line) <= 80 for line in table), max(table, key=len)
    assert all(line == line.rstrip() for line in table)
    # every row is there, and a long reason wraps instead of being lost
    for row in load_results(runs[1])["rows"]:
        assert re.search(rf"^{row['id']}\s+{row['kind']}\s+{row['status']}", text, flags=re.M), row["id"]
    assert "total == length(hits) gave false, not true" in " ".join(text.split())


def test_piped_tables_show_a_servers_text_as_it_is_and_wrap_wide_characters(runs):
    results = load_results(runs[1])
    results["conditions"]["server_name"] = "[bold]srv\x1b[31m"
    results["rows"][0]["reason"] = "検索結果の構造化コンテンツが出力スキーマに合わない" * 3 + " [link=x]y[/link]"
    text = printed(results, stdout_isatty=False, width=60)
    assert text.startswith("mcp-accept: [bold]srv\\x1b[31m (")  # no markup escape, the escape made visible
    assert "[link=x]y[/link]" in text and "\\[" not in text
    lines = text.splitlines()[:-1]
    # a line is longer only when its reason part is one word longer than the column, kept whole
    at = lines[1].index("reason")
    assert all(cell_width(line) <= 60 or len(line[at:].split()) == 1 for line in lines), max(lines, key=cell_width)
    first = [line for line in lines if "検索" in line]
    assert len(first) >= 3 and first[0].startswith("W01  ")  # the wide reason wrapped in its column
    assert all(line.startswith(" " * first[0].index("検")) for line in first[1:])


def test_a_terminal_gets_boxes(runs):
    text = printed(load_results(runs[1]), stdout_isatty=True, colors=False, width=100)
    assert BOX & set(text)


def test_quiet_prints_the_summary_line_only_and_verbose_each_check(runs):
    results = load_results(runs[1])
    quiet = printed(results, stdout_isatty=False, verbosity=QUIET)
    assert quiet.splitlines() == [quiet.strip()] and quiet.startswith(f"{ROWS} rows: ")
    verbose = " ".join(printed(results, stdout_isatty=False, width=200, verbosity=VERBOSE).split())
    assert "- assert:total-matches-hits (meaning, profile): FAIL" in verbose
    assert "server/tools.mdx#output-schema" in verbose  # a spec rule names its source


def test_run_json_is_results_json(tmp_path):
    proc = run_cli("run", "--out", str(tmp_path / "o"), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    assert json.loads(proc.stdout) == load_results(tmp_path / "o")


def test_quiet_run_prints_one_line(tmp_path):
    proc = run_cli("run", "--out", str(tmp_path / "o"), "-q")
    assert proc.stdout.strip().splitlines() == [proc.stdout.strip()]
    assert proc.stdout.startswith(f"{ROWS} rows: ")


def test_sheet_md_in_english_starts_with_the_title_then_conditions_then_rows(runs):
    results = load_results(runs[1])
    text = render_run(results, lang="en")
    title = results["sheet"]["title"]["en"]
    assert text.startswith(f"# {title}\n")
    assert text.index("## Execution conditions") < text.index("## Rows") < text.index("## What each row")
    conditions = text[text.index("## Execution conditions"):text.index("## Rows")]
    assert len(re.findall(r"^\| `[a-z_0-9]+` \|", conditions, flags=re.M)) == 15
    for row in results["rows"]:
        assert markdown_prose(row["establishes"]["en"]) in text
        if row["kind"] == "observation":
            assert markdown_prose(row["procedure"]["en"]) in text
    # each check with its rule kind and spec source
    # a spec source links to its published page
    assert ("| `structured_valid` | type | must | [docs/specification/2026-07-28/server/tools.mdx#output-schema]"
            "(https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema) |") in text
    assert "| `assert:total-matches-hits` | meaning | profile (yours) | — | FAIL |" in text


def test_sheet_md_in_japanese_has_japanese_titles_and_reasons(runs):
    good, bad = runs
    written = (good / "sheet.md").read_text(encoding="utf-8")  # run --lang ja
    results = load_results(good)
    assert written.startswith(f"# {results['sheet']['title']['ja']}\n")
    assert "## 実行条件" in written and "## 各項目が確かめること" in written
    for row in results["rows"]:
        assert markdown_prose(row["establishes"]["ja"]) in written
    assert "版に適合" in written and "resources/listには載っていない" in written
    failing = render_run(load_results(bad), lang="ja")
    assert "意味［profile］：total == length(hits)がtrueではなくfalseになった" in failing
    assert "at $.total: 999 vs 2" in failing  # what the server sent is quoted as it is
    # the files keep Japanese as UTF-8, not \\u escapes
    assert "すべてのメッセージ" in (good / "results.json").read_text(encoding="utf-8")


def test_every_reason_of_the_fixture_runs_is_in_the_catalog(runs):
    for folder in runs:
        for row in load_results(folder)["rows"]:
            if row["reason"]:
                left = [p for p in untranslated_parts(row) if not p.startswith("at $")]
                assert not left, (row["id"], left)


def test_a_text_the_catalog_does_not_know_stays_english():
    said = reason("list.parts", parts=["something new happened", reason("wire.no-violations")])
    row = {"reason": said.english(), **said.as_json()}
    assert row["reason"] == "something new happened; no protocol violations on the wire"
    assert translate_reason(row, "ja") == "something new happened、通信上のプロトコル違反なし"
    assert translate_reason({"reason": "meaning [should]: the server's own words"}, "en") == \
        "meaning [should]: the server's own words"


def test_a_reason_edited_by_hand_is_shown_as_written():
    said = reason("wire.no-violations")
    edited = {**said.as_json(), "reason": "checked by hand; see run: the server could not be started"}
    # the ids no longer say what the text says: the text is shown as the person wrote it, its
    # separators and the words mcp-accept would have written alike, never read back into data
    assert translate_reason(edited, "ja") == "checked by hand; see run: the server could not be started"


def test_observe_keeps_the_language_of_sheet_md(tmp_path):
    done = run_cli("run", "--out", str(tmp_path / "r"), "--lang", "ja", "-q")
    assert done.returncode in (0, 1), done.stderr
    shot = tmp_path / "shot.txt"
    shot.write_text("seen\n", encoding="utf-8")
    done = run_cli("observe", str(tmp_path / "r"), "H03", "--status", "UNOBTAINABLE", "--evidence", str(shot),
                   "--note", "no size limit seen")
    assert done.returncode == 0, done.stderr
    sheet = (tmp_path / "r" / "sheet.md").read_text(encoding="utf-8")
    assert "## 実行条件" in sheet and "**取得不可**" in sheet


def test_piped_verbose_output_never_breaks_a_spec_path(runs):
    results = load_results(runs[1])
    text = printed(results, stdout_isatty=False, width=80, verbosity=VERBOSE)
    lines = text.splitlines()
    sources = {check["source"] for row in results["rows"] for check in row.get("checks") or [] if check.get("source")}
    assert len(sources) > 5
    for source in sources:  # each whole on one line, so it can be searched for and copied
        assert any(source in line for line in lines), source


def test_counts_of_one_are_singular(runs):
    from mcp_accept.output.console import counted, summary_line

    assert (counted(1, "row"), counted(2, "row"), counted(0, "target")) == ("1 row", "2 rows", "0 targets")
    results = load_results(runs[1])
    results["rows"] = results["rows"][:1]
    results["summary"] = {results["rows"][0]["status"]: 1}
    line = summary_line(results, "runs/x")
    assert line.startswith("1 row: ") and "1 rows" not in line


def test_fleet_summary_piped_reads_at_80_columns(tmp_path):
    """Piped, the fleet's table fits 80 columns with no word cut inside a column, and counts
    agree in number ("1 target", "2 targets")."""
    import sys

    from mcp_accept.output.console import print_fleet
    from mcp_accept.running.fleet import FleetOutcome, TargetResult

    gone = tmp_path / "gone.py"
    gone.write_text("import sys\nsys.exit(1)\n", encoding="utf-8")
    targets = tmp_path / "targets.yaml"
    targets.write_text("targets:\n"
                       f"  - {{name: reference-fixture-server, server: {json.dumps(fixture_command())}}}\n"
                       f"  - {{name: gone, server: {json.dumps(sys.executable + ' ' + str(gone))}}}\n",
                       encoding="utf-8")
    done = run_cli("run", "--targets", str(targets), "--out", str(tmp_path / "fleet"), env={"COLUMNS": "80"})
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "mcp-accept fleet: 2 targets, 2 at a time" or lines[0].startswith("mcp-accept fleet: 2 targets,")
    assert all(len(line) <= 80 or len(line.split()) == 1 for line in lines), [l for l in lines if len(l) > 80]
    words = set(done.stdout.split())
    for word in ("target", "transport", "protocol", "exit", "seconds", "UNOBTAINABLE", "PENDING",
                 "mcp-accept-fixture", "reference-fixture-server", "2026-07-28"):
        assert word in words or word + "," in words or word + ";" in words, word
    assert not BOX & set(done.stdout) and "\x1b" not in done.stdout
    assert "2 targets: 1 passed" in " ".join(done.stdout.split())

    one = FleetOutcome(folder=tmp_path / "f", status=0, seconds=1.0, jobs=1, results=[
        TargetResult(0, "a", str(tmp_path / "f" / "a"), 0, {"PASS": 1}, "srv", "stdio", "2026-07-28", 1.0)])
    out = io.StringIO()
    print_fleet(one, Environment(stdout=out, stderr=io.StringIO(), stdout_isatty=False, width=80))
    text = " ".join(out.getvalue().split())
    assert "fleet: 1 target, 1 at a time" in text and "1 target: 1 passed" in text and "1 targets" not in text


def test_sheet_md_has_no_stray_escapes_or_entities(runs):
    """The sheet's own text reads as written (`integer >= 0`, `mcp-accept observe ...` as code);
    server text in cells is escaped only where Markdown would act on it."""
    text = (runs[1] / "sheet.md").read_text(encoding="utf-8")
    for stray in ("&gt;", "&lt;", "&amp;", "\\`", "\\_", "\\*"):
        assert stray not in text, stray
    assert "(integer >= 0)" in text and "`mcp-accept observe RUN_DIR --answer FILE" in text
    assert markdown_cell("a **z** <b>x</b> a>=0 snake_case `t` 1 | 2") == \
        "a \\*\\*z\\*\\* &lt;b>x&lt;/b> a>=0 snake_case \\`t\\` 1 \\| 2"
    assert markdown_cell("a lone * or ` or _x stays") == "a lone * or ` or _x stays"
