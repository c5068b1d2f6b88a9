"""The report as one JSON document (``mcp-accept/report/1``): the summary by host and
every run's results, for tools that read rather than people.

``untested`` comes first after the header: the runs that tested nothing (their server could
not be started or reached), each with its folder and one-line cause; empty when every run
reached its server. A tool need not know how results.json says it."""

from __future__ import annotations

import json

from mcp_accept.output.reporters.base import Reporter


class JsonReporter(Reporter):
    name = "json"

    def render(self, runs: list) -> str:
        from mcp_accept.evidence.files import utc_now
        from mcp_accept.output.runs import HOST_KEYS, host_summary, untested_runs
        from mcp_accept.output.render import REPORT_FORMAT

        summary = host_summary(runs)
        document = {
            "format": REPORT_FORMAT,
            "generated_at": utc_now(),
            "untested": [{"run": u["base"], "label": u["label"], "cause": u["cause"]}
                         for u in untested_runs(runs, self.labels)],
            "row_ids": summary["row_ids"],
            "hosts": [{**{k: line[k] for k in HOST_KEYS}, "runs": line["runs"],
                       "cells": {rid: [{k: c[k] for k in ("status", "evidence", "evidence_missing", "run")}
                                       for c in cells] for rid, cells in line["cells"].items()}}
                      for line in summary["lines"]],
            "runs": [{"folder": run.base, "results": run.results} for run in runs],
        }
        from mcp_accept.evidence.finite import strict_dumps

        return strict_dumps(document, ensure_ascii=False, indent=2) + "\n"
