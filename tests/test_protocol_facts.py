"""The protocol facts have one home, mcp_accept.protocol: the reference server's copy (it must
run as one standard-library file) equals it, and no other module writes a version again."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mcp_accept import fixture, protocol

PACKAGE = Path(protocol.__file__).parent
VERSION = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def test_the_fixture_copy_equals_the_protocol_facts():
    copies = {
        "MODERN_VERSION": protocol.MODERN,
        "MODERN_VERSIONS": (protocol.MODERN,),
        "LEGACY_VERSIONS": protocol.LEGACY,
        "DEFAULT_LEGACY_VERSION": protocol.LATEST_LEGACY,
        "ALL_VERSIONS": protocol.VERSIONS,
        "META_VERSION": protocol.META_VERSION,
        "META_CAPS": protocol.META_CAPS,
        "META_SERVER_INFO": protocol.META_SERVER_INFO,
        "HEADER_VERSION": protocol.HEADER_VERSION,
        "HEADER_SESSION": protocol.HEADER_SESSION,
        "HEADER_METHOD": protocol.HEADER_METHOD,
        "HEADER_NAME": protocol.HEADER_NAME,
        "PARSE_ERROR": protocol.PARSE_ERROR,
        "INVALID_REQUEST": protocol.INVALID_REQUEST,
        "METHOD_NOT_FOUND": protocol.METHOD_NOT_FOUND,
        "INVALID_PARAMS": protocol.INVALID_PARAMS,
        "LEGACY_RESOURCE_NOT_FOUND": protocol.RESOURCE_NOT_FOUND,
        "HEADER_MISMATCH": protocol.HEADER_MISMATCH,
        "UNSUPPORTED_VERSION": protocol.UNSUPPORTED_VERSION,
        "CACHEABLE_METHODS": frozenset(protocol.CACHEABLE_METHODS),
    }
    differ = {name: (getattr(fixture, name), fact) for name, fact in copies.items()
              if getattr(fixture, name) != fact}
    assert not differ, f"fixture.py's copy differs from mcp_accept.protocol: {differ}"


def test_the_fixture_break_code_is_reserved_and_undefined():
    lowest, highest = protocol.RESERVED_RANGE
    assert lowest <= fixture.RESERVED_CODE <= highest
    assert fixture.RESERVED_CODE not in protocol.DEFINED_RESERVED


def test_the_versions_and_their_eras():
    assert protocol.VERSIONS == (protocol.MODERN, *protocol.LEGACY)
    assert list(protocol.VERSIONS) == sorted(protocol.VERSIONS, reverse=True)
    assert set(protocol.ERA_OF) == set(protocol.VERSIONS)
    assert [v for v in protocol.VERSIONS if protocol.is_modern(v)] == [protocol.MODERN]
    assert all(protocol.is_legacy(v) for v in protocol.LEGACY)
    assert protocol.unknown_resource_code(protocol.MODERN) in protocol.unknown_resource_codes_accepted(protocol.MODERN)
    assert protocol.RESOURCE_NOT_FOUND in protocol.RETIRED_CODES
    assert protocol.RESOURCE_NOT_FOUND not in protocol.unknown_resource_codes_accepted(protocol.MODERN)
    for version in protocol.LEGACY:
        assert protocol.unknown_resource_code(version) in protocol.unknown_resource_codes_accepted(version)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_module_but_protocol_and_the_fixture_writes_a_version():
    """A version in a string the code uses (a comparison, a table, a message) comes from
    mcp_accept.protocol; docstrings and comments may name versions freely."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (PACKAGE / "protocol.py", PACKAGE / "fixture.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value[:60]!r}"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs and VERSION.search(node.value)]
    assert not found, "versions written outside mcp_accept/protocol.py:\n" + "\n".join(found)
