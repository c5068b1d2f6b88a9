"""What became of a result's image: `host matrix` over real hosts (Continue CLI, Cline CLI, Codex
CLI, and Google ADK where its venv is installed) with the fixture's image tool, each label held
against the request the host sent its stand-in model (model.jsonl).

Continue and Cline hand their model the MCP result as JSON text with the PNG's base64 inside a
string; Google ADK puts it inside the function response's JSON; Codex hands an ``input_image``
item. The first three are "bytes as text (base64 in JSON)", Codex "bytes handed", and the advice
under the table says which hosts are which.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from hostkit import HOSTS_BIN, ROOT, facts_of, host_bin, image_stretch, model_requests, processes_mentioning

from mcp_accept.output.host_matrix import AS_TEXT
from mcp_accept.reasons import Reason

AS_TEXT_HOSTS = ("continue", "cline")
ADK_BIN = ROOT / "tests" / "hosts" / "google-adk-venv" / "bin"


def holders(value, needle: str, path: str = ""):
    """(path, string) for each string of a request that holds the needle."""
    if isinstance(value, str):
        if needle in value:
            yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from holders(inner, needle, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from holders(inner, needle, f"{path}[{index}]")


def first_request_with(folder, needle: str) -> dict:
    return next(e["message"] for e in model_requests(folder) if needle in json.dumps(e["message"]))


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    hosts = [*AS_TEXT_HOSTS, "codex"]
    for host in hosts:
        host_bin(host)
    if (ADK_BIN / "python").exists():
        hosts.append("google-adk")
    base = tmp_path_factory.mktemp("media")
    decoy = base / "decoy-home"
    decoy.mkdir()
    out = base / "matrix"
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"),
               PATH=os.pathsep.join([str(HOSTS_BIN), str(ADK_BIN), os.environ["PATH"]]))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--hosts", ",".join(hosts),
                           "--large-sizes", "1024", "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr
    rows = {row["host"]: row for row in json.loads(done.stdout)["rows"]}
    assert sorted(rows) == sorted(hosts), rows
    yield out, rows
    assert not processes_mentioning(str(out)), "a process of the run outlived it"


def test_base64_inside_json_text_is_labelled_as_text(matrix):
    out, rows = matrix
    for host in [h for h in rows if h != "codex"]:
        folder = out / host
        needle = image_stretch(folder)
        request = first_request_with(folder, needle)
        found = list(holders(request, needle))
        # model.jsonl: the base64 sits inside a string that is the result's JSON text, or
        # (Google ADK) inside the JSON of the function response; in no image part of the API
        assert found and all(not p.endswith((".source.data", ".url", ".image_url", ".inlineData.data"))
                             for p, _ in found), found
        if host in AS_TEXT_HOSTS:
            text = found[0][1]
            assert text.lstrip()[:1] in "[{" and text != needle and '"type":"image"' in text
        image = facts_of(folder)["extra_forms"]["image"]
        assert image["png_data_handed"] is True
        assert {r["as"] for r in image["png_routes"]} == {"text"}
        said = Reason.from_json(image["outcome"]["png"])
        assert said.id == "host.media.as-text"
        assert said.english().startswith("the bytes of the image reached the model as text (base64 inside JSON text")
        assert "画像のバイト列は画像やファイルのパートではなくテキストとして" in said.render("ja")
        assert rows[host]["image"] == AS_TEXT, (host, rows[host]["image"])


def test_an_image_part_is_labelled_bytes_handed_and_the_advice_tells_them_apart(matrix):
    out, rows = matrix
    folder = out / "codex"
    needle = image_stretch(folder)
    found = list(holders(first_request_with(folder, needle), needle))
    # the Responses API's input_image item, a data: URL of the PNG
    assert any(p.endswith(".image_url") and s.startswith("data:image/png;base64,") for p, s in found), found
    image = facts_of(folder)["extra_forms"]["image"]
    assert Reason.from_json(image["outcome"]["png"]).id == "host.media.part"
    assert rows["codex"]["image"] == "bytes handed"

    advice = [line for line in (out / "matrix.md").read_text().splitlines() if line.startswith("- image:")]
    as_text = ", ".join(h for h in rows if h != "codex")
    assert advice == [f"- image: its bytes reached the model as an image on 1 of {len(rows)} hosts (codex); "
                      f"as base64 text inside JSON on {as_text}: that model reads characters, not a picture, "
                      "and pays for them in tokens."]
    japanese = (out / "matrix.ja.md").read_text()
    assert "バイト列をテキストとして渡す（JSON内のbase64）" in japanese
    assert f"{as_text} ではJSON内のbase64テキストとして届く" in japanese
