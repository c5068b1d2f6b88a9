"""`host matrix --models text,vision`: a host whose configuration declares what its model takes
(opencode, and Kilo Code CLI built on it) is measured with a text-only and a vision-capable stand-in, each a row of its own,
and what each hands its model is held against model.jsonl."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from hostkit import HOSTS_BIN, facts_of, host_bin, image_stretch, processes_mentioning

from mcp_accept.hosts.registry import ADAPTERS


@pytest.mark.parametrize("host", ["opencode", "kilo-code"])
def test_a_text_only_and_a_vision_capable_model(tmp_path, host):
    host_bin(host)
    out = tmp_path / "matrix"
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"),
               PATH=f"{HOSTS_BIN}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "matrix", "--hosts", host,
                           "--models", "text,vision", "--large-sizes", "1024", "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    rows = {row["model_kind"]: row for row in json.loads(done.stdout)["rows"]}
    assert sorted(rows) == ["text", "vision"]
    for kind, row in rows.items():
        folder = out / f"{host}-{kind}"
        declared = facts_of(folder)["model_declared"]
        assert (declared["kind"], declared["images"], declared["pdfs"]) == (kind, kind == "vision", kind == "vision")
        conditions = json.loads((folder / "results.json").read_text())["conditions"]
        assert f"({kind}), declaring images {'yes' if kind == 'vision' else 'no'}" in conditions["model_and_settings"]
        # model.jsonl: the PNG's bytes reached the vision model's requests, never the text-only one's
        in_requests = image_stretch(folder) in (folder / "model.jsonl").read_text()
        assert in_requests == (kind == "vision"), (kind, row["image"])
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
