"""The output formats of ``mcp-accept report``, one reporter class each.

Every reporter turns the loaded runs (:class:`mcp_accept.output.runs.Run`, placed so that
their evidence links work from where the report is written) into one text. The
registry maps each ``--format`` value to its class; a new format is a new module
here and one line in :data:`REPORTER_BY_NAME`.

* :mod:`.base`: the :class:`Reporter` every format subclasses; :mod:`.overview`: the verdict
  over all runs and the one line per run that the HTML and Markdown reports open with;
* :mod:`.markdown`, :mod:`.html_report`: reports for people; :mod:`.hosts`: the per-host table
  from host-test folders;
* :mod:`.json_report`, :mod:`.junit`, :mod:`.sarif`, :mod:`.github`: formats for programs and CI.

May import: what :mod:`mcp_accept.output` may, and :mod:`.render` and :mod:`.runs` beside it;
never :mod:`mcp_accept.output.report`, which uses this registry.
"""

from __future__ import annotations

from mcp_accept.errors import InputError
from mcp_accept.output.reporters.base import Reporter
from mcp_accept.output.reporters.github import GithubReporter
from mcp_accept.output.reporters.hosts import HostsHtmlReporter, HostsReporter
from mcp_accept.output.reporters.html_report import HtmlReporter
from mcp_accept.output.reporters.json_report import JsonReporter
from mcp_accept.output.reporters.junit import JunitReporter
from mcp_accept.output.reporters.markdown import MarkdownReporter
from mcp_accept.output.reporters.sarif import SarifReporter

REPORTER_BY_NAME: dict[str, type[Reporter]] = {
    "markdown": MarkdownReporter,
    "junit": JunitReporter,
    "json": JsonReporter,
    "html": HtmlReporter,
    "sarif": SarifReporter,
    "github": GithubReporter,
    "hosts": HostsReporter,
    "hosts-html": HostsHtmlReporter,
}
FORMATS = tuple(REPORTER_BY_NAME)


def make_reporter(name: str, **options) -> Reporter:
    """The reporter for a ``--format`` value; an unknown value is the user's to fix."""
    try:
        cls = REPORTER_BY_NAME[name]
    except KeyError:
        raise InputError(f"must be one of {', '.join(FORMATS)} (found {name!r})",
                         field="--format") from None
    return cls(**options)


__all__ = ["FORMATS", "REPORTER_BY_NAME", "Reporter", "make_reporter"]
