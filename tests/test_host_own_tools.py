"""A server tool named like a host's own shell or file tool never makes the stand-in call the
host's tool: each real host runs a server whose text tool is called ``Bash``,
``run_shell_command``, ``exec_command``, ... with arguments that would create a file if a shell
ran them. The stand-in finds the server's tool under the host's naming for MCP tools only, so the
server answers the call and nothing runs; on a host that hands MCP tools over under their bare
names (Continue CLI), a name the host has itself is refused and the row says why. Every host
also runs with its own tools switched off where it has a setting for it: its shell is not
among the tools it offered (Mistral Vibe has no setting for its bash)."""

from __future__ import annotations

import sys

import pytest
import yaml

from hostkit import ROOT, facts_of, observed, processes_mentioning, rows_of, run_host, tool_calls

SERVER = ROOT / "tests" / "servers" / "host_names_server.py"

# host: (the host's own shell tool, by the name its model sees; whether MCP tools carry a prefix)
SHELLS = {
    "claude-code": ("Bash", True),
    "codex": ("exec_command", True),
    "gemini-cli": ("run_shell_command", True),
    "qwen-code": ("run_shell_command", True),
    "opencode": ("bash", True),
    "kilo-code": ("bash", True),
    "continue": ("Bash", False),
    "copilot-cli": ("bash", True),
    "cline": ("run_commands", True),
    "fast-agent": ("execute", True),
    # a server's tools only inside run_typescript, as tools.mcp_NAME.TOOL
    "mistral-vibe": ("bash", True),
    # a framework's driver: its agent is given no tool of its own, so no shell to mistake
    "openai-agents": (None, False),
    "pydantic-ai": (None, False),
    "langchain": (None, False),
    "google-adk": (None, False),
    "ai-sdk": (None, False),
    "openai-agents-js": (None, False),
    "mastra": (None, True),
}
# Hosts whose own shell no setting takes away: it stays among the tools offered.
SHELL_KEPT = {"mistral-vibe"}


@pytest.mark.parametrize("host", sorted(host for host, (shell, _) in SHELLS.items() if shell))
def test_a_server_tool_named_like_the_hosts_shell_never_runs_the_hosts_shell(tmp_path, host):
    shell, prefixed = SHELLS[host]
    canary = tmp_path / "canary"
    command = f"touch {canary}"
    profile = tmp_path / "profile.yaml"
    profile.write_text(yaml.safe_dump({"profile": "host-names", "tools": {
        "text": {"name": shell, "body": "text", "arguments": {"command": command, "cmd": command}}}}))
    # where the only tool the profile names is refused, the run measured nothing: exit 3
    folder = run_host(tmp_path, host, "--server", f"{sys.executable} {SERVER}", "--profile", str(profile),
                      codes=(0, 1) if prefixed else (3,))
    rows, _ = rows_of(folder)
    facts = facts_of(folder)
    assert not canary.exists(), "a shell ran the profile's command"
    calls = [c["message"]["params"]["name"] for c in tool_calls(folder, facts)]
    text = observed(folder, "H01")["forms"]["text"]
    offered = facts["offered_tools"]
    if prefixed:
        # the server's tool was called under the host's name for it, and its body reached the model
        assert calls.count(shell) == 1, calls
        assert text["reached"] == "whole", rows["H01"]["reason"]
        assert (shell in offered) == (host in SHELL_KEPT), f"{host} offered its own {shell}: {offered}"
    else:
        assert shell not in calls, calls
        assert "cannot be told apart" in rows["H01"]["reason"]
        assert facts["refused_calls"]["text"]["id"] == "own-tool-name"
        assert shell not in offered, f"{host} offered its own {shell}: {offered}"
    assert facts["own_tools_off"]
    assert not processes_mentioning(str(folder))


def test_every_adapter_names_its_tool_scheme_and_how_its_own_tools_are_off():
    from mcp_accept.hosts.registry import ADAPTERS

    for name, adapter in ADAPTERS.items():
        assert "{tool}" in adapter.tool_scheme, name
        assert adapter.own_tools_off, name
        if "{server}" not in adapter.tool_scheme and SHELLS[name][0] is not None:
            assert adapter.own_tools, f"{name} hands MCP tools over bare: its own tools must be listed"
    assert set(SHELLS) == set(ADAPTERS)


def test_the_docs_table_gives_each_hosts_scheme():
    from mcp_accept.hosts.registry import ADAPTERS

    table = (ROOT / "docs" / "hosts.md").read_text()
    for name, adapter in ADAPTERS.items():
        scheme = adapter.tool_scheme.replace("{server}", "mcpaccept")
        shown = f"`{scheme}`" if "/" not in scheme else f"`{scheme.split('/')[1]}` in the namespace `{scheme.split('/')[0]}`"
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}`"))
        assert shown in row, (name, row)
