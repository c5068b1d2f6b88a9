"""`host test FRAMEWORK@VERSION` and `host history FRAMEWORK --versions`: an agent framework of a
published version installed into a host cache of the test's own, with the packages its driver
imports beside it, and run by its driver. The Vercel AI SDK from npm (6.0.61 and 6.0.62, its
companions chosen by the @ai-sdk/provider-utils they share: @ai-sdk/mcp 1.0.14 and 1.0.16, whose
CHANGELOG says "support image returns in tool results") and the OpenAI Agents SDK from PyPI (the
oldest version its driver runs, and a later one), each version the one installed, its rows
held against what model.jsonl shows the model was handed. A version older than the oldest the
driver runs is one line and exit 2, before anything is installed (no registry needed).

The registries are asked once whether they answer; without them those tests skip, saying so."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hostkit import facts_of, handed_outputs, call_id_of, rows_of
from test_host_versions import mcp_accept

BEFORE, AFTER = "6.0.61", "6.0.62"  # ai: with @ai-sdk/mcp 1.0.14, and 1.0.16
AGENTS_OLDEST, AGENTS_LATER = "0.0.15", "0.23.1"  # openai-agents


def _npm_answers() -> str | None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        return "npm and node are needed to install a published AI SDK"
    try:
        done = subprocess.run(["npm", "view", f"ai@{AFTER}", "version", "--fetch-retries=0", "--fetch-timeout=10000"],
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the npm registry did not answer in 30 s"
    if done.returncode != 0 or done.stdout.strip() != AFTER:
        return f"the npm registry is not reachable or has no ai@{AFTER}: {done.stderr.strip()[-200:]}"
    return None


def _pypi_answers() -> str | None:
    import httpx

    try:
        answer = httpx.get("https://pypi.org/pypi/openai-agents/json", timeout=30)
    except httpx.HTTPError as exc:
        return f"PyPI did not answer: {exc}"
    if answer.status_code != 200 or AGENTS_OLDEST not in answer.json().get("releases", {}):
        return f"PyPI is not reachable or has no openai-agents {AGENTS_OLDEST}"
    return None


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("host-cache")


def history(tmp_path: Path, cache: Path, host: str, versions: str) -> tuple[Path, dict]:
    out = tmp_path / "history"
    done = mcp_accept(tmp_path, "host", "history", host, "--versions", versions, "--host-cache", str(cache),
                      "--out", str(out), timeout=1200)
    assert done.returncode == 0, done.stderr
    cells = {row["cell"]: row for row in json.loads((out / "history.json").read_text())["cells"]}
    assert "error" not in cells, cells.get("error")
    return out, cells


def installed_version(prefix: Path, package: str) -> str:
    return json.loads((prefix / "node_modules" / package / "package.json").read_text())["version"]


def assert_ran(folder: Path, version: str) -> dict:
    """The run recorded the version installed (read from the package, not the argument) and
    filled every row; its rows by id."""
    facts = facts_of(folder)
    rows, results = rows_of(folder)
    assert facts["version"] == version and facts["version_asked"] == version
    assert results["conditions"]["host_version"] == version
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    return rows


def test_the_ai_sdk_hands_images_as_images_from_the_release_of_its_mcp_fix(cache: Path, tmp_path: Path) -> None:
    if _npm_answers():
        pytest.skip(_npm_answers())
    out, cells = history(tmp_path, cache, "ai-sdk", f"{BEFORE},{AFTER}")
    # each version with the companions built on its @ai-sdk/provider-utils, in a folder of its own
    prefix = {v: cache / "ai-sdk" / v for v in (BEFORE, AFTER)}
    assert [installed_version(prefix[v], "ai") for v in (BEFORE, AFTER)] == [BEFORE, AFTER]
    assert [installed_version(prefix[v], "@ai-sdk/mcp") for v in (BEFORE, AFTER)] == ["1.0.14", "1.0.16"]
    assert cells["version"]["values"] == {BEFORE: BEFORE, AFTER: AFTER}
    assert cells["image"]["values"] == {BEFORE: "bytes as text (base64 in JSON)", AFTER: "bytes handed"}
    assert cells["structured_seen"]["values"] == {BEFORE: "structuredContent, text twin", AFTER: "text twin"}
    for version in (BEFORE, AFTER):
        assert_ran(out / f"ai-sdk-{version}", version)
    # what model.jsonl shows: before, the whole CallToolResult as one JSON string; after, each
    # content item a part of its own, the image an input_image of its bytes
    handed = {v: handed_outputs(out / f"ai-sdk-{v}") for v in (BEFORE, AFTER)}
    image = {v: handed[v][call_id_of(out / f"ai-sdk-{v}", "image")] for v in (BEFORE, AFTER)}
    assert isinstance(image[BEFORE], str) and json.loads(image[BEFORE])["content"][0]["type"] == "image"
    assert image[AFTER][0]["type"] == "input_image"
    assert image[AFTER][0]["image_url"].startswith("data:image/png;base64,")
    structured = handed[BEFORE][call_id_of(out / f"ai-sdk-{BEFORE}", "structured")]
    assert "structuredContent" in json.loads(structured)
    # the 6 series sends its calls back as item_reference: the stand-in read each as its call
    first = json.loads((out / f"ai-sdk-{BEFORE}" / "model.jsonl").read_text().splitlines()[2])
    assert any(item.get("type") == "item_reference" for item in first["message"]["input"])


def test_the_openai_agents_sdk_at_two_published_versions(cache: Path, tmp_path: Path) -> None:
    if _pypi_answers():
        pytest.skip(_pypi_answers())
    out, cells = history(tmp_path, cache, "openai-agents", f"{AGENTS_OLDEST},{AGENTS_LATER}")
    for version in (AGENTS_OLDEST, AGENTS_LATER):
        # a virtual environment of its own, whose interpreter ran the driver
        job = json.loads((out / f"openai-agents-{version}" / "job.json").read_text())
        assert job["binary"] == str(cache / "openai-agents" / version / "bin" / "python")
        assert_ran(out / f"openai-agents-{version}", version)
    assert cells["version"]["values"] == {AGENTS_OLDEST: AGENTS_OLDEST, AGENTS_LATER: AGENTS_LATER}
    # 0.0.15 handed the image item as the JSON of the item; the later one as an input_image
    assert cells["image"]["values"][AGENTS_OLDEST] == "bytes as text (base64 in JSON)"
    assert cells["image"]["values"][AGENTS_LATER] == "bytes handed"
    image = handed_outputs(out / f"openai-agents-{AGENTS_LATER}")[
        call_id_of(out / f"openai-agents-{AGENTS_LATER}", "image")]
    assert image[0]["type"] == "input_image"
    # 0.0.15 stops at the embedded PDF (its tool call raises on the blob's URL), so the large
    # results are never asked for; the later one hands every size whole
    assert cells["H03"]["values"] == {AGENTS_OLDEST: "UNOBTAINABLE", AGENTS_LATER: "PASS"}
    assert "not JSON serializable" in (out / f"openai-agents-{AGENTS_OLDEST}" / "host-stderr.txt").read_text()


@pytest.mark.parametrize("asked, oldest, missing", [
    ("openai-agents@0.0.14", "0.0.15", "MCPServerStreamableHttp"),
    ("ai-sdk@5.0.81", "5.0.82", "@ai-sdk/mcp"),
])
def test_a_version_older_than_the_driver_runs_is_one_line_and_exit_2(tmp_path: Path, asked: str, oldest: str,
                                                                     missing: str) -> None:
    cache = tmp_path / "cache"
    out = tmp_path / "run"
    done = mcp_accept(tmp_path, "host", "test", asked, "--host-cache", str(cache), "--out", str(out), timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    version = asked.split("@")[1]
    assert len(lines) == 1 and f"{version} is older than {oldest}" in lines[0] and missing in lines[0], done.stderr
    # refused before anything was installed or run
    assert not out.exists() and not (cache / asked.split("@")[0] / version).exists()


def test_the_stand_in_reads_an_item_reference_to_its_own_call() -> None:
    from mcp_accept.model import openai
    from mcp_accept.model.script import CallTool, ToolOffer

    first = openai.parse("/v1/responses", {"input": [{"role": "user", "content": "go"}],
                                           "tools": [{"type": "function", "name": "search_text"}]})
    call = CallTool("call_7", ToolOffer("search_text"), {"q": "MCP"}, "text")
    item = openai.respond(first, call, {}).json["output"][0]
    later = openai.parse("/v1/responses", {"input": [{"role": "user", "content": "go"},
                                                     {"type": "item_reference", "id": item["id"]},
                                                     {"type": "function_call_output", "call_id": "call_7",
                                                      "output": "found"}]})
    assert [(c.call_id, c.name, c.arguments, c.answered) for c in later.calls] == [
        ("call_7", "search_text", {"q": "MCP"}, True)]
    # a reference to no call of the stand-in's is left out, as an item of no known type
    other = openai.parse("/v1/responses", {"input": [{"type": "item_reference", "id": "fc_mcpaccept_00_%%%"}]})
    assert other.calls == []
