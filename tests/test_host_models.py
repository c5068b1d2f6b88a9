"""`host matrix --models text,vision`: a host whose configuration declares what its model takes
(opencode, and Kilo Code CLI built on it), or that decides it from the model's name (fast-agent
from its model database, Qwen Code from its modality patterns), is measured with a text-only and a
vision-capable stand-in, each a row of its own, and what each hands its model is held against
model.jsonl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostkit import HOSTS_BIN, facts_of, host_bin, image_stretch, model_requests, processes_mentioning

from mcp_accept.hosts.registry import ADAPTERS


# Whether the vision-capable model takes PDFs as the host knows it (Qwen Code's qwen3-vl-plus takes
# images and video only), and what the host puts in the text-only model's request in place of the
# media it does not take, where it puts anything.
VISION_PDFS = {"opencode": True, "kilo-code": True, "fast-agent": True, "qwen-code": False}
TEXT_PLACEHOLDER = {"fast-agent": "[document, vision content was removed - o3-mini does not support this content type]",
                    "qwen-code": "[image: image/png]"}


@pytest.mark.parametrize("host", sorted(VISION_PDFS))
def test_a_text_only_and_a_vision_capable_model(tmp_path, host):
    found = Path(host_bin(host)).parent
    out = tmp_path / "matrix"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"),
               PATH=os.pathsep.join([str(found), str(HOSTS_BIN), os.environ["PATH"]]))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--hosts", host,
                           "--models", "text,vision", "--large-sizes", "1024", "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    rows = {row["model_kind"]: row for row in json.loads(done.stdout)["rows"]}
    assert sorted(rows) == ["text", "vision"]
    for kind, row in rows.items():
        folder = out / f"{host}-{kind}"
        declared = facts_of(folder)["model_declared"]
        vision = kind == "vision"
        assert (declared["kind"], declared["images"], declared["pdfs"]) == (kind, vision, vision and VISION_PDFS[host])
        conditions = json.loads((folder / "results.json").read_text())["conditions"]
        assert f"({kind}), declaring images {'yes' if vision else 'no'}" in conditions["model_and_settings"]
        # model.jsonl: the PNG's bytes reached the vision model's requests, never the text-only one's
        log = (folder / "model.jsonl").read_text()
        assert (image_stretch(folder) in log) == vision, (kind, row["image"])
        if host in TEXT_PLACEHOLDER:
            # the model name is what the host decided by: the requests ask for it by that name
            asked = {e["message"]["model"] for e in model_requests(folder)}
            assert asked == {declared["model"].split(".", 1)[-1]}, asked
            assert (json.dumps(TEXT_PLACEHOLDER[host])[1:-1] in log) == (not vision), kind
        if host == "fast-agent":
            # its openai provider answers an embedded resource with "[Tool completed successfully]"
            # and hands the body in a user message right after: found there, never "absent"
            h01 = json.loads((folder / "rows" / "H01.json").read_text())["observed"]["forms"]["embedded"]
            after = [m for e in model_requests(folder) for m in e["message"]["messages"]
                     if m["role"] == "user" and "<fastagent:file" in json.dumps(m)]
            assert after and h01["reached"] == "whole" and h01["where"].startswith("beside the result"), h01
        assert not processes_mentioning(str(folder))
    assert rows["vision"]["image"] == "bytes attached beside the result"
    assert rows["text"]["image"] == "text only"
    table = (out / "matrix.md").read_text()
    label = f"{ADAPTERS[host].product} ({host})"
    assert f"{label}, text model" in table and f"{label}, vision model" in table


def test_a_model_kind_the_host_cannot_declare_is_refused(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code", "--model-kind", "text",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PATH=f"{HOSTS_BIN}{os.pathsep}{os.environ['PATH']}"))
    assert done.returncode == 2 and "--model-kind" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--models", "sepia",
                           "--out", str(tmp_path / "m")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--models" in done.stderr and not (tmp_path / "m").exists()


def test_fast_agent_model_kinds_are_what_its_model_database_says():
    # the adapter's table of names, against fast-agent's own ModelInfo for each (its model database)
    python = Path(host_bin("fast-agent")).parent / "python"
    adapter = ADAPTERS["fast-agent"]
    for kind in (None, *adapter.model_kinds):
        declared = adapter.declared_model(kind)
        provider, name = declared["model"].split(".", 1)
        done = subprocess.run([str(python), "-c", (
            "import json, sys\nfrom fast_agent.llm.model_info import ModelInfo\n"
            "from fast_agent.llm.provider_types import Provider\n"
            "info = ModelInfo.from_name(sys.argv[1], Provider(sys.argv[2]))\n"
            "print(json.dumps([info.context_window, info.supports_mime('image/png', resource_source='embedded'),"
            " info.supports_mime('application/pdf', resource_source='embedded')]))"), name, provider],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == [declared["context_tokens"], declared["images"], declared["pdfs"]], kind
