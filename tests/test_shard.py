"""Sharding a fleet (`run --targets FILE --shard K/N`) and merging the shards in `report`.

The last test runs the GitHub Actions workflow of docs/ci.md locally: its `run:` steps, for
every shard of the matrix and then the merge job, and checks the merged report against one
unsharded run of the same targets file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, fixture_command, run_cli
from mcp_accept.errors import InputError
from mcp_accept.running.execute import RunOptions
from mcp_accept.running.fleet import load_targets
from mcp_accept.running.shard import parse_shard, resolve_shard, select, shard_from_env

CI_DOC = ROOT / "docs" / "ci.md"


def targets_file(path: Path, entries: list[str]) -> Path:
    path.write_text("targets:\n" + "".join(f"  - {e}\n" for e in entries), encoding="utf-8")
    return path


@pytest.mark.parametrize("n", range(1, 8))
def test_shards_of_twenty_targets_are_complete_disjoint_and_balanced(tmp_path, n):
    names = [f"server-{i:02d}" for i in range(20)]
    file = targets_file(tmp_path / "targets.yaml", [f"{{name: {name}, server: python {name}.py}}" for name in names])
    targets = load_targets(file, RunOptions(), tmp_path / "out")
    shards = [[t.name for t in select(targets, (k, n))] for k in range(1, n + 1)]
    flat = [name for shard in shards for name in shard]
    assert sorted(flat) == names  # complete
    assert len(flat) == len(set(flat))  # each target in exactly one shard
    assert max(map(len, shards)) - min(map(len, shards)) <= 1  # balanced
    # The same file gives the same shards again, in another process with another hash seed.
    assert [[t.name for t in select(load_targets(file, RunOptions(), tmp_path / "o2"), (k, n))]
            for k in range(1, n + 1)] == shards
    probe = ("import json, sys; from pathlib import Path; from mcp_accept.running.execute import RunOptions;"
             "from mcp_accept.running.fleet import load_targets; from mcp_accept.running.shard import select;"
             f"t = load_targets(Path({str(file)!r}), RunOptions(), Path('o'));"
             f"print(json.dumps([[x.name for x in select(t, (k, {n}))] for k in range(1, {n + 1})]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": str(1000 + n)})
    assert json.loads(done.stdout) == shards
    # Targets keep their place in the file: the merge puts them back in that order.
    assert sorted(t.index for k in range(1, n + 1) for t in select(targets, (k, n))) == list(range(20))


def test_shard_values_and_the_ci_variables():
    assert parse_shard("2/5") == (2, 5)
    assert resolve_shard(None) is None
    assert resolve_shard("auto", {"MCP_ACCEPT_SHARD": "3/4"}) == (3, 4)
    assert resolve_shard("auto", {"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"}) == (2, 3)  # GitLab, 1-based
    assert resolve_shard("auto", {"MCP_ACCEPT_SHARD": "1/2", "CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"}) == (1, 2)
    assert shard_from_env({}) == (1, 1)
    for bad in ("0/3", "4/3", "1/0", "two/3", "", "1-3"):
        with pytest.raises(InputError) as err:
            parse_shard(bad)
        assert err.value.field == "--shard"
    with pytest.raises(InputError) as err:
        resolve_shard("auto", {"MCP_ACCEPT_SHARD": "5/2"})
    assert err.value.field == "MCP_ACCEPT_SHARD"


def test_shard_option_errors_are_one_line(tmp_path):
    done = run_cli("run", "--shard", "1/2")
    assert done.returncode == 2 and "--shard goes with --targets" in done.stderr
    file = targets_file(tmp_path / "t.yaml", ["{name: a}"])
    done = run_cli("run", "--targets", str(file), "--shard", "3/2", "--out", str(tmp_path / "o"))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "--shard" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_shard_with_no_targets_writes_an_empty_fleet(tmp_path):
    file = targets_file(tmp_path / "t.yaml", [f"{{name: only, server: {json.dumps(fixture_command())}}}"])
    done = run_cli("run", "--targets", str(file), "--shard", "2/2", "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    index = json.loads((tmp_path / "o" / "fleet.json").read_text(encoding="utf-8"))
    assert index["targets"] == [] and index["shard"] == "2/2"


# -- the workflow of docs/ci.md, run locally -----------------------------------------------------


def workflow() -> dict:
    text = CI_DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- ci-workflow: github -->\s*```yaml\n(.*?)```", text, re.S)
    assert match, "docs/ci.md has no block marked <!-- ci-workflow: github -->"
    return yaml.safe_load(match.group(1))


def expand(text: str, context: dict) -> str:
    def value(match):
        key = match.group(1).strip()
        assert key in context, f"the workflow uses ${{{{ {key} }}}}, which the local run does not provide"
        return str(context[key])

    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", value, text)


def run_job(job: dict, workspace: Path, context: dict, env: dict) -> list[int]:
    """The job's run: steps with bash -e, in order, as the runner would; `uses:` steps are the
    runner's own (checkout, artifacts: one shared folder stands for them); `pip install` is done.
    A failed step skips the later steps that lack `if: always()`. Returns each step's code."""
    job_env = {k: expand(str(v), context) for k, v in (job.get("env") or {}).items()}
    codes, failed = [], False
    for step in job["steps"]:
        if "run" not in step or step["run"].strip().startswith("pip install"):
            continue
        if failed and "always()" not in str(step.get("if", "")):
            continue
        script = expand(step["run"], context)
        done = subprocess.run(["bash", "-e", "-c", script], cwd=workspace, capture_output=True, text=True,
                              env={**env, **job_env}, timeout=600)
        assert "Traceback" not in done.stderr, done.stderr
        codes.append(done.returncode)
        failed = failed or done.returncode != 0
    return codes


def report_rows(*args: str, cwd: Path) -> list[tuple]:
    done = run_cli("report", *args, "--format", "json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    return [(Path(run["folder"]).name,
             [(row["id"], row["status"], row.get("reason")) for row in run["results"]["rows"]])
            for run in runs]


def test_the_ci_workflow_of_the_docs_merges_shards_into_the_unsharded_result(tmp_path):
    flow = workflow()
    shard_job, merge_job = flow["jobs"]["shard"], flow["jobs"]["merge"]
    assert merge_job["needs"] == "shard" and "always()" in merge_job["if"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    targets_file(workspace / "mcp-targets.yaml", [
        f"{{name: good, server: {json.dumps(fixture_command())}}}",
        f"{{name: total-999, server: {json.dumps(fixture_command('--break', 'total-999'))}}}",
        f"{{name: size-wrong, server: {json.dumps(fixture_command('--break', 'size-wrong'))}}}",
        f"{{name: good-legacy, server: {json.dumps(fixture_command())}, protocol: '2025-11-25'}}",
        f"{{name: unknown-uri, server: {json.dumps(fixture_command('--break', 'unknown-uri-empty'))}}}",
    ])
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "COLUMNS": "200"}
    env.pop("MCP_ACCEPT_SHARD", None)
    for k in shards:
        codes = run_job(shard_job, workspace, {"matrix.shard": k}, env)
        assert codes and all(code in (0, 1) for code in codes), codes  # 1: a row failed, as it should
    assert sorted(p.name for p in (workspace / "runs").iterdir()) == [f"shard-{k}" for k in shards]
    assert run_job(merge_job, workspace, {}, env) == [0]

    # One unsharded run of the same file gives the same rows, target by target, in the same order.
    done = run_cli("run", "--targets", "mcp-targets.yaml", "--out", "all", cwd=workspace)
    assert done.returncode == 1, done.stderr
    merged = report_rows(*sorted(str(p) for p in (workspace / "runs").iterdir()), cwd=workspace)
    assert [name for name, _ in merged] == ["good", "total-999", "size-wrong", "good-legacy", "unknown-uri"]
    assert merged == report_rows("all", cwd=workspace)

    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "## Summary by run" in summary and summary.count("runs/shard-") >= 5  # no host recorded
    from junitparser import JUnitXml

    suites = list(JUnitXml.fromfile(str(workspace / "mcp-accept.xml")))
    assert len(suites) == 5
    html = (workspace / "mcp-accept.html").read_text(encoding="utf-8")
    assert html.count('class="run"') == 5


def test_the_gitlab_example_shards_with_parallel_and_merges_with_junit():
    text = CI_DOC.read_text(encoding="utf-8")
    block = re.search(r"### Example: GitLab CI\s*```yaml\n(.*?)```", text, re.S)
    assert block, "docs/ci.md has no GitLab CI example"
    jobs = yaml.safe_load(block.group(1))
    shard_job, merge_job = jobs["mcp-accept"], jobs["mcp-accept-report"]
    assert isinstance(shard_job["parallel"], int) and shard_job["parallel"] > 1
    assert any("--shard auto" in line and "$CI_NODE_INDEX" in line for line in shard_job["script"])
    assert merge_job["needs"] == ["mcp-accept"]
    junit = merge_job["artifacts"]["reports"]["junit"]
    assert any(f"--format junit --out {junit}" in line for line in merge_job["script"])
