"""The one rule from a written ``results.json`` to the exit status CI reads, for ``run`` (and
``rerun``, which is a run) and ``host test``.

Worst first: an interrupted run; a run that tested nothing (its server could not be started
or spoken to, or a host that handed its model no result); a FAIL the runner found that
breaks ``--fail-on``; else OK. Rows a person filled with ``observe`` never decide it: the
exit status says what this command found.
"""

from __future__ import annotations

from mcp_accept.checks.base import FAIL, breaks_threshold
from mcp_accept.errors import ExitStatus
from mcp_accept.inputs.results import untested_cause


def exit_status(results: dict, *, fail_on: str = "app", not_measured: str | None = None) -> ExitStatus:
    """``not_measured``: why a host run measured nothing (``host-run.json``'s
    ``outcome.not_measured``), which counts as a server that could not be reached."""
    if results.get("interrupted"):
        return ExitStatus.INTERRUPTED
    if not_measured or untested_cause(results):
        return ExitStatus.SERVER
    failed = any(row["status"] == FAIL and row.get("filled_by", "runner") == "runner"
                 and breaks_threshold(row.get("failed_rule") or "app", fail_on) for row in results["rows"])
    return ExitStatus.FAILED if failed else ExitStatus.OK
