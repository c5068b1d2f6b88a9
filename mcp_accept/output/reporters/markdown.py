"""Markdown through Jinja (``report.md.j2``, or a template of the user's).

The template is given ``untested`` (:func:`mcp_accept.output.runs.untested_runs`): the runs
that tested nothing, which ``report.md.j2`` says right under its title, before any table.
"""

from __future__ import annotations

from mcp_accept.output.reporters.base import Reporter


class MarkdownReporter(Reporter):
    name = "markdown"
    accepts_template = True

    def render(self, runs: list) -> str:
        from mcp_accept.output.render import _render, _template
        from mcp_accept.output.runs import host_summary, untested_runs

        tpl = _template(self.template, "report.md.j2")
        return _render(tpl, self.template, runs=runs, summary=host_summary(runs), lang=self.lang,
                       L=self.labels, untested=untested_runs(runs, self.labels))
