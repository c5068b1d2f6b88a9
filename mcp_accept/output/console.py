"""What the commands print, and where: the run's table and summary line, a fleet's table,
progress while something waits.

Everything that prints takes an :class:`Environment`: the output streams and the facts
about them (a terminal or not, colour, width, how much the user asked to see). The CLI
builds one from the real process; tests build their own, so output is tested without a
terminal and without patching globals. On a terminal tables are drawn with boxes and
colour and a progress display runs on stderr; piped, tables are plain columns at the
given width with no box drawing and no escape codes, and there is no progress display.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

STYLES = {"PASS": "green", "FAIL": "bold red", "UNOBTAINABLE": "yellow", "PENDING": "dim"}
QUIET, NORMAL, VERBOSE = -1, 0, 1
PLAIN_WIDTH = 80  # piped output: what fits in a mail, a CI log, a terminal of any size


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is one ("1 target", "3 rows")."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def shorten(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else cut at the last space before that and
    ended with "...": a word is never cut in two (one word longer than the limit is kept whole)."""
    if len(text) <= limit:
        return text
    head = text[:limit - 3].rstrip()
    space = head.rfind(" ")
    if space > 0:
        head = head[:space].rstrip(" ,;:")
    elif " " in text:
        head = text[:text.index(" ")]
    else:
        return text
    return head + " ..."


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@dataclass
class Environment:
    """The streams a command prints to, and what they are."""

    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    stdout_isatty: bool | None = None
    stderr_isatty: bool | None = None
    colors: bool | None = None
    width: int | None = None
    verbosity: int = NORMAL

    def __post_init__(self):
        if self.stdout_isatty is None:
            self.stdout_isatty = _isatty(self.stdout)
        if self.stderr_isatty is None:
            self.stderr_isatty = _isatty(self.stderr)
        if self.colors is None:  # https://no-color.org
            self.colors = self.stdout_isatty and not os.environ.get("NO_COLOR")
        if self.width is None:
            columns = os.environ.get("COLUMNS", "")
            if columns.isdigit() and int(columns) > 20:
                self.width = int(columns)
            elif self.stdout_isatty:
                self.width = shutil.get_terminal_size((PLAIN_WIDTH, 24)).columns
            else:
                self.width = PLAIN_WIDTH

    @property
    def quiet(self) -> bool:
        return self.verbosity <= QUIET

    @property
    def verbose(self) -> bool:
        return self.verbosity >= VERBOSE

    def console(self, *, err: bool = False):
        """A rich console on stdout (or stderr) that knows whether it talks to a terminal."""
        from rich.console import Console

        tty = self.stderr_isatty if err else self.stdout_isatty
        return Console(file=self.stderr if err else self.stdout, width=self.width, force_terminal=tty,
                       no_color=not self.colors, color_system="auto" if self.colors else None,
                       highlight=False, soft_wrap=False, emoji=False)

    def box(self):
        """Box drawing on a terminal; none when piped."""
        from rich import box

        return box.HEAVY_HEAD if self.stdout_isatty else None

    def show(self, renderable) -> None:
        """Print a table (or any rich renderable) on stdout; piped, without trailing blanks."""
        console = self.console()
        if self.stdout_isatty:
            console.print(renderable)
            return
        with console.capture() as captured:
            console.print(renderable)
        self.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
        self.stdout.flush()

    def echo(self, text: str = "", *, err: bool = False) -> None:
        stream = self.stderr if err else self.stdout
        stream.write(text + "\n")
        stream.flush()

    def print_json(self, data) -> None:
        """One JSON document on stdout, non-ASCII kept as UTF-8."""
        self.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        self.stdout.flush()

    @contextlib.contextmanager
    def waiting(self, text: "str | Callable[[], str]"):
        """A spinner on stderr while something waits; only on a terminal, and not when quiet.
        ``text`` may be a function, called only when there is a spinner to label."""
        if not self.stderr_isatty or self.quiet:
            yield None
            return
        if callable(text):
            text = text()
        with self.console(err=True).status(text, spinner="dots") as status:
            yield status


def default_environment(verbosity: int = NORMAL) -> Environment:
    return Environment(verbosity=verbosity)


# --------------------------------------------------------------------------- one run


def print_run(results: dict, folder: Path | str, env: Environment | None = None) -> None:
    """The rows as a table (reasons wrap inside the last column), then the summary line.
    Quiet: the summary line only. Verbose: each row's checks below it. ``results`` as the
    run wrote them: each way of printing makes the server's text safe for itself (rich
    markup escaped on a terminal, control characters made visible everywhere)."""
    from mcp_accept.untrusted import console_text, plain_line

    env = env or default_environment()
    summary = summary_line(results, folder)
    if env.quiet:
        env.echo(plain_line(summary))
        return
    c = results["conditions"]
    title = (f"mcp-accept: {c.get('server_name') or 'server'} ({c.get('transport')}, "
             f"{c.get('protocol_version_on_wire') or 'no version'})")
    rows = []
    for row in results["rows"]:
        reason = row.get("reason") or ""
        if not env.verbose:  # the whole of it is in results.json
            reason = shorten(passed_in_brief(row) or reason, 400)
        rows.append((row["id"], row["kind"], row["status"], reason))
        if env.verbose:
            for check in row.get("checks") or []:
                where = f", {check['source']}" if check.get("source") else ""
                rows.append(("", "", "", f"- {check['check']} ({check['layer']}, {check['rule']}"
                                         f"{where}): {check['status']}"))
    if not env.stdout_isatty:  # plain columns: no need for rich (50 ms of every piped run)
        table = [("id", "kind", "status", "reason")] + [tuple(plain_line(cell) for cell in r) for r in rows]
        env.stdout.write(plain_line(title) + "\n" + "".join(line + "\n" for line in plain_columns(table, env.width)))
        env.echo(plain_line(summary))
        return
    from rich.table import Table

    table = Table(title=console_text(title), title_justify="center", box=env.box(), expand=False)
    table.add_column("id", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("reason", overflow="fold", ratio=1)
    for ident, kind, status, reason in rows:
        shown = f"[{STYLES.get(status, '')}]{status}[/]" if status else ""
        table.add_row(console_text(ident), console_text(kind), shown, console_text(reason))
    env.show(table)
    env.console().print(console_text(summary), soft_wrap=True)


# A PASS row whose reason is longer than this shows its first part and how many more passed
# (W01 judges a dozen things): the whole is in results.json and under -v.
BRIEF_PASS = 160


def passed_in_brief(row: dict) -> str | None:
    """A long PASS reason as its first part and a count of the rest; None to show it whole."""
    reason = row.get("reason") or ""
    params = row.get("reason_params") if isinstance(row.get("reason_params"), dict) else {}
    parts = params.get("parts")
    if row.get("status") != "PASS" or len(reason) <= BRIEF_PASS or row.get("reason_id") != "list.parts" \
            or not isinstance(parts, list) or len(parts) < 2:
        return None
    from mcp_accept.reasons import Reason

    first = parts[0]
    try:
        text = Reason.from_json(first).english() if isinstance(first, dict) else str(first)
    except (KeyError, TypeError, ValueError, AttributeError):  # a file edited by hand
        return None
    return f"{text}; and {len(parts) - 1} more checks passed (-v shows each)"


def cell_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: East Asian wide and full-width characters take
    two, combining marks none."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _fold(word: str, width: int) -> list[str]:
    """``word`` cut into pieces of at most ``width`` columns."""
    pieces, piece, used = [], "", 0
    for ch in word:
        w = cell_width(ch)
        if used + w > width and piece:
            pieces.append(piece)
            piece, used = "", 0
        piece, used = piece + ch, used + w
    return pieces + [piece] if piece else pieces


def wrap_cells(text: str, width: int, *, cut: bool = True) -> list[str]:
    """``text`` wrapped at spaces into lines of at most ``width`` columns. A word longer than
    a line is cut, unless ``cut`` is false: then it stands whole on a line of its own, longer
    than ``width`` (a spec path or a URL cut in two can no longer be searched for or copied).
    Text in wide characters (Japanese, Chinese) has no spaces and breaks between any two."""
    lines, line, used = [], "", 0
    for word in text.split():
        w = cell_width(word)
        if line and used + 1 + w <= width:
            line, used = f"{line} {word}", used + 1 + w
            continue
        if line:
            lines.append(line)
        line, used = "", 0
        if w > width and (cut or w != len(word)):  # wide characters: lines break between them
            *full, word = _fold(word, width)
            lines.extend(full)
            w = cell_width(word)
        line, used = word, w
    return lines + [line] if line or not lines else lines


def plain_columns(rows: list[tuple[str, ...]], width: int, gap: int = 2) -> list[str]:
    """Rows as plain text columns within ``width``: every column but the last as wide as its
    widest cell, the last wrapped at spaces into what is left (at least 20 columns). No word
    is cut: one longer than the last column stands whole on its own line."""
    widths = [max(cell_width(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    last = max(20, width - sum(widths) - gap * len(widths))
    out = []
    for row in rows:
        lead = "".join(cell + " " * (w - cell_width(cell) + gap) for cell, w in zip(row, widths))
        for n, part in enumerate(wrap_cells(row[-1], last, cut=False)):
            out.append(((lead if n == 0 else " " * len(lead)) + part).rstrip())
    return out


def summary_line(results: dict, folder: Path | str) -> str:
    counts = results["summary"]
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    state = " (interrupted)" if results.get("interrupted") else ""
    rules = results.get("failures_by_rule")
    broken = ""
    if rules and counts.get("FAIL"):
        # each failed check under its own rule (results.json failures_by_rule), so a row that
        # breaks a MUST and a rule of the sheet shows in both counts
        broken = (f" Failed checks: {rules['must']} break a MUST, {rules.get('profile', 0)} a rule of your "
                  f"profile, {rules['should']} a SHOULD of the spec, {rules['app']} the sheet's advice.")
        broken += gate_note(results)
    stale = "".join(f" Baseline {line}." for line in stale_lines(results))
    return f"{counted(len(results['rows']), 'row')}: {parts}{state}.{broken}{stale} Evidence: {folder}"


GATED = {"must": "only a MUST fails it", "profile": "a MUST or a rule of your profile fails it",
         "should": "a MUST, a rule of your profile or a SHOULD fails it", "app": "any FAIL fails it"}


def gate_note(results: dict) -> str:
    """Which FAIL rows fail the run and which do not, and why (results.json ``gates``, written
    by the one rule of :mod:`mcp_accept.output.exit_status`)."""
    failed = [row for row in results.get("rows") or () if row.get("status") == "FAIL" and "gates" in row]
    if not failed:
        return ""
    gating = [row["id"] for row in failed if row["gates"]]
    expected = [row["id"] for row in failed if not row["gates"] and row.get("expected_failure")]
    shown = [row["id"] for row in failed if not row["gates"] and not row.get("expected_failure")]
    fail_on = results.get("fail_on", "profile")
    out = []
    if gating:
        out.append(f"{', '.join(gating)} fail{'s' if len(gating) == 1 else ''} the run")
    if expected:
        out.append(f"{', '.join(expected)} expected by the baseline")
    if shown:
        out.append(f"{', '.join(shown)} shown, not failing the run (--fail-on {fail_on}: "
                   f"{GATED[fail_on]})")
    return " " + "; ".join(out) + "."


def stale_lines(results: dict) -> list[str]:
    """One line per baseline entry that no longer fails."""
    from mcp_accept.output.exit_status import stale_entries

    file = (results.get("baseline") or {}).get("file", "baseline")
    return [f"{file}: stale: {e['row']}{'.' + e['check'] if e.get('check') else ''} no longer fails "
            f"({e['reason']}); remove it" for e in stale_entries(results)]


class Progress:
    """A progress bar on stderr for work of a known number of parts; only on a terminal."""

    def __init__(self, env: Environment, label: str):
        self.env, self.label = env, label
        self._bar = None
        self._task = None

    def __enter__(self):
        if self.env.stderr_isatty and not self.env.quiet:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn

            self._bar = Bar(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=self.env.console(err=True), transient=True)
            self._bar.__enter__()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)
        return False

    def advance(self, done: int, total: int) -> None:
        if self._bar is None:
            return
        if self._task is None:
            self._task = self._bar.add_task(self.label, total=total)
        self._bar.update(self._task, completed=done)


# --------------------------------------------------------------------------- fleets


class FleetProgress(Progress):
    """As each target of a fleet ends: a progress bar on a terminal, one line on stderr when
    piped (a CI log shows which target is done), nothing when quiet."""

    def __init__(self, env: Environment | None = None):
        super().__init__(env or default_environment(), "targets")

    def __call__(self, result, done: int, total: int) -> None:
        if self.env.quiet:
            return
        counts = result.summary or {}
        told = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or (result.error or "no rows")
        line = f"[{done}/{total}] {result.name}: exit {result.exit} ({told}) in {result.seconds:.1f}s"
        self.advance(done, total)
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False)
        else:
            self.env.echo(line, err=True)


def print_progress(result, done: int, total: int) -> None:
    """One line on stderr as each target of a fleet ends."""
    FleetProgress(Environment(stderr_isatty=False))(result, done, total)


def print_fleet(fleet, env: Environment | None = None) -> None:
    """The fleet's summary: one line per target, then the totals. Piped, plain columns that
    fit the width: the target, its exit and time, then its row counts, transport, protocol and
    server wrapped at spaces in the last column (never inside a word)."""
    from mcp_accept.untrusted import plain_line

    env = env or default_environment()
    if env.quiet:
        env.echo(plain_line(fleet_line(fleet)))
        return
    title = f"mcp-accept fleet: {counted(len(fleet.results), 'target')}, {fleet.jobs} at a time"
    problems = [f"{r.name}: {r.folder}" + (f": {r.error}" if r.error else "") for r in fleet.results]
    if not env.stdout_isatty:
        rows = [("target", "exit", "seconds", "rows, transport, protocol, server")]
        for r in fleet.results:
            counts = r.summary or {}
            told = (", ".join(f"{counts.get(s, 0)} {s}" for s in ("PASS", "FAIL", "UNOBTAINABLE", "PENDING"))
                    if r.summary is not None else "no rows")
            told = "; ".join([told, *(x for x in (r.transport, r.protocol) if x)]
                             + ([f"server {r.server_name}"] if r.server_name else []))
            rows.append(tuple(plain_line(cell) for cell in (r.name, str(r.exit), f"{r.seconds:.1f}", told)))
        lines = [plain_line(title), *plain_columns(rows, env.width)]
        for text in [*problems, fleet_line(fleet)]:  # long: wrapped at spaces, no word cut
            lines += wrap_cells(plain_line(text), env.width, cut=False)
        env.stdout.write("".join(line + "\n" for line in lines))
        return
    from rich.markup import escape
    from rich.table import Table

    console = env.console()
    table = Table(title=title, title_justify="center", box=env.box())
    for name in ("target", "server", "transport", "protocol", "PASS", "FAIL", "UNOBTAINABLE", "PENDING",
                 "exit", "seconds"):
        table.add_column(name, overflow="fold", no_wrap=name in ("target", "exit"))
    for r in fleet.results:
        counts = r.summary or {}
        cells = [str(counts.get(s, "")) if r.summary is not None else "" for s in
                 ("PASS", "FAIL", "UNOBTAINABLE", "PENDING")]
        if counts.get("FAIL"):
            cells[1] = f"[{STYLES['FAIL']}]{cells[1]}[/]"
        table.add_row(escape(plain_line(r.name)), escape(plain_line(r.server_name or "")),
                      escape(plain_line(r.transport or "")), escape(plain_line(r.protocol or "")), *cells,
                      str(r.exit), f"{r.seconds:.1f}")
    env.show(table)
    # folders and problems are long: below the table, one per line, so the table fits 80 columns
    for line in problems:
        console.print(escape(plain_line(line)), soft_wrap=True)
    console.print(escape(plain_line(fleet_line(fleet))), soft_wrap=True)


def fleet_line(fleet) -> str:
    ok = sum(1 for r in fleet.results if r.exit == 0)
    failed = sum(1 for r in fleet.results if r.exit == 1)
    other = len(fleet.results) - ok - failed
    state = " (interrupted)" if fleet.interrupted else ""
    return (f"{counted(len(fleet.results), 'target')}: {ok} passed, {failed} with failing rows, {other} not "
            f"tested to the end, in {fleet.seconds:.1f}s{state}. Runs: {fleet.folder} (index: fleet.json)")
