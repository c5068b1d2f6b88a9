"""Rendering filled sheets for people and for CI: Markdown (Jinja), JUnit XML, JSON.

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
import json
import os
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from mcp_accept.data import data_dir
from mcp_accept.errors import InputError

LANGS = ("en", "ja")
FORMATS = ("markdown", "junit", "json")
REPORT_FORMAT = "mcp-accept/report/1"
# The conditions that tell one host line of the summary from another, in column order.
HOST_KEYS = ("host_product", "host_version", "transport", "protocol_version_on_wire")

LABELS = {
    "en": {"PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "UNOBTAINABLE", "PENDING": "PENDING",
           "conditions": "Execution conditions", "rows": "Rows", "id": "ID", "kind": "Kind",
           "title": "Title", "status": "Status", "reason": "Reason", "evidence": "Evidence",
           "normative": "normative", "additional": "additional", "observation": "observation",
           "condition": "Condition", "value": "Value", "schemas": "Official schemas used",
           "summary": "Summary", "unset": "(not recorded)", "note": "note",
           "report": "mcp-accept report", "hosts": "Summary by host",
           "host_product": "Host", "host_version": "Host version", "transport": "Transport",
           "protocol_version_on_wire": "Protocol version", "run": "Run", "runs": "Runs",
           "folder": "Run folder", "absent": "—", "no_host": "no host recorded",
           "pending_reason": "not observed yet (fill it with mcp-accept observe)",
           "wire": "wire", "type": "type", "meaning": "meaning", "sdk": "sdk"},
    "ja": {"PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "取得不可", "PENDING": "未記入",
           "conditions": "実行条件", "rows": "試験", "id": "ID", "kind": "種別", "title": "項目",
           "status": "結果", "reason": "理由", "evidence": "証拠", "normative": "規範",
           "additional": "追加", "observation": "観測", "condition": "条件", "value": "値",
           "schemas": "使用した公式スキーマ", "summary": "集計", "unset": "（未記録）",
           "note": "備考", "report": "mcp-accept 報告書", "hosts": "ホスト別の集計",
           "host_product": "ホスト", "host_version": "ホストのバージョン",
           "transport": "トランスポート", "protocol_version_on_wire": "プロトコルバージョン",
           "run": "実行", "runs": "実行一覧", "folder": "実行フォルダ", "absent": "—",
           "no_host": "ホスト未記録",
           "pending_reason": "未観測（mcp-accept observe で記入する）",
           "wire": "wire", "type": "型", "meaning": "意味", "sdk": "SDK"},
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
    return Cache(str(folder))


@functools.cache
def _environment(*folders: str):
    import jinja2

    loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(f) for f in folders])
    env = jinja2.Environment(loader=loader, autoescape=False, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined, bytecode_cache=_bytecode_cache())
    env.filters["cell"] = cell
    env.filters["href"] = href
    return env


def cell(value) -> str:
    """Text safe inside a Markdown table cell."""
    if value is None:
        return ""
    return str(value).replace("\r", " ").replace("\n", " ").replace("|", "\\|")


def joined(path: str | None, base: str = "") -> str:
    """An evidence path relative to a run folder, seen from wherever the document sits
    (``base`` is the run folder seen from there)."""
    if not path:
        return ""
    return path if not base or base == "." else f"{base.rstrip('/')}/{path}"


def href(path: str | None, base: str = "") -> str:
    """The same, as a Markdown link target."""
    return urllib.parse.quote(joined(path, base), safe="/._-~:")


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
    if fmt not in FORMATS:
        raise InputError(f"must be one of {', '.join(FORMATS)} (found {fmt!r})", field="--format")


@dataclass
class Run:
    """One run folder given to the report, and how the report reaches it."""

    folder: Path
    results: dict
    base: str = ""  # the run folder seen from the report's folder, for links

    @property
    def host(self) -> tuple:
        conditions = self.results.get("conditions") or {}
        return tuple(conditions.get(key) for key in HOST_KEYS)


def load_runs(paths: list[Path]) -> list[Run]:
    """Read and validate every run (a run folder or its results.json) before anything
    is rendered: a bad hand edit stops the report with the file, line and field."""
    from mcp_accept.sheet import validate_results

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
    """One line per host (product, version, transport, protocol version); per row id a
    list of cells, one for each run of that host, each with status and evidence link."""
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


def render_markdown(runs: list[Run], *, lang: str = "en", template: Path | None = None) -> str:
    tpl = _template(template, "report.md.j2")
    return _render(tpl, template, runs=runs, summary=host_summary(runs), lang=lang,
                   L=LABELS[lang])


def render_json(runs: list[Run]) -> str:
    from mcp_accept.evidence import utc_now

    summary = host_summary(runs)
    document = {
        "format": REPORT_FORMAT,
        "generated_at": utc_now(),
        "row_ids": summary["row_ids"],
        "hosts": [{**{k: line[k] for k in HOST_KEYS}, "runs": line["runs"],
                   "cells": {rid: [{k: c[k] for k in ("status", "evidence", "run")}
                                   for c in cells] for rid, cells in line["cells"].items()}}
                  for line in summary["lines"]],
        "runs": [{"folder": run.base, "results": run.results} for run in runs],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def run_label(run: Run, L: dict) -> str:
    c = run.results.get("conditions") or {}
    host = " ".join(str(v) for v in (c.get("host_product"), c.get("host_version")) if v)
    server = c.get("server_name") or run.results["sheet"]["name"]
    transport = ", ".join(str(v) for v in (c.get("transport"), c.get("protocol_version_on_wire")) if v)
    return f"{host or L['no_host']} / {server}" + (f" ({transport})" if transport else "")


def render_junit(runs: list[Run], *, lang: str = "en") -> str:
    """JUnit XML: one test suite per run, one test case per row. FAIL is a failure;
    UNOBTAINABLE and PENDING are skipped, with the reason; PASS passes."""
    from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

    L = LABELS[lang]
    xml = JUnitXml("mcp-accept")
    used: set[str] = set()
    for run in runs:
        label = run_label(run, L)
        if label in used:  # two runs of the same host and server: tell them apart
            label = f"{label} [{run.base}]"
        used.add(label)
        suite = TestSuite(label)
        suite.timestamp = run.results.get("started_at")
        for key, value in (run.results.get("conditions") or {}).items():
            if value is not None:
                suite.add_property(key, str(value))
        suite.add_property("run_folder", run.base)
        for row in run.results["rows"]:
            title = row["title"].get(lang) or row["title"]["en"]
            case = TestCase(f"{row['id']} {title}", classname=label, time=0)
            reason = row.get("reason") or ""
            if row["status"] == "FAIL":
                case.result = [Failure(reason, "FAIL")]
            elif row["status"] == "UNOBTAINABLE":
                case.result = [Skipped(f"{L['UNOBTAINABLE']}: {reason}")]
            elif row["status"] == "PENDING":
                case.result = [Skipped(f"{L['PENDING']}: {reason or L['pending_reason']}")]
            lines = [f"{L['status']}: {L[row['status']]}", f"{L['kind']}: {L[row['kind']]}"]
            if reason:
                lines.append(f"{L['reason']}: {reason}")
            if row.get("note"):
                lines.append(f"{L['note']}: {row['note']}")
            if row.get("evidence"):
                lines.append(f"{L['evidence']}: {joined(row['evidence'], run.base)}")
            case.system_out = "\n".join(lines)
            suite.add_testcase(case)
        xml.add_testsuite(suite)
    xml.update_statistics()
    from xml.dom.minidom import parseString

    return parseString(xml.tostring()).toprettyxml(indent="  ", encoding="utf-8").decode("utf-8")


# --------------------------------------------------------------------------- entry point


def build_report(paths: list[Path], *, out: Path | None = None, lang: str = "en",
                 fmt: str = "markdown", template: Path | None = None) -> str:
    """Validate every input, render the report and write it to ``out`` atomically
    (or return it for the caller to print when ``out`` is None)."""
    from mcp_accept.evidence import atomic_write_text

    check_lang(lang)
    check_format(fmt)
    if template is not None and fmt != "markdown":
        raise InputError("a template renders the markdown format only; drop --format or "
                         "--template", field="--template")
    if out is not None and Path(out).is_dir():
        raise InputError("is a directory; give the report's file name", file=str(out),
                         field="--out")
    runs = load_runs(paths)
    place(runs, out)
    if fmt == "junit":
        text = render_junit(runs, lang=lang)
    elif fmt == "json":
        text = render_json(runs)
    else:
        text = render_markdown(runs, lang=lang, template=template)
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
