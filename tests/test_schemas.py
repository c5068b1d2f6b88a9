"""The official schema store: the folder, the cache, fetching from a mirror, hash pins."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from conftest import SCHEMA_DIR, load_results, run_cli, statuses
from mcp_accept.schemas import SchemaStore, SchemaUnavailable, pins

VERSIONS = ("2026-07-28", "2025-11-25", "2025-06-18")


@pytest.fixture
def mirror(tmp_path):
    """A loopback HTTP server serving a folder laid out as <version>/schema.json."""
    root = tmp_path / "mirror"
    for version in VERSIONS:
        (root / version).mkdir(parents=True)
        (root / version / "schema.json").write_bytes((SCHEMA_DIR / version / "schema.json").read_bytes())
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _QuietHandler.hits = []
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    hits: list = []

    def log_message(self, *args):
        self.hits.append(self.path)


def test_pins_match_the_files_given_to_the_tests():
    store = SchemaStore(SCHEMA_DIR)
    for version in VERSIONS:
        assert store.get(version).pin.sha256 == pins()[version].sha256


def test_fetch_from_a_mirror_checks_hashes_and_writes_the_folder(mirror, tmp_path):
    root, url = mirror
    out = tmp_path / "fetched"
    proc = run_cli("schemas", "fetch", "--dir", str(out), "--base-url", url)
    assert proc.returncode == 0, proc.stderr
    for version in VERSIONS:
        assert (out / version / "schema.json").read_bytes() == (SCHEMA_DIR / version / "schema.json").read_bytes()
    listed = run_cli("schemas", "list", "--schema-dir", str(out))
    assert listed.returncode == 0 and listed.stdout.count(" dir") == 3


def test_a_tampered_mirror_is_refused_and_nothing_is_written(mirror, tmp_path):
    root, url = mirror
    target = root / "2025-06-18" / "schema.json"
    target.write_bytes(target.read_bytes() + b" ")
    out = tmp_path / "fetched"
    proc = run_cli("schemas", "fetch", "--dir", str(out), "--base-url", url)
    assert proc.returncode == 4  # ExitStatus.FETCH: the fetch's own status, not a server's
    assert "does not match the pin" in proc.stderr and "--schema-dir" in proc.stderr and "Traceback" not in proc.stderr
    assert not (out / "2025-06-18" / "schema.json").exists()


def test_a_pin_newer_than_the_bundle_is_fetched_once_then_cached(mirror, tmp_path, monkeypatch):
    root, url = mirror
    monkeypatch.delenv("MCP_ACCEPT_SCHEMA_DIR", raising=False)
    monkeypatch.setenv("MCP_ACCEPT_SCHEMA_MIRROR", url)
    # an empty bundle stands for pins newer than the copies that ship with the package
    args = dict(cache_dir=tmp_path / "cache", bundled_dir=tmp_path / "no-bundle")
    first = SchemaStore(allow_fetch=True, **args)
    assert first.get("2026-07-28").source == "fetched"
    fetched = len(_QuietHandler.hits)
    assert fetched == 1
    second = SchemaStore(allow_fetch=True, **args)
    assert second.get("2026-07-28").source == "cache"
    assert len(_QuietHandler.hits) == fetched  # nothing fetched the second time
    offline = SchemaStore(allow_fetch=False, **args)
    assert offline.get("2026-07-28").source == "cache"  # the cache serves offline
    with pytest.raises(SchemaUnavailable, match="neither bundled nor cached"):
        SchemaStore(allow_fetch=False, cache_dir=tmp_path / "empty", bundled_dir=tmp_path / "no-bundle"
                    ).get("2025-06-18")


def test_a_run_with_no_folder_and_no_network_uses_the_bundled_schemas(tmp_path):
    env = {"MCP_ACCEPT_SCHEMA_DIR": "", "MCP_ACCEPT_OFFLINE": "1", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = run_cli("run", "--out", str(tmp_path / "a"), env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = load_results(tmp_path / "a")
    assert [s["source"] for s in results["schemas"]] == ["bundled"]
    assert statuses(results)["W01"] == "PASS"


def test_unknown_version_is_unavailable_not_a_crash():
    with pytest.raises(SchemaUnavailable):
        SchemaStore(SCHEMA_DIR).get("1999-01-01")
