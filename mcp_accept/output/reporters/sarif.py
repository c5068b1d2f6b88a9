"""SARIF 2.1.0 for code-scanning views: one SARIF run per mcp-accept run, one result per
FAIL row. The level says which rule broke: ``error`` for a MUST of the MCP spec,
``warning`` for a SHOULD, ``note`` for a rule of the sheet or profile (``app``).

A run that tested nothing (its server could not be started or reached) is not a clean run
with no result: its invocation says ``executionSuccessful: false`` and carries the one-line
cause as an ``error`` tool execution notification (SARIF 2.1.0 §3.20.14, §3.20.21): the two
signs by which Appendix I tells a consumer that a log's results are not complete.

SARIF 2.1.0 (OASIS): https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
"""

from __future__ import annotations

import json

from mcp_accept.output.reporters.base import Reporter, failed_checks, load_row_file, row_rule, shown_level, spec_sources

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL_BY_SHOWN = {"error": "error", "warning": "warning", "notice": "note"}
UNTESTED_ID = "mcp-accept/untested"  # the notification of a run whose server was never reached


class SarifReporter(Reporter):
    name = "sarif"

    def render(self, runs: list) -> str:
        from mcp_accept import __version__
        from mcp_accept.output.runs import run_label

        L, lang = self.labels, self.lang
        sarif_runs = []
        for run in runs:
            rules, results = [], []
            for row in run.results["rows"]:
                title = row["title"].get(lang) or row["title"]["en"]
                rules.append({
                    "id": row["id"],
                    "name": row["id"],
                    "shortDescription": {"text": title},
                    "properties": {"kind": row["kind"]},
                })
                if row["status"] != "FAIL":
                    continue
                rule = row_rule(row)
                checks = failed_checks(load_row_file(run, row)) or [
                    c for c in row.get("checks") or [] if c.get("status") == "FAIL"]
                sources = spec_sources(checks)
                evidence = run.evidence(row.get("evidence"))
                text = f"{row['id']} {L['FAIL']} [{rule}]: {row.get('reason') or title}"
                if sources:
                    text += f" (spec: {', '.join(sources)})"
                result = {
                    "ruleId": row["id"],
                    "ruleIndex": len(rules) - 1,
                    "level": LEVEL_BY_SHOWN[shown_level(row)],
                    "message": {"text": text},
                    "properties": {"rule": rule, "kind": row["kind"], "spec": sources,
                                   "checks": [c.get("check") for c in checks],
                                   "run_folder": run.base},
                }
                # A viewer makes the location a link: only a file the run folder holds (or an
                # http(s) URL) is one; any other evidence string stays a property, as text.
                if evidence["href"]:
                    result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": evidence["href"]}}}]
                elif evidence["text"]:
                    result["properties"]["evidence"] = evidence["text"]
                    result["properties"]["evidence_missing"] = evidence["missing"]
                results.append(result)
            conditions = {k: v for k, v in (run.results.get("conditions") or {}).items() if v is not None}
            cause = run.untested
            invocation = {"executionSuccessful": not (cause or run.results.get("interrupted")),
                          "properties": {"conditions": conditions, "run_folder": run.base}}
            if cause:
                invocation["toolExecutionNotifications"] = [{
                    "level": "error",
                    "message": {"text": f"{L['untested']}: {cause}"},
                    "descriptor": {"id": UNTESTED_ID},
                    "properties": {"cause": cause, "run_folder": run.base},
                }]
            sarif_runs.append({
                "tool": {"driver": {"name": "mcp-accept", "version": __version__,
                                    "rules": rules}},
                "automationDetails": {"description": {"text": run_label(run, L)}},
                "invocations": [invocation],
                "results": results,
            })
        document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": sarif_runs}
        from mcp_accept.evidence.finite import strict_dumps

        return strict_dumps(document, ensure_ascii=False, indent=2) + "\n"
