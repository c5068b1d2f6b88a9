"""Bad input from the user: each gets one line naming the file, line and field, exit
code 2, no traceback, and nothing written: no run folder, no server started, and an
existing run folder left byte for byte as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conftest import run_cli
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


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_profile(inputs: Path, tmp_path: Path) -> None:
    path = inputs / "badtype.yaml"
    path.chmod(0)
    try:
        proc = run_cli("run", "--profile", str(path), "--out", str(tmp_path / "run"))
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert_one_line_error(proc, str(path), "permission denied")
    assert not (tmp_path / "run").exists()


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
