"""``mcp-accept host matrix``: ``host test`` for every installed host (or those named), side by
side, and one table of what each host handed its model: one row per host and version, one
column per form and fact of H01-H03. A host that is not installed is a row that says so.

The table's cells are read from each run folder (``results.json``, ``rows/H0*.json``,
``host-run.json``), so the same table can be made again from the folders alone.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from mcp_accept.errors import InputError, ServerError
from mcp_accept.evidence.files import atomic_write_json, atomic_write_text, utc_now
from mcp_accept.hosts.adapters import ADAPTERS
from mcp_accept.hosts.harness import HostMissing, HostTestOptions, host_test

FORMAT = "mcp-accept/host-matrix/1"


def pick_hosts(names: str | None) -> list[str]:
    if not names:
        return list(ADAPTERS)
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in ADAPTERS]
    if unknown or not chosen:
        raise InputError(f"must name hosts among {', '.join(ADAPTERS)} (found {names!r})", field="--hosts")
    return chosen


def _read(folder: Path, name: str):
    try:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def row_of(host: str, folder: Path | None, error: str | None = None) -> dict:
    """One line of the table, from a host-test folder (or why there is none)."""
    adapter = ADAPTERS[host]
    row = {"host": host, "product": adapter.product, "folder": str(folder) if folder else None}
    if error is not None:
        row["error"] = error
        return row
    results = _read(folder, "results.json") or {}
    facts = _read(folder, "host-run.json") or {}
    statuses = {r["id"]: r["status"] for r in results.get("rows") or []}
    h01 = ((_read(folder, "rows/H01.json") or {}).get("observed") or {}).get("forms") or {}
    h02 = (_read(folder, "rows/H02.json") or {}).get("observed") or {}
    h03 = (_read(folder, "rows/H03.json") or {}).get("observed") or {}
    extra = facts.get("extra_forms") or {}
    sizes = h03.get("sizes") or []
    handling = sorted({s.get("handling") for s in sizes if s.get("handling") and s.get("handling") != "whole"})
    row.update({
        "version": facts.get("version"),
        "protocol": facts.get("protocol_version"),
        "client": (facts.get("client_info") or {}).get("name"),
        "tool_names": facts.get("tool_name_scheme"),
        "api": facts.get("api"),
        "text": (h01.get("text") or {}).get("reached"),
        "structured": (h01.get("structured") or {}).get("reached"),
        "structured_seen": ", ".join((h01.get("structured") or {}).get("model_saw") or []) or None,
        "embedded": (h01.get("embedded") or {}).get("reached"),
        "link_handed": h02.get("body_in_link_result"),
        "link_read_by_host": h02.get("host_read_by_itself"),
        "link_read_tool": h02.get("read_tool_offered"),
        "link_body_via_tool": h02.get("body_via_read_tool"),
        "image": _extra(extra.get("image"), "png"),
        "blob": _extra(extra.get("blob"), "pdf"),
        "large_bracket": h03.get("threshold_bracket_bytes"),
        "large_handling": handling or (["whole"] if sizes else []),
        "H01": statuses.get("H01"), "H02": statuses.get("H02"), "H03": statuses.get("H03"),
        "guard": facts.get("network_guard"),
        "other_connects": sorted(((facts.get("connects") or {}).get("other") or {})),
        "seconds": facts.get("host_seconds"),
    })
    return row


def _extra(found: dict | None, kind: str) -> str | None:
    if not found or found.get("handed") is None:
        return None
    if found.get(f"{kind}_data_handed"):
        return "bytes handed"
    if found.get(f"{kind}_data_in_request"):
        return "bytes attached beside the result"
    return "text only" if found.get("token") == "whole" else "not handed"


def run_matrix(base: HostTestOptions, hosts: list[str], out: Path, jobs: int = 1) -> dict:
    """``host test`` of each host into ``out/<host>``, ``jobs`` at once; matrix.json, .md, .html."""
    out.mkdir(parents=True, exist_ok=True)

    def one(host: str) -> dict:
        folder = out / host
        try:
            host_test(replace(base, host=host, out=str(folder), host_bin=None))
        except HostMissing as exc:
            return row_of(host, None, error=f"not installed: {exc}")
        except (InputError, ServerError) as exc:
            return row_of(host, folder, error=str(exc))
        return row_of(host, folder)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rows = list(pool.map(one, hosts))
    matrix = {"format": FORMAT, "measured_at": utc_now(),
              "server": base.server or base.url or "the built-in fixture (marker mode)",
              "transport": base.transport, "rows": rows}
    atomic_write_json(out / "matrix.json", matrix)
    from mcp_accept.output.host_matrix import render_html, render_markdown

    for lang in ("en", "ja"):
        suffix = "" if lang == "en" else ".ja"
        atomic_write_text(out / f"matrix{suffix}.md", render_markdown(matrix, lang))
        atomic_write_text(out / f"matrix{suffix}.html", render_html(matrix, lang))
    return matrix
