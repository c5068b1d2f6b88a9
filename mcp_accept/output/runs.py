"""The runs a report reads: run folders (or their ``results.json``, or fleet folders) loaded
and validated before anything is rendered, placed so that their evidence links work from where
the report is written, and summarised one line per host. A run that tested nothing (its
server could not be started or reached) is picked out here for every format to say first
(:func:`untested_runs`; the reading itself is :func:`mcp_accept.inputs.results.untested_cause`).

Evidence paths in ``results.json`` are relative to their run folder; in a report they are
rewritten relative to the folder the report is written to, so the links work wherever the
report sits.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path

from mcp_accept.errors import InputError
from mcp_accept.output.render import inside_folder, joined, link_target


# The conditions that tell one host line of the summary from another, in column order.
# A summary line is one host (product, version as the wire or the person named it) with one
# server (name and version: two servers observed under one host stay apart).
HOST_KEYS = ("host_product", "host_version", "server_name", "server_version", "transport",
             "protocol_version_on_wire")


@dataclass
class Run:
    """One run folder given to the report, and how the report reaches it."""

    folder: Path
    results: dict
    base: str = ""  # the run folder seen from the report's folder, for links

    @property
    def host(self) -> tuple:
        conditions = dict(self.results.get("conditions") or {})
        conditions.setdefault("server_version", server_version(self.results))
        return tuple(conditions.get(key) for key in HOST_KEYS)

    @property
    def untested(self) -> str | None:
        """Why this run tested nothing (its server could not be started or reached), or None."""
        from mcp_accept.inputs.results import untested_cause

        return untested_cause(self.results)

    def evidence(self, path) -> dict:
        """An evidence string of this run as a report shows it: ``text`` (seen from the
        report's folder when it names a file of the run folder, else as written), ``href``
        (:func:`mcp_accept.output.render.link_target`, and None for a file the folder does
        not hold, so no link leads nowhere) and ``missing``."""
        if not isinstance(path, str) or not path:
            return {"text": "", "href": None, "missing": False}
        if not inside_folder(path):
            return {"text": path, "href": link_target(path, self.base), "missing": False}
        missing = not plain_file(self.folder, path)
        return {"text": joined(path, self.base), "href": None if missing else link_target(path, self.base),
                "missing": missing}

    @property
    def missing_evidence(self) -> list[str]:
        """The evidence paths of its rows that name no plain file in the run folder (a folder
        copied without its rows/, a file removed since)."""
        return [row["evidence"] for row in self.results["rows"] if self.evidence(row.get("evidence"))["missing"]]


def plain_file(folder: Path, path: str) -> bool:
    """Whether ``path`` (inside the folder, see :func:`mcp_accept.output.render.inside_folder`)
    is a plain file of one name reached through real folders: a link planted on the way
    would take a report's link out of the run folder."""
    parts = [part for part in posixpath.normpath(path).split("/") if part not in ("", ".")]
    current = Path(folder)
    for i, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except (OSError, ValueError):
            return False
        if i == len(parts) - 1:
            return stat.S_ISREG(st.st_mode) and st.st_nlink == 1
        if not stat.S_ISDIR(st.st_mode):
            return False
    return False


def server_version(results: dict) -> str | None:
    """The server's version: no condition holds it, so it is read from what a recording
    proxy established on the wire (``serverInfo``, kept in the host rows' ``observed.wire``)."""
    for row in results.get("rows") or []:
        server = ((row.get("observed") or {}).get("wire") or {}).get("server") or {}
        if isinstance(server.get("version"), str):
            return server["version"]
    return None


def load_runs(paths: list[Path]) -> list[Run]:
    """Read and validate every run (a run folder or its results.json) before anything
    is rendered: a bad hand edit stops the report with the file, line and field."""
    from mcp_accept.inputs.results import expand_run_dirs
    from mcp_accept.inputs.results import validate_results

    paths = expand_run_dirs(list(paths))  # fleet folders (of every shard) give their targets' runs
    if not paths:
        raise InputError("give at least one run folder", field="RUN_DIR")
    runs: list[Run] = []
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        results_file = path if path.is_file() else path / "results.json"
        if not path.exists():
            raise InputError("no such run folder", file=str(given))
        if not os.path.lexists(results_file):  # a link or FIFO there is named by validate_results
            raise InputError("no results.json in this folder (is it a run folder?)",
                             file=str(given))
        key = results_file.resolve()
        if key in seen:
            continue
        seen.add(key)
        runs.append(Run(results_file.parent, validate_results(results_file)))
    return runs


def _relative(folder: Path, start: Path) -> str:
    try:
        rel = os.path.relpath(folder.resolve(), start.resolve())
    except ValueError:  # another drive: only an absolute path reaches it
        return folder.resolve().as_posix()
    return Path(rel).as_posix()


def place(runs: list[Run], out: Path | None) -> None:
    """Set each run's link base relative to where the report goes (or the working folder)."""
    start = Path(out).parent if out is not None else Path.cwd()
    for run in runs:
        run.base = _relative(run.folder, start)


# --------------------------------------------------------------------------- summary


def row_ids(runs: list[Run]) -> list[str]:
    """Every row id of the runs, in the order they first appear."""
    ids: list[str] = []
    for run in runs:
        for row in run.results["rows"]:
            if row["id"] not in ids:
                ids.append(row["id"])
    return ids


def host_summary(runs: list[Run]) -> dict:
    """One line per host and server (see HOST_KEYS); per row id a list of cells, one for
    each run of that host and server, each with status and evidence link."""
    ids = row_ids(runs)
    lines: dict[tuple, dict] = {}
    for run in runs:
        line = lines.setdefault(run.host, {
            **dict(zip(HOST_KEYS, run.host)), "runs": [], "cells": {i: [] for i in ids}})
        line["runs"].append(run.base)
        for row in run.results["rows"]:
            evidence = run.evidence(row.get("evidence"))
            line["cells"][row["id"]].append({
                "status": row["status"], "evidence": evidence["text"] or None,
                "href": evidence["href"], "evidence_missing": evidence["missing"], "run": run.base,
            })
    return {"row_ids": ids, "lines": list(lines.values())}


# --------------------------------------------------------------------------- formats


# The formats themselves are reporter classes in mcp_accept.output.reporters.


def run_label(run: Run, L: dict) -> str:
    c = run.results.get("conditions") or {}
    host = " ".join(str(v) for v in (c.get("host_product"), c.get("host_version")) if v)
    server = c.get("server_name") or run.results["sheet"]["name"]
    transport = ", ".join(str(v) for v in (c.get("transport"), c.get("protocol_version_on_wire")) if v)
    return f"{host or L['no_host']} / {server}" + (f" ({transport})" if transport else "")


def untested_runs(runs: list[Run], L: dict) -> list[dict]:
    """The runs that tested nothing, for a report to say first: each with its number in the
    report (from 1), its label and its one-line cause (server text, not yet made inert)."""
    return [{"n": n, "label": run_label(run, L), "base": run.base, "cause": run.untested}
            for n, run in enumerate(runs, 1) if run.untested]
