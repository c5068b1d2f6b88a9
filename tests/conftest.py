"""Shared test helpers: the schema folder, free ports, running the CLI."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "mcp_accept" / "fixture.py"


def _schema_dir() -> Path:
    env = os.environ.get("MCP_ACCEPT_SCHEMA_DIR")
    # Without the variable, a folder laid out beside the checkout is used if present.
    for path in ([Path(env)] if env else [ROOT.parent / "shared" / "mcp-schemas"]):
        if (path / "2026-07-28" / "schema.json").is_file():
            return path.resolve()
    raise pytest.UsageError(
        "the tests need the official MCP schemas offline: set MCP_ACCEPT_SCHEMA_DIR to a folder "
        "holding <version>/schema.json (`mcp-accept schemas fetch --dir DIR` makes one)")


SCHEMA_DIR = _schema_dir()
os.environ["MCP_ACCEPT_SCHEMA_DIR"] = str(SCHEMA_DIR)
os.environ.setdefault("MCP_ACCEPT_OFFLINE", "1")  # tests never download anything


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fixture_command(*args: str) -> str:
    import shlex

    return shlex.join([sys.executable, str(FIXTURE), *args])


def run_cli(*args: str, timeout: float = 120, env: dict | None = None, cwd=None,
            input: str | None = None) -> subprocess.CompletedProcess:
    """Run ``mcp-accept`` as a real process, the way a user would."""
    full_env = {**os.environ, **(env or {})}
    full_env.setdefault("COLUMNS", "200")
    return subprocess.run([sys.executable, "-m", "mcp_accept", *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env, cwd=cwd, input=input)


def load_results(folder: Path) -> dict:
    return json.loads((Path(folder) / "results.json").read_text(encoding="utf-8"))


def statuses(results: dict) -> dict[str, str]:
    return {row["id"]: row["status"] for row in results["rows"]}


@pytest.fixture
def schema_dir() -> Path:
    return SCHEMA_DIR
