"""A first real run against servers published on the registries, as a newcomer makes it:
``profile init``, then ``run`` with default options. The npm servers are pinned in
tests/servers/published/package.json, the Python ones in requirements.txt beside it, each
installed into .published-venv; .ci/run installs both.

Each run exits 0 where the server breaks no MUST and no rule the user wrote: what it breaks
of the spec's SHOULDs or of the sheet's advice is shown FAIL with its kind, and named here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from conftest import ROOT, port_holder, run_cli

PUBLISHED = ROOT / "tests" / "servers" / "published"
EVERYTHING = PUBLISHED / "node_modules" / ".bin" / "mcp-server-everything"
TIME = ROOT / ".published-venv" / "bin" / "mcp-server-time"
INSTALL = {EVERYTHING: "npm install --prefix tests/servers/published",
           TIME: "python3 -m venv .published-venv && "
                 ".published-venv/bin/pip install -r tests/servers/published/requirements.txt"}


def installed(program: Path) -> str:
    if not program.exists():
        pytest.skip(f"{program.relative_to(ROOT)} is not installed (the registry may be unreachable): "
                    f"{INSTALL[program]}")
    return str(program)


def first_run(tmp_path: Path, *target: str) -> tuple[object, dict, str]:
    """profile init then run, default options; the run's process, results.json and profile text."""
    profile = tmp_path / "profile.yaml"
    done = run_cli("profile", "init", *target, "--out", str(profile), timeout=180)
    assert done.returncode == 0, done.stderr
    ran = run_cli("run", *target, "--profile", str(profile), "--out", str(tmp_path / "run"), timeout=300)
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    return ran, results, profile.read_text(encoding="utf-8")


def rows(results: dict) -> dict[str, dict]:
    return {row["id"]: row for row in results["rows"]}


def failed(results: dict) -> dict[str, str]:
    return {row["id"]: row["failed_rule"] for row in results["rows"] if row["status"] == "FAIL"}


def summary_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if re.match(r"\d+ rows: ", line))


def assert_everything(ran, results: dict) -> None:
    got = rows(results)
    # It breaks no MUST and the user wrote no rule yet: exit 0, and what it breaks is shown.
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert results["fail_on"] == "profile"
    assert set(failed(results)) <= {"W03", "L03"} and all(r in ("should", "app") for r in failed(results).values())
    assert not any(row.get("gates") for row in results["rows"])
    # resources/read of an unknown URI: -32602 where 2025-11-25 says servers SHOULD return -32002
    assert got["L03"]["status"] == "FAIL" and got["L03"]["failed_rule"] == "should"
    assert "SHOULD return -32002" in got["L03"]["reason"]
    # an invalid cursor answered with a result (a SHOULD), no tool name given -32603 (the sheet's advice)
    assert got["W03"]["failed_rule"] == "should" and "mcp-accept-invalid-cursor" in got["W03"]["reason"]
    # nothing says that echo, the structured tool and the resources carry one document
    assert got["X01"]["status"] == "UNOBTAINABLE" and "same_document: true" in got["X01"]["reason"]
    assert got["S01"]["status"] == got["S02"]["status"] == "PASS"
    assert "shown, not failing the run" in " ".join(ran.stdout.split())


def test_everything_over_stdio(tmp_path):
    ran, results, profile = first_run(tmp_path, "--server", shlex.join([installed(EVERYTHING), "stdio"]))
    assert "name: get-structured-content" in profile and "name: get-resource-links" in profile
    assert_everything(ran, results)
    print("everything (stdio):", ran.returncode, summary_line(ran.stdout))


def test_everything_over_streamable_http(tmp_path):
    program = installed(EVERYTHING)
    with port_holder() as hold:
        port = hold()
        target = ("--server", shlex.join(["env", f"PORT={port}", program, "streamableHttp"]),
                  "--url", f"http://127.0.0.1:{port}/mcp")
        ran, results, _ = first_run(tmp_path, *target)
    assert results["conditions"]["transport"] == "Streamable HTTP"
    assert_everything(ran, results)
    print("everything (Streamable HTTP):", ran.returncode, summary_line(ran.stdout))


def test_time_server(tmp_path):
    ran, results, profile = first_run(tmp_path, "--server", installed(TIME))
    assert "name: get_current_time" in profile
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # the one thing it breaks: an invalid cursor answered with a result (a SHOULD)
    assert failed(results) == {"W03": "should"}
    assert "mcp-accept-invalid-cursor" in rows(results)["W03"]["reason"]
    assert rows(results)["S01"]["status"] == "PASS"
    print("mcp-server-time:", ran.returncode, summary_line(ran.stdout))


def test_the_readme_newcomer_path_word_for_word(tmp_path):
    """The two commands README.md gives for "your own server", with its server's command the
    only words changed, run in a fresh folder from a venv's mcp-accept."""
    server = installed(TIME)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("Then point it at your own server:"):]
    block = block[block.index("```sh\n") + 6:block.index("\n```", block.index("```sh\n"))]
    commands = block.splitlines()
    assert len(commands) == 2 and "profile init" in commands[0] and " run " in commands[1], commands
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "mcp-accept").symlink_to(Path(os.path.dirname(os.sys.executable)) / "mcp-accept")
    env = {**os.environ, "COLUMNS": "200"}
    import subprocess

    outcomes = []
    for command in commands:
        words = [server if w == "python my_server.py" else w for w in shlex.split(command)]
        outcomes.append(subprocess.run(words, cwd=tmp_path, env=env, capture_output=True, text=True,
                                       timeout=300))
    init, ran = outcomes
    assert init.returncode == 0, init.stderr
    assert (tmp_path / "my-profile.yaml").is_file()
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "W03 shown, not failing the run" in " ".join(ran.stdout.split())
