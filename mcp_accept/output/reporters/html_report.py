"""One self-contained HTML page (``templates/report.html.j2``) that reads top-down: a verdict
over every run (runs, hosts and servers; the runs that tested nothing, each with its one-line
cause, first; the runs that failed, by rule kind), one line per run, then every FAIL row
opened onto its checks, then each run with its other rows closed, then the wire messages the
checks rest on, each once, linked from every check that cites it. CSS and JavaScript sit
inline, so the file works from ``file://`` with no network; the Content-Security-Policy runs
the page's own script alone, pinned by its hash, and no link leaves the run folders but an
http(s) one (:func:`mcp_accept.output.render.link_target`). Everything a server sent is
escaped (Jinja autoescape) and its control characters made visible (``finalize``): it is
hostile text.
"""

from __future__ import annotations

import functools
import json

from mcp_accept.checks.base import spec_url
from mcp_accept.output.reporters.base import Reporter, load_row_file
from mcp_accept.output.words import Words

# A shown message is cut at this many bytes, so that a 16 MiB result gives a page of a
# few hundred KiB, not one a browser chokes on; its full size is shown beside it.
MESSAGE_CAP = 20 * 1024

HTML_LABELS = Words("html", {
    "filter": "Show", "search": "Search rows", "checks": "Checks", "check": "Check",
    "layer": "Layer", "rule": "Rule", "source": "Spec source", "detail": "Detail",
    "messages": "Wire messages", "headers": "HTTP", "shown": "shown {shown} of {size}",
    "no_checks": "No checks recorded for this row.", "omitted": "not shown",
    "all": "All", "matches": "rows shown", "server_name": "Server", "server_version": "Server version",
    "failures": "Failures", "runs_table": "One line per run", "by_row": "Every row of every run", "outcome": "Outcome",
    "untested_short": "tested nothing", "clean": "no failure", "evidence_messages": "Evidence: wire messages",
    "cited_by": "cited by", "failures_above": "its failures are listed above", "other_rows": "Other rows",
    "no_messages": "No check of this run cites a wire message."
})


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    if n < 1 << 30:
        return f"{n / (1024 * 1024):.1f} MiB"
    return f"{n / (1 << 30):.2f} GiB"


def shown(value, template: str) -> dict:
    """A value pretty-printed, cut at MESSAGE_CAP bytes, with its size."""
    from mcp_accept.evidence.finite import strict_dumps, without_surrogates

    text = without_surrogates(value) if isinstance(value, str) else strict_dumps(value, ensure_ascii=False, indent=2)
    data = text.encode("utf-8")
    cut = len(data) > MESSAGE_CAP
    if cut:
        text = data[:MESSAGE_CAP].decode("utf-8", errors="ignore") + "\n…"
    return {"text": text, "size": human_size(len(data)), "cut": cut,
            "note": template.format(shown=human_size(MESSAGE_CAP), size=human_size(len(data))) if cut else ""}


def message_view(entry: dict, template: str) -> dict:
    """One wire entry of rows/<ID>.json as the page shows it."""
    message = entry.get("message")
    method = message.get("method") if isinstance(message, dict) else None
    if isinstance(message, dict) and method is None:
        method = "error" if "error" in message else "result" if "result" in message else None
    view = {"seq": entry.get("seq"), "dir": entry.get("dir") or "", "step": entry.get("step") or "",
            "method": method or entry.get("event") or "", "body": None, "http": None,
            "omitted": entry.get("message_omitted")}
    if message is not None:
        view["body"] = shown(message, template)
    elif "raw" in entry:
        view["body"] = shown(str(entry["raw"]), template)
    elif entry.get("detail"):
        view["body"] = shown(str(entry["detail"]), template)
    if entry.get("http"):
        view["http"] = shown(entry["http"], template)  # headers as recorded: credentials already masked
    return view


def _listed(value) -> list:
    """A list a row file should hold, as a list of mappings: a row file is read from someone
    else's folder, and a string or number where a list belongs is no evidence, not a crash."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def run_evidence(run, n: int, template: str) -> tuple[dict, dict]:
    """A run's rows files read once, and the wire messages their checks cite, each once, by
    its sequence number in the run's ``wire.jsonl``: the page shows a message in one place
    and every check that rests on it links there."""
    files, messages = {}, {}
    for row in run.results["rows"]:
        data = load_row_file(run, row)
        files[row["id"]] = data
        for entry in _listed((data or {}).get("messages")):
            seq = entry.get("seq")
            if isinstance(seq, int) and seq not in messages:
                messages[seq] = {**message_view(entry, template), "anchor": f"m-{n}-{seq}", "cited_by": []}
    return files, messages


def _text(value) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def check_view(check: dict, messages: dict, lang: str = "en") -> dict:
    """One check as the page shows it, from rows/<ID>.json or, when that file is missing,
    the shorter record in results.json (no detail, no messages); a check whose layer the run
    had off says why in ``lang`` either way."""
    from mcp_accept.output.render import off_reason

    seqs = check.get("wire_seqs")
    cited = [messages[s] for s in (seqs if isinstance(seqs, list) else [])
             if isinstance(s, int) and s in messages]
    return {"check": _text(check.get("check")), "status": _text(check.get("status")),
            "layer": _text(check.get("layer")), "rule": _text(check.get("rule")),
            "source": _text(check.get("source")),
            "source_url": spec_url(check.get("source")) if isinstance(check.get("source"), str) else None,
            "detail": off_reason(check, lang) or _text(check.get("detail")), "messages": cited}


def row_view(run, n: int, row: dict, lang: str, evidence_file: dict | None, messages: dict) -> dict:
    checks = []
    recorded = _listed((evidence_file or {}).get("checks")) or _listed(row.get("checks"))
    for check in recorded:
        view = check_view(check, messages, lang)
        for message in view["messages"]:
            if row["id"] not in message["cited_by"]:
                message["cited_by"].append(row["id"])
        checks.append(view)
    evidence = run.evidence(row.get("evidence"))
    return {"id": row["id"], "anchor": f"run-{n}-{row['id']}", "status": row["status"], "kind": row["kind"],
            "title": row["title"].get(lang) or row["title"]["en"], "reason": row.get("reason") or "",
            "note": row.get("note") or "", "rule": row.get("failed_rule"),
            "evidence": row.get("evidence") or "", "href": evidence["href"], "missing": evidence["missing"],
            "checks": checks}


def _visible(value):
    """What the page prints of a value: a string's control characters and ANSI escapes shown
    as escapes (a copied line would carry them to a terminal), its line breaks kept for the
    ``pre`` blocks; autoescape then does the HTML."""
    from markupsafe import Markup

    if not isinstance(value, str) or isinstance(value, Markup) or value.isprintable():
        return value  # Markup is the template's own, escaped already
    from mcp_accept.untrusted import plain_line

    return "\n".join(plain_line(line) for line in value.split("\n"))


def csp_hash(script: str) -> str:
    """The Content-Security-Policy source that lets exactly this inline script run
    (CSP Level 3, hash-source): the page's own script, and nothing a results file could add."""
    import base64
    import hashlib

    return "sha256-" + base64.b64encode(hashlib.sha256(str(script).encode("utf-8")).digest()).decode("ascii")


@functools.cache
def _environment():
    import jinja2

    from mcp_accept.output.render import templates_dir

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True,
                             undefined=jinja2.StrictUndefined, finalize=_visible)
    env.filters["csp_hash"] = csp_hash
    return env


class HtmlReporter(Reporter):
    name = "html"

    def render(self, runs: list) -> str:
        from mcp_accept.output.reporters.overview import run_lines, verdict
        from mcp_accept.output.runs import run_label, untested_runs

        L = {**HTML_LABELS[self.lang], **self.labels}  # the shared labels win where both have one
        summary = run_lines(runs)
        views = []
        for n, (run, line) in enumerate(zip(runs, summary["lines"]), 1):
            files, messages = run_evidence(run, n, L["shown"])
            rows = [row_view(run, n, row, self.lang, files[row["id"]], messages) for row in run.results["rows"]]
            views.append({"n": n, "label": run_label(run, L), "base": run.base, "line": line,
                          "conditions": run.results.get("conditions") or {},
                          "summary": run.results.get("summary") or {}, "cause": run.untested,
                          "failures": [r for r in rows if r["status"] == "FAIL"],
                          "rest": [r for r in rows if r["status"] != "FAIL"],
                          "messages": [messages[seq] for seq in sorted(messages)]})
        overall = verdict(summary, self.labels, self.lang)
        return _environment().get_template("report.html.j2").render(
            runs=views, summary=summary, verdict=overall, L={**overall["L"], **L}, lang=self.lang,
            statuses=("PASS", "FAIL", "UNOBTAINABLE", "PENDING"), untested=untested_runs(runs, L))
