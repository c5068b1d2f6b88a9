"""The host cache, without the network: `host cache list` (each HOST/VERSION with its size and
last use), `host cache clear [HOST[@VERSION]]`, and the bound that removes the least recently
used versions first, never the one kept and never one a run holds. The versions here are
folders of the cache's own layout with files of known sizes; a run holding a version is a
process holding the version's lock as `host test` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_accept.hosts.versions import bound_cache, cache_max, parse_size

HOLD = """
import fcntl, sys, time
with open(sys.argv[1], "a") as lock:
    fcntl.flock(lock, fcntl.LOCK_SH)  # as in_use holds a version while its run lasts
    print("held", flush=True)
    sys.stdin.read()
"""


def version(cache: Path, host: str, name: str, size: int, used: float) -> Path:
    place = cache / host / name
    (place / "node_modules").mkdir(parents=True)
    (place / "node_modules" / "blob").write_bytes(b"x" * (size - 100))
    (place / "package.json").write_bytes(b"y" * 100)
    mark = cache / host / f".{name}.used"
    mark.touch()
    os.utime(mark, (used, used))
    return place


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    root = tmp_path / "cache"
    version(root, "claude-code", "2.0.20", 4000, 1_700_000_300)
    version(root, "claude-code", "2.0.21", 3000, 1_700_000_100)
    version(root, "gemini-cli", "0.9.0", 2000, 1_700_000_200)
    # an install under way and a download folder are not versions
    (root / "claude-code" / ".2.0.22-abc123" / "node_modules").mkdir(parents=True)
    (root / ".downloads-xyz").mkdir()
    return root


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_accept", "host", "cache", *args], capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def held(cache: Path):
    """A process holding claude-code 2.0.20 as a run does; stopped at the end."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(cache / "claude-code" / ".2.0.20.lock")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    yield proc
    proc.stdin.close()
    proc.wait(timeout=10)


def test_list_names_each_version_with_its_size_last_use_and_whether_a_run_holds_it(cache: Path, held) -> None:
    done = cli("list", "--host-cache", str(cache), "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [(v["host"], v["version"], v["bytes"], v["in_use"]) for v in listed["versions"]] == [
        ("claude-code", "2.0.21", 3000, False), ("claude-code", "2.0.20", 4000, True),
        ("gemini-cli", "0.9.0", 2000, False)]
    assert listed["versions"][0]["last_used"] == "2023-11-14T22:15:00Z"
    assert listed["bytes"] == 9000 and listed["max_bytes"] == 5 << 30
    table = cli("list", "--host-cache", str(cache))
    assert "| claude-code | 2.0.20 | 3.9 KiB | 2023-11-14T22:18:20Z | yes |" in table.stdout
    assert "3 version(s), 8.8 KiB of at most 5.00 GiB" in table.stdout
    empty = cli("list", "--host-cache", str(cache / "none"))
    assert empty.returncode == 0 and "0 version(s)" in empty.stdout


def test_clear_removes_a_version_a_host_or_all_but_what_a_run_holds(cache: Path, held) -> None:
    done = cli("clear", "claude-code@2.0.21", "--host-cache", str(cache))
    assert done.returncode == 0 and done.stdout == "removed claude-code@2.0.21 (3000 bytes)\n", done.stderr
    assert not (cache / "claude-code" / "2.0.21").exists()
    # the version a run holds is left, said on stderr, exit 3
    done = cli("clear", "--host-cache", str(cache))
    assert done.returncode == 3, done.stderr
    assert done.stdout == "removed gemini-cli@0.9.0 (2000 bytes)\n"
    assert done.stderr.strip() == "mcp-accept: claude-code@2.0.20 is in use by a run: left in the cache"
    assert (cache / "claude-code" / "2.0.20" / "package.json").is_file()
    # no removed version is left half-way: nothing but locks and marks beside the held one
    assert sorted(p.name for p in (cache / "claude-code").iterdir() if not p.name.startswith(".2.0.2")) == ["2.0.20"]
    held.stdin.close()
    held.wait(timeout=10)
    done = cli("clear", "claude-code", "--host-cache", str(cache))
    assert done.returncode == 0 and "removed claude-code@2.0.20" in done.stdout
    assert "nothing to remove" in cli("clear", "--host-cache", str(cache)).stdout
    bad = cli("clear", "no-such-host", "--host-cache", str(cache))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "HOST" in bad.stderr


def test_the_bound_removes_the_least_recently_used_first_never_the_one_kept_nor_one_held(cache: Path,
                                                                                        held) -> None:
    kept = version(cache, "claude-code", "2.0.23", 5000, 1_600_000_000)  # the oldest use, but just installed
    # 14000 bytes held in four versions; within 9000: 2.0.21 (least recently used) goes first, then
    # gemini-cli 0.9.0; 2.0.20 is held by a run, 2.0.23 is kept
    removed = bound_cache(cache, 9000, keep=kept)
    assert [(e.host, e.version) for e in removed] == [("claude-code", "2.0.21"), ("gemini-cli", "0.9.0")]
    assert kept.is_dir() and (cache / "claude-code" / "2.0.20").is_dir()
    # what is left cannot be removed: the bound leaves the cache over it rather than break a run
    assert bound_cache(cache, 1000, keep=kept) == []
    assert bound_cache(cache, 1 << 30) == []


def test_sizes_are_read_with_units_and_the_bound_from_the_environment(monkeypatch) -> None:
    assert parse_size("5GiB", "x") == 5 << 30 and parse_size("500M", "x") == 500_000_000
    assert parse_size("1.5 KiB", "x") == 1536 and parse_size("123", "x") == 123
    monkeypatch.setenv("MCP_ACCEPT_HOST_CACHE_MAX", "2GiB")
    assert cache_max() == 2 << 30 and cache_max("1MiB") == 1 << 20
    from mcp_accept.errors import InputError

    with pytest.raises(InputError, match="--host-cache-max: must be a size"):
        cache_max("lots")
    done = subprocess.run([sys.executable, "-m", "mcp_accept", "host", "test", "claude-code@2.0.21",
                           "--host-cache-max", "5 parsecs"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
