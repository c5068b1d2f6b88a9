"""Untrusted text stays text: a server whose name, tool text and link name hold ANSI escapes,
rich markup, raw HTML, Markdown pipes and backticks, a bell and a newline that would start a
YAML key. The console shows them inert, sheet.md and the report escape them, `profile init`
writes YAML that gains no key, and a --template runs in Jinja's sandbox."""

from __future__ import annotations

from pathlib import Path

import yaml

from conftest import run_cli
from faultkit import assert_complete, assert_one_line_error, hostile

HOSTILE = ("--mode", "hostile-text", "--on", "tools/call:search_text,tools/call:search_link")


def test_hostile_text_is_inert_everywhere(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    proc = run_cli("run", "--server", hostile(*HOSTILE), "--out", str(folder), "--timeout", "5")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert_complete(folder, proc)
    console = proc.stdout + proc.stderr
    assert "\x1b" not in console and "\x07" not in console, "an escape reached the terminal"
    assert "[bold red]markup[/]" in console, "rich markup must show as text, not be applied"
    report = run_cli("report", str(folder))
    assert report.returncode == 0, report.stderr
    for markdown in ((folder / "sheet.md").read_text(), report.stdout):
        assert "\x1b" not in markdown and "\x07" not in markdown
        assert "<script>" not in markdown, "raw HTML in Markdown"
        for line in markdown.splitlines():
            if line.startswith("|") and "markup" in line:  # a table row holding server text
                cells = line.replace("\\|", "").split("|")
                assert len(cells) == line.count("|") - line.count("\\|") + 1


def test_profile_init_gains_no_key_from_a_server_name(tmp_path: Path) -> None:
    done = run_cli("profile", "init", "--server", hostile(*HOSTILE))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\x1b" not in done.stdout
    profile = yaml.safe_load(done.stdout)
    assert "injected" not in profile, "a newline in the server's name started a YAML key"
    heads = [line for line in done.stdout.splitlines() if "Starting profile for" in line]
    assert len(heads) == 1 and heads[0].startswith("#") and "injected" in heads[0]


def test_template_runs_sandboxed(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    assert run_cli("run", "--out", str(folder), "--timeout", "5").returncode in (0, 1)
    template = tmp_path / "evil.md.j2"
    template.write_text("{{ ''.__class__.__mro__[1].__subclasses__() }}\n")
    proc = run_cli("report", str(folder), "--template", str(template))
    assert_one_line_error(proc, str(template))
    assert "subclasses" not in proc.stdout
    fine = tmp_path / "fine.md.j2"
    fine.write_text("{% for run in runs %}{{ run.results.rows | length }} rows{% endfor %}\n")
    proc = run_cli("report", str(folder), "--template", str(fine))
    assert proc.returncode == 0, proc.stderr


SURROGATE_NAME = "evil\\n# Forged heading\\n\\ud800<script>x</script>"  # JSON escapes, read by the server


def test_lone_surrogates_and_a_newline_in_the_name_survive_every_format(tmp_path: Path) -> None:
    """A server whose texts, link and name hold lone surrogates and whose name holds
    newlines: the run completes without a traceback (the sdk layer's replay included),
    and every report format is written, parses, and gains no heading."""
    import json
    import xml.etree.ElementTree as ET

    folder = tmp_path / "run"
    proc = run_cli("run", "--server", hostile("--mode", "surrogates", "--server-name", SURROGATE_NAME),
                   "--out", str(folder), "--timeout", "5")
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "Exception in thread" not in proc.stderr, proc.stderr[-2000:]
    assert_complete(folder, proc)
    out = {}
    for fmt in ("markdown", "html", "junit", "sarif", "json", "github"):
        done = run_cli("report", str(folder), "--format", fmt, "--out", str(tmp_path / f"report.{fmt}"))
        assert done.returncode == 0, (fmt, done.stderr)
        out[fmt] = (tmp_path / f"report.{fmt}").read_text(encoding="utf-8")
    assert not any(line.lstrip().startswith("# Forged") for line in out["markdown"].splitlines())
    commands = [line for line in out["github"].splitlines() if line.startswith("::")]
    assert commands and all(line.startswith(("::notice ", "::warning ", "::error ")) for line in commands)
    assert all("%0A# Forged heading%0A" in line for line in commands if "Forged" in line)
    ET.fromstring(out["junit"].encode("utf-8"))
    document = json.loads(out["json"])
    assert document["runs"][0]["results"]["conditions"]["server_name"] == json.loads(f'"{SURROGATE_NAME}"')
    json.loads(out["sarif"])
    assert "<script>x" not in out["html"]
    done = run_cli("profile", "init", "--server", hostile("--server-name", "x\\u2028injected: true"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "injected" not in yaml.safe_load(done.stdout), "U+2028 in a comment started a YAML key"


def test_the_sdk_replay_job_carries_a_lone_surrogate_as_its_escape() -> None:
    import io
    import json

    from mcp_accept.running.sdk_replay import write_job

    stream = io.BytesIO()
    write_job(stream, {"version": "x", "answers": [["tools/call", {"name": "a\ud800"},
                                                    {"content": [{"type": "text", "text": "b\udfff"}]}]]})
    head, answer = stream.getvalue().decode("utf-8").splitlines()
    assert json.loads(head)["answers"][0][1]["name"] == "a\ud800"
    assert json.loads(answer)["content"][0]["text"] == "b\udfff"
