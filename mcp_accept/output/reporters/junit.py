"""JUnit XML: one test suite per run, one test case per row. FAIL is a failure;
UNOBTAINABLE and PENDING are skipped, with the reason; PASS passes.

A run that tested nothing (its server could not be started or reached) opens its suite with
one more test case in error, whose message is the run's one-line cause: CI test views count
an error, never a suite of skips. Its rows stay skipped, pointing at that cause.

Every text goes in through :func:`mcp_accept.untrusted.plain_line`: a server's name or reason
may hold control characters, which XML 1.0 cannot carry at all (the document would not parse).
"""

from __future__ import annotations

from mcp_accept.output.reporters.base import Reporter, gates, row_rule

UNTESTED_TYPE = "unreachable"  # the <error type=...> of a run that tested nothing


class JunitReporter(Reporter):
    name = "junit"

    def render(self, runs: list) -> str:
        from xml.dom.minidom import parseString

        from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

        from mcp_accept.output.runs import run_label
        from mcp_accept.untrusted import plain_line

        lang, L = self.lang, self.labels
        xml = JUnitXml("mcp-accept")
        used: set[str] = set()
        for run in runs:
            label = plain_line(run_label(run, L))
            if label in used:  # two runs of the same host and server: tell them apart
                label = f"{label} [{plain_line(run.base)}]"
            used.add(label)
            suite = TestSuite(label)
            suite.timestamp = run.results.get("started_at")
            for key, value in (run.results.get("conditions") or {}).items():
                if value is not None:
                    suite.add_property(key, plain_line(value))
            suite.add_property("run_folder", plain_line(run.base))
            cause = run.untested
            if cause:
                case = TestCase(L["untested"], classname=label, time=0)
                case.result = [Error(plain_line(cause), UNTESTED_TYPE)]
                case.system_out = f"{L['cause']}: {plain_line(cause)}\n{L['folder']}: {plain_line(run.base)}"
                suite.add_testcase(case)
            for row in run.results["rows"]:
                title = plain_line(row["title"].get(lang) or row["title"]["en"])
                case = TestCase(f"{row['id']} {title}", classname=label, time=row.get("seconds") or 0)
                reason = plain_line(row.get("reason") or "")
                if row["status"] == "FAIL" and gates(row):
                    case.result = [Failure(reason, "FAIL")]
                elif row["status"] == "FAIL":  # shown with its rule kind; it did not fail the run
                    case.result = [Skipped(f"{L['FAIL']} [{row_rule(row)}] ({L['not_gating']}): {reason}")]
                elif row["status"] == "UNOBTAINABLE":
                    case.result = [Skipped(f"{L['UNOBTAINABLE']}: {reason}")]
                elif row["status"] == "PENDING":
                    case.result = [Skipped(f"{L['PENDING']}: {reason or L['pending_reason']}")]
                lines = [f"{L['status']}: {L[row['status']]}", f"{L['kind']}: {L[row['kind']]}"]
                if reason:
                    lines.append(f"{L['reason']}: {reason}")
                if row.get("note"):
                    lines.append(f"{L['note']}: {plain_line(row['note'])}")
                evidence = run.evidence(row.get("evidence"))
                if evidence["text"]:
                    missing = f" ({L['evidence_missing']})" if evidence["missing"] else ""
                    lines.append(f"{L['evidence']}: {plain_line(evidence['text'])}{missing}")
                case.system_out = "\n".join(lines)
                suite.add_testcase(case)
            xml.add_testsuite(suite)
        xml.update_statistics()
        return parseString(xml.tostring()).toprettyxml(indent="  ", encoding="utf-8").decode("utf-8")
