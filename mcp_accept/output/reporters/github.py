"""GitHub Actions workflow commands: one annotation per FAIL row, printed to the job's log
(``mcp-accept report RUN --format github``). ``error`` for a MUST of the MCP spec,
``warning`` for a SHOULD, ``notice`` for a rule of the sheet or profile.

A run that tested nothing (its server could not be started or reached) is one ``error``
annotation holding its one-line cause, printed before any row's: a log with no annotation must
mean no row failed, never that no row was tried.

Escaping follows the runner's rules (actions/toolkit, ``command.ts``): in the message
``%``, ``\\r``, ``\\n``; in a property value those and ``:`` and ``,`` too. Before that every
other control character and ANSI escape of a server's text is made visible: the log would
paint them.
"""

from __future__ import annotations

from mcp_accept.output.reporters.base import Reporter, failed_checks, load_row_file, row_rule, shown_level, spec_sources



def visible(text: str) -> str:
    """``text`` with its control characters and ANSI escapes shown as escapes, its line breaks
    kept (the command's escaping carries them)."""
    from mcp_accept.untrusted import plain_line

    return "\n".join("\r".join(plain_line(part) for part in line.split("\r"))
                     for line in str(text).split("\n"))


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(command: str, message: str, **properties: str) -> str:
    props = ",".join(f"{key}={escape_property(visible(value))}" for key, value in properties.items() if value)
    return f"::{command}{' ' + props if props else ''}::{escape_data(visible(message))}"


class GithubReporter(Reporter):
    name = "github"

    def render(self, runs: list) -> str:
        from mcp_accept.output.runs import run_label, untested_runs

        L, lang = self.labels, self.lang
        lines = [annotation("error", f"{u['cause']}\n{L['folder']}: {u['base']}",
                            title=f"mcp-accept: {L['untested']} — {u['label']}")
                 for u in untested_runs(runs, L)]
        for run in runs:
            label = run_label(run, L)
            for row in run.results["rows"]:
                if row["status"] != "FAIL":
                    continue
                rule = row_rule(row)
                title = row["title"].get(lang) or row["title"]["en"]
                sources = spec_sources(failed_checks(load_row_file(run, row)))
                message = f"{row.get('reason') or title}\n{L['kind']}: {row['kind']}; rule: {rule}"
                if sources:
                    message += f"\nspec: {', '.join(sources)}"
                evidence = run.evidence(row.get("evidence"))
                if evidence["text"]:
                    message += f"\n{L['evidence']}: {evidence['text']}"
                    message += f" ({L['evidence_missing']})" if evidence["missing"] else ""
                lines.append(annotation(shown_level(row), message,
                                        title=f"{row['id']} {L['FAIL']} [{rule}] {title} — {label}"))
        return "".join(line + "\n" for line in lines)
