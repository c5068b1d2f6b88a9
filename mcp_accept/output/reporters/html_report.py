"""One self-contained HTML page (``templates/report.html.j2``): the summary by host, then
every run's conditions and rows; each row opens onto its checks and the wire messages
they rest on. CSS and JavaScript sit inline, so the file works from ``file://`` with no
network. Everything a server sent is escaped (Jinja autoescape) and its control characters
made visible (``finalize``): it is hostile text.

Runs that tested nothing (the server could not be started or reached) are said first, each
with its one-line cause, above the summary table, and again at the top of the run's section.
"""

from __future__ import annotations

import functools
import json

from mcp_accept.output.reporters.base import Reporter, load_row_file

# A shown message is cut at this many bytes, so that a 16 MiB result gives a page of a
# few hundred KiB, not one a browser chokes on; its full size is shown beside it.
MESSAGE_CAP = 20 * 1024

HTML_LABELS = {
    "en": {"filter": "Show", "search": "Search rows", "checks": "Checks", "check": "Check",
           "layer": "Layer", "rule": "Rule", "source": "Spec source", "detail": "Detail",
           "messages": "Wire messages", "headers": "HTTP", "shown": "shown {shown} of {size}",
           "no_checks": "No checks recorded for this row.", "omitted": "not shown",
           "all": "All", "matches": "rows shown", "server_name": "Server", "server_version": "Server version"},
    "ja": {"filter": "表示", "search": "試験を検索", "checks": "検査", "check": "検査",
           "layer": "層", "rule": "規則", "source": "仕様の箇所", "detail": "詳細",
           "messages": "通信メッセージ", "headers": "HTTP", "shown": "{size} のうち {shown} を表示",
           "no_checks": "この試験の検査記録はない。", "omitted": "非表示",
           "all": "すべて", "matches": "件を表示", "server_name": "サーバ", "server_version": "サーバのバージョン"},
}


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def shown(value, template: str) -> dict:
    """A value pretty-printed, cut at MESSAGE_CAP bytes, with its size."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
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


def row_view(run, row: dict, lang: str, template: str) -> dict:
    evidence_file = load_row_file(run, row)
    messages = {m.get("seq"): m for m in (evidence_file or {}).get("messages") or []}
    checks = []
    for check in (evidence_file or {}).get("checks") or row.get("checks") or []:
        seqs = check.get("wire_seqs") or []
        checks.append({**check, "messages": [message_view(messages[s], template) for s in seqs if s in messages]})
    from mcp_accept.output.render import href

    return {"id": row["id"], "status": row["status"], "kind": row["kind"],
            "title": row["title"].get(lang) or row["title"]["en"], "reason": row.get("reason") or "",
            "note": row.get("note") or "", "rule": row.get("failed_rule"),
            "evidence": row.get("evidence") or "", "href": href(row.get("evidence"), run.base),
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


@functools.cache
def _environment():
    import jinja2

    from mcp_accept.output.render import templates_dir

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True,
                              undefined=jinja2.StrictUndefined, finalize=_visible)


class HtmlReporter(Reporter):
    name = "html"

    def render(self, runs: list) -> str:
        from mcp_accept.output.runs import HOST_KEYS, host_summary, run_label, untested_runs

        L = {**HTML_LABELS[self.lang], **self.labels}  # the shared labels win where both have one
        views = [{"label": run_label(run, L), "base": run.base,
                  "conditions": run.results.get("conditions") or {},
                  "summary": run.results.get("summary") or {},
                  "cause": run.untested,
                  "rows": [row_view(run, row, self.lang, L["shown"]) for row in run.results["rows"]]}
                 for run in runs]
        return _environment().get_template("report.html.j2").render(
            runs=views, summary=host_summary(runs), host_keys=HOST_KEYS, L=L, lang=self.lang,
            statuses=("PASS", "FAIL", "UNOBTAINABLE", "PENDING"), untested=untested_runs(runs, L))
