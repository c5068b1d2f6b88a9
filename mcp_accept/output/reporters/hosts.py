"""The per-host table of what each host handed its model (one row per host and version, one
column per form and fact), from ``host test`` folders: ``--format hosts`` (Markdown) and
``--format hosts-html``; ``--lang ja`` for Japanese. The same table ``host matrix`` writes."""

from __future__ import annotations

from mcp_accept.output.reporters.base import Reporter


def _matrix(runs: list) -> dict:
    from mcp_accept.errors import InputError
    from mcp_accept.output.host_matrix import is_host_test, row_of

    hosts = [run for run in runs if is_host_test(run.folder)]
    if not hosts:
        raise InputError("none of the run folders was written by `mcp-accept host test`: the host "
                         "table needs their host-run.json", field="--format")
    dates = [(run.results.get("conditions") or {}).get("executed_at_utc") or "" for run in hosts]
    servers = sorted({(run.results.get("conditions") or {}).get("server_name") or "?" for run in hosts})
    transports = sorted({(run.results.get("conditions") or {}).get("transport") or "?" for run in hosts})
    return {"server": ", ".join(servers), "transport": ", ".join(transports),
            "measured_at": max(dates), "rows": [row_of(None, run.folder) for run in hosts]}


class HostsReporter(Reporter):
    name = "hosts"

    def render(self, runs: list) -> str:
        from mcp_accept.output.host_matrix import render_markdown

        return render_markdown(_matrix(runs), self.lang)


class HostsHtmlReporter(Reporter):
    name = "hosts-html"

    def render(self, runs: list) -> str:
        from mcp_accept.output.host_matrix import render_html

        return render_html(_matrix(runs), self.lang)
