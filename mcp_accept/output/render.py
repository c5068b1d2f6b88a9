"""Rendering one filled sheet for people: the Jinja environment and templates, the labels of
each language, and the helpers that make server text inert in a cell or a link.

One run folder gives one filled sheet (``sheet.md``, :func:`render_run`).
"""

from __future__ import annotations

import functools
import os
import urllib.parse
from pathlib import Path

from mcp_accept.data import data_dir
from mcp_accept.errors import InputError
from mcp_accept.output.words import LANGS, Words

REPORT_FORMAT = "mcp-accept/report/1"
LABELS = Words("report", {
    "PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "UNOBTAINABLE", "PENDING": "PENDING",
    "conditions": "Execution conditions", "rows": "Rows", "id": "ID", "kind": "Kind",
    "title": "Title", "status": "Status", "reason": "Reason", "evidence": "Evidence",
    "normative": "normative", "additional": "additional", "observation": "observation",
    "condition": "Condition", "value": "Value", "schemas": "Official schemas used",
    "summary": "Summary", "unset": "(not recorded)", "note": "note",
    "report": "mcp-accept report", "hosts": "Summary by host", "by_run": "Summary by run",
    "server": "Server",
    "host_product": "Host", "host_version": "Host version", "transport": "Transport",
    "protocol_version_on_wire": "Protocol version", "run": "Run", "runs": "Runs",
    "folder": "Run folder", "absent": "—", "no_host": "no host recorded",
    "pending_reason": "not observed yet (fill it with mcp-accept observe)",
    "wire": "wire", "type": "type", "meaning": "meaning", "sdk": "sdk",
    "details": "What each row establishes", "establishes": "A PASS establishes",
    "procedure": "Procedure", "check": "Check", "layer": "Layer", "rule": "Rule",
    "source": "Spec source", "must": "must", "should": "should", "profile": "profile (yours)", "app": "app (the sheet's advice)",
    "cause": "Nothing could be tested", "sheet": "Sheet",
    "untested": "Nothing was tested: the server could not be started or reached",
    "not_gating": "it does not fail the run", "expected_failure": "expected by the baseline",
    "conditions_given": "Given values the wire contradicted (kept, not used)",
    "evidence_missing": "missing from the run folder", "off": "off"
})


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
    # made visible, no raw HTML): a server's name in a heading is as safe as in a cell.
    env = ImmutableSandboxedEnvironment(loader=loader, autoescape=False, keep_trailing_newline=True,
                                        undefined=jinja2.StrictUndefined, bytecode_cache=_bytecode_cache(),
                                        finalize=_inert)
    env.filters["cell"] = cell
    env.filters["spec_link"] = spec_link
    env.filters["prose"] = prose
    env.filters["href"] = href
    env.filters["reason_text"] = reason_text
    env.filters["text_in"] = text_in
    env.filters["layer_off"] = layer_off
    env.filters["layers_off"] = layers_off
    return env


def reason_text(reason, lang: str = "en"):
    """A row's reason in ``lang``: given the row, rendered from its reason id and parameters
    (mcp_accept.output.i18n); given the reason's text, only its run-level texts translated."""
    from mcp_accept.output.i18n import translate_reason

    return translate_reason(reason, lang)


# The reasons that say a layer did not run at all (mcp_accept.running.sdk_replay.switched_off):
# the sheet's cell of that layer says "off", and why is said once, below the rows.
OFF_REASONS = ("sdk.off", "sdk.switched-off")


def off_reason(check, lang: str = "en") -> str:
    """Why a check's layer did not run, in ``lang``, when the check says so; else ""."""
    from mcp_accept.reasons import Reason

    if not isinstance(check, dict) or check.get("reason_id") not in OFF_REASONS:
        return ""
    try:
        return Reason.from_json(check).render(lang)
    except (KeyError, TypeError, ValueError, AttributeError):  # a file edited by hand
        return ""


def spec_link(source) -> str:
    """A check's spec source as a Markdown table cell: a link to the published page where it
    names one, else the text as it is."""
    from mcp_accept.checks.base import spec_url

    url = spec_url(source) if isinstance(source, str) else None
    return f"[{cell(source)}]({url})" if url else cell(source)


def layer_off(row, layer: str, lang: str = "en") -> str:
    """Why ``layer`` did not run for a row of results.json, in ``lang``: what its checks of
    that layer say when every one of them says the layer was off; else ""."""
    checks = row.get("checks") if isinstance(row, dict) else None
    mine = [c for c in checks if isinstance(c, dict) and c.get("layer") == layer] \
        if isinstance(checks, list) else []
    said = {off_reason(c, lang) for c in mine}
    return said.pop() if len(said) == 1 else ""


def layers_off(results, lang: str = "en") -> list[tuple[str, str]]:
    """(layer, why) for each layer the run had off, in ``lang``, as its rows say."""
    rows = results.get("rows") if isinstance(results, dict) else None
    out: dict[str, str] = {}
    for row in rows if isinstance(rows, list) else []:
        for layer in ("wire", "type", "meaning", "sdk"):
            why = layer not in out and layer_off(row, layer, lang)
            if why:
                out[layer] = why
    return list(out.items())


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


def prose(value) -> str:
    """The sheet's own Markdown on one line, as its author wrote it (see
    mcp_accept.untrusted.markdown_prose): no entity or backslash where none is needed."""
    from mcp_accept.untrusted import markdown_prose

    return markdown_prose(value)


def joined(path: str | None, base: str = "") -> str:
    """An evidence path relative to a run folder, seen from wherever the document sits
    (``base`` is the run folder seen from there)."""
    if not path:
        return ""
    return path if not base or base == "." else f"{base.rstrip('/')}/{path}"


def _quoted(text: str, safe: str) -> str:
    # a folder name that is not UTF-8 (surrogate escapes) is quoted as its bytes, not a crash
    try:
        return urllib.parse.quote(text, safe=safe, errors="surrogateescape")
    except UnicodeEncodeError:
        return urllib.parse.quote(text, safe=safe, errors="backslashreplace")


# What an http(s) link keeps as it is; quotes, brackets, parentheses and spaces are quoted, so
# the target can close neither an HTML attribute nor a Markdown link destination.
_URL_SAFE = "/:?#@!$&*+,;=%~-._"


def _web_url(text: str) -> bool:
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname) \
        and text[:len(parts.scheme) + 3].lower() == parts.scheme.lower() + "://"


def inside_folder(path: str) -> bool:
    """Whether ``path`` names a file inside the folder it is relative to, read as a browser
    would read a link: nothing before a ``:`` in its first segment (a browser takes that for a
    scheme: ``javascript:``, ``data:``, ``file:``, ``C:``), no leading ``/`` (absolute, or
    ``//host``), no backslash (read as ``/``), no ``..`` climbing out, no control character
    (a browser drops tabs and line breaks from a URL, which can join ``java\tscript:``)."""
    if not isinstance(path, str) or not path.strip() or "\\" in path or path.startswith("/"):
        return False
    if not path.isprintable() or ":" in path.split("/", 1)[0]:
        return False
    depth = 0
    for segment in path.split("/"):
        depth += -1 if segment == ".." else 0 if segment in ("", ".") else 1
        if depth < 0:
            return False
    return True


def link_target(path, base: str = "") -> str | None:
    """The one rule for every link a report makes of a string a results file carries (an
    evidence path above all): a file inside its run folder (seen from the report's folder
    through ``base``) or an http(s) URL becomes a quoted link target; anything else
    (``javascript:``, ``data:``, ``file:``, an absolute path, ``..`` out of the folder,
    ``//host``) gives None, and the report shows the string as text, never as a link."""
    if not isinstance(path, str) or not path:
        return None
    if path.isprintable() and _web_url(path):
        return _quoted(path, _URL_SAFE)
    if not inside_folder(path):
        return None
    return _quoted(joined(path, base), "/._-~")  # a ":" left in could read as a scheme


def href(path: str | None, base: str = "") -> str:
    """The same as a template filter: the link target, or "" when the string may not be one
    (a template tests it before making a link)."""
    return link_target(path, base) or ""


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



def check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise InputError(f"must be one of {', '.join(LANGS)} (found {lang!r})", field="--lang")
