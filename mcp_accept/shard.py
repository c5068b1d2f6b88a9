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

import json
import os
import re
from pathlib import Path
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


def fleet_entries(folder: Path) -> list[tuple[int, Path]]:
    """(position in the targets file, run folder) of each target of a fleet folder that left a
    results.json (a target stopped before it started has none). Raises InputError on a
    damaged fleet.json."""
    index_file = folder / "fleet.json"
    try:
        data = json.loads(index_file.read_text(encoding="utf-8"))
        targets = data["targets"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable fleet index ({type(exc).__name__})", file=str(index_file)) from None
    found = []
    for n, entry in enumerate(targets):
        try:
            position = int(entry.get("index", n))
            run = Path(entry["folder"])
        except (AttributeError, KeyError, TypeError, ValueError):
            raise InputError("a target entry has no folder", file=str(index_file), field=f"targets[{n}]") from None
        run = run if run.is_absolute() else folder / run
        if (run / "results.json").is_file():
            found.append((position, run))
    return found


def expand_run_dirs(paths: list[Path]) -> list[Path]:
    """Run folders as given, with every fleet folder (a fleet.json, no results.json) replaced by
    its targets' run folders. The targets of all fleet folders are merged in the targets file's
    order and stand where the first fleet folder stood: N shards read like one unsharded run."""
    out: list[Path] = []
    merged: list[tuple[int, int, Path]] = []
    slot = None
    for order, given in enumerate(paths):
        path = Path(given)
        if path.is_dir() and not (path / "results.json").exists() and (path / "fleet.json").is_file():
            if slot is None:
                slot = len(out)
            merged += [(position, order, run) for position, run in fleet_entries(path)]
        else:
            out.append(path)
    if slot is not None:
        out[slot:slot] = [run for _, _, run in sorted(merged, key=lambda item: (item[0], item[1]))]
    return out
