"""Hostile outputSchemas: references that leave the schema, endless recursion, patterns
that backtrack without end. Nothing is fetched, no local file is read, and validation
ends in bounded time (or is refused with a reason)."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import threading
from pathlib import Path

import pytest

from conftest import run_cli
from mcp_accept.verify import Canary
from faultkit import assert_complete, reason, rows_by_id, server, status, tree_text

FAST = ("--timeout", "2")


class FifoCanary:
    """A named pipe that notices being opened for reading: a writer blocks in open()
    until some reader comes, so the writer returning means the file was read."""

    def __init__(self, path: Path):
        self.path = path
        os.mkfifo(path)
        self.opened = False
        self._done = False
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        fd = os.open(self.path, os.O_WRONLY)  # blocks until a reader opens the pipe
        if not self._done:
            self.opened = True
        os.close(fd)

    def close(self) -> None:
        self._done = True
        try:  # release our own writer by opening the reading end ourselves
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            self._thread.join(timeout=2)
            os.close(fd)
        except OSError as exc:  # pragma: no cover
            assert exc.errno == errno.ENXIO


@pytest.fixture
def listener():
    lst = Canary()  # the listener verify itself uses: it counts every connection made to it
    yield lst
    lst.close()


@pytest.fixture
def canaries(tmp_path):
    fifo = FifoCanary(tmp_path / "canary.fifo")
    plain = tmp_path / "canary.json"
    plain.write_text(json.dumps({"type": "object", "description": "CANARY-7f3a9 was read"}))
    yield fifo, plain
    fifo.close()


def run_schema(tmp_path: Path, schema, *extra: str):
    """A run whose structured tool declares ``schema``, with the sdk layer on: the SDK's
    own validator must not fetch, read or hang either."""
    folder = tmp_path / "run"
    proc = run_cli("run", "--server", server("--output-schema", json.dumps(schema)), "--out", str(folder),
                   *FAST, *extra, "--sdk", "--fail-on", "app")  # every FAIL makes exit 1
    return proc, folder


EXTERNAL = {
    "http": lambda port, tmp: {"type": "object", "properties": {"total": {"$ref": f"http://127.0.0.1:{port}/total.json"}}},
    "https": lambda port, tmp: {"$ref": f"https://127.0.0.1:{port}/schema.json"},
    "file-fifo": lambda port, tmp: {"$ref": (tmp / "canary.fifo").as_uri()},
    "file-plain": lambda port, tmp: {"allOf": [{"$ref": (tmp / "canary.json").as_uri() + "#/"}]},
    "relative-to-http-id": lambda port, tmp: {"$id": f"http://127.0.0.1:{port}/root.json",
                                              "properties": {"total": {"$ref": "other.json#/x"}}},
    "dynamic-ref-file": lambda port, tmp: {"$dynamicRef": (tmp / "canary.json").as_uri() + "#meta"},
    "hidden-in-defs": lambda port, tmp: {"$defs": {"unused": {"$ref": f"http://127.0.0.1:{port}/x"}}},
}


@pytest.mark.parametrize("kind", list(EXTERNAL))
def test_external_ref_is_refused_and_nothing_is_fetched(kind, tmp_path, listener, canaries):
    fifo, plain = canaries
    schema = EXTERNAL[kind](listener.port, tmp_path)
    proc, folder = run_schema(tmp_path, schema)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = assert_complete(folder, proc)
    assert status(results, "S01") == "FAIL"
    assert "refers outside itself" in reason(results, "S01")
    assert "nothing was fetched" in reason(results, "S01")
    for row_id in ("T01", "E01", "L02"):
        assert status(results, row_id) == "PASS", rows_by_id(results)[row_id]
    assert listener.count() == 0, "something connected to the referenced address"
    assert listener.probe(), "the listener did not count a real connection"
    assert not fifo.opened, "the referenced local file was opened"
    assert "CANARY-7f3a9" not in tree_text(folder) + proc.stdout + proc.stderr


def test_recursive_ref_is_refused(tmp_path):
    schema = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
              "properties": {"total": {"$ref": "#/$defs/a"}}}
    proc, folder = run_schema(tmp_path, schema)
    assert proc.returncode == 1
    results = assert_complete(folder, proc)
    assert status(results, "S01") == "FAIL"
    assert "recurses without end" in reason(results, "S01")


def test_recursive_schema_that_ends_still_validates(tmp_path):
    """The control: recursion through $ref is legal when the data ends."""
    schema = {"$defs": {"doc": {"type": "object", "properties": {
        "hits": {"type": "array", "items": {"$ref": "#/$defs/hit"}}, "total": {"type": "integer"}}},
        "hit": {"type": "object", "properties": {"id": {"type": "string"}, "more": {"$ref": "#/$defs/doc"}}}},
        "$ref": "#/$defs/doc"}
    proc, folder = run_schema(tmp_path, schema)
    assert proc.returncode == 0, proc.stdout[-3000:]
    results = assert_complete(folder, proc)
    assert status(results, "S01") == "PASS", reason(results, "S01")


def test_internal_pointer_to_nowhere_is_refused(tmp_path):
    proc, folder = run_schema(tmp_path, {"properties": {"query": {"$ref": "#/$defs/missing"}}})
    assert proc.returncode == 1
    results = assert_complete(folder, proc)
    assert "cannot be resolved locally" in reason(results, "S01")


LONG_QUERY = "a" * 60 + "!"


def long_query_profile(tmp_path: Path) -> Path:
    path = tmp_path / "long-query.yaml"
    args = json.dumps({"q": LONG_QUERY})
    path.write_text("profile: long-query\ntools:\n" + "".join(
        f"  {form}: {{name: search_{form}, arguments: {args}}}\n"
        for form in ("text", "structured", "embedded", "link")) + "reference: null\nsame_document: true\n",
        encoding="utf-8")
    return path


def test_catastrophic_pattern_is_bounded(tmp_path):
    """``^(a|aa)+$`` against sixty a's and a '!' backtracks for ages: the match is given up
    after a second and the row says so; the SDK is not handed what it could not stop."""
    schema = {"type": "object", "properties": {"query": {"type": "string", "pattern": "^(a|aa)+$"}}}
    proc, folder = run_schema(tmp_path, schema, "--profile", str(long_query_profile(tmp_path)))
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = assert_complete(folder, proc)
    row = rows_by_id(results)["S01"]
    assert row["status"] == "FAIL"
    # the pattern's own second runs out first, unless a loaded machine spends the whole
    # validation's budget before the pattern is timed: either way the check was stopped
    assert ("pattern '^(a|aa)+$' took longer than 1s to match; too costly to check, refused" in row["reason"]
            or "validating against outputSchema took longer than" in row["reason"]), row["reason"]
    evidence = json.loads((folder / "rows" / "S01.json").read_text())
    sdk = [c for c in evidence["checks"] if c["layer"] == "sdk"]
    assert sdk and all(c["status"] == "UNOBTAINABLE" for c in sdk), sdk
    if importlib.util.find_spec("mcp") is not None:
        assert all("not replayed" in c["detail"] for c in sdk), sdk
    assert status(results, "X01") == "PASS", "the other rows are judged as usual"


def test_a_harmless_pattern_still_matches(tmp_path):
    """The control for the case above: the same data under a linear pattern passes."""
    schema = {"type": "object", "properties": {"query": {"type": "string", "pattern": "^a+!$"}}}
    proc, folder = run_schema(tmp_path, schema, "--profile", str(long_query_profile(tmp_path)))
    assert proc.returncode == 0, proc.stdout[-3000:]
    results = assert_complete(folder, proc)
    assert status(results, "S01") == "PASS"


def test_schema_that_explodes_by_combination_is_bounded(tmp_path):
    """Forty levels of two-way anyOf through $ref is a small schema with 2**40 paths:
    validation stops at its time budget and the row says so."""
    depth = 40
    defs = {f"l{i}": {"anyOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}", "minLength": 0}]}
            for i in range(depth)}
    defs[f"l{depth}"] = {"type": "integer"}
    proc, folder = run_schema(tmp_path, {"$defs": defs, "$ref": "#/$defs/l0"})
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = assert_complete(folder, proc)
    assert "validating against outputSchema took longer than 3s; too costly to check, refused" in reason(results, "S01")
