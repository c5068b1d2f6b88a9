"""The report as one JSON document (``mcp-accept/report/1``): the summary by host and
every run's results, for tools that read rather than people."""

from __future__ import annotations

import json

from mcp_accept.output.reporters.base import Reporter


class JsonReporter(Reporter):
    name = "json"

    def render(self, runs: list) -> str:
        from mcp_accept.evidence.files import utc_now
        from mcp_accept.output.runs import HOST_KEYS, host_summary
        from mcp_accept.output.render import REPORT_FORMAT

        summary = host_summary(runs)
        document = {
            "format": REPORT_FORMAT,
            "generated_at": utc_now(),
            "row_ids": summary["row_ids"],
            "hosts": [{**{k: line[k] for k in HOST_KEYS}, "runs": line["runs"],
                       "cells": {rid: [{k: c[k] for k in ("status", "evidence", "run")}
                                       for c in cells] for rid, cells in line["cells"].items()}}
                      for line in summary["lines"]],
            "runs": [{"folder": run.base, "results": run.results} for run in runs],
        }
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
