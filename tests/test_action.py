"""action.yml, the composite GitHub Action: its steps use options mcp-accept has, and its run
step, executed locally against the fixture, writes the summary and fails on a FAIL row."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import ROOT, fixture_command

ACTION = ROOT / "action.yml"


def action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def command_options(name: str) -> set[str]:
    import typer

    from mcp_accept.cli import app

    command = typer.main.get_command(app).commands[name]
    return {opt for param in command.params for opt in getattr(param, "opts", [])}


def test_the_action_is_composite_and_uses_existing_inputs_and_options():
    data = action()
    assert data["runs"]["using"] == "composite"
    inputs = set(data["inputs"])
    assert {"server", "url", "profile", "protocol", "fail-on", "args"} <= inputs
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}", text))
    assert used == inputs  # every input is used, and none that is not declared
    run_options, report_options = command_options("run"), command_options("report")
    steps = data["runs"]["steps"]
    assert all(step.get("shell") == "bash" for step in steps if "run" in step)
    assert "$GITHUB_ACTION_PATH" in steps[0]["run"]  # installs the action's own checkout
    checked = 0
    for step in steps:
        for line in step.get("run", "").splitlines():
            options = re.findall(r"(?<![\w-])--[a-z][a-z-]+", line)
            if "mcp-accept report" in line:
                assert set(options) <= report_options, line
            elif "argv" in line:
                assert set(options) <= run_options, line
            elif "pip install" in line:
                continue
            else:
                assert not options, line
            checked += len(options)
    assert checked >= 6
    for name in ("--server", "--url", "--profile", "--protocol", "--fail-on", "--out"):
        assert name in text


def run_step(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, dict, str]:
    data = action()
    step = next(s for s in data["runs"]["steps"] if s.get("id") == "run")
    values = {name: spec.get("default", "") for name, spec in data["inputs"].items()}
    values.update(inputs)
    env = {key: re.sub(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}", lambda m: values[m.group(1)], str(value))
           for key, value in step["env"].items()}
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **env, "GITHUB_STEP_SUMMARY": str(summary),
                                            "GITHUB_OUTPUT": str(output), "COLUMNS": "200",
                                            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"})
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return done, outputs, summary.read_text(encoding="utf-8") if summary.exists() else ""


def test_the_run_step_writes_the_summary_and_annotations_and_fails_on_a_fail_row(tmp_path):
    done, outputs, summary = run_step(tmp_path, server=fixture_command("--break", "total-999"),
                                      args="--timeout 20 --set 'host_product=CI runner'")
    assert done.returncode == 1, done.stderr
    assert outputs == {"run-folder": "mcp-accept-run", "exit-code": "1"}
    assert (tmp_path / "mcp-accept-run" / "results.json").is_file()
    assert "## Summary by host" in summary and "CI runner" in summary  # args split like a shell
    assert any(line.startswith("::") and "S03 FAIL" in line for line in done.stdout.splitlines())


def test_fail_on_must_lets_rules_of_the_profile_pass(tmp_path):
    done, outputs, _ = run_step(tmp_path, server=fixture_command("--break", "total-999"), **{"fail-on": "must"})
    import json

    rows = json.loads((tmp_path / "mcp-accept-run" / "results.json").read_text(encoding="utf-8"))["rows"]
    assert any(r["status"] == "FAIL" and r.get("failed_rule") == "profile" for r in rows)  # S03: the profile's rule
    broken_must = any(r["status"] == "FAIL" and r.get("failed_rule") == "must" for r in rows)
    assert done.returncode == (1 if broken_must else 0), done.stderr
    assert outputs["exit-code"] == str(done.returncode)


def test_the_sdk_input_runs_with_the_sdk_layer(tmp_path):
    import json

    def sdk_reasons(folder: Path) -> set:
        rows = json.loads((folder / "results.json").read_text(encoding="utf-8"))["rows"]
        return {c.get("reason_id") for row in rows for c in row.get("checks") or [] if c["layer"] == "sdk"}

    for name in ("default", "sdk"):
        (tmp_path / name).mkdir()
    done, _, _ = run_step(tmp_path / "default")
    assert done.returncode == 0, done.stderr
    assert sdk_reasons(tmp_path / "default" / "mcp-accept-run") == {"sdk.off"}
    done, _, _ = run_step(tmp_path / "sdk", sdk="true")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "sdk" / "mcp-accept-run" / "results.json").read_text(encoding="utf-8"))
    assert results["invocation"]["options"]["sdk"] is True
    assert "sdk.off" not in sdk_reasons(tmp_path / "sdk" / "mcp-accept-run")


def test_the_env_input_gives_the_server_the_named_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPA_ACTION_KEY", "mcpa-action-key-9a8b7c6d5e")
    monkeypatch.setenv("MCPA_ACTION_DECOY", "mcpa-action-decoy-1f2e3d4c")
    server = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'env_server.py'}"
    done, outputs, _ = run_step(tmp_path, server=server, env="MCPA_ACTION_KEY 'MCPA_ACTION_SET=with space'")
    assert done.returncode == 0, done.stderr
    stderr = (tmp_path / "mcp-accept-run" / "stderr.log").read_text(encoding="utf-8")
    assert '"MCPA_ACTION_KEY": "[REDACTED]"' in stderr and '"MCPA_ACTION_SET": "[REDACTED]"' in stderr
    assert "MCPA_ACTION_DECOY" not in stderr and "mcpa-action-key-9a8b7c6d5e" not in stderr
