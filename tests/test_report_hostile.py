"""`mcp-accept report` over a folder someone else handed over: every format, fed a results.json
whose strings would be links to anywhere, a folder that holds results.json alone, row files
of the wrong shape, and a results.json of the wrong types.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import fixture_command, run_cli

FORMATS = ("markdown", "html", "json", "junit", "sarif", "github")
HOST_FORMATS = ("hosts", "hosts-html")  # host-test folders only: any other folder is refused

# Evidence strings results.json's schema lets through (a relative path: no leading "/", no
# drive, no ".." segment) that a browser would still follow out of the run folder.
HOSTILE = ("javascript:alert(1)", "JaVaScRiPt:alert(2)", "data:text/html,<script>alert(3)</script>",
           "vbscript:msgbox(4)", "file:///etc/passwd", "java\tscript:alert(5)", " javascript:alert(6)")
GOOD_URL = "https://example.com/evidence?id=1"


@pytest.fixture(scope="module")
def failing(tmp_path_factory) -> Path:
    """A real run with FAIL rows: the rows SARIF and GitHub annotations point at."""
    folder = tmp_path_factory.mktemp("hostile") / "run"
    done = run_cli("run", "--server", fixture_command("--break", "total-999"), "--out", str(folder))
    assert done.returncode == 1, done.stderr
    return folder


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def write(folder: Path, data) -> None:
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")


def report_here(folder: Path, fmt: str) -> tuple[int, str, str]:
    """Render the folder from inside it, so its links are the evidence strings themselves
    (no folder name in front to make ``javascript:`` a relative path)."""
    out = folder / f"report.{fmt}"
    done = run_cli("report", ".", "--format", fmt, "--out", out.name, cwd=folder)
    return done.returncode, out.read_text(encoding="utf-8") if out.exists() else "", done.stderr


class _Targets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.found += [value or "" for name, value in attrs if name in ("href", "src", "action", "formaction")]


def link_targets(fmt: str, text: str) -> list[str]:
    """Every target the document makes a link of, as a reader of that format follows it."""
    if fmt == "html":
        parser = _Targets()
        parser.feed(text)
        return parser.found
    if fmt == "markdown":
        parser = _Targets()
        parser.feed(text)  # raw HTML a Markdown viewer would render
        return parser.found + [unescape(t) for t in re.findall(r"(?<!\\)\]\(([^)\s]*)\)", text)]
    if fmt == "sarif":
        return [loc["physicalLocation"]["artifactLocation"]["uri"]
                for run in json.loads(text)["runs"] for result in run["results"]
                for loc in result.get("locations") or []]
    if fmt == "json":
        found = []

        def walk(value):
            if isinstance(value, dict):
                found.extend(v for k, v in value.items() if k in ("href", "uri", "url") and isinstance(v, str))
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)
        walk({k: v for k, v in json.loads(text).items() if k != "runs"})  # runs: results.json as data
        return found
    if fmt == "github":
        return re.findall(r"::\w+ [^:]*file=([^,:]*)", text)
    return []  # JUnit XML has no links


def followed(target: str, folder: Path) -> bool:
    """Whether following ``target`` from the report in ``folder`` stays on the page, reaches
    an http(s) URL, or reaches a file inside the folder."""
    if target.startswith("#"):
        return True
    parts = urlsplit(target)  # as a browser reads it: tabs and line breaks dropped, spaces trimmed
    if parts.scheme in ("http", "https") and parts.netloc:
        return True
    if parts.scheme or parts.netloc or target.lstrip().startswith(("/", "\\")):
        return False
    file = (folder / unquote(parts.path)).resolve()
    return file.is_relative_to(folder.resolve()) and file.is_file()


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_links_outside_the_run_folder(failing, tmp_path, fmt):
    folder = tmp_path / "hostile"
    shutil.copytree(failing, folder)
    data = results(folder)
    strings = HOSTILE + (GOOD_URL,)
    failed = [row for row in data["rows"] if row["status"] == "FAIL"]
    others = [row for row in data["rows"] if row["status"] != "FAIL" and row["evidence"]]
    # every FAIL row (the ones SARIF and GitHub show) and one more row per string gets one
    for row, text in list(zip(failed, strings)) + list(zip(others, strings)):
        row["evidence"] = text
    kept = next(row for row in others[len(strings):] if (folder / row["evidence"]).is_file())
    write(folder, data)
    status, text, stderr = report_here(folder, fmt)
    assert status in (0, 1) and not stderr.count("\n") > 1, stderr
    targets = link_targets(fmt, text)
    assert [t for t in targets if not followed(t, folder)] == []
    if fmt in ("html", "markdown"):
        assert kept["evidence"] in targets  # a file of the folder stays a link
        assert "https://example.com/evidence?id=1" in {unescape(t) for t in targets}
        shown = unescape(text)
        assert "javascript:alert(1)" in shown and "vbscript:msgbox(4)" in shown  # as text
    if fmt == "sarif":
        evidence = [r["properties"].get("evidence") for run in json.loads(text)["runs"] for r in run["results"]]
        assert "javascript:alert(1)" in evidence  # kept as a property, not a location


@pytest.mark.parametrize("path", [
    "javascript:alert(1)", "JAVASCRIPT:x", "data:text/html,x", "vbscript:x", "file:///etc/passwd",
    "/etc/passwd", "../outside.json", "rows/../../outside.json", "//evil.example/x", "\\\\evil\\x",
    "rows\\..\\..\\x", "C:/Windows/x", "c:x", "java\tscript:x", "java\nscript:x", " javascript:x",
    "http:evil.example", "https://", "", None, 5])
def test_the_one_rule_refuses_every_target_that_leaves_the_folder(path):
    from mcp_accept.output.render import link_target

    assert link_target(path) is None and link_target(path, "../runs/a") is None


@pytest.mark.parametrize("path, base, target", [
    ("rows/S01.json", "", "rows/S01.json"),
    ("rows/S01.json", ".", "rows/S01.json"),
    ("rows/S01.json", "../runs/vs code", "../runs/vs%20code/rows/S01.json"),
    ("rows/../rows/S01.json", "", "rows/../rows/S01.json"),
    ("evidence/a:b (1).txt", "", "evidence/a%3Ab%20%281%29.txt"),
    ("https://example.com/a(b)?q=\"<x>\"", "../runs/a", "https://example.com/a%28b%29?q=%22%3Cx%3E%22"),
])
def test_the_one_rule_keeps_files_of_the_folder_and_web_links(path, base, target):
    from mcp_accept.output.render import link_target

    assert link_target(path, base) == target


@pytest.mark.parametrize("fmt", FORMATS + HOST_FORMATS)
def test_a_folder_holding_results_json_alone_renders(failing, tmp_path, fmt):
    folder = tmp_path / "alone"
    folder.mkdir()
    shutil.copy(failing / "results.json", folder / "results.json")
    status, text, stderr = report_here(folder, fmt)
    if fmt in HOST_FORMATS:  # no host-run.json: not a host test, said in one line
        assert status == 2 and len(stderr.strip().splitlines()) == 1 and "host test" in stderr, stderr
        return
    assert status == 0 and "Traceback" not in stderr, stderr
    rows = [row for row in results(folder)["rows"] if row["evidence"]]
    missing = "missing from the run folder"
    # no link to nothing: an anchor, or a spec source's published page
    assert not [t for t in link_targets(fmt, text) if not t.startswith(("#", "https://modelcontextprotocol.io/"))]
    if fmt in ("html", "markdown"):
        assert unescape(text).count(missing) >= len(rows)
    elif fmt == "junit":
        outs = [case.findtext("system-out") or "" for case in ET.fromstring(text).iter("testcase")]
        assert sum(missing in out for out in outs) == len(rows)
    elif fmt == "json":
        cells = [c for host in json.loads(text)["hosts"] for cells in host["cells"].values() for c in cells]
        assert all(c["evidence_missing"] for c in cells if c["evidence"]) and cells
    elif fmt == "sarif":
        found = [r for run in json.loads(text)["runs"] for r in run["results"]]
        assert found and all(r["properties"]["evidence_missing"] and "locations" not in r for r in found)
    elif fmt == "github":
        assert text.count(missing) == sum(row["status"] == "FAIL" for row in rows) > 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_row_files_of_the_wrong_shape_are_no_evidence_not_a_crash(failing, tmp_path, fmt):
    folder = tmp_path / "shapes"
    shutil.copytree(failing, folder)
    shapes = [{"checks": "x", "messages": 5}, [1, 2], "text", None,
              {"checks": [1, "a", {"status": "FAIL", "source": {"a": 1}, "wire_seqs": [[1], "x", {}]}],
               "messages": ["x", {"seq": [1]}, {"seq": 1, "message": "text", "http": 5}]},
              {"checks": [{"status": "FAIL", "check": {"x": 1}, "layer": 5, "rule": None, "detail": [1]}],
               "messages": [{"seq": True, "message": {"method": {"x": 1}}}]}]
    files = sorted((folder / "rows").glob("*.json"))
    for n, path in enumerate(files):
        path.write_text(json.dumps(shapes[n % len(shapes)]), encoding="utf-8")
    status, _text, stderr = report_here(folder, fmt)
    assert status == 0 and "Traceback" not in stderr, stderr


BAD_TYPES = {
    "a row that is a string": (lambda d: d["rows"].__setitem__(0, "S01"), "rows[0]"),
    "status a number": (lambda d: d["rows"][0].__setitem__("status", 3), "rows[0].status"),
    "reason null": (lambda d: next(r for r in d["rows"] if r["status"] != "PENDING").__setitem__("reason", None),
                    ".reason"),
    "no rows": (lambda d: d.pop("rows"), "'rows'"),
    "rows a mapping": (lambda d: d.__setitem__("rows", {}), "rows"),
    "evidence a number": (lambda d: d["rows"][0].__setitem__("evidence", 7), "rows[0].evidence"),
}


@pytest.mark.parametrize("fmt", FORMATS + HOST_FORMATS)
@pytest.mark.parametrize("case", BAD_TYPES)
def test_a_results_json_of_the_wrong_types_is_one_line_and_exit_2(failing, tmp_path, fmt, case):
    change, field = BAD_TYPES[case]
    folder = tmp_path / "typed"
    folder.mkdir()
    data = results(failing)
    change(data)
    write(folder, data)
    done = run_cli("report", str(folder), "--format", fmt, "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "results.json" in lines[0] and field in lines[0], lines[0]
    assert not (tmp_path / "out").exists()
