"""`host test --server CMD --env ...`: the user's server gets its variables (a key, a token), and no
file of the run, no command line and no host's configuration holds a value
(mcp_accept/hosts/server_env.py, mcp_accept/hosts/env_gate.py).

Real processes only: Claude Code against tests/servers/env_server.py, which reports the
environment it was started with into a file outside the run and, as a hostile server would,
repeats it on the wire and on its stderr; the socket asked by real processes of other programs.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hostkit import facts_of, processes_mentioning, rows_of, run_host
from mcp_accept.hosts.env_gate import fetch_values
from mcp_accept.hosts.server_env import EnvServer

ROOT = Path(__file__).resolve().parent.parent
ENV_SERVER = ROOT / "tests" / "servers" / "env_server.py"


def test_the_server_gets_its_variables_and_no_file_of_the_run_holds_a_value(tmp_path, monkeypatch):
    literal, passed = "literal-" + os.urandom(8).hex(), "passed-" + os.urandom(8).hex()
    monkeypatch.setenv("SERVER_ENV_PASSED", passed)
    report = tmp_path / "seen.txt"  # the server's own report, outside the run folder
    out = tmp_path / "run"
    server = shlex.join([sys.executable, str(ENV_SERVER), "--report", str(report), "--markers",
                         "--log", str(out / "fixture-log")])
    run_host(tmp_path, "claude-code", "--server", server, "--env", f"SERVER_ENV_SET={literal}",
             "--env", "SERVER_ENV_PASSED", out=out)
    seen = json.loads(report.read_text().split("environment: ", 1)[1])
    assert seen["SERVER_ENV_SET"] == literal and seen["SERVER_ENV_PASSED"] == passed
    rows, _ = rows_of(out)
    assert rows["H01"]["status"] == "PASS", rows["H01"]["reason"]
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert literal.encode() not in data and passed.encode() not in data, path
    # the server said its environment on the wire: masked there, not left out
    wire = "".join(p.read_text() for p in (out / "proxy").glob("*/wire.jsonl"))
    assert "SERVER_ENV_SET" in wire and "[REDACTED]" in wire
    facts = facts_of(out)
    assert facts["server_env"] == ["SERVER_ENV_SET", "SERVER_ENV_PASSED"]
    served = json.loads((out / "server-env.json").read_text())
    assert served["names"] == ["SERVER_ENV_PASSED", "SERVER_ENV_SET"]
    assert served["refused"] == [] and served["served"] >= 3  # the harness, each proxy, each server
    job = json.loads((out / "job.json").read_text())
    assert job["options"]["server_env"] == ["SERVER_ENV_SET=env:MCP_ACCEPT_ENV_1", "SERVER_ENV_PASSED"]
    assert not os.path.exists(job["env_socket"])  # the socket and its folder went with the run
    assert not processes_mentioning(str(out))


def test_a_server_that_exits_before_answering_is_said_with_its_last_words(tmp_path):
    server = shlex.join([sys.executable, "-c", "import sys; sys.stderr.write('no API key given\\n'); sys.exit(4)"])
    out = run_host(tmp_path, "claude-code", "--server", server, "--env", "SOME_KEY=" + "k" * 20, codes=(3,))
    said = facts_of(out)["outcome"]["not_measured"]
    assert said == "the server exited with code 4 before it answered the host (its last words: 'no API key given')"


def asker(argv: list[str], path: str) -> subprocess.CompletedProcess:
    return subprocess.run([*argv, path], capture_output=True, text=True, timeout=30)


PYTHON_ASKER = [sys.executable, "-c", "import sys; from mcp_accept.hosts.env_gate import fetch_values; "
                "print(fetch_values(sys.argv[1]))"]
NODE_ASKER = ["node", "-e", "const s = require('net').connect(process.argv[1]); let got = '';"
              "s.on('data', d => got += d); s.on('close', () => console.log('got:' + got));"]


def test_only_this_interpreter_within_the_run_is_served(tmp_path):
    gate = EnvServer({"A_TOKEN": "value-" + os.urandom(6).hex()}).start()
    try:
        gate.expect_from(os.getpid())
        done = asker(PYTHON_ASKER, gate.path)
        assert "A_TOKEN" in done.stdout, done.stderr  # a process of the run, this interpreter
        if shutil.which("node") is None:
            pytest.fail("node is needed (the hosts' runtime): install it")
        done = asker(NODE_ASKER, gate.path)  # a host's runtime, though of the run
        assert done.stdout.strip() == "got:", done.stdout
        record = gate.record()
        assert record["served"] == 1 and len(record["refused"]) == 1
        assert record["refused"][0]["why"] == "not mcp-accept's interpreter"
        assert record["refused"][0]["exe"].startswith("node")
    finally:
        folder = os.path.dirname(gate.path)
        gate.stop()
    assert not os.path.exists(folder)


def test_a_process_outside_the_run_is_not_served():
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gate = EnvServer({"A_TOKEN": "value-" + os.urandom(6).hex()}).start()
    try:
        gate.expect_from(bystander.pid)  # the run is the bystander's: this test's children are not of it
        done = asker(PYTHON_ASKER, gate.path)
        assert done.returncode != 0 and "A_TOKEN" not in done.stdout
        with pytest.raises((OSError, ValueError)):
            fetch_values(gate.path)
        record = gate.record()
        assert record["served"] == 0 and record["refused"][0]["why"] == "not a process of this run"
    finally:
        bystander.kill()
        bystander.wait()
        gate.stop()


@pytest.mark.parametrize("args, said", [
    (["--env", "A_TOKEN=x"], "give --server too"),
    (["--server", "true", "--env", "9BAD=x"], "is not a variable name"),
    (["--server", "true", "--env", "SURELY_UNSET_VARIABLE_4711"], "is not set in this environment"),
])
def test_bad_env_options_are_said_before_anything_starts(tmp_path, args, said):
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code",
                           "--host-bin", sys.executable, "--out", str(tmp_path / "run"), *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "--env" in done.stderr and said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()
