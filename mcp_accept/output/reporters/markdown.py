"""Markdown through Jinja (``report.md.j2``, or a template of the user's).

The template is given ``verdict`` (:func:`mcp_accept.output.reporters.overview.verdict`), the
whole report in a few lines, and ``untested`` (:func:`mcp_accept.output.runs.untested_runs`):
the runs that tested nothing, which ``report.md.j2`` says right under its title, before any
table. ``summary`` has one line per run, so no cell ever holds two runs.
"""

from __future__ import annotations

from mcp_accept.output.reporters.base import Reporter


class MarkdownReporter(Reporter):
    name = "markdown"
    accepts_template = True

    def render(self, runs: list) -> str:
        from mcp_accept.output.render import _render, _template
        from mcp_accept.output.reporters.overview import run_lines, verdict
        from mcp_accept.output.runs import untested_runs

        tpl = _template(self.template, "report.md.j2")
        summary = run_lines(runs)
        overall = verdict(summary, self.labels, self.lang)
        return _render(tpl, self.template, runs=runs, summary=summary, lang=self.lang,
                       L=overall["L"], verdict=overall, untested=untested_runs(runs, self.labels))
