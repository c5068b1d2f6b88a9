"""What every adapter prepares for a run, read without running the host (its binary /bin/true):
the proxy it names as the MCP server, over stdio and over Streamable HTTP, and the offline
switches its results say it set."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest

from mcp_accept.hosts.adapters.base import HostContext, Launch
from mcp_accept.hosts.registry import ADAPTERS


def _prepared(tmp_path: Path, host: str, **where) -> tuple[HostContext, Launch, str]:
    """The context, the launch, and all the adapter wrote and passed, as one text."""
    ctx = HostContext(folder=tmp_path / "run", model_url="http://127.0.0.1:5", server_name="mcpaccept", **where)
    launch = ADAPTERS[host].prepare(ctx, "/bin/true")
    written = [path.read_text(encoding="utf-8", errors="replace")
               for path in sorted(ctx.folder.rglob("*")) if path.is_file() and path.stat().st_size < 1 << 20]
    return ctx, launch, "\n".join([*written, *launch.env.values(), *launch.argv])


@pytest.mark.parametrize("host", sorted(ADAPTERS))
def test_the_adapter_names_the_proxy_over_stdio_and_over_http(tmp_path, host):
    token = secrets.token_hex(6)
    command = [sys.executable, "-m", "mcp_accept", "proxy", "--out", f"proxy-{token}"]
    _, _, stdio = _prepared(tmp_path / "stdio", host, mcp_command=command)
    assert f"proxy-{token}" in stdio and sys.executable in stdio
    url = f"http://127.0.0.1:6/mcp-{token}"
    _, _, http = _prepared(tmp_path / "http", host, mcp_url=url)
    assert url in http and f"proxy-{token}" not in http


@pytest.mark.parametrize("host", sorted(ADAPTERS))
def test_the_offline_switches_named_are_the_ones_set(tmp_path, host):
    adapter = ADAPTERS[host]
    _, launch, _ = _prepared(tmp_path, host, mcp_command=[sys.executable, "-m", "mcp_accept", "proxy"])
    for name, value in adapter.offline_env.items():
        assert launch.env.get(name) == value, f"{host}: {name} is named offline but not set for the run"
        assert f"{name}={value}" in adapter.offline
    assert adapter.offline, f"{host} says nothing of how it stays offline"
