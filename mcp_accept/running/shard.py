"""Splitting a fleet across CI jobs, and putting the shards back together.

``run --targets FILE --shard K/N`` runs shard K of N. The partition is round-robin over
the targets file's order: target i (0-based) belongs to shard ``i % N + 1``. It depends
on nothing but the file and N, so every machine computes the same one; every target
lands in exactly one shard; and shards differ in size by one at most, which keeps the
jobs of a CI matrix about equally long. (A hash of the names would keep a target in
its shard when others are added, but can leave shards empty or lopsided on a small
file; balance matters more to a matrix that runs every shard every time.)

``--shard auto`` reads the shard from the environment: ``MCP_ACCEPT_SHARD=K/N`` (what
a GitHub Actions matrix passes), else GitLab's ``CI_NODE_INDEX`` (1-based) and
``CI_NODE_TOTAL`` of a ``parallel:`` job; with neither, the whole file runs as one shard.

``mcp-accept report`` accepts the fleet folders of all shards: :func:`expand_run_dirs`
replaces them by their targets' run folders in the targets file's order, so the merged
report has the same tables as one unsharded run.
"""

from __future__ import annotations

import os
import re
from typing import Mapping, Sequence, TypeVar

from mcp_accept.errors import InputError

T = TypeVar("T")
SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(value: str, *, field: str = "--shard") -> tuple[int, int]:
    """``"K/N"`` as (K, N), 1 <= K <= N."""
    match = SHARD_RE.match(value or "")
    if not match:
        raise InputError(f"expected K/N, e.g. 2/4, or auto (found {value!r})", field=field)
    k, n = int(match.group(1)), int(match.group(2))
    if n < 1 or not 1 <= k <= n:
        raise InputError(f"K must be between 1 and N, and N at least 1 (found {value!r})", field=field)
    return k, n


def shard_from_env(environ: Mapping[str, str] | None = None) -> tuple[int, int]:
    """The shard CI asks for: MCP_ACCEPT_SHARD, else GitLab's CI_NODE_INDEX/CI_NODE_TOTAL,
    else (1, 1)."""
    env = os.environ if environ is None else environ
    if env.get("MCP_ACCEPT_SHARD", "").strip():
        return parse_shard(env["MCP_ACCEPT_SHARD"], field="MCP_ACCEPT_SHARD")
    index, total = env.get("CI_NODE_INDEX", "").strip(), env.get("CI_NODE_TOTAL", "").strip()
    if index and total:
        return parse_shard(f"{index}/{total}", field="CI_NODE_INDEX/CI_NODE_TOTAL")
    return 1, 1


def resolve_shard(value: str | None, environ: Mapping[str, str] | None = None) -> tuple[int, int] | None:
    """The ``--shard`` option: None (no sharding), ``auto`` or ``K/N``."""
    if value is None:
        return None
    if value.strip().lower() == "auto":
        return shard_from_env(environ)
    return parse_shard(value)


def shard_index(position: int, total: int) -> int:
    """The shard (1-based) of the target at ``position`` (0-based) of the file."""
    return position % total + 1


def select(items: Sequence[T], shard: tuple[int, int] | None) -> list[T]:
    """The items of shard K of N, in their order."""
    if shard is None:
        return list(items)
    k, n = shard
    return [item for i, item in enumerate(items) if shard_index(i, n) == k]


# -- merging shards ------------------------------------------------------------------------------
