"""`host test HOST@VERSION`: an older published Claude Code installed from the npm registry into
a host cache of the test's own, run with the options that version has, reused by the next run
without npm; a version that does not exist is one line and exit 3; and `host diff` between two
real runs (the same version twice: nothing changed; that version and the pinned one: what did).

The registry is asked once whether it answers; without it every test here skips, saying so.
Each step is bounded by its own timeout: the install is one npm download (about 90 MB), each
run a few seconds of the host."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hostkit import FIXTURE_TOOLS, HOSTS_BIN, LARGE_SIZES, PINNED, facts_of, model_requests, observed, rows_of

OLD = "2.0.21"  # has no --tools and no --no-session-persistence (its claude --help)
PACKAGE = "@anthropic-ai/claude-code"


def _registry_answers() -> str | None:
    """Why the tests cannot run (None: npm is installed and the registry has the version)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        return "npm and node are needed to install a published Claude Code"
    try:
        done = subprocess.run(["npm", "view", f"{PACKAGE}@{OLD}", "version", "--fetch-retries=0",
                               "--fetch-timeout=10000"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the npm registry did not answer in 30 s"
    if done.returncode != 0 or done.stdout.strip() != OLD:
        return f"the npm registry is not reachable or has no {PACKAGE}@{OLD}: {done.stderr.strip()[-200:]}"
    return None


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    why = _registry_answers()
    if why:
        pytest.skip(why)
    return tmp_path_factory.mktemp("host-cache")


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    """Where the first run of the older version is written, for the next test to compare with."""
    return tmp_path_factory.mktemp("first") / "run"


def mcp_accept(tmp_path: Path, *args: str, path: str | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m mcp_accept ARGS` with a decoy HOME, which it must leave alone (but for its own cache)."""
    decoy = tmp_path / "decoy-home"
    decoy.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    env.pop("MCP_ACCEPT_HOST_CACHE", None)
    if path is not None:
        env["PATH"] = path
    done = subprocess.run([sys.executable, "-m", "mcp_accept", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
    written = sorted(str(p.relative_to(decoy)) for p in decoy.rglob("*"))
    assert all(w == ".cache" or w.startswith(".cache/mcp-accept") for w in written), written
    return done


def assert_old_version_ran(folder: Path, cache: Path) -> None:
    facts = facts_of(folder)
    rows, results = rows_of(folder)
    assert facts["version"] == OLD and facts["version_asked"] == OLD
    assert results["conditions"]["host_version"] == OLD
    assert facts["host_exit"] == 0 and not facts["timed_out"]
    # the server's tools reached the model: each row is filled from what it was handed
    assert "mcp__mcpaccept__search_text" in facts["offered_tools"]
    for row in ("H01", "H02", "H03"):
        assert rows[row]["status"] in ("PASS", "FAIL"), rows[row]["reason"]
        assert "no such tool" not in rows[row]["reason"]
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    # this version lists no --tools: the adapter did not pass it, and host-run.json says so
    assert facts["own_tools_off"].startswith("none: this version has no --tools")
    assert "Bash" in facts["offered_tools"]
    job = json.loads((folder / "job.json").read_text())
    assert "--tools" not in job["host_flags"] and "--mcp-config" in job["host_flags"]
    assert Path(job["binary"]).is_relative_to(cache / "claude-code" / OLD)


def test_an_older_published_version_is_installed_into_the_cache_and_run(cache: Path, first_run: Path,
                                                                       tmp_path: Path) -> None:
    out = first_run
    done = mcp_accept(tmp_path, "host", "test", f"claude-code@{OLD}", "--host-cache", str(cache),
                      "--out", str(out))
    assert done.returncode in (0, 1), done.stderr
    assert_old_version_ran(out, cache)
    assert (cache / "claude-code" / OLD / "node_modules" / ".bin" / "claude").exists()
    # installed whole, then renamed into place: no temporary folder is left beside it
    assert [p.name for p in (cache / "claude-code").iterdir() if not p.name.endswith((".lock", ".used"))] == [OLD]


def test_the_next_run_reuses_the_cache_without_npm(cache: Path, first_run: Path, tmp_path: Path) -> None:
    if not (first_run / "host-run.json").is_file():
        pytest.skip("the install test did not run first (run the module as a whole)")
    # an npm first on PATH that notes each install it is asked for (the cached version must ask
    # for none) and hands anything else to the real npm (Claude Code asks it for its prefix)
    stub = tmp_path / "bin"
    stub.mkdir()
    called = tmp_path / "npm-installs"
    (stub / "npm").write_text(f"#!/bin/sh\ncase \"$1\" in install) echo \"$@\" >> {called}; exit 1;; esac\n"
                              f"exec {shutil.which('npm')} \"$@\"\n")
    (stub / "npm").chmod(0o755)
    out = tmp_path / "run"
    done = mcp_accept(tmp_path, "host", "test", f"claude-code@{OLD}", "--host-cache", str(cache),
                      "--out", str(out), path=os.pathsep.join([str(stub), os.environ["PATH"]]))
    assert done.returncode in (0, 1), done.stderr
    assert not called.exists(), called.read_text()
    assert_old_version_ran(out, cache)
    # two real runs of the same version: host diff finds nothing changed
    same = mcp_accept(tmp_path, "host", "diff", str(first_run), str(out))
    assert same.returncode == 0, same.stdout
    assert "nothing changed" in same.stdout


def test_a_version_that_does_not_exist_is_one_line_and_exit_3(cache: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = mcp_accept(tmp_path, "host", "test", "claude-code@0.0.0-no-such-version", "--host-cache", str(cache),
                      "--out", str(out), timeout=120)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "No matching version" in lines[0] and "did not happen" in lines[0], done.stderr
    assert not out.exists()
    assert not (cache / "claude-code" / "0.0.0-no-such-version").exists()
    # a version that is not a version is bad input, before anything is installed
    bad = mcp_accept(tmp_path, "host", "test", "claude-code@../elsewhere", "--host-cache", str(cache))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_host_history_and_host_diff_between_versions(cache: Path, tmp_path: Path) -> None:
    """2.0.20 and 2.0.21 side by side: the package's CHANGELOG.md says 2.0.21 added "Support MCP
    `structuredContent` field in tool responses", and the run shows it: 2.0.20's model was handed
    the text twin of the structured result, 2.0.21's the structuredContent itself."""
    if not (HOSTS_BIN / "claude").exists():
        pytest.skip("Claude Code is not installed: npm install --prefix tests/hosts (see .ci/run)")
    path = os.pathsep.join([str(HOSTS_BIN), os.environ["PATH"]])
    history = tmp_path / "history"
    done = mcp_accept(tmp_path, "host", "history", "claude-code", "--versions", f"2.0.20,{OLD}",
                      "--host-cache", str(cache), "--out", str(history), path=path)
    assert done.returncode == 0, done.stderr
    table = json.loads((history / "history.json").read_text())
    cells = {row["cell"]: row for row in table["cells"]}
    assert cells["structured_seen"]["values"] == {"2.0.20": "text twin", OLD: "structuredContent"}
    assert cells["structured_seen"]["changed"] and cells["version"]["changed"]
    assert not cells["H01"]["changed"] and cells["H01"]["values"][OLD] == "PASS"
    assert "| structured_seen | text twin | structuredContent | changed |" in done.stdout
    # the same two runs through host diff, as host test folders
    done = mcp_accept(tmp_path, "host", "diff", str(history / "claude-code-2.0.20"), str(history / f"claude-code-{OLD}"),
                      "--json")
    assert done.returncode == 1, done.stderr
    diff = json.loads(done.stdout)
    changed = {c["cell"]: (c["a"], c["b"]) for c in diff["changes"]}
    assert changed["structured_seen"] == ("text twin", "structuredContent")
    assert changed["version"] == ("2.0.20", OLD)
    # two matrices, one holding the host twice: rows are told apart by version, and the version
    # measured in both is found unchanged
    matrix = tmp_path / "matrix"
    done = mcp_accept(tmp_path, "host", "matrix", "--hosts", f"claude-code@{OLD},claude-code", "--host-cache",
                      str(cache), "--out", str(matrix), "--json", path=path)
    assert done.returncode == 0, done.stderr
    done = mcp_accept(tmp_path, "host", "diff", str(history), str(matrix), "--json")
    assert done.returncode == 1, done.stderr
    diff = json.loads(done.stdout)
    assert diff["only_in_a"] == ["claude-code@2.0.20"]
    assert diff["only_in_b"] == [f"claude-code@{PINNED[PACKAGE]}"]
    assert [c for c in diff["changes"] if c["row"] == f"claude-code@{OLD}"] == []
    table = mcp_accept(tmp_path, "host", "diff", str(history), str(matrix))
    assert table.returncode == 1 and "only in A: claude-code@2.0.20" in table.stdout
    assert mcp_accept(tmp_path, "host", "diff", str(matrix), str(matrix)).returncode == 0
    # bad input: a folder of neither kind, and a matrix against a host test folder
    assert mcp_accept(tmp_path, "host", "diff", str(matrix), str(tmp_path / "decoy-home")).returncode == 2
    mixed = mcp_accept(tmp_path, "host", "diff", str(matrix), str(matrix / "claude-code"))
    assert mixed.returncode == 2 and len(mixed.stderr.strip().splitlines()) == 1, mixed.stderr


CONCURRENT = """
import sys
from pathlib import Path
from mcp_accept.hosts.adapters.base import HostAdapter
from mcp_accept.hosts.versions import installed

class Semver(HostAdapter):  # a small npm package with a program of its own, to install twice at once
    name, product, binary, npm_package = "semver", "semver", "semver", "semver"

limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
print(installed(Semver(), "7.6.0", Path(sys.argv[1]), limit=limit))
"""


def test_two_installs_of_one_version_at_once_leave_one_whole_folder(cache: Path) -> None:
    starts = [subprocess.Popen([sys.executable, "-c", CONCURRENT, str(cache)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [proc.communicate(timeout=180) for proc in starts]
    assert [proc.returncode for proc in starts] == [0, 0, 0], [err for _, err in outs]
    found = {out.strip() for out, _ in outs}
    assert found == {str(cache / "semver" / "7.6.0" / "node_modules" / ".bin" / "semver")}
    done = subprocess.run([found.pop(), "1.2.3"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == "1.2.3"
    assert [p.name for p in (cache / "semver").iterdir() if not p.name.endswith((".lock", ".used"))] == ["7.6.0"]


def test_bisect_finds_the_first_version_that_handed_structured_content(cache: Path, tmp_path: Path) -> None:
    """Five published versions, 2.0.19 to 2.0.23: bisection runs the two ends and two between
    (2.0.22 is never run), and names 2.0.21, the version whose CHANGELOG.md claims the change."""
    out = tmp_path / "bisect"
    done = mcp_accept(tmp_path, "host", "history", "claude-code", "--range", "2.0.19..2.0.23", "--bisect",
                      "structured_seen", "--host-cache", str(cache), "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr
    table = json.loads((out / "history.json").read_text())
    found = table["bisect"]
    assert [(s["version"], s["value"]) for s in found["ran"]] == [
        ("2.0.19", "text twin"), ("2.0.23", "structuredContent"), ("2.0.21", "structuredContent"),
        ("2.0.20", "text twin")]
    assert found["first_with_b_value"] == "2.0.21" and found["last_before"] == "2.0.20"
    assert found["runs"] == 4 and found["versions_in_range"] == 5
    # the table holds the versions run, in the registry's order
    assert table["versions"] == ["2.0.19", "2.0.20", "2.0.21", "2.0.23"]
    cells = {row["cell"]: row for row in table["cells"]}
    assert cells["structured_seen"]["values"]["2.0.23"] == "structuredContent"  # and it stayed
    assert "first version with 2.0.23's value (structuredContent): 2.0.21" in done.stdout
    assert "3. 2.0.21: structuredContent" in done.stderr  # each run said as it ends
    assert "2.0.21" in (out / "history.html").read_text() and (out / "matrix.json").is_file()
    # the same value at both ends: said, two runs, exit 0
    same = tmp_path / "same"
    done = mcp_accept(tmp_path, "host", "history", "claude-code", "--range", "2.0.21..2.0.23", "--bisect",
                      "structured_seen", "--host-cache", str(cache), "--out", str(same))
    assert done.returncode == 0, done.stderr
    found = json.loads((same / "history.json").read_text())["bisect"]
    assert found["same_at_both_ends"] and found["runs"] == 2
    assert "is the same at 2.0.21 and 2.0.23 (structuredContent): nothing to bisect" in done.stdout


def test_bisect_skips_a_version_that_cannot_run_for_its_neighbour(cache: Path, tmp_path: Path) -> None:
    """2.0.21 in the cache is a program that fails: bisection skips it, runs 2.0.22 beside it,
    and, as git bisect after a skip, can say only that the change is in 2.0.21 or 2.0.22."""
    mine = tmp_path / "cache"
    (mine / "claude-code").mkdir(parents=True)
    for version in ("2.0.19", "2.0.20", "2.0.22", "2.0.23"):
        if (cache / "claude-code" / version).is_dir():  # installed by the tests before: reused
            (mine / "claude-code" / version).symlink_to(cache / "claude-code" / version)
    broken = mine / "claude-code" / "2.0.21" / "node_modules" / ".bin" / "claude"
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\necho 'this install is broken' >&2\nexit 1\n")
    broken.chmod(0o755)
    out = tmp_path / "bisect"
    done = mcp_accept(tmp_path, "host", "history", "claude-code", "--range", "2.0.19..2.0.23", "--bisect",
                      "structured_seen", "--host-cache", str(mine), "--out", str(out), timeout=900)
    assert done.returncode == 3, done.stderr
    found = json.loads((out / "history.json").read_text())["bisect"]
    assert [s["version"] for s in found["ran"]] == ["2.0.19", "2.0.23", "2.0.21", "2.0.22", "2.0.20"]
    assert found["ran"][2]["error"] and found["ran"][3]["value"] == "structuredContent"
    assert found["candidates"] == ["2.0.21", "2.0.22"] and "first_with_b_value" not in found
    assert "2.0.21 skipped" in done.stderr
    assert "is one of 2.0.21, 2.0.22" in done.stdout


def test_an_install_past_the_bound_removes_the_least_recently_used_version(tmp_path: Path) -> None:
    """The cache bounded to 1 MiB holds an older version of 1 MiB: installing semver 7.6.0 (some
    tens of KiB from npm) passes the bound, and the older version goes, not the new one."""
    if _registry_answers():
        pytest.skip(_registry_answers())
    mine = tmp_path / "cache"
    old = mine / "semver" / "5.0.0"
    (old / "node_modules").mkdir(parents=True)
    (old / "node_modules" / "blob").write_bytes(b"x" * (1 << 20))
    done = subprocess.run([sys.executable, "-c", CONCURRENT, str(mine), str(1 << 20)], capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert not old.exists() and Path(done.stdout.strip()).is_file()
    from mcp_accept.hosts.versions import cache_entries

    assert [(e.version, e.size < 1 << 20) for e in cache_entries(mine)] == [("7.6.0", True)]


def measured_history(tmp_path: Path, cache: Path, host: str, versions: str) -> tuple[Path, dict]:
    """`host history HOST --versions V1,V2` run; its folder and its cells by name, each version measured."""
    out = tmp_path / "history"
    done = mcp_accept(tmp_path, "host", "history", host, "--versions", versions, "--host-cache", str(cache),
                      "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr
    cells = {row["cell"]: row for row in json.loads((out / "history.json").read_text())["cells"]}
    assert "error" not in cells, cells.get("error")
    return out, cells


def test_resource_link_reaches_the_model_from_1_0_44_as_its_changelog_claims(cache: Path, tmp_path: Path) -> None:
    """Claude Code's CHANGELOG dates resource_link support to 1.0.44. Measured: 1.0.43 handed its
    model an empty result for the fixture's resource_link, so the model had no URI to read;
    1.0.44 handed "[Resource link: NAME] URI", and the model read the body with the host's
    ReadMcpResourceTool. 1.0.43 has no --strict-mcp-config (the adapter leaves it out), and
    1.0.44 repeats its first call in every request (counted once, so each form keeps its result)."""
    out, cells = measured_history(tmp_path, cache, "claude-code", "1.0.43,1.0.44")
    assert cells["H02"]["values"] == {"1.0.43": "FAIL", "1.0.44": "PASS"} and cells["H02"]["changed"]
    assert cells["link_body_via_tool"]["values"] == {"1.0.43": None, "1.0.44": "whole"}
    # what did not change: the structured result's text twin, the embedded resource whole
    assert cells["structured_seen"]["values"] == {"1.0.43": "text twin", "1.0.44": "text twin"}
    assert cells["embedded"]["values"] == {"1.0.43": "whole", "1.0.44": "whole"}
    assert cells["H01"]["values"] == {"1.0.43": "PASS", "1.0.44": "PASS"}
    handed = json.loads((out / "claude-code-1.0.44" / "rows" / "H02.json").read_text())["reason"]
    assert "[Resource link: search-demo-v1.json] search://results/demo-v1" in handed
    old = json.loads((out / "claude-code-1.0.43" / "job.json").read_text())
    assert "--strict-mcp-config" not in old["host_flags"] and "--mcp-config" in old["host_flags"]


def test_gemini_cli_hands_images_and_embedded_resources_from_0_1_19_as_its_source_says(cache: Path,
                                                                                      tmp_path: Path) -> None:
    """A second host: Gemini CLI's pull request 5529 ("Parse Multimodal MCP Tool responses")
    turned image items into inlineData parts, and 0.1.19's mcp-tool.js has it where 0.1.16's
    passes on text only. Measured: 0.1.16's model got the image as text only, no embedded
    resource and no PDF; 0.1.19's got the image's and the PDF's bytes beside the result and the
    embedded resource whole. Both are driven as that series needs (--yolo, flat settings, the
    server's tools under their bare names); the pinned version is the third, in its own test."""
    out, cells = measured_history(tmp_path, cache, "gemini-cli", "0.1.16,0.1.19")
    assert cells["image"]["values"] == {"0.1.16": "text only", "0.1.19": "bytes attached beside the result"}
    assert cells["embedded"]["values"] == {"0.1.16": "absent", "0.1.19": "whole"}
    assert cells["blob"]["values"] == {"0.1.16": "not handed", "0.1.19": "bytes attached beside the result"}
    assert cells["H01"]["values"] == {"0.1.16": "FAIL", "0.1.19": "PASS"}
    assert cells["tool_names"]["values"] == {"0.1.16": "{tool}", "0.1.19": "{tool}"}
    job = json.loads((out / "gemini-cli-0.1.16" / "job.json").read_text())
    assert "--yolo" in job["host_flags"] and "--approval-mode" not in job["host_flags"]


def gemini_handed(folder: Path) -> tuple[list[str], list[tuple[str, object]]]:
    """What a Gemini CLI run's last model request held: the tools it offered, and its parts in
    order, each a call (``call``, the tool's name), a result (``result``, its output) or a media
    part (``media``, its MIME type)."""
    last = model_requests(folder)[-1]["message"]
    offered = [f["name"] for t in last.get("tools") or [] for f in t.get("functionDeclarations") or []]
    parts = []
    for part in (p for c in last["contents"] for p in c["parts"]):
        if "functionCall" in part:
            parts.append(("call", part["functionCall"]["name"]))
        elif "functionResponse" in part:
            parts.append(("result", part["functionResponse"]["response"].get("output")))
        elif "inlineData" in part:
            parts.append(("media", part["inlineData"]["mimeType"]))
    return offered, parts


def test_gemini_cli_0_10_names_tools_bare_and_from_0_33_truncates_large_mcp_results(cache: Path,
                                                                                    tmp_path: Path) -> None:
    """Gemini CLI before 0.33.0 offers the server's tools under their bare names, and 0.10.0's
    --output-format takes text and json only (its --help lists the choices): 0.10.0 runs with
    neither mcp_ names nor stream-json, and every row is what its model.jsonl holds. 0.33.0 names
    them mcp_mcpaccept_*, and truncates an MCP tool's large text result to a file with a head and
    tail (pull request 19365, "truncate large MCP tool output", in 0.33.0's scheduler/
    tool-executor.js, not 0.32.1's): bisected to 0.33.0 over 0.24.0..0.33.0 (docs/hosts.md)."""
    out, cells = measured_history(tmp_path, cache, "gemini-cli", "0.10.0,0.33.0")
    old = out / "gemini-cli-0.10.0"
    job = json.loads((old / "job.json").read_text())
    assert {"--output-format", "--output-format=text", "--output-format=json"} <= set(job["host_flags"])
    assert "--output-format=stream-json" not in job["host_flags"]
    facts = facts_of(old)
    assert facts["host_exit"] == 0 and facts["version"] == "0.10.0" and facts["connects"]["other"] == {}
    assert cells["tool_names"]["values"] == {"0.10.0": "{tool}", "0.33.0": "mcp_mcpaccept_{tool}"}
    rows, _ = rows_of(old)
    offered, parts = gemini_handed(old)
    # the server's tools under their bare names, and none of the host's own
    assert sorted(offered) == sorted(FIXTURE_TOOLS) == sorted(facts["offered_tools"])
    results = {}
    for (kind, name), (next_kind, output) in zip(parts, parts[1:]):
        if kind == "call" and next_kind == "result":
            results.setdefault(name, []).append(output)
    # H01: each form's result handed whole, the fixture's marker in it
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    assert "[MKT-" in results["search_text"][0] and "[MKE-" in results["search_embedded"][0]
    # H02: the resource_link handed as a line of text, and no tool to read it
    assert rows["H02"]["status"] == "FAIL"
    assert f"handed: {results['search_link'][0]!r}" in rows["H02"]["reason"]
    assert results["search_link"][0] == "Resource Link: search-demo-v1.json at search://results/demo-v1"
    # H03: every size whole, as long as asked
    assert rows["H03"]["status"] == "PASS", rows["H03"]["reason"]
    assert [len(text) for text in results["search_large"]] == list(LARGE_SIZES)
    # the image's bytes as a media part right after its result
    image = parts.index(("call", "search_image"))
    assert parts[image + 2] == ("media", "image/png")
    # 0.33.0: the result saved to a file from 65536 bytes, 32768 still whole
    assert cells["large_bracket"]["values"] == {"0.10.0": None, "0.33.0": [32768, 65536]}
    assert cells["H03"]["values"] == {"0.10.0": "PASS", "0.33.0": "FAIL"}
    sizes = {s["bytes"]: s for s in observed(out / "gemini-cli-0.33.0", "H03")["sizes"]}
    assert sizes[32768]["handling"] == "whole"
    assert sizes[65536]["handling"] == "saved to a file with a head-and-tail preview", sizes[65536]
    _, new_parts = gemini_handed(out / "gemini-cli-0.33.0")
    handed = [o for (k, n), (_, o) in zip(new_parts, new_parts[1:]) if (k, n) == ("call", "mcp_mcpaccept_search_large")]
    assert len(handed[2]) == 32768 and len(handed[3]) < 65536


CHART_PROFILE = """profile: shapes-chart
tools:
  text: {name: summary_with_preface}
  structured: {name: stats_chart}
  embedded: {name: report_json, mime_type: application/json}
  link: {name: report_json_link, body: bytes}
reference: {quarter: Q3, growth_pct: 12, regions: [north, south], total: 2}
unknown_uri: "files://missing.pdf"
"""


def test_an_image_beside_structured_content_reaches_the_model_from_2_1_128(cache: Path, tmp_path: Path) -> None:
    """Claude Code's changelog says 2.1.128 fixed images dropped beside structuredContent. The
    fixture's image tool has no structuredContent, so this runs a server whose structured tool
    answers the twin, a PNG and structuredContent together: 2.1.126's model was handed the
    structuredContent alone, 2.1.128's the PNG's bytes and the structuredContent."""
    profile = tmp_path / "chart.yaml"
    profile.write_text(CHART_PROFILE)
    out = tmp_path / "history"
    server = f"{sys.executable} {Path(__file__).parent / 'servers' / 'shapes_server.py'}"
    done = mcp_accept(tmp_path, "host", "history", "claude-code", "--versions", "2.1.126,2.1.128", "--server", server,
                      "--profile", str(profile), "--host-cache", str(cache), "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr
    cells = {row["cell"]: row for row in json.loads((out / "history.json").read_text())["cells"]}
    assert cells["image"]["values"] == {"2.1.126": "not handed", "2.1.128": "bytes handed"}
    assert cells["structured"]["values"] == {"2.1.126": "whole", "2.1.128": "whole"}
    blocks = {v: json.loads((out / f"claude-code-{v}" / "rows" / "H01.json").read_text())
              ["observed"]["forms"]["structured"]["exact"]["block"]["content"] for v in ("2.1.126", "2.1.128")}
    assert isinstance(blocks["2.1.126"], str) and json.loads(blocks["2.1.126"])["quarter"] == "Q3"
    assert [part["type"] for part in blocks["2.1.128"]] == ["image", "text"]
