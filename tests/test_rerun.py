"""A run folder says how to repeat it: results.json's ``invocation`` and ``mcp-accept rerun``.

Each run here is made as a user would make it (the CLI, a real fixture process, a real HTTP
server on 127.0.0.1), then repeated from its folder alone; the rerun must give the same
verdicts and record the same invocation.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, fixture_command, load_results, run_cli, start_http_server, stop_http_server, FIXTURE

from mcp_accept.inputs.results import validate_results

SHIPPED_PROFILE = ROOT / "sheets" / "profile-fixture.yaml"
REFERENCE = {"query": "MCP", "total": 2, "hits": [
    {"id": "d1", "title": "MCP guide", "snippet": "Tool results contain data."},
    {"id": "d2", "title": "Report design", "snippet": "Use explicit resource URIs."}]}


def verdicts(results: dict) -> dict[str, tuple]:
    return {row["id"]: (row["status"], row.get("failed_rule")) for row in results["rows"]}


def same_invocation(first: dict, again: dict, original: Path) -> None:
    again = dict(again)
    assert again.pop("rerun_of") == str(original.resolve())
    assert again == first


def write_profile(folder: Path, tool: str = "search_text", total: int = 2) -> Path:
    """A profile of the fixture whose reference lives in a sibling folder (../refs)."""
    (folder / "profiles").mkdir(parents=True, exist_ok=True)
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "expected.json").write_text(json.dumps({**REFERENCE, "total": total}), encoding="utf-8")
    path = folder / "profiles" / "mine.yaml"
    path.write_text(
        "profile: mine\n"
        "tools:\n"
        f"  text: {{name: {tool}, arguments: {{q: MCP}}}}\n"
        "  structured: {name: search_structured, arguments: {q: MCP}}\n"
        "  embedded: {name: search_embedded, arguments: {q: MCP}}\n"
        "  link: {name: search_link, arguments: {q: MCP}}\n"
        "reference_file: ../refs/expected.json\n"
        "guessed:\n"
        "  - tools.text.arguments.q\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("rerun")
    profile = write_profile(base / "inputs")
    made = {
        "fixture": ("run",),
        "broken": ("run", "--server", fixture_command("--break", "total-999"), "--fail-on", "must",
                   "--set", "S02.mode=exact", "--timeout", "8", "--max-rounds", "3"),
        "profile": ("run", "--server", fixture_command(), "--profile", str(profile)),
    }
    folders = {}
    for name, args in made.items():
        folders[name] = base / name
        done = run_cli(*args, "--out", str(folders[name]), cwd=base)
        assert done.returncode in (0, 1), done.stderr
        folders[name + ":exit"] = done.returncode
    folders["inputs"] = base / "inputs"
    return folders


def test_the_invocation_is_recorded_and_valid(runs):
    results = validate_results(runs["broken"] / "results.json")  # the schema holds the new field
    invocation = results["invocation"]
    assert invocation["target"]["server"] == fixture_command("--break", "total-999")
    assert invocation["target"]["working_dir"] == str(runs["broken"].parent.resolve())
    assert invocation["options"]["fail_on"] == "must" and invocation["options"]["timeout"] == 8
    assert invocation["options"]["sets"] == ["S02.mode=exact"] and invocation["options"]["max_rounds"] == 3
    assert invocation["sheet"]["shipped"] and invocation["sheet"]["path"] == "default.yaml"
    assert "content" not in invocation["sheet"]  # a shipped sheet is named, not copied
    shipped = SHIPPED_PROFILE.read_bytes()
    assert invocation["profile"]["sha256"] == hashlib.sha256(shipped).hexdigest()
    assert invocation["profile"]["content"] == shipped.decode("utf-8")
    assert invocation["profile"]["guessed"] == []
    assert invocation["mcp_accept_version"] == results["tool"]["version"]
    assert {"wire", "type", "meaning"} <= set(invocation["layers"])

    own = load_results(runs["profile"])["invocation"]["profile"]
    assert own["path"] == str((runs["inputs"] / "profiles" / "mine.yaml").resolve())
    assert own["guessed"] == ["tools.text.arguments.q"]  # the notes a person has not checked yet
    assert own["references"][0]["path"] == "../refs/expected.json"
    assert json.loads(own["references"][0]["content"]) == REFERENCE


@pytest.mark.parametrize("name", ["fixture", "broken"])
def test_a_rerun_gives_the_same_verdicts_and_invocation(runs, name, tmp_path):
    again = tmp_path / "again"
    done = run_cli("rerun", str(runs[name]), "--out", str(again), cwd=tmp_path)
    first = load_results(runs[name])
    assert done.returncode == runs[name + ":exit"], done.stderr  # --fail-on must: a rule of the sheet exits 0
    assert "warning" not in done.stderr, done.stderr
    second = validate_results(again / "results.json")
    assert verdicts(second) == verdicts(first)
    if name == "broken":
        assert verdicts(second)["S03"][0] == "FAIL"  # the break mode was repeated, not dropped
        assert done.returncode == 0  # and so was --fail-on must (S03 breaks a rule of the sheet)
    same_invocation(first["invocation"], second["invocation"], runs[name])


def test_a_rerun_uses_the_recorded_profile_not_the_file_changed_since(runs, tmp_path):
    copy = tmp_path / "inputs"
    shutil.copytree(runs["inputs"], copy)
    original = load_results(runs["profile"])
    # the profile and its reference change on disk after the run: a tool that does not exist,
    # a reference that disagrees with the server
    write_profile(runs["inputs"], tool="no_such_tool", total=3)
    try:
        changed = tmp_path / "changed"
        done = run_cli("run", "--server", fixture_command(), "--profile",
                       str(runs["inputs"] / "profiles" / "mine.yaml"), "--out", str(changed))
        assert verdicts(load_results(changed)) != verdicts(original), "the edit must matter for this test"
        again = tmp_path / "again"
        done = run_cli("rerun", str(runs["profile"]), "--out", str(again))
        assert done.returncode in (0, 1), done.stderr
        second = load_results(again)
        assert verdicts(second) == verdicts(original)
        same_invocation(original["invocation"], second["invocation"], runs["profile"])
    finally:
        shutil.rmtree(runs["inputs"])
        shutil.copytree(copy, runs["inputs"])


def test_a_folder_that_cannot_be_repeated_is_one_line(runs, tmp_path):
    done = run_cli("rerun", str(tmp_path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "not a run folder written by mcp-accept" in done.stderr
    older = tmp_path / "older"
    shutil.copytree(runs["fixture"], older)
    results = load_results(older)
    del results["invocation"]
    (older / "results.json").write_text(json.dumps(results), encoding="utf-8")
    done = run_cli("rerun", str(older))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "invocation" in done.stderr and "records no invocation" in done.stderr
    done = run_cli("rerun", str(runs["fixture"]), "--out", str(runs["fixture"]))
    assert done.returncode == 2 and "--out" in done.stderr
    edited = tmp_path / "edited"  # a record whose profile is not the one its hash names
    shutil.copytree(runs["fixture"], edited)
    results = load_results(edited)
    results["invocation"]["profile"]["content"] += "\n# changed by hand\n"
    (edited / "results.json").write_text(json.dumps(results), encoding="utf-8")
    done = run_cli("rerun", str(edited), "--out", str(tmp_path / "never"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "SHA-256" in done.stderr and not (tmp_path / "never").exists()


def test_secrets_are_not_recorded_and_are_asked_for_again(tmp_path):
    header_secret, query_secret, env_secret = "sekret-bearer-4411", "query-token-7733", "env-value-9922"
    proc, url = start_http_server(str(FIXTURE), "--http", "0")
    try:
        secret_url = f"{url}?token={query_secret}"
        env = {"FIXTURE_KEY": env_secret}
        first = tmp_path / "first"
        done = run_cli("run", "--url", secret_url, "--header", f"Authorization: Bearer {header_secret}",
                       "--header", "X-Key: env:FIXTURE_KEY", "--out", str(first), env=env)
        assert done.returncode == 0, done.stderr
        text = (first / "results.json").read_text(encoding="utf-8")
        for secret in (header_secret, query_secret, env_secret):
            assert secret not in text
        target = json.loads(text)["invocation"]["target"]
        assert target["headers"] == [{"name": "Authorization"}, {"name": "X-Key", "env": "FIXTURE_KEY"}]
        assert target["url"] == f"{url}?token=[REDACTED]"

        # the masked URL and the header value were never recorded: each is asked for, one line
        done = run_cli("rerun", str(first), "--out", str(tmp_path / "no"), env=env)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert "--url" in done.stderr
        done = run_cli("rerun", str(first), "--url", secret_url, "--out", str(tmp_path / "no"), env=env)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert "Authorization" in done.stderr and "--header" in done.stderr
        assert not (tmp_path / "no").exists()

        again = tmp_path / "again"
        done = run_cli("rerun", str(first), "--url", secret_url, "--header",
                       f"Authorization: Bearer {header_secret}", "--out", str(again), env=env)
        assert done.returncode == 0, done.stderr
        assert "warning" not in done.stderr, done.stderr
        text = (again / "results.json").read_text(encoding="utf-8")
        for secret in (header_secret, query_secret, env_secret):
            assert secret not in text
        same_invocation(load_results(first)["invocation"], json.loads(text)["invocation"], first)
        assert verdicts(json.loads(text)) == verdicts(load_results(first))
    finally:
        stop_http_server(proc)
