"""What the top of a report says, shared by the HTML page and the Markdown report: one line
per run (never two runs in one cell, even of the same host and server) and a verdict over
all the runs (how many runs, hosts and servers; the runs that tested nothing, with their
cause; the runs that failed, by rule kind; the rest).
"""

from __future__ import annotations

import itertools

from mcp_accept.evidence.wirelog import read_entries
from mcp_accept.output.reporters.base import gates
from mcp_accept.output.results_writer import failures_by_rule, summary
from mcp_accept.output.words import Words
from mcp_accept.protocol import META_SERVER_INFO

# serverInfo comes back in the first exchange of a run; past this many wire entries a run
# that has not shown it never will, and a long wire.jsonl is not read for nothing.
SERVER_INFO_LINES = 64
RULE_KINDS = ("must", "profile", "should", "app")
# A verdict names hosts and servers up to this many; a fleet of hundreds is counted, not listed.
NAMED = 6

VERDICT_LABELS = Words("overview", {
    "verdict": "Verdict", "run_n": ("{n} run", "{n} runs"), "host_n": ("{n} host", "{n} hosts"),
    "server_n": ("{n} server", "{n} servers"), "and_more": "{n} more",
    "untested_n": "{n} tested nothing", "failed_n": "{n} failed", "clean_n": "{n} without a failure",
    "failed_rows": ("{n} failed row", "{n} failed rows"), "by_rule": "failed checks by rule kind",
    "failed_runs": "Runs that failed", "clean_runs": "Runs without a failure",
    "server_version": "Server version", "no_server": "server not named"
})


def counted(template: tuple, n: int) -> str:
    return template[0 if n == 1 else 1].format(n=n)


def _server_info_version(message: dict) -> str | None:
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        return None
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        info = (result.get("_meta") or {}).get(META_SERVER_INFO) \
            if isinstance(result.get("_meta"), dict) else None
    version = info.get("version") if isinstance(info, dict) else None
    return version if isinstance(version, str) else None


def server_version(run) -> str | None:
    """The server's version as it said on the wire: what a host run's proxy kept, else the
    ``serverInfo`` of the run's own first exchange in ``wire.jsonl``."""
    from mcp_accept.output.runs import server_version as observed_version

    version = observed_version(run.results)
    if version is not None:
        return version
    try:
        for entry in itertools.islice(read_entries(run.folder / "wire.jsonl"), SERVER_INFO_LINES):
            if entry.get("dir") == "in":
                version = _server_info_version(entry.get("message"))
                if version is not None:
                    return version
    except OSError:
        return None
    return None


def run_lines(runs: list) -> dict:
    """One line per run, in the shape of :func:`mcp_accept.output.runs.host_summary` (so a
    template written for that still works), each line with its run's number, counts, the
    rule kinds of its failures and its cause when it tested nothing."""
    from mcp_accept.output.runs import row_ids

    ids = row_ids(runs)
    lines = []
    for n, run in enumerate(runs, 1):
        conditions = run.results.get("conditions") or {}
        rows = run.results["rows"]
        failed = [row for row in rows if row["status"] == "FAIL"]
        by_rule = failures_by_rule(rows)  # counted as `run` counts them (its "Failed checks")
        counts = summary(rows)
        cause = run.untested
        cells = {i: [] for i in ids}
        for row in rows:
            evidence = run.evidence(row.get("evidence"))
            cells[row["id"]].append({
                "status": row["status"], "evidence": evidence["text"] or None, "href": evidence["href"],
                "evidence_missing": evidence["missing"], "run": run.base})
        lines.append({
            "n": n, "base": run.base, "runs": [run.base], "cells": cells,
            "host_product": conditions.get("host_product"), "host_version": conditions.get("host_version"),
            "server_name": conditions.get("server_name"), "server_version": server_version(run),
            "transport": conditions.get("transport"),
            "protocol_version_on_wire": conditions.get("protocol_version_on_wire"),
            "cause": cause, "counts": counts, "failed": [row["id"] for row in failed], "by_rule": by_rule,
            "verdict": "untested" if cause else "FAIL" if any(gates(row) for row in failed) else "clean"})
    # a report over runs of servers alone (no host recorded) has no host to summarise by
    hosts = any(line["host_product"] or line["host_version"] for line in lines)
    return {"row_ids": ids, "lines": lines, "hosts": hosts}


def _named(values: list, L: dict) -> str:
    shown = ", ".join(values[:NAMED])
    return shown + (", " + L["and_more"].format(n=len(values) - NAMED) if len(values) > NAMED else "")


def verdict(summary: dict, labels: dict, lang: str) -> dict:
    """The whole report in a few lines: counts of runs, hosts and servers (named, with their
    versions when recorded), then the runs that tested nothing, those that failed (with their
    failures by rule kind) and the rest."""
    L = {**VERDICT_LABELS[lang], **labels}
    lines = summary["lines"]
    hosts, servers = [], []
    for line in lines:
        host = " ".join(str(v) for v in (line["host_product"], line["host_version"]) if v) or L["no_host"]
        server = " ".join(str(v) for v in (line["server_name"], line["server_version"]) if v) or L["no_server"]
        hosts += [host] if host not in hosts else []
        servers += [server] if server not in servers else []
    untested = [line for line in lines if line["verdict"] == "untested"]
    failed = [line for line in lines if line["verdict"] == "FAIL"]
    clean = [line for line in lines if line["verdict"] == "clean"]
    by_rule = {kind: sum(line["by_rule"].get(kind, 0) for line in failed) for kind in RULE_KINDS}
    head = " · ".join((counted(L["run_n"], len(lines)),
                       *([f"{counted(L['host_n'], len(hosts))} ({_named(hosts, L)})"] if summary.get("hosts", True) else []),
                       f"{counted(L['server_n'], len(servers))} ({_named(servers, L)})"))
    outcome = ", ".join(part for part, k in ((L["untested_n"].format(n=len(untested)), untested),
                                             (L["failed_n"].format(n=len(failed)), failed),
                                             (L["clean_n"].format(n=len(clean)), clean)) if k)
    rows_failed = sum(len(line["failed"]) for line in failed)
    rules = ", ".join(f"{L[kind]} {count}" for kind, count in by_rule.items())
    return {"head": head, "outcome": outcome, "untested": untested, "failed": failed, "clean": clean,
            "by_rule": by_rule, "failed_rows": counted(L["failed_rows"], rows_failed) if rows_failed else "",
            "rules": rules, "L": L}
