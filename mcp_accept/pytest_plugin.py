"""pytest plugin: the acceptance sheet as test items, one per row.

    pytest --mcp-server "python server.py"            # or --mcp-url URL
           [--mcp-profile FILE] [--mcp-protocol auto|VERSION] [--mcp-sheet FILE] [--mcp-out DIR]
           [--mcp-sdk] [--mcp-env NAME[=VALUE]]... [--mcp-inherit-env]

The sheet runs once (in this process, through :func:`mcp_accept.running.execute.run`) when the
first row item runs; every row then reports from the same run folder: PASS passes, FAIL
fails with the reason, the rule kind and the evidence path, UNOBTAINABLE and PENDING are
skipped with their reason. ``-k W01``, ``-x`` and ``--junitxml`` work as on any test.

A run that tested nothing (the server could not be started or reached, read by
:func:`mcp_accept.inputs.results.untested_cause`), or one that could not run at all, is no
suite of skips: the first item to need it fails with the one-line cause, and the session stops
there, so the exit status is non-zero and the cause is the error text.

Under pytest-xdist every worker collects the same items; the first worker that needs the
results runs the sheet while holding a file lock in the run folder, and the others
read the folder it wrote (the folder is named by xdist's test-run id, which all workers
share), so one pytest session drives the server once.

Registered through the ``pytest11`` entry point. Without ``--mcp-server``/``--mcp-url`` it
adds its options and a fixture and imports nothing else (but :mod:`mcp_accept.protocol`, whose
versions its help names).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcp_accept.protocol import VERSIONS_IN_WORDS

OPTIONS = ("mcp_server", "mcp_url", "mcp_profile", "mcp_protocol", "mcp_sheet", "mcp_out", "mcp_sdk",
           "mcp_env", "mcp_inherit_env")
SKIP_STATUSES = ("UNOBTAINABLE", "PENDING")


def pytest_addoption(parser) -> None:
    group = parser.getgroup("mcp-accept", "MCP acceptance sheet (mcp-accept)")
    group.addoption("--mcp-server", dest="mcp_server", default=None, metavar="CMD",
                    help="Command that starts the MCP server (stdio; with --mcp-url, started first). "
                         "Turns each row of the sheet into a test item.")
    group.addoption("--mcp-url", dest="mcp_url", default=None, metavar="URL",
                    help="Streamable HTTP endpoint of the MCP server.")
    group.addoption("--mcp-env", dest="mcp_env", action="append", default=[], metavar="NAME[=VALUE]",
                    help="For the server the run starts: NAME passes your variable through, NAME=VALUE "
                         "sets one (masked in the evidence); without it the server is given only the "
                         "MCP SDKs' default variables (HOME, LOGNAME, PATH, SHELL, TERM, USER). "
                         "Repeatable.")
    group.addoption("--mcp-inherit-env", dest="mcp_inherit_env", action="store_true", default=False,
                    help="Give the server the run starts your whole environment, keys and tokens included.")
    group.addoption("--mcp-profile", dest="mcp_profile", default=None, metavar="FILE",
                    help="Profile mapping the sheet's rows onto the server's tools.")
    group.addoption("--mcp-protocol", dest="mcp_protocol", default="auto", metavar="VERSION",
                    help=f"auto (default), {VERSIONS_IN_WORDS}.")
    group.addoption("--mcp-sheet", dest="mcp_sheet", default=None, metavar="FILE",
                    help="Sheet to run (default: the built-in sheet).")
    group.addoption("--mcp-out", dest="mcp_out", default=None, metavar="DIR",
                    help="Run folder to write (default: mcp-accept-runs/pytest-<id>/).")
    group.addoption("--mcp-sdk", dest="mcp_sdk", action="store_true", default=None,
                    help="Add the sdk layer, as mcp-accept run --sdk does (it never changes a row's "
                         "outcome). Without it, MCP_ACCEPT_SDK=on or off decides; the default is off.")


def enabled(config) -> bool:
    return bool(config.getoption("mcp_server") or config.getoption("mcp_url"))


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "mcp_accept: a row of the MCP acceptance sheet")
    if enabled(config):
        config.pluginmanager.register(SheetPlugin(config), "mcp-accept-sheet")


@dataclass
class SheetRun:
    """What the ``mcp_accept_run`` fixture gives: the run folder and its filled results."""

    folder: Path
    results: dict

    @property
    def rows(self) -> dict[str, dict]:
        return {row["id"]: row for row in self.results["rows"]}

    def status(self, row_id: str) -> str:
        return self.rows[row_id]["status"]


@pytest.fixture(scope="session")
def mcp_accept_run(request) -> SheetRun:
    """The filled sheet of this session's run (it runs the sheet if no row item has yet)."""
    plugin = request.config.pluginmanager.get_plugin("mcp-accept-sheet")
    if plugin is None:
        pytest.skip("no MCP server given: pass --mcp-server CMD or --mcp-url URL")
    return plugin.sheet_run(request.session)


class SheetPlugin:
    """The sheet of one pytest session: its rows as items, and the one run behind them."""

    def __init__(self, config) -> None:
        self.config = config
        self._run: SheetRun | None = None
        self._error: str | None = None
        workerinput = getattr(config, "workerinput", None)
        # Workers of one xdist session share its test-run id; a plain session makes its own.
        self.token = (workerinput or {}).get("testrunuid") or (
            time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:8])
        given = config.getoption("mcp_out")
        base = Path(config.invocation_params.dir)
        self.folder = (base / given) if given else base / "mcp-accept-runs" / f"pytest-{self.token}"
        self.sheet = self._load_sheet()

    # -- options ----------------------------------------------------------------------------------
    def _options(self):
        from mcp_accept.running.execute import RunOptions

        get = self.config.getoption
        base = Path(self.config.invocation_params.dir)

        def path(value):
            return None if value is None else base / value

        return RunOptions(server=get("mcp_server"), url=get("mcp_url"), protocol=get("mcp_protocol"),
                          profile=path(get("mcp_profile")), sheet=path(get("mcp_sheet")), out=self.folder,
                          sdk=get("mcp_sdk"), env=list(get("mcp_env") or ()),
                          inherit_env=bool(get("mcp_inherit_env")))

    def _load_sheet(self):
        """Check the options and read the sheet at start-up: a mistake is a usage error
        naming the file and field, before any server starts."""
        from mcp_accept.errors import InputError
        from mcp_accept.running.execute import check_options, check_target
        from mcp_accept.inputs.profile import load_profile
        from mcp_accept.inputs.sheet import load_sheet

        opts = self._options()
        try:
            check_options(opts)
        except InputError as exc:  # named as this plugin's option: --protocol is --mcp-protocol here
            name = f"--mcp-{exc.field.removeprefix('--')}" if (exc.field or "").startswith("--") else exc.field
            raise pytest.UsageError(f"{name}: {exc.message}") from None
        try:
            check_target(opts)
            load_profile(opts.profile)
            return load_sheet(opts.sheet)
        except InputError as exc:
            raise pytest.UsageError(f"mcp-accept: {exc.one_line()}") from None

    # -- items ------------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)  # before -k and -m deselect: they apply to the rows too
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        rows = [RowItem.from_parent(session, name=row.id, nodeid=f"mcp-accept::{row.id}",
                                    row_id=row.id, title=row.title.get("en") or row.id, plugin=self)
                for row in self.sheet.rows]
        items.extend(rows)
        # The items come from no collector, so no collect report counted them: said here, the
        # terminal's "collected N items / M deselected / K selected" counts the rows too.
        session.ihook.pytest_collectreport(report=pytest.CollectReport(
            "mcp-accept", "passed", None, rows))

    def pytest_report_header(self, config) -> str:
        return f"mcp-accept: sheet {self.sheet.name}, run folder {self.folder}"

    # -- the run ----------------------------------------------------------------------------------
    def sheet_run(self, session=None) -> SheetRun:
        """The session's run; when it tested nothing (or could not run), the error that says
        why, stopping the session: no row of it can pass, fail or be skipped honestly."""
        if self._run is None and self._error is None:
            self._run_once()
        if self._error is not None:
            message = f"mcp-accept: {self._error}"
            if session is not None and not session.shouldfail:
                session.shouldfail = message
            pytest.fail(message, pytrace=False)
        assert self._run is not None
        return self._run

    def _run_once(self) -> None:
        from filelock import FileLock

        self.folder.mkdir(parents=True, exist_ok=True)
        done = self.folder / f".pytest-{self.token}.json"  # this session's run is complete
        with FileLock(str(self.folder / ".pytest.lock")):
            if not done.is_file():
                error = self._execute()
                done.write_text(json.dumps({"error": error}), encoding="utf-8")
            state = json.loads(done.read_text(encoding="utf-8"))
        if state.get("error"):
            self._error = state["error"]
            return
        from mcp_accept.inputs.results import untested_cause
        from mcp_accept.untrusted import plain_line

        results = json.loads((self.folder / "results.json").read_text(encoding="utf-8"))
        cause = untested_cause(results)
        if cause:
            self._error = f"nothing was tested: {plain_line(cause)} (evidence: {self.folder})"
            return
        self._run = SheetRun(self.folder, results)

    def _execute(self) -> str | None:
        """Run the sheet; give the error that kept it from writing a run folder, if any."""
        from mcp_accept.errors import InputError, ServerError
        from mcp_accept.running.execute import run

        try:
            run(self._options())
        except InputError as exc:
            return exc.one_line()
        except ServerError as exc:
            from mcp_accept.untrusted import plain_line

            return plain_line(exc)
        return None


class RowItem(pytest.Item):
    """One row of the sheet, judged from the session's run folder."""

    def __init__(self, *, row_id: str, title: str, plugin: SheetPlugin, **kwargs) -> None:
        super().__init__(**kwargs)
        self.row_id = row_id
        self.title = title
        self.plugin = plugin
        self.add_marker("mcp_accept")

    def runtest(self) -> None:
        run = self.plugin.sheet_run(self.session)
        row = run.rows.get(self.row_id)
        if row is None:
            pytest.fail(f"{self.row_id}: not in {run.folder / 'results.json'}", pytrace=False)
        status, reason = row["status"], row.get("reason") or ""
        if status == "PASS":
            return
        if status == "FAIL" and row.get("gates") is False:
            # Shown with its rule kind, as run shows it; like run, it does not fail the session.
            from mcp_accept.untrusted import plain_line

            why = "expected by the baseline" if row.get("expected_failure") else \
                f"a {row.get('failed_rule') or 'app'} rule does not fail the run by default"
            pytest.skip(f"FAIL [{row.get('failed_rule') or 'app'}] ({why}): {plain_line(reason)}")
        if status in SKIP_STATUSES:
            from mcp_accept.untrusted import plain_line

            pytest.skip(f"{status}: {plain_line(reason or 'not observed yet (fill it with mcp-accept observe)')}")
        pytest.fail(failure_message(run, row), pytrace=False)

    def reportinfo(self):
        return self.path, None, f"mcp-accept {self.row_id}: {self.title}"


RULE_MEANING = {"must": "a MUST of the MCP spec", "profile": "a rule you wrote in your profile",
                "should": "a SHOULD of the MCP spec", "app": "the sheet's advice, not a rule of the spec"}


def failure_message(run: SheetRun, row: dict) -> str:
    """The reason with its rule kind, the checks and the spec sections, the evidence path;
    every line printable (a server's text reaches a terminal here)."""
    from mcp_accept.untrusted import plain_line

    rule = row.get("failed_rule") or "app"
    lines = [f"{row['id']} {row['status']} [{rule}]: {row.get('reason') or ''}",
             f"rule: {rule} ({RULE_MEANING.get(rule, rule)})"]
    sources = []
    for check in row.get("checks") or []:
        if check.get("status") == "FAIL":
            lines.append(f"check: {check.get('check')} ({check.get('layer')}, {check.get('rule')})")
            if check.get("source") and check["source"] not in sources:
                sources.append(check["source"])
    if sources:
        lines.append("spec: " + ", ".join(str(s) for s in sources))
    if row.get("evidence"):
        lines.append(f"evidence: {os.path.join(str(run.folder), row['evidence'])}")
    return "\n".join(plain_line(line) for line in lines)
