"""A host run writes at most --max-run-bytes into its folder: model.jsonl, the host's stdout and
stderr, every proxy folder (one per start of the server), the host's private folders. Past the
bound the host is stopped, nothing more is recorded, and host-run.json and the rows say which
bound was reached at what size.

model.jsonl never passes the bound (the stand-in asks before each line). What other processes
write is measured every 0.1 s: the folder may pass the bound by what they write between two
looks and while they are stopped, and the host's stdout and stderr are then cut back to it.
The slack each test allows is stated where it asserts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hostkit import facts_of, host_bin, processes_mentioning, rows_of, run_host

MiB = 1 << 20
# written once the host has stopped, from what it recorded: outside what the bound measures
SUMMARY = ("results.json", "sheet.md", "rows", "host-run.json", "connects.json")


def kept_bytes(folder: Path) -> int:
    """The folder's bytes, its summary files left out."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
               and p.relative_to(folder).parts[0] not in SUMMARY)


def fake_host(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def assert_bound_reached(folder: Path, limit: int, by: str) -> dict:
    """The run says it reached its bound, by BY, in host-run.json, in every row's reason and in
    the one line of what it measured; no process of it is left. Returns the record."""
    facts = facts_of(folder)
    bound = facts["run_bytes"]
    assert bound["reached"] and bound["limit"] == limit and bound["reached_by"] == by, bound
    said = f"the run reached its byte bound (--max-run-bytes {limit}) at {bound['bytes_when_reached']} bytes, " \
           f"written by {by}"
    assert facts["outcome"]["bound"].startswith(said)
    rows, _ = rows_of(folder)
    assert all(row["reason"].startswith(said) for row in rows.values())
    assert bound["bytes"] == kept_bytes(folder)  # measured once everything had stopped
    assert not processes_mentioning(str(folder))
    return bound


def test_a_host_flooding_its_output_is_stopped_and_its_output_cut_to_the_bound(tmp_path):
    # a host that writes its stdout without end: the file is measured, so it passes the bound
    # between two looks; once the host is stopped it is cut back, and the folder holds no more
    # than the bound (no slack)
    host = fake_host(tmp_path, "flooding-host", '#!/bin/sh\ncase "$1" in --version) echo 9.9.9; exit 0;; esac\n'
                     'exec yes "a host that says too much"\n')
    folder = run_host(tmp_path, "claude-code", "--max-run-bytes", str(2 * MiB), binary=host, codes=(3,))
    bound = assert_bound_reached(folder, 2 * MiB, "host-stdout.txt")
    assert bound["bytes"] <= 2 * MiB
    assert bound["cut_from_end"]["host-stdout.txt"] > 0
    assert facts_of(folder)["host_exit"] == -15  # stopped by the run, with SIGTERM to its process group
    assert (folder / "host-stdout.txt").read_bytes().startswith(b"a host that says too much\n")


# Runs the command after it and prints its exit code and the largest resident size (KiB) any of
# its processes reached: the measure is of that command alone, not of the test's process.
PEAK_OF = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True); "
           "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def test_a_host_whose_help_never_ends_is_not_read_into_memory(tmp_path):
    # Claude Code's adapter asks `--help` for the options this version has; a host that answers
    # without end is taken as not answering once it has said 1 MiB (it was read for a minute,
    # gigabytes of it), and the run goes on with the current version's options
    host = fake_host(tmp_path, "endless-help", '#!/bin/sh\ncase "$1" in --version) echo 9.9.9; exit 0;; '
                     '--help) exec yes "  --an-option-without-end";; esac\nexit 0\n')
    decoy = tmp_path / "decoy-home"
    decoy.mkdir()
    done = subprocess.run([sys.executable, "-c", PEAK_OF, sys.executable, "-m", "mcp_accept", "host", "test",
                           "claude-code", "--host-bin", host, "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config")))
    code, peak_kib = (int(word) for word in done.stdout.split())
    assert code == 3  # the host called no model: measured nothing
    assert peak_kib < 256 * 1024, peak_kib
    assert facts_of(tmp_path / "run")["version"] == "9.9.9"
    assert not processes_mentioning(host)


RESTARTING_HOST = """#!{python}
# Starts its MCP server (the recording proxy) again and again, asking each start for one large
# result: each start is a proxy folder of its own, about 1 MiB.
import json, subprocess, sys
if "--version" in sys.argv:
    print("9.9.9")
    sys.exit(0)
config = json.load(open(sys.argv[sys.argv.index("--mcp-config") + 1]))
server = next(iter(config["mcpServers"].values()))
for start in range(40):
    proxy = subprocess.Popen([server["command"], *server["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    def send(message):
        proxy.stdin.write((json.dumps(message) + "\\n").encode())
        proxy.stdin.flush()
    send({{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {{"protocolVersion": "2025-06-18",
          "capabilities": {{}}, "clientInfo": {{"name": "restarting-host", "version": "1"}}}}}})
    proxy.stdout.readline()
    send({{"jsonrpc": "2.0", "method": "notifications/initialized"}})
    send({{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {{"name": "search_large", "arguments": {{"bytes": 1048576}}}}}})
    print(f"start {{start}}: {{len(proxy.stdout.readline())}} bytes", flush=True)
    proxy.stdin.close()
    proxy.wait()
"""


def test_a_host_restarting_its_server_is_stopped_at_the_bound_of_all_its_proxy_folders(tmp_path):
    host = fake_host(tmp_path, "restarting-host", RESTARTING_HOST.format(python=sys.executable))
    folder = run_host(tmp_path, "claude-code", "--max-run-bytes", str(4 * MiB), binary=host, codes=(3,))
    bound = assert_bound_reached(folder, 4 * MiB, "proxy")
    proxies = [p for p in (folder / "proxy").iterdir() if p.is_dir()]
    assert len(proxies) >= 3  # the bound is the run's, over every start of the server
    # slack: a start writes one 1 MiB result at a time, and the folder is measured every 0.1 s,
    # while a start takes a second or more: the bound is passed by at most one result
    assert bound["bytes"] <= 5 * MiB
    assert bound["parts"]["proxy"] >= 3 * MiB
    shutdown = facts_of(folder)["server_shutdown"]
    assert shutdown["ended_by"].startswith("mcp-accept: the run reached its byte bound")
    assert not [q for q in facts_of(folder)["host_quirks"] if "stopped its server" in q["quirk"]]


def test_a_real_host_is_stopped_at_the_bound_and_model_jsonl_stays_within_it(tmp_path):
    # Gemini CLI with the fixture writes about 7 MB (its own chats and saved results under
    # home/, the proxy folder, model.jsonl, its stdout): 2 MiB is reached on the way
    folder = run_host(tmp_path, "gemini-cli", "--max-run-bytes", str(2 * MiB), binary=host_bin("gemini-cli"),
                      codes=(0, 1, 3))
    facts = facts_of(folder)
    bound = facts["run_bytes"]
    assert bound["reached"], bound
    assert_bound_reached(folder, 2 * MiB, bound["reached_by"])
    assert (folder / "model.jsonl").stat().st_size <= 2 * MiB
    for line in (folder / "model.jsonl").read_bytes().splitlines():
        assert isinstance(json.loads(line), dict)  # whole lines only
    # What other processes write between two looks 0.1 s apart is theirs: one result of 1 MiB
    # (the fixture's largest) lands at once in the proxy's wire.jsonl, in the file Gemini CLI
    # saves it to and in its chat file (seen at 4.4 MB on a loaded machine). What is ours is the
    # stop: once the bound is seen, the host's group is stopped, and what is written after that
    # is the proxy completing its folder and the host's last turn, well under 2 MiB. A host left
    # running writes on to about 7 MB.
    assert bound["bytes"] - bound["bytes_when_reached"] <= 2 * MiB, bound
    assert facts["model_requests"] > 0
