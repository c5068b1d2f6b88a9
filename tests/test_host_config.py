"""`mcp-accept host config`: each host's snippet parses, names the proxy, and really starts it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess

import pytest

from conftest import fixture_command, run_cli

from mcp_accept.hosts.config import snippet_json


def argv_of(host: str, text: str) -> list[str]:
    if host == "claude-code":
        words = shlex.split(text)
        assert words[:3] == ["claude", "mcp", "add"] and "--" in words
        name = words[words.index("--") - 1]
        assert name == "mcp-accept-proxy"
        return words[words.index("--") + 1:]
    if host == "mistral-vibe":
        tomllib = pytest.importorskip("tomllib")
        assert text.startswith("# ~/.vibe/config.toml")
        [entry] = tomllib.loads(text)["mcp_servers"]
        assert entry["name"] == "mcp-accept-proxy" and entry["transport"] == "stdio"
        return [entry["command"], *entry["args"]]
    data = snippet_json(text)
    if host == "kilo-code":
        entry = data["mcp"]["mcp-accept-proxy"]
        assert entry["type"] == "local" and entry["enabled"] is True
        return entry["command"]
    servers = data["servers"] if host == "vscode" else data["mcpServers"]
    entry = servers["mcp-accept-proxy"]
    if host in ("vscode", "copilot-cli", "cline"):
        assert entry["type"] == "stdio"
    if host == "copilot-cli":
        assert entry["tools"] == ["*"]
    return [entry["command"], *entry["args"]]


@pytest.mark.parametrize("host", ["claude-code", "cline", "copilot-cli", "kilo-code", "mistral-vibe", "vscode", "claude-desktop", "cursor"])
def test_each_snippet_names_the_proxy(tmp_path, host):
    server = fixture_command("--protocol", "2025-11-25")
    done = run_cli("host", "config", host, "--server", server, "--out", str(tmp_path / "runs"))
    assert done.returncode == 0, done.stderr
    argv = argv_of(host, done.stdout)
    assert argv[1:4] == ["-m", "mcp_accept", "proxy"]
    assert argv[argv.index("--server") + 1] == server
    assert argv[argv.index("--out") + 1] == str((tmp_path / "runs").resolve())
    if host == "claude-desktop":
        assert "Application Support/Claude/claude_desktop_config.json" in done.stdout.splitlines()[0]
    if host == "copilot-cli":
        assert done.stdout.startswith("// ~/.copilot/mcp-config.json")
    if host == "cline":
        assert done.stdout.startswith("// ~/.cline/data/settings/cline_mcp_settings.json")


@pytest.mark.parametrize("host", ["vscode", "claude-code", "copilot-cli", "kilo-code", "mistral-vibe"])
def test_the_markers_snippet_starts_the_marker_fixture_through_the_proxy(tmp_path, host):
    done = run_cli("host", "config", host, "--markers", "--out", str(tmp_path / "runs"))
    assert done.returncode == 0, done.stderr
    argv = argv_of(host, done.stdout)
    server = shlex.split(argv[argv.index("--server") + 1])
    assert server[-3:] == ["--markers", "--log", str((tmp_path / "runs" / "fixture-log").resolve())]
    # Launch it as the host would, and talk to it.
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "snippet-host", "version": "1"}}}
    out, _ = proc.communicate((json.dumps(request) + "\n").encode(), timeout=60)
    assert json.loads(out)["result"]["serverInfo"]["name"] == "mcp-accept-fixture"
    assert (tmp_path / "runs" / "fixture-log" / "markers.json").is_file()
    [folder] = [p for p in (tmp_path / "runs").iterdir() if p.name.startswith("mcp-accept-proxy-")]
    assert json.loads((folder / "results.json").read_text())["conditions"]["host_product"] == "snippet-host"


def test_bad_host_and_missing_server(tmp_path):
    done = run_cli("host", "config", "emacs", "--server", "x")
    assert done.returncode == 2 and "HOST: must be one of claude-code" in done.stderr
    done = run_cli("host", "config", "cursor")
    assert done.returncode == 2 and "--server: give --server CMD" in done.stderr


def test_markers_with_a_server_is_refused_not_dropped(tmp_path):
    # --markers alone means the fixture; a --server beside it used to be dropped without a word
    done = run_cli("host", "config", "claude-code", "--markers", "--server", "python my_server.py",
                   "--out", str(tmp_path / "runs"))
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-accept: error: --markers: cannot be given with --server")
    assert not (tmp_path / "runs").exists()


def test_the_commands_name_the_hosts_of_the_one_registry():
    """host config takes the hosts with a snippet, host test the hosts with an adapter, both
    from mcp_accept.hosts.registry; the help of each names exactly those."""
    import re

    from typer.main import get_command

    from mcp_accept.cli import app
    from mcp_accept.hosts.registry import ADAPTERS, CONFIGURABLE, HOSTS

    assert CONFIGURABLE == ("claude-code", "cline", "copilot-cli", "kilo-code", "mistral-vibe", "vscode", "claude-desktop", "cursor")
    assert all(adapter.name == name for name, adapter in ADAPTERS.items())
    assert {h.name for h in HOSTS} == set(CONFIGURABLE) | set(ADAPTERS)  # every host supports something
    group = get_command(app).commands["host"]
    for command, names in (("config", CONFIGURABLE), ("test", tuple(ADAPTERS))):
        [argument] = [p for p in group.commands[command].params if p.name == "host"]
        listed = argument.help.split(";")[0]  # what follows says how a version is asked for
        assert set(re.findall(r"[a-z][a-z-]*[a-z]", listed)) - {"or"} == set(names), command


def test_copilot_cli_reads_its_snippet_as_a_server_of_its_own(tmp_path):
    """The real Copilot CLI (tests/hosts) lists the snippet's server as the user's, unchanged:
    its own `copilot mcp list --json`, offline, in a network namespace, in a private HOME."""
    from hostkit import host_bin

    binary = host_bin("copilot-cli")
    if not shutil.which("unshare"):
        pytest.skip("unshare is not installed: the host is run only without a network")
    done = run_cli("host", "config", "copilot-cli", "--server", fixture_command(), "--out", str(tmp_path / "runs"))
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True)
    (home / ".copilot" / "mcp-config.json").write_text(done.stdout.split("\n", 1)[1])
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "PATH": os.environ["PATH"],
           "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}  # see adapters/copilot_cli.py
    listed = subprocess.run(["unshare", "-rn", binary, "mcp", "list", "--json"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert listed.returncode == 0, listed.stderr
    entry = json.loads(listed.stdout)["mcpServers"]["mcp-accept-proxy"]
    assert entry["source"] == "user" and entry["enabled"] is True
    assert [entry["command"], *entry["args"]] == argv_of("copilot-cli", done.stdout)


def test_cline_snippet_is_the_file_its_adapter_runs_cline_with(tmp_path):
    """Cline's own listing (`cline config`) needs a terminal; the file the snippet prints is the
    one `host test cline` writes for the real Cline CLI (tests/test_host_cline.py), in the same
    shape: the entry differs by nothing but the adapter's empty ``env``."""
    from hostkit import prepare_stdio

    done = run_cli("host", "config", "cline", "--server", fixture_command(), "--out", str(tmp_path / "runs"))
    assert done.returncode == 0, done.stderr
    entry = snippet_json(done.stdout)["mcpServers"]["mcp-accept-proxy"]
    ctx, _ = prepare_stdio(tmp_path, "cline")
    written = json.loads((ctx.home / ".cline" / "data" / "settings" / "cline_mcp_settings.json").read_text())
    [adapters] = written["mcpServers"].values()
    assert {k: v for k, v in adapters.items() if k != "env"}.keys() == entry.keys()
    assert adapters["type"] == entry["type"] == "stdio" and adapters["env"] == {}


def test_kilo_code_reads_its_snippet_and_connects_to_the_proxy(tmp_path):
    """The real Kilo Code CLI (tests/hosts) lists the snippet's server and connects to it: its
    own `kilo mcp list` starts the proxy in front of the marker fixture, without a network, in a
    private HOME."""
    from hostkit import host_bin, processes_mentioning

    binary = host_bin("kilo-code")
    if not shutil.which("unshare"):
        pytest.skip("unshare is not installed: the host is run only without a network")
    runs = tmp_path / "runs"
    done = run_cli("host", "config", "kilo-code", "--markers", "--out", str(runs))
    home = tmp_path / "home"
    (home / ".config" / "kilo").mkdir(parents=True)
    (home / ".config" / "kilo" / "kilo.json").write_text(done.stdout.split("\n", 1)[1])
    work = tmp_path / "work"
    work.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PATH": os.environ["PATH"],
           "KILO_DISABLE_AUTOUPDATE": "1", "KILO_TELEMETRY_LEVEL": "off"}  # see adapters/kilo_code.py
    listed = subprocess.run(["unshare", "-rn", binary, "mcp", "list"], capture_output=True, text=True, env=env,
                            cwd=work, timeout=180)
    assert listed.returncode == 0, listed.stderr
    line = next(l for l in listed.stdout.splitlines() if "mcp-accept-proxy" in l)
    assert "connected" in line and "failed" not in line, listed.stdout
    # the proxy it started recorded the session in a run folder of its own
    assert any(runs.rglob("wire.jsonl")), sorted(str(p) for p in runs.rglob("*"))
    assert not processes_mentioning(str(runs))
