"""The verify report: verify.md rendered from verify.json, and the table (or, piped, one line
a condition) printed on the console."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp_accept.checks.base import FAIL, PASS, UNOBTAINABLE
from mcp_accept.output.console import counted
from mcp_accept.verify.runs import LAYER_NAMES

if TYPE_CHECKING:
    from mcp_accept.verify.drive import VerifyOutcome


def render(report: dict) -> str:
    import jinja2

    from mcp_accept.output.render import cell, templates_dir

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=False,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["cell"] = cell
    return env.get_template("verify.md.j2").render(report=report, layers=LAYER_NAMES)


STYLES = {PASS: "green", FAIL: "bold red", UNOBTAINABLE: "yellow"}


def print_verify(outcome: VerifyOutcome, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    from mcp_accept.untrusted import console_text as text  # a condition's values shown as they are

    report = outcome.report
    console = console or Console()
    from rich import box

    def layer_cells(c):
        return [f"[{STYLES.get(s, '')}]{s}[/]" if s else "-" for s in (c["layers"].get(l) for l in LAYER_NAMES)]

    if not console.is_terminal:
        # piped (a CI log): one line a condition, its id whole; what was sent and expected is in verify.md
        for c in report["conditions"]:
            layers = ", ".join(f"{l} {(c['layers'].get(l) or '-')}" for l in LAYER_NAMES)
            console.print(f"{c['status']:<4}  {text(c['id'])} ({c['era'] or 'all eras'}, "
                          f"{c.get('transport') or '-'}): {layers}", highlight=False, soft_wrap=True)
        table = None
    else:
        wide = console.width >= 160  # the sent and expected columns only where they fit
        table = Table(title="mcp-accept verify: the checks against the fixture's break modes",
                      box=box.HEAVY_HEAD)
        for name in ("condition", "era", "via"):
            table.add_column(name, no_wrap=True)
        if wide:
            table.add_column("sent", overflow="fold")
        for layer in LAYER_NAMES:
            table.add_column(layer, no_wrap=True)
        if wide:
            table.add_column("expected", overflow="fold")
        table.add_column("verdict", no_wrap=True)
        for c in report["conditions"]:
            sent = c["sent"].removeprefix("fixture.py").strip() or "(no break)"
            cells = [text(c["id"]), c["era"] or "", c.get("transport") or ""]
            cells += [text(sent)] if wide else []
            cells += layer_cells(c)
            cells += [text(c["expected"])] if wide else []
            table.add_row(*cells, f"[{STYLES[c['status']]}]{c['status']}[/]")
    if table is not None:
        console.print(table)
    for c in report["conditions"]:
        if c["status"] != PASS:
            console.print(f"[bold red]FAIL[/] {text(c['id'])} ({c['era']}, {c.get('transport')}): "
                          f"{text(c['observed'])}",
                          highlight=False, soft_wrap=True)
    sdk = report["sdk"]
    shown = f"mcp {sdk['version']}" if sdk["available"] else f"UNOBTAINABLE: {sdk['reason']}"
    console.print(f"sdk layer: {text(shown)}", highlight=False, soft_wrap=True)
    s = report["summary"]
    console.print(f"{counted(len(report['conditions']), 'condition')}: {s[PASS]} hold, {s[FAIL]} do not. "
                  f"Report: {text(outcome.folder / 'verify.md')}", highlight=False, soft_wrap=True)
