"""Bad input from the user: each gets one line naming the file, line and field, exit
code 2, no traceback, and nothing written: no run folder, no server started, and an
existing run folder left byte for byte as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli, unprivileged
from faultkit import assert_one_line_error, server

FILES = {
    "badyaml.yaml": "profile: x\ntools: [unclosed\n",
    "badtype.yaml": "profile: x\ntools:\n  text: {name: search_text}\ntwin: 5\n",
    "badcond.yaml": "server_name: ok\nresult_size_utf8_bytes: many\n",
    "badsheet.yaml": "sheet: mine\nversion: 1\ntitle: {en: Mine, ja: 私の}\nrows:\n"
                     "  - id: W01\n    kind: normative\n    title: {en: a, ja: a}\n"
                     "    establishes: {en: a, ja: a}\n    steps: [all]\n    checks: nope\n",
    "notutf8.yaml": b"profile: x\n\xff\xfe\n",
    "targets.yaml": "targets: []\n",
    "afile": "not a folder\n",
    # values JSON cannot carry, and tags that are not JSON's
    "set.yaml": "profile: x\ntools: !!set {a, b}\n",
    "binary.yaml": "profile: !!binary aGVsbG8=\n",
    "pyobject.yaml": "profile: !!python/object/apply:os.system ['echo pwned']\n",
    "bigint.yaml": "profile: x\ntwin: " + "9" * 5000 + "\n",
    "infprofile.yaml": "profile: x\ntwin: .inf\n",
    "deep.yaml": "profile: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "bigcond.yaml": "result_size_utf8_bytes: " + "9" * 5000 + "\n",
    "nancond.yaml": "result_size_utf8_bytes: .nan\n",
    "inftargets.yaml": "targets:\n  - name: a\n    server: x\n    timeout: .inf\n",
    "nantargets.yaml": "targets:\n  - name: a\n    server: x\n    run_timeout: .nan\n",
    "badfloat.yaml": "profile: x\ntwin: !!float abc\n",
    "badbool.yaml": "profile: x\ntwin: !!bool maybe\n",
    "bigtargets.yaml": "targets:\n  - name: a\n    server: x\n    timeout: " + "9" * 5000 + "\n",
}

# (options, texts the one line must hold); {d} is the folder holding FILES
CASES = {
    "missing-sheet": (["--sheet", "{d}/nope.yaml"], ["{d}/nope.yaml", "no such file"]),
    "missing-profile": (["--profile", "{d}/nope.yaml"], ["{d}/nope.yaml", "no such file"]),
    "missing-conditions": (["--conditions", "{d}/nope.yaml"], ["{d}/nope.yaml", "no such file"]),
    "sheet-is-a-folder": (["--sheet", "{d}"], ["{d}", "is a directory"]),
    "profile-under-a-file": (["--profile", "{d}/afile/p.yaml"], ["{d}/afile/p.yaml", "cannot be read"]),
    "profile-not-utf8": (["--profile", "{d}/notutf8.yaml"], ["{d}/notutf8.yaml:2", "not valid UTF-8"]),
    "profile-yaml-syntax": (["--profile", "{d}/badyaml.yaml"], ["{d}/badyaml.yaml:3", "YAML syntax"]),
    "profile-wrong-type": (["--profile", "{d}/badtype.yaml"], ["{d}/badtype.yaml:4", "twin", "found 5"]),
    "sheet-wrong-type": (["--sheet", "{d}/badsheet.yaml"], ["{d}/badsheet.yaml:10", "rows[0].checks"]),
    "conditions-wrong-type": (["--conditions", "{d}/badcond.yaml"],
                              ["{d}/badcond.yaml:2", "result_size_utf8_bytes", "integer"]),
    "set-unknown-row": (["--set", "Z99.mode=exact"], ["--set", "Z99.mode", "no row Z99"]),
    "set-unknown-key": (["--set", "colour=red"], ["--set", "colour", "unknown key"]),
    "set-not-key-value": (["--set", "host_product"], ["--set", "host_product", "KEY=VALUE"]),
    "out-under-a-file": (["--out", "{d}/afile/run"], ["{d}/afile/run", "--out", "cannot write"]),
    "out-is-a-file": (["--out", "{d}/afile"], ["{d}/afile", "--out", "cannot write"]),
    "protocol-junk": (["--protocol", "junk"], ["--protocol", "must be auto, all or one of"]),
    "timeout-zero": (["--timeout", "0"], ["--timeout"]),
    "max-bytes-not-a-number": (["--max-bytes", "lots"], ["--max-bytes"]),
    "unknown-option": (["--colour"], ["--colour"]),
    "server-with-targets": (["--targets", "{d}/targets.yaml"], ["--targets", "--server"]),
    "header-without-url": (["--header", "X-Team: blue"], ["--header", "--url"]),
    "url-not-http": (["--url", "ftp://127.0.0.1/mcp"], ["--url", "http://"]),
    "header-not-name-value": (["--url", "http://127.0.0.1:9/mcp", "--header", "oops"], ["--header #1"]),
    "header-env-unset": (["--url", "http://127.0.0.1:9/mcp", "--header", "Authorization: env:MCPA_UNSET_VAR"],
                         ["--header Authorization", "MCPA_UNSET_VAR", "not set"]),
    "server-empty": (["--server", ""], ["--server", "empty"]),
    "schema-dir-missing": (["--schema-dir", "{d}/no-such-folder"], ["{d}/no-such-folder", "--schema-dir"]),
    "set-unknown-option": (["--set", "S02.nosuch=1"], ["--set", "S02.nosuch", "has no option"]),
    "set-bad-option-value": (["--set", "S02.mode=bogus"], ["--set", "S02.mode", "json-equal, exact, off"]),
    "server-unsplittable": (["--server", "python 'unclosed"], ["--server", "cannot split"]),
    "profile-set-tag": (["--profile", "{d}/set.yaml"], ["{d}/set.yaml:2", "tools", "!!set"]),
    "profile-binary-tag": (["--profile", "{d}/binary.yaml"], ["{d}/binary.yaml:1", "profile", "!!binary"]),
    "profile-python-tag": (["--profile", "{d}/pyobject.yaml"], ["{d}/pyobject.yaml:1", "!!python/object"]),
    "profile-5000-digits": (["--profile", "{d}/bigint.yaml"], ["{d}/bigint.yaml:2", "twin", "out of range"]),
    "profile-inf": (["--profile", "{d}/infprofile.yaml"], ["{d}/infprofile.yaml:2", "twin", "not a finite number"]),
    "profile-bad-float-tag": (["--profile", "{d}/badfloat.yaml"], ["{d}/badfloat.yaml:2", "twin", "!!float"]),
    "profile-bad-bool-tag": (["--profile", "{d}/badbool.yaml"], ["{d}/badbool.yaml:2", "twin", "!!bool"]),
    "profile-nested-deep": (["--profile", "{d}/deep.yaml"], ["{d}/deep.yaml", "nested too deeply"]),
    "conditions-5000-digits": (["--conditions", "{d}/bigcond.yaml"],
                               ["{d}/bigcond.yaml:1", "result_size_utf8_bytes", "out of range"]),
    "conditions-nan": (["--conditions", "{d}/nancond.yaml"], ["{d}/nancond.yaml:1", "not a finite number"]),
    "targets-inf": (["--targets", "{d}/inftargets.yaml", "--server", ""],
                    ["{d}/inftargets.yaml:4", "targets[0].timeout", "not a finite number"]),
    "targets-nan": (["--targets", "{d}/nantargets.yaml", "--server", ""],
                    ["{d}/nantargets.yaml:4", "targets[0].run_timeout", "not a finite number"]),
    "targets-5000-digits": (["--targets", "{d}/bigtargets.yaml", "--server", ""],
                            ["{d}/bigtargets.yaml:4", "targets[0].timeout", "out of range"]),
    "set-5000-digits": (["--set", "S02.mode=" + "9" * 5000], ["--set", "S02.mode", "out of range"]),
    "set-inf": (["--set", "S02.mode=.inf"], ["--set", "S02.mode", "not a finite number"]),
    "set-empty-int-tag": (["--set", "S02.mode=!!int"], ["--set", "S02.mode", "must be one of"]),
    "set-bad-bool-tag": (["--set", "S02.mode=!!bool maybe"], ["--set", "S02.mode", "must be one of"]),
    # every numeric option: finite and bounded, refused where it is read
    "timeout-inf": (["--timeout", "inf"], ["--timeout", "not a finite number"]),
    "timeout-nan": (["--timeout", "nan"], ["--timeout", "not a finite number"]),
    "timeout-1e308": (["--timeout", "1e308"], ["--timeout", "not in the range"]),
    "run-timeout-inf": (["--run-timeout", "inf"], ["--run-timeout", "not a finite number"]),
    "run-timeout-nan": (["--run-timeout", "nan"], ["--run-timeout", "not a finite number"]),
    "max-bytes-past-2-63": (["--max-bytes", "99999999999999999999999"], ["--max-bytes", "not in the range"]),
    "max-bytes-5000-digits": (["--max-bytes", "9" * 5000], ["--max-bytes", "not a valid int"]),
    "max-rounds-huge": (["--max-rounds", "10000000000"], ["--max-rounds", "not in the range"]),
}


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "inputs"
    folder.mkdir()
    for name, body in FILES.items():
        path = folder / name
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    return folder


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_and_exit_2(name: str, inputs: Path, tmp_path: Path) -> None:
    options, needles = CASES[name]
    options = [o.format(d=inputs) for o in options]
    pidfile = tmp_path / "pids"
    args = ["run", *options]
    if "--out" not in options:
        args += ["--out", str(tmp_path / "run")]
    if "--server" not in options and "--url" not in options:
        args += ["--server", server("--pidfile", pidfile)]
    proc = run_cli(*args, timeout=60)
    assert_one_line_error(proc, *[n.format(d=inputs) for n in needles])
    assert proc.stdout == ""
    assert not (tmp_path / "run").exists(), "a run folder was created for a run that never started"
    assert not pidfile.exists(), "the server was started although the input was wrong"
    assert sorted(p.name for p in inputs.iterdir()) == sorted(FILES), "a file was left beside the inputs"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_bad_input_leaves_an_earlier_run_untouched(inputs: Path, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    first = run_cli("run", "--out", str(folder), "--timeout", "5")
    assert first.returncode == 0, first.stdout[-2000:]
    before = snapshot(folder)
    for options in (["--profile", str(inputs / "badtype.yaml")], ["--set", "Z99.mode=exact"],
                    ["--conditions", str(inputs / "badcond.yaml")], ["--protocol", "junk"]):
        proc = run_cli("run", "--out", str(folder), *options)
        assert_one_line_error(proc)
        assert snapshot(folder) == before, f"{options} changed the earlier run folder"


def test_unreadable_profile(open_tmp_path: Path) -> None:
    # Run as a user the file's mode binds (as root, nobody: root reads any file).
    path = open_tmp_path / "badtype.yaml"
    path.write_text(FILES["badtype.yaml"], encoding="utf-8")
    path.chmod(0)
    proc = run_cli("run", "--profile", str(path), "--out", str(open_tmp_path / "run"), prefix=unprivileged())
    # refused by the option's own check (the command line's), before the file is opened
    assert_one_line_error(proc, "--profile", str(path), "is not readable")
    assert not (open_tmp_path / "run").exists()


def test_observe_unknown_row(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    assert run_cli("run", "--out", str(folder), "--timeout", "5").returncode == 0
    before = snapshot(folder)
    for row in ("Z99", "W01"):
        proc = run_cli("observe", str(folder), row, "--status", "PASS", "--note", "seen")
        assert_one_line_error(proc, "results.json", row)
    proc = run_cli("observe", str(tmp_path / "nowhere"), "H01", "--status", "PASS")
    assert_one_line_error(proc, "nowhere")
    assert snapshot(folder) == before


@pytest.mark.parametrize("args, option", [
    (["profile", "init", "--server", "true", "--timeout", "inf"], "--timeout"),
    (["verify", "--timeout", "inf"], "--timeout"),
    (["verify", "--timeout", "nan"], "--timeout"),
    (["proxy", "--server", "true", "--max-bytes", "99999999999999999999999"], "--max-bytes"),
    (["host", "matrix", "--timeout", "nan"], "--timeout"),
])
def test_numeric_options_of_other_commands_are_bounded(args: list[str], option: str, tmp_path: Path) -> None:
    proc = run_cli(*args, timeout=60, cwd=tmp_path)
    assert_one_line_error(proc, option)
    assert list(tmp_path.iterdir()) == [], "something was written for a command that never started"


@pytest.mark.parametrize("body, needles", [
    ('{"a": ' + "9" * 5000 + "}", ["digits"]),
    ('{"a": NaN}', ["NaN"]),
    ('{"a": 1e999}', ["out of range"]),
    ("[" * 100_000 + "]" * 100_000, ["nested too deeply"]),
])
def test_a_results_json_past_json_is_one_line(body: str, needles: list[str], tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(body, encoding="utf-8")
    for command in (["report", str(path)], ["diff", str(path), str(path)]):
        proc = run_cli(*command, timeout=60)
        assert_one_line_error(proc, str(path), *needles)


def test_a_servers_nan_and_infinity_are_written_as_strict_json(tmp_path: Path) -> None:
    """NaN and Infinity in a server's structuredContent are judged (the checks see the
    numbers) and recorded, but every JSON file of the run folder, wire.jsonl included,
    parses as strict JSON: the numbers are written as the strings of their names."""
    import json

    from faultkit import hostile

    structured = tmp_path / "nan.json"
    structured.write_text('{"total": NaN, "hits": [Infinity, -Infinity]}', encoding="utf-8")
    folder = tmp_path / "run"
    proc = run_cli("run", "--server", hostile("--structured", str(structured)), "--out", str(folder),
                   "--timeout", "5")
    assert proc.returncode == 1, proc.stderr[-2000:]

    def refuse(name):
        raise AssertionError(f"{name} written as a bare number")

    files = [folder / "results.json", *sorted((folder / "rows").glob("*.json"))]
    for path in files:
        json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    lines = (folder / "wire.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines:
        json.loads(line, parse_constant=refuse)
    assert any('"total":"NaN"' in line for line in lines), "the server's NaN is not on record"
    assert "not a number" in (folder / "results.json").read_text(encoding="utf-8") or \
        any("NaN" in path.read_text(encoding="utf-8") for path in files[1:])


@pytest.mark.parametrize("line, needles", [
    ('{"type": "user", "message": {"content": ' + "[" * 100_000 + "]" * 100_000 + "}}",
     ["transcript.jsonl:2", "nested too deeply"]),
    ('{"type": "user", "n": ' + "9" * 5000 + "}", ["transcript.jsonl:2", "digits"]),
    ('{"type": "user", "n": NaN}', ["transcript.jsonl:2", "NaN"]),
])
def test_a_transcript_past_json_is_one_line(line: str, needles: list[str], tmp_path: Path) -> None:
    import json

    folder = tmp_path / "run"
    assert run_cli("run", "--out", str(folder), "--timeout", "5").returncode == 0
    log = tmp_path / "log"
    log.mkdir()
    (log / "markers.json").write_text(json.dumps({"run": "0a1b2c3d", "markers": {"text": "MKT-0a1b2c3d"},
                                                  "pid": 1, "started_at": "2026-01-01T00:00:00.000Z"}))
    (log / "requests.jsonl").write_text("")
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text('{"type": "system", "subtype": "init", "mcp_servers": []}\n' + line + "\n")
    before = snapshot(folder)
    proc = run_cli("observe", str(folder), "--transcript", str(transcript), "--format", "claude-code-stream-json",
                   "--fixture-log", str(log))
    assert_one_line_error(proc, *needles)
    assert snapshot(folder) == before
