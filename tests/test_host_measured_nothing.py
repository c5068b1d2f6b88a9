"""A host run that measured nothing says why in one line and exits 3 (the run did not happen),
never 0; and a host run starts in an empty folder, so no earlier run's evidence or host state
is mixed into it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hostkit import facts_of, host_bin, processes_mentioning, rows_of


def host_test(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    decoy = tmp_path / "decoy-home"
    decoy.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(decoy), XDG_CONFIG_HOME=str(decoy / ".config"))
    return subprocess.run([sys.executable, "-m", "mcp_accept", "host", *args], capture_output=True, text=True,
                          timeout=240, env=env)


def test_a_host_that_drops_the_server_over_its_protocol_is_named_and_exits_3(tmp_path):
    # Gemini CLI 0.61.0 initializes with 2025-06-18 and drops a server that answers 2025-11-25
    out = tmp_path / "run"
    server = f"{sys.executable} -m mcp_accept.fixture --protocol 2025-11-25"
    done = host_test(tmp_path, "test", "gemini-cli", "--host-bin", host_bin("gemini-cli"), "--server", server,
                     "--out", str(out))
    assert done.returncode == 3, done.stderr
    said = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and "measured nothing" in said[0]
    assert "dropped the server: it asked for 2025-06-18 and the server answered 2025-11-25" in said[0]
    rows, _ = rows_of(out)
    assert {r["status"] for r in rows.values()} == {"UNOBTAINABLE"}
    assert all("dropped the server" in r["reason"] for r in rows.values())
    assert "dropped the server" in facts_of(out)["outcome"]["not_measured"]
    assert not processes_mentioning(str(out))


def test_a_host_that_exits_before_asking_its_model_is_named_and_exits_3(tmp_path):
    out = tmp_path / "run"
    done = host_test(tmp_path, "test", "claude-code", "--host-bin", "/bin/false", "--out", str(out))
    assert done.returncode == 3, done.stderr
    assert "exited with status 1 before asking its model anything" in done.stderr
    rows, _ = rows_of(out)
    assert all(r["status"] == "UNOBTAINABLE" and "before asking its model" in r["reason"] for r in rows.values())


def test_out_naming_a_folder_that_is_not_empty_is_refused(tmp_path):
    out = tmp_path / "earlier"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    done = host_test(tmp_path, "test", "claude-code", "--host-bin", "/bin/true", "--out", str(out))
    assert done.returncode == 2 and "--out" in done.stderr and "not empty" in done.stderr
    # --replace empties only a folder an earlier run wrote: the user's own folder stays as it was
    done = host_test(tmp_path, "test", "claude-code", "--host-bin", "/bin/true", "--out", str(out), "--replace")
    assert done.returncode == 2 and "--replace empties only" in done.stderr
    assert (out / "notes.txt").read_text() == "mine"
    done = host_test(tmp_path, "matrix", "--hosts", "claude-code", "--out", str(out))
    assert done.returncode == 2 and "not empty" in done.stderr


def test_replace_empties_an_earlier_run_so_nothing_of_it_carries_over(tmp_path):
    out = tmp_path / "run"
    first = host_test(tmp_path, "test", "claude-code", "--host-bin", "/bin/false", "--out", str(out))
    assert first.returncode == 3
    planted = out / "home" / "memory-of-the-first-run.txt"
    planted.write_text("x")
    earlier_proxies = sorted(p.name for p in (out / "proxy").iterdir()) if (out / "proxy").is_dir() else []
    done = host_test(tmp_path, "test", "claude-code", "--host-bin", "/bin/false", "--out", str(out), "--replace")
    assert done.returncode == 3, done.stderr
    assert not planted.exists()
    now = sorted(p.name for p in (out / "proxy").iterdir()) if (out / "proxy").is_dir() else []
    assert not set(earlier_proxies) & set(now)
    assert json.loads((out / "host-run.json").read_text())["outcome"]["not_measured"]
