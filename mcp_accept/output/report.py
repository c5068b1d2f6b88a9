"""``mcp-accept report``: several run folders rendered as one report, in one of the formats of
:mod:`mcp_accept.output.reporters` (Markdown, JUnit XML, JSON, HTML, SARIF, GitHub
annotations): every run's sheet, and a summary table with one line per host (product, version,
transport, protocol version) and one column per row id, each cell the row's status linked to
its evidence.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_accept.errors import InputError
from mcp_accept.output.render import check_lang
from mcp_accept.output.runs import load_runs, place


def check_format(fmt: str) -> None:
    from mcp_accept.output.reporters import make_reporter

    make_reporter(fmt)


# --------------------------------------------------------------------------- entry point


def build_report(paths: list[Path], *, out: Path | None = None, lang: str = "en",
                 fmt: str = "markdown", template: Path | None = None) -> str:
    """Validate every input, render the report and write it to ``out`` atomically
    (or return it for the caller to print when ``out`` is None)."""
    from mcp_accept.evidence.files import atomic_write_text

    from mcp_accept.output.reporters import make_reporter

    check_lang(lang)
    reporter = make_reporter(fmt, lang=lang, template=template)
    if template is not None and not reporter.accepts_template:
        raise InputError("a template renders the markdown format only; drop --format or "
                         "--template", field="--template")
    if out is not None and Path(out).is_dir():
        raise InputError("is a directory; give the report's file name", file=str(out),
                         field="--out")
    runs = load_runs(paths)
    place(runs, out)
    text = reporter.render(runs)
    if out is not None:
        try:
            atomic_write_text(Path(out), text)
        except OSError as exc:
            raise InputError(f"cannot write the report: {exc.strerror or exc}", file=str(out),
                             field="--out") from None
    return text


def print_text(text: str) -> None:
    """Print UTF-8 text whatever the console's encoding."""
    if hasattr(sys.stdout, "buffer"):
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(text)
