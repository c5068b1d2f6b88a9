"""JUnit XML: one test suite per run, one test case per row. FAIL is a failure;
UNOBTAINABLE and PENDING are skipped, with the reason; PASS passes."""

from __future__ import annotations

from mcp_accept.output.reporters.base import Reporter


class JunitReporter(Reporter):
    name = "junit"

    def render(self, runs: list) -> str:
        from xml.dom.minidom import parseString

        from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

        from mcp_accept.output.render import joined
        from mcp_accept.output.runs import run_label

        lang, L = self.lang, self.labels
        xml = JUnitXml("mcp-accept")
        used: set[str] = set()
        for run in runs:
            label = run_label(run, L)
            if label in used:  # two runs of the same host and server: tell them apart
                label = f"{label} [{run.base}]"
            used.add(label)
            suite = TestSuite(label)
            suite.timestamp = run.results.get("started_at")
            for key, value in (run.results.get("conditions") or {}).items():
                if value is not None:
                    suite.add_property(key, str(value))
            suite.add_property("run_folder", run.base)
            for row in run.results["rows"]:
                title = row["title"].get(lang) or row["title"]["en"]
                case = TestCase(f"{row['id']} {title}", classname=label, time=row.get("seconds") or 0)
                reason = row.get("reason") or ""
                if row["status"] == "FAIL":
                    case.result = [Failure(reason, "FAIL")]
                elif row["status"] == "UNOBTAINABLE":
                    case.result = [Skipped(f"{L['UNOBTAINABLE']}: {reason}")]
                elif row["status"] == "PENDING":
                    case.result = [Skipped(f"{L['PENDING']}: {reason or L['pending_reason']}")]
                lines = [f"{L['status']}: {L[row['status']]}", f"{L['kind']}: {L[row['kind']]}"]
                if reason:
                    lines.append(f"{L['reason']}: {reason}")
                if row.get("note"):
                    lines.append(f"{L['note']}: {row['note']}")
                if row.get("evidence"):
                    lines.append(f"{L['evidence']}: {joined(row['evidence'], run.base)}")
                case.system_out = "\n".join(lines)
                suite.add_testcase(case)
            xml.add_testsuite(suite)
        xml.update_statistics()
        return parseString(xml.tostring()).toprettyxml(indent="  ", encoding="utf-8").decode("utf-8")
