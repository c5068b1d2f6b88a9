"""Rendering filled sheets for people and for CI: Markdown (Jinja), JUnit XML, JSON, HTML,
SARIF and GitHub annotations (each format a reporter class in :mod:`mcp_accept.reporters`).

One run folder gives one filled sheet (``sheet.md``, :func:`render_run`). Several
run folders give a report (:func:`build_report`): every run's sheet, and a summary
table with one line per host (product, version, transport, protocol version) and
one column per row id, each cell the row's status linked to its evidence.

Evidence paths in ``results.json`` are relative to their run folder; in a report
they are rewritten relative to the folder the report is written to, so the links
work wherever the report sits.
"""

from __future__ import annotations

import functools
import os
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from mcp_accept.data import data_dir
from mcp_accept.errors import InputError

LANGS = ("en", "ja")
REPORT_FORMAT = "mcp-accept/report/1"
# The conditions that tell one host line of the summary from another, in column order.
# A summary line is one host (product, version as the wire or the person named it) with one
# server (name and version: two servers observed under one host stay apart).
HOST_KEYS = ("host_product", "host_version", "server_name", "server_version", "transport",
             "protocol_version_on_wire")

LABELS = {
    "en": {"PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "UNOBTAINABLE", "PENDING": "PENDING",
           "conditions": "Execution conditions", "rows": "Rows", "id": "ID", "kind": "Kind",
           "title": "Title", "status": "Status", "reason": "Reason", "evidence": "Evidence",
           "normative": "normative", "additional": "additional", "observation": "observation",
           "condition": "Condition", "value": "Value", "schemas": "Official schemas used",
           "summary": "Summary", "unset": "(not recorded)", "note": "note",
           "report": "mcp-accept report", "hosts": "Summary by host", "server": "Server",
           "host_product": "Host", "host_version": "Host version", "transport": "Transport",
           "protocol_version_on_wire": "Protocol version", "run": "Run", "runs": "Runs",
           "folder": "Run folder", "absent": "—", "no_host": "no host recorded",
           "pending_reason": "not observed yet (fill it with mcp-accept observe)",
           "wire": "wire", "type": "type", "meaning": "meaning", "sdk": "sdk",
           "details": "What each row establishes", "establishes": "A PASS establishes",
           "procedure": "Procedure", "check": "Check", "layer": "Layer", "rule": "Rule",
           "source": "Spec source", "must": "must", "should": "should", "app": "app (sheet or profile)",
           "cause": "Nothing could be tested", "sheet": "Sheet",
           "conditions_given": "Given values the wire contradicted (kept, not used)"},
    "ja": {"PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "取得不可", "PENDING": "未記入",
           "conditions": "実行条件", "rows": "試験", "id": "ID", "kind": "種別", "title": "項目",
           "status": "結果", "reason": "理由", "evidence": "証拠", "normative": "規範",
           "additional": "追加", "observation": "観測", "condition": "条件", "value": "値",
           "schemas": "使用した公式スキーマ", "summary": "集計", "unset": "（未記録）",
           "note": "備考", "report": "mcp-accept 報告書", "hosts": "ホスト別の集計", "server": "サーバー",
           "host_product": "ホスト", "host_version": "ホストのバージョン",
           "transport": "トランスポート", "protocol_version_on_wire": "プロトコルバージョン",
           "run": "実行", "runs": "実行一覧", "folder": "実行フォルダ", "absent": "—",
           "no_host": "ホスト未記録",
           "pending_reason": "未観測（mcp-accept observe で記入する）",
           "wire": "wire", "type": "型", "meaning": "意味", "sdk": "SDK",
           "details": "各項目が確かめること", "establishes": "PASSが示すこと", "procedure": "手順",
           "check": "検査", "layer": "段", "rule": "規則", "source": "仕様の出典", "must": "MUST",
           "should": "SHOULD", "app": "本票・プロファイルの規則", "cause": "試験できなかった理由",
           "sheet": "試験票",
           "conditions_given": "通信で観測した値と異なる指定値（記録のみ、不使用）"},
}


def templates_dir() -> Path:
    return data_dir("templates")


# --------------------------------------------------------------------------- Jinja


def _bytecode_cache():
    """Compiled templates kept in the user cache folder: compiling ``sheet.md.j2`` and its
    macros takes about 80 ms of every run, loading them compiled a few. Jinja checks each
    entry against the template's source, so an edited template is compiled again. None
    (no cache) when the folder cannot be made; a cache that cannot be written is skipped."""
    import jinja2

    class Cache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket):
            try:
                super().load_bytecode(bucket)
            except (OSError, ValueError, EOFError):
                pass  # unreadable or damaged: compile again

        def dump_bytecode(self, bucket):
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    try:
        import platformdirs

        folder = Path(platformdirs.user_cache_dir("mcp-accept")) / "templates"
        folder.mkdir(parents=True, exist_ok=True)
    except Exception:  # no home, read-only file system...
        return None
    # the file names say how the templates were compiled (sandboxed, finalised as inert text):
    # code compiled for another environment is never loaded
    return Cache(str(folder), pattern="__jinja2_sandboxed_inert_%s.cache")


@functools.cache
def _environment(*folders: str):
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(f) for f in folders])
    # A --template is the user's file, but it renders what servers wrote: sandboxed, so a
    # template reaches the data it is given and the filters, never Python internals, and
    # cannot change the data (docs/misbehaving-servers.md#templates).
    # Every {{ expression }} is finalised as inert text (control characters and ANSI escapes
    # made visible, < and > escaped): a server's name in a heading is as safe as in a cell.
    env = ImmutableSandboxedEnvironment(loader=loader, autoescape=False, keep_trailing_newline=True,
                                        undefined=jinja2.StrictUndefined, bytecode_cache=_bytecode_cache(),
                                        finalize=_inert)
    env.filters["cell"] = cell
    env.filters["href"] = href
    env.filters["reason_text"] = reason_text
    env.filters["text_in"] = text_in
    return env


def reason_text(reason, lang: str = "en"):
    """A row's reason in ``lang`` (fixed texts from the catalog in mcp_accept.i18n)."""
    from mcp_accept.i18n import translate_reason

    return translate_reason(reason, lang)


def text_in(texts, lang: str = "en") -> str:
    """A sheet text ({"en": ..., "ja": ...}) in ``lang``, English when that one is missing."""
    if not isinstance(texts, dict):
        return texts or ""
    return texts.get(lang) or texts.get("en") or ""


def _inert(value):
    from mcp_accept.untrusted import inert_text

    return inert_text(value) if isinstance(value, str) else value


def cell(value) -> str:
    """Text safe inside a Markdown table cell (see mcp_accept.untrusted.markdown_cell)."""
    from mcp_accept.untrusted import markdown_cell

    return markdown_cell(value)


def joined(path: str | None, base: str = "") -> str:
    """An evidence path relative to a run folder, seen from wherever the document sits
    (``base`` is the run folder seen from there)."""
    if not path:
        return ""
    return path if not base or base == "." else f"{base.rstrip('/')}/{path}"


def href(path: str | None, base: str = "") -> str:
    """The same, as a Markdown link target."""
    # a folder name that is not UTF-8 (surrogate escapes) is quoted as its bytes, not a crash
    try:
        return urllib.parse.quote(joined(path, base), safe="/._-~:", errors="surrogateescape")
    except UnicodeEncodeError:
        return urllib.parse.quote(joined(path, base), safe="/._-~:", errors="backslashreplace")


def _template(template: Path | None, default: str):
    """The user's template (their folder first, then ours, so they can import our
    macros), or one of ours by name."""
    import jinja2

    if template is None:
        return _environment(str(templates_dir())).get_template(default)
    path = Path(template)
    if not path.is_file():
        raise InputError("no such template file", file=str(template), field="--template")
    env = _environment(str(path.resolve().parent), str(templates_dir()))
    try:
        return env.get_template(path.name)
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(f"template syntax: {exc.message}", file=str(template),
                         line=exc.lineno) from None
    except UnicodeDecodeError:
        raise InputError("not valid UTF-8", file=str(template)) from None


def _render(tpl, template: Path | None, **context) -> str:
    """Render, turning a template's mistake into one line naming its file and line."""
    import jinja2

    try:
        return tpl.render(**context)
    except (jinja2.TemplateError, TypeError, KeyError, AttributeError, ValueError) as exc:
        if template is None:
            raise
        raise InputError(f"template failed: {getattr(exc, 'message', None) or exc}",
                         file=str(template), line=_template_line(exc, template)) from None


def _template_line(exc: BaseException, template: Path) -> int | None:
    """Jinja rewrites tracebacks so template frames carry the template's file and line."""
    wanted = str(Path(template).resolve())
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == wanted:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def render_run(results: dict, *, lang: str = "en", template: Path | None = None) -> str:
    """One filled sheet (``sheet.md``); links are relative to the run folder."""
    check_lang(lang)
    tpl = _template(template, "sheet.md.j2")
    return _render(tpl, template, results=results, lang=lang, L=LABELS[lang], base="")


# --------------------------------------------------------------------------- inputs


def check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise InputError(f"must be one of {', '.join(LANGS)} (found {lang!r})", field="--lang")


def check_format(fmt: str) -> None:
    from mcp_accept.reporters import make_reporter

    make_reporter(fmt)


@dataclass
class Run:
    """One run folder given to the report, and how the report reaches it."""

    folder: Path
    results: dict
    base: str = ""  # the run folder seen from the report's folder, for links

    @property
    def host(self) -> tuple:
        conditions = dict(self.results.get("conditions") or {})
        conditions.setdefault("server_version", server_version(self.results))
        return tuple(conditions.get(key) for key in HOST_KEYS)


def server_version(results: dict) -> str | None:
    """The server's version: no condition holds it, so it is read from what a recording
    proxy established on the wire (``serverInfo``, kept in the host rows' ``observed.wire``)."""
    for row in results.get("rows") or []:
        server = ((row.get("observed") or {}).get("wire") or {}).get("server") or {}
        if isinstance(server.get("version"), str):
            return server["version"]
    return None


def load_runs(paths: list[Path]) -> list[Run]:
    """Read and validate every run (a run folder or its results.json) before anything
    is rendered: a bad hand edit stops the report with the file, line and field."""
    from mcp_accept.shard import expand_run_dirs
    from mcp_accept.results import validate_results

    paths = expand_run_dirs(list(paths))  # fleet folders (of every shard) give their targets' runs
    if not paths:
        raise InputError("give at least one run folder", field="RUN_DIR")
    runs: list[Run] = []
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        results_file = path if path.is_file() else path / "results.json"
        if not path.exists():
            raise InputError("no such run folder", file=str(given))
        if not results_file.is_file():
            raise InputError("no results.json in this folder (is it a run folder?)",
                             file=str(given))
        key = results_file.resolve()
        if key in seen:
            continue
        seen.add(key)
        runs.append(Run(results_file.parent, validate_results(results_file)))
    return runs


def _relative(folder: Path, start: Path) -> str:
    try:
        rel = os.path.relpath(folder.resolve(), start.resolve())
    except ValueError:  # another drive: only an absolute path reaches it
        return folder.resolve().as_posix()
    return Path(rel).as_posix()


def place(runs: list[Run], out: Path | None) -> None:
    """Set each run's link base relative to where the report goes (or the working folder)."""
    start = Path(out).parent if out is not None else Path.cwd()
    for run in runs:
        run.base = _relative(run.folder, start)


# --------------------------------------------------------------------------- summary


def row_ids(runs: list[Run]) -> list[str]:
    """Every row id of the runs, in the order they first appear."""
    ids: list[str] = []
    for run in runs:
        for row in run.results["rows"]:
            if row["id"] not in ids:
                ids.append(row["id"])
    return ids


def host_summary(runs: list[Run]) -> dict:
    """One line per host and server (see HOST_KEYS); per row id a list of cells, one for
    each run of that host and server, each with status and evidence link."""
    ids = row_ids(runs)
    lines: dict[tuple, dict] = {}
    for run in runs:
        line = lines.setdefault(run.host, {
            **dict(zip(HOST_KEYS, run.host)), "runs": [], "cells": {i: [] for i in ids}})
        line["runs"].append(run.base)
        for row in run.results["rows"]:
            line["cells"][row["id"]].append({
                "status": row["status"],
                "evidence": joined(row.get("evidence"), run.base) or None,
                "href": href(row.get("evidence"), run.base),
                "run": run.base,
            })
    return {"row_ids": ids, "lines": list(lines.values())}


# --------------------------------------------------------------------------- formats


# The formats themselves are reporter classes in mcp_accept.reporters.


def run_label(run: Run, L: dict) -> str:
    c = run.results.get("conditions") or {}
    host = " ".join(str(v) for v in (c.get("host_product"), c.get("host_version")) if v)
    server = c.get("server_name") or run.results["sheet"]["name"]
    transport = ", ".join(str(v) for v in (c.get("transport"), c.get("protocol_version_on_wire")) if v)
    return f"{host or L['no_host']} / {server}" + (f" ({transport})" if transport else "")


# --------------------------------------------------------------------------- entry point


def build_report(paths: list[Path], *, out: Path | None = None, lang: str = "en",
                 fmt: str = "markdown", template: Path | None = None) -> str:
    """Validate every input, render the report and write it to ``out`` atomically
    (or return it for the caller to print when ``out`` is None)."""
    from mcp_accept.evidence import atomic_write_text

    from mcp_accept.reporters import make_reporter

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
