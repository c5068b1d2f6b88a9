"""What the stand-in model records is what the host sent: the server under test cannot pass for
the host. The stand-in answers only requests carrying the run's key, which only the host's
configuration holds; a server the proxy starts runs in network and PID namespaces of its own, so
it cannot reach the stand-in at all; a server started for Streamable HTTP (it must share the
loopback with the proxy) sees neither the host's processes nor the files holding the key, and
what it posts is refused and recorded as an attack."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from hostkit import ROOT, host_bin, model_log, processes_mentioning
from mcp_accept.hosts.model_view import read_view
from mcp_accept.model.script import Script, Step, ToolNaming
from mcp_accept.model.server import FORGED, StandIn

HOST = "gemini-cli"  # the quickest of the hosts to start; every host reads the key from its settings
FORGER = ROOT / "tests" / "servers" / "forging_server.py"


def test_the_stand_in_answers_only_requests_carrying_the_runs_key(tmp_path):
    key = "mcp-accept-" + secrets.token_urlsafe(24)
    log = tmp_path / "model.jsonl"
    script = Script([Step("text", "search_text", {"q": "MCP"})], naming=ToolNaming("s", "{tool}"))
    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "FORGED-MARK"}]}
    with StandIn(script, log, key=key) as model:
        refused = [httpx.post(model.url + "/v1/messages", json=body, headers=headers) for headers in
                   ({}, {"x-api-key": key[:-1]}, {"authorization": "Basic " + key}, {"x-api-key": "x" + key})]
        refused.append(httpx.post(model.url + "/v1beta/models/m:generateContent?key=wrong", json=body))
        taken = [httpx.post(model.url + "/v1/messages", json=body, headers={"x-api-key": key}),
                 httpx.post(model.url + "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {key}"}),
                 httpx.post(model.url + "/v1beta/models/m:generateContent", json=body, headers={"x-goog-api-key": key}),
                 httpx.post(model.url + f"/v1beta/models/m:generateContent?alt=sse&key={key}", json=body)]
        assert model.forged == 5
    assert [r.status_code for r in refused] == [401] * 5
    assert all(r.status_code == 200 for r in taken)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    forged = [e for e in entries if e.get("event") == FORGED]
    assert len(forged) == 5 and all(e["dir"] == "event" and "message" not in e for e in forged)
    # what the host sent is all the rows read: a refused request is counted, never read as the host's
    view = read_view(entries)
    assert view.requests == 4 and len(view.forged) == 5
    assert sum("FORGED-MARK" in json.dumps(e.get("message")) for e in entries if e["dir"] == "in") == 4
    assert key not in log.read_text()  # not even from a query string


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_with_forger(tmp_path: Path, over_http: bool) -> tuple[Path, list[dict], str, subprocess.CompletedProcess]:
    mark = "FORGED-" + secrets.token_hex(6)
    out, log = tmp_path / "run", tmp_path / "forger.jsonl"
    server = [sys.executable, str(FORGER), str(log), mark, "--markers", "--log", str(out / "fixture-log")]
    args = []
    if over_http:
        port = free_port()  # a port of the run's own network namespace, where nothing else listens
        server += ["--http", str(port)]
        args = ["--url", f"http://127.0.0.1:{port}/mcp"]
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", HOST, "--host-bin", host_bin(HOST),
                           "--out", str(out), "--server", " ".join(server), *args],
                          capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode in (0, 1), done.stderr
    assert not processes_mentioning(str(log))  # the server, in whichever namespace, is gone
    rounds = [json.loads(line) for line in log.read_text().splitlines()]
    assert rounds, "the forging server never ran"
    return out, rounds, mark, done


def handed_marks(folder: Path, mark: str) -> list[int]:
    return [e["seq"] for e in model_log(folder) if e["dir"] == "in" and mark in json.dumps(e.get("message"))]


def test_a_server_behind_the_proxy_cannot_reach_the_stand_in(tmp_path):
    out, rounds, mark, done = run_with_forger(tmp_path, over_http=False)
    facts = json.loads((out / "host-run.json").read_text())
    assert facts["server_isolation"].startswith("network and PID namespaces of its own")
    # its own namespaces: no port of the run to find, no process of the host to read
    assert all(not r["ports"] and not r["attempts"] and r["keys_found"] == 0 for r in rounds), rounds[-1]
    assert max(r["processes_seen"] for r in rounds) <= 3
    assert not handed_marks(out, mark)
    assert facts["forged_requests"] == [] and "forged" not in done.stderr
    results = json.loads((out / "results.json").read_text())
    assert {row["id"] for row in results["rows"] if row["status"] != "UNOBTAINABLE"} >= {"H01"}


def test_a_server_on_the_runs_loopback_is_refused_and_recorded_as_an_attack(tmp_path):
    out, rounds, mark, done = run_with_forger(tmp_path, over_http=True)
    facts = json.loads((out / "host-run.json").read_text())
    assert facts["server_isolation"].startswith("PID namespace of its own")
    # it found the stand-in's port, but no key: not in a process it can see, not in a file it can read
    assert any(r["attempts"] for r in rounds) and all(r["keys_found"] == 0 for r in rounds)
    refused = {a["got"] for r in rounds for a in r["attempts"]}
    assert "401" in refused and not refused & {"200"}, refused
    assert not handed_marks(out, mark)
    forged = [e for e in model_log(out) if e.get("event") == FORGED]
    assert forged and len(facts["forged_requests"]) == len(forged)
    assert "request(s) reached the stand-in model without the run's key" in done.stderr
    results = json.loads((out / "results.json").read_text())
    assert {row["id"] for row in results["rows"] if row["status"] != "UNOBTAINABLE"} >= {"H01"}



def test_proxy_isolate_gives_the_server_a_network_and_processes_of_its_own(tmp_path):
    look = "cut -d: -f1 /proc/net/dev | tail -n +3 >&2; ls /proc | grep -c '^[0-9]' >&2"
    out = tmp_path / "proxy"
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--isolate", "--out", str(out),
                           "--server", f"sh -c \"{look}\""], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [folder] = list(out.iterdir())
    said = (folder / "stderr.log").read_text().split()
    # only its own loopback; no process but the namespace's first, sh, ls and grep
    assert said[:-1] == ["lo"] and int(said[-1]) <= 4, said
    refused = subprocess.run([sys.executable, "-m", "mcp_accept", "proxy", "--isolate", "--url", "http://127.0.0.1:9/mcp"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--isolate" in refused.stderr and "Traceback" not in refused.stderr
