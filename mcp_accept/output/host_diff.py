"""``mcp-accept host diff A B``: what changed between two ``host matrix`` folders (their
``matrix.json`` rows) or two ``host test`` folders (each read as the one row ``host matrix``
would make of it), cell by cell.

A row is matched by its host and model kind, and by the version asked for (``HOST@VERSION``)
where a folder holds the same host more than once. A cell is one value of a row, a nested one
named by its path (``cost.text.tokens``); what differs from run to run by nature (the run's
folder, its seconds, a form's cost in tokens) is left out. The outcome is data (:class:`HostDiff`): the command prints
it as a table or JSON, and exits 1 when something changed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mcp_accept.errors import InputError
from mcp_accept.output.host_matrix import row_of

FORMAT = "mcp-accept/host-diff/1"
# what any two runs differ in, whatever the host did
NOT_COMPARED = frozenset({"folder", "seconds", "kind"})  # kind: the adapter's, not measured
# A form's cost in tokens moves by a few between two runs of the same host: the fixture's
# markers are new each run and tokenize differently. Its cost in characters carries a change.
NOISY_LEAF = "tokens"


@dataclass
class CellChange:
    row: str  # the row's name: host, [@version asked], [model kind]
    cell: str
    a: object
    b: object


@dataclass
class HostDiff:
    a: str
    b: str
    kind: str  # "matrix" or "host test"
    changes: list[CellChange] = field(default_factory=list)
    only_in_a: list[str] = field(default_factory=list)
    only_in_b: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes or self.only_in_a or self.only_in_b)

    def as_json(self) -> dict:
        return {"format": FORMAT, "a": self.a, "b": self.b, "kind": self.kind, "changed": self.changed,
                "changes": [asdict(c) for c in self.changes], "only_in_a": self.only_in_a,
                "only_in_b": self.only_in_b}


def read_rows(folder: Path, field_name: str) -> tuple[str, list[dict]]:
    """The rows of a ``host matrix`` folder, or the one row of a ``host test`` folder."""
    if not folder.is_dir():
        raise InputError("must be a host matrix or host test folder (not found)", file=str(folder), field=field_name)
    matrix = folder / "matrix.json"
    if matrix.is_file():
        try:
            data = json.loads(matrix.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot be read as JSON: {exc}", file=str(matrix), field=field_name) from None
        rows = data.get("rows") if isinstance(data, dict) else None
        if not isinstance(rows, list) or not all(isinstance(r, dict) and r.get("host") for r in rows):
            raise InputError("has no list of rows, each naming its host", file=str(matrix), field="rows")
        return "matrix", rows
    if (folder / "host-run.json").is_file() and (folder / "results.json").is_file():
        row = row_of(None, folder)
        if not row.get("host"):
            raise InputError("names no host", file=str(folder / "host-run.json"), field="host")
        return "host test", [row]
    raise InputError("holds neither matrix.json (host matrix) nor host-run.json and results.json (host test)",
                     file=str(folder), field=field_name)


def _names(rows: list[dict]) -> list[str]:
    """Each row's name: host and model kind, with the version asked for where that is needed to
    tell two rows apart (the same host at two versions in one matrix)."""
    def base(row: dict) -> str:
        return row["host"] + (f" ({row['model_kind']})" if row.get("model_kind") else "")

    counts: dict[str, int] = {}
    for row in rows:
        counts[base(row)] = counts.get(base(row), 0) + 1
    names = []
    for row in rows:
        name = base(row)
        if counts[name] > 1:
            name = f"{row['host']}@{row.get('version_asked') or row.get('version') or 'installed'}" + name[len(row["host"]):]
        names.append(name)
    return names


def cells(row: dict, prefix: str = "") -> dict[str, object]:
    """A row's values by cell name, a nested mapping opened into one cell per leaf."""
    out: dict[str, object] = {}
    for key, value in row.items():
        if not prefix and key in NOT_COMPARED:
            continue
        name = f"{prefix}{key}"
        if prefix.startswith("cost.") and key == NOISY_LEAF:
            continue
        if isinstance(value, dict) and value:
            out.update(cells(value, name + "."))
        else:
            out[name] = value
    return out


def diff_hosts(a: Path, b: Path) -> HostDiff:
    kind_a, rows_a = read_rows(a, "A")
    kind_b, rows_b = read_rows(b, "B")
    if kind_a != kind_b:
        raise InputError(f"is a {kind_b} folder, A a {kind_a} folder: compare two of the same kind",
                         file=str(b), field="B")
    by_a = dict(zip(_names(rows_a), rows_a))
    by_b = dict(zip(_names(rows_b), rows_b))
    if kind_a == "host test":  # one row each: the two runs are compared, whatever their hosts
        hosts = dict.fromkeys((rows_a[0]["host"], rows_b[0]["host"]))
        by_a, by_b = {" → ".join(hosts): rows_a[0]}, {" → ".join(hosts): rows_b[0]}
    outcome = HostDiff(str(a), str(b), kind_a, only_in_a=[n for n in by_a if n not in by_b],
                       only_in_b=[n for n in by_b if n not in by_a])
    for name, row in by_a.items():
        if name not in by_b:
            continue
        ca, cb = cells(row), cells(by_b[name])
        for cell in list(ca) + [c for c in cb if c not in ca]:
            va, vb = ca.get(cell), cb.get(cell)
            if va != vb:
                outcome.changes.append(CellChange(name, cell, va, vb))
    return outcome


def shown(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def render_table(diff: HostDiff, width: int = 60) -> str:
    """The changes as a Markdown table, a row per changed cell; a row of one folder only said after."""
    from mcp_accept.untrusted import plain_line

    def cell(value: object) -> str:
        text = plain_line(shown(value)).replace("|", "\\|")
        return text if len(text) <= width else text[:width - 1] + "…"

    lines = [f"host diff: A {diff.a}, B {diff.b} ({diff.kind} folders)", ""]
    if diff.changes:
        lines += ["| row | cell | A | B |", "| --- | --- | --- | --- |"]
        lines += [f"| {cell(c.row)} | {cell(c.cell)} | {cell(c.a)} | {cell(c.b)} |" for c in diff.changes]
        lines.append("")
    lines += [f"only in A: {name}" for name in diff.only_in_a]
    lines += [f"only in B: {name}" for name in diff.only_in_b]
    changed_rows = len({c.row for c in diff.changes})
    alone = len(diff.only_in_a) + len(diff.only_in_b)
    lines.append(f"{len(diff.changes)} cell(s) changed in {changed_rows} row(s); {alone} row(s) in one folder only"
                 if diff.changed else "nothing changed")
    return "\n".join(lines) + "\n"


HISTORY_FORMAT = "mcp-accept/host-history/1"


def history(matrix: dict, host: str, versions: list[str]) -> dict:
    """``host history``: a host's rows of one matrix, a version each, as one table: a row per
    measured cell, a column per version, each cell marked where it differs between versions.
    ``version_asked`` is the column itself, so it is not a row; a version that was not measured
    is a column that says why."""
    by_version = {row.get("version_asked"): row for row in matrix.get("rows") or []}
    columns = {version: cells(by_version.get(version) or {"error": "not run"}) for version in versions}
    names: list[str] = []
    for found in columns.values():
        names += [name for name in found if name not in names and name not in ("version_asked", "host", "product")]
    # a version not measured (not installed, interrupted) says why in its column, and is left
    # out of what counts as a change between versions
    measured = [version for version in versions if not columns[version].get("error")]
    rows = []
    for name in names:
        values = {version: columns[version].get(name) for version in versions}
        distinct = {json.dumps(values[version], sort_keys=True) for version in measured}
        rows.append({"cell": name, "values": values, "changed": len(distinct) > 1})
    return {"format": HISTORY_FORMAT, "host": host, "versions": versions, "measured_at": matrix.get("measured_at"),
            "interrupted": matrix.get("interrupted"), "cells": rows}


def render_history(table: dict, width: int = 40) -> str:
    """The history as Markdown: a row per cell, a column per version, changed rows marked."""
    from mcp_accept.untrusted import plain_line

    def cell(value: object) -> str:
        text = plain_line(shown(value)).replace("|", "\\|")
        return text if len(text) <= width else text[:width - 1] + "…"

    versions = table["versions"]
    lines = [f"host history: {table['host']} at {', '.join(versions)}", "",
             "| cell | " + " | ".join(cell(v) for v in versions) + " | changed |",
             "| --- | " + " | ".join("---" for _ in versions) + " | --- |"]
    for row in table["cells"]:
        lines.append(f"| {cell(row['cell'])} | " + " | ".join(cell(row["values"][v]) for v in versions)
                     + f" | {'changed' if row['changed'] else ''} |")
    changed = sum(row["changed"] for row in table["cells"])
    lines += ["", f"{changed} of {len(table['cells'])} cell(s) differ between the versions"]
    if table.get("bisect"):
        lines += ["", *bisect_lines(table)]
    return "\n".join(lines) + "\n"


def render_history_html(table: dict) -> str:
    """The history as HTML, by the matrix's page: the same table, changed rows in bold."""
    from mcp_accept.output.host_matrix import html_page

    versions = table["versions"]
    changed = sum(row["changed"] for row in table["cells"])
    note = (f"Measured by `mcp-accept host history` with the stand-in model, offline, at {table.get('measured_at')}; "
            f"{changed} of {len(table['cells'])} cell(s) differ between the versions (in bold).")
    body = [[row["cell"], *(shown(row["values"][v]) for v in versions)] for row in table["cells"]]
    sections = [("Bisection", bisect_lines(table))] if table.get("bisect") else []
    return html_page(f"host history: {table['host']}", note, ["cell", *versions], body, "en", sections,
                     [row["changed"] for row in table["cells"]])


def bisect_lines(table: dict) -> list[str]:
    """What ``--bisect`` ran, in the order it ran them, each version's value, and its answer."""
    found = table["bisect"]
    first, last = found["range"]
    lines = [f"bisect {found['cell']} over {table['host']} {first}..{last} ({found['versions_in_range']} published "
             "version(s)), in the order run:"]
    for number, step in enumerate(found["ran"], 1):
        lines.append(f"{number}. {step['version']}: " + (f"not run, skipped ({step['error']})" if step.get("error")
                                                          else shown(step["value"])))
    spent = f"{found['runs']} run(s) in {found['seconds']:.0f} s"
    if found.get("error"):
        lines.append(f"no answer: {found['error']}; {spent}")
    elif found.get("same_at_both_ends"):
        lines.append(f"{found['cell']} is the same at {first} and {last} ({shown(found['ran'][0]['value'])}): "
                     f"nothing to bisect; {spent}")
    elif found.get("first_with_b_value"):
        lines.append(f"first version with {last}'s value ({shown(found['b_value'])}): {found['first_with_b_value']} "
                     f"(the version before it, {found['last_before']}, had another); {spent}")
    else:
        lines.append(f"the first version with {last}'s value is one of {', '.join(found['candidates'])}, which "
                     f"could not all be run; {spent}")
    return lines


def render_cache(root: Path, entries: list[dict], limit: int) -> str:
    """``host cache list``: a row per HOST/VERSION (by host, then the least recently used first)."""
    from mcp_accept.output.reporters.html_report import human_size
    from mcp_accept.untrusted import plain_line

    total = sum(e["bytes"] for e in entries)
    lines = [f"host cache: {plain_line(str(root))}", ""]
    if entries:
        lines += ["| host | version | size | last used | in use |", "| --- | --- | --- | --- | --- |"]
        lines += [f"| {e['host']} | {e['version']} | {human_size(e['bytes'])} | {e['last_used']} | "
                  f"{'yes' if e['in_use'] else ''} |" for e in entries]
        lines.append("")
    lines.append(f"{len(entries)} version(s), {human_size(total)} of at most {human_size(limit)}")
    return "\n".join(lines) + "\n"
