"""Profiles: how the rows of a sheet map onto one server, and what each form's body is.

A profile names one tool per result form (text, structured, embedded, link), the
document the forms should carry (inline ``reference`` or a ``reference_file``, for the
whole profile or per form), what kind of body each form holds (``json``, ``text`` or
``bytes``), the ``mimeType`` a resource form should declare, the meaning assertions,
the text-twin mode and a URI the server does not have.

Errors come from the shared loader of :mod:`mcp_accept.inputs.sheet`: one line naming the file,
the line and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import jmespath
import jmespath.exceptions

from mcp_accept.errors import InputError
from mcp_accept.inputs.files import _line, _load, _show, format_path
from mcp_accept.data import data_path

__all__ = ["BODY_KINDS", "DEFAULT_UNKNOWN_URI", "TOOL_FORMS", "Expected", "Profile", "ToolRef",
           "load_profile", "rows_off_in_sheet", "unlisted_tool"]

DEFAULT_UNKNOWN_URI = "search://results/does-not-exist"
TOOL_FORMS: tuple[str, ...] = ("text", "structured", "embedded", "link")
# json: compared by value; text: by characters (line endings normalised); bytes: a blob,
# compared after base64 decoding (a text body compared as bytes is its UTF-8 encoding).
BODY_KINDS: tuple[str, ...] = ("json", "text", "bytes")


def default_profile_path() -> Path:
    return data_path("sheets", "profile-fixture.yaml")


@dataclass(frozen=True)
class ToolRef:
    name: str
    arguments: dict = field(default_factory=dict)
    body: str = "json"  # what the form's body is: json, text or bytes
    mime_type: str | None = None  # the mimeType the form's resource should declare


@dataclass(frozen=True)
class Expected:
    """The reference document of one form: a JSON value (``kind`` json), a ``str`` (text) or
    ``bytes``. It has the form's body kind, except that an inline reference that is not a
    string stays JSON for any form. ``origin`` says where it came from, for messages."""

    kind: str
    value: Any
    origin: str


@dataclass(frozen=True)
class Profile:
    """How the rows map onto one server. ``reference`` is the profile-wide inline document
    (None when absent or ``null``); ``reference_file`` the profile-wide file. Without
    either, and without a per-form one, the rows compare the forms with each other."""

    name: str
    tools: dict[str, ToolRef]
    reference: Any = None
    twin: str = "json-equal"
    assertions: tuple[tuple[str, str], ...] = ()
    unknown_uri: str = DEFAULT_UNKNOWN_URI
    guessed: tuple[str, ...] = ()
    path: Path | None = None
    reference_file: Path | None = None
    expected: dict[str, Expected] = field(default_factory=dict)  # per form that has a reference
    name_lines: dict[str, int | None] = field(default_factory=dict)  # per form: the line of its tool's name
    same_document: bool = False  # the forms carry one document, though the profile gives none
    rows_off: dict[str, int | None] = field(default_factory=dict)  # rows switched off, each with its line

    @property
    def has_reference(self) -> bool:
        return self.reference is not None or self.reference_file is not None

    def guesses(self, prefix: str) -> list[str]:
        """The ``guessed:`` notes (what ``profile init`` could not know) that begin with
        ``prefix``, e.g. ``tools.text.arguments.``: still unchecked by a person."""
        return [g for g in self.guessed if isinstance(g, str) and g.startswith(prefix)]

    def body(self, form: str) -> str:
        """The body kind of a form: structuredContent is always a JSON value."""
        ref = self.tools.get(form)
        return "json" if ref is None or form == "structured" else ref.body

    def reference_for(self, form: str) -> Expected | None:
        return self.expected.get(form)


# --------------------------------------------------------------------------- loading


def _jmespath_problem(exc: jmespath.exceptions.JMESPathError) -> str:
    if isinstance(exc, jmespath.exceptions.IncompleteExpressionError):
        return "it ends too early"
    if isinstance(exc, jmespath.exceptions.LexerError):
        return f"{exc.message} at character {exc.lexer_position + 1}"
    if isinstance(exc, jmespath.exceptions.ParseError):
        return f"{exc.msg} at character {exc.lex_position + 1}"
    return " ".join(str(exc).split())


def _assertions(data: dict, index: dict, shown: str) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    names: set[str] = set()
    for i, item in enumerate(data.get("assertions") or ()):
        if item["name"] in names:
            where = ("assertions", i, "name")
            raise InputError(f"duplicate assertion name {_show(item['name'])}", file=shown,
                             line=_line(index, where), field=format_path(where))
        names.add(item["name"])
        try:
            jmespath.compile(item["expr"])
        except (jmespath.exceptions.JMESPathError, RecursionError) as exc:
            where = ("assertions", i, "expr")
            problem = ("nested too deeply to read" if isinstance(exc, RecursionError)
                       else _jmespath_problem(exc))
            raise InputError(f"not a valid JMESPath expression: {problem}",
                             file=shown, line=_line(index, where),
                             field=format_path(where)) from None
        out.append((item["name"], item["expr"]))
    return tuple(out)


@dataclass(frozen=True)
class _Source:
    """A reference as written: inline (``value``) or a file (``data``), and where it stands."""

    where: tuple  # path of the field in the profile
    value: Any = None
    data: bytes | None = None
    file: Path | None = None


def _source(raw: dict, at: tuple, index: dict, shown: str, base: Path) -> _Source | None:
    """The reference a mapping gives, or None when it gives none; ``raw`` must hold the key
    for a ``null`` to count (a per-form ``reference: null`` turns the profile's off)."""
    if "reference" in raw and "reference_file" in raw:
        where = at + ("reference_file",)
        raise InputError("give reference or reference_file, not both", file=shown,
                         line=_line(index, where), field=format_path(where))
    if "reference_file" in raw:
        where = at + ("reference_file",)
        target = base / raw["reference_file"]
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise InputError(f"no such file: {target}", file=shown, line=_line(index, where),
                             field=format_path(where)) from None
        except IsADirectoryError:
            raise InputError(f"is a directory, not a file: {target}", file=shown,
                             line=_line(index, where), field=format_path(where)) from None
        except OSError as exc:
            raise InputError(f"cannot be read: {target}: {exc.strerror or exc}", file=shown,
                             line=_line(index, where), field=format_path(where)) from None
        return _Source(where, data=data, file=target)
    if "reference" in raw:
        return _Source(at + ("reference",), value=raw["reference"])
    return None


def _expected(src: _Source, kind: str, form: str, index: dict, shown: str) -> Expected | None:
    """The source turned into the form's body kind; a source that cannot be is the user's error."""
    def refuse(why: str) -> InputError:
        return InputError(f"{why} (the {form} form has body: {kind})", file=shown,
                          line=_line(index, src.where), field=format_path(src.where))

    if src.file is not None:
        origin = f"reference_file {src.file.name}"
        if kind == "bytes":
            return Expected(kind, src.data, origin)
        try:
            text = src.data.decode("utf-8")
        except UnicodeDecodeError:
            raise refuse(f"{src.file} is not UTF-8 text") from None
        text = text[1:] if text.startswith("\ufeff") else text
        if kind == "text":
            return Expected(kind, text, origin)
        try:
            return Expected(kind, json.loads(text), origin)
        except (ValueError, RecursionError) as exc:
            raise refuse(f"{src.file} is not JSON ({type(exc).__name__})") from None
    if src.value is None:
        return None
    origin = format_path(src.where)
    if kind == "json" or not isinstance(src.value, str):
        # A JSON document for a text or bytes body: the body is read as JSON and compared
        # by value, as X01 compares a JSON form with a text one.
        return Expected("json", src.value, origin)
    return Expected(kind, src.value if kind == "text" else src.value.encode("utf-8"), origin)


PLACEHOLDER_MARK = "<fill in"  # what profile init writes for an argument it could not guess


def _placeholders(data: dict, index: dict, shown: str) -> None:
    """Refuse an argument still holding profile init's placeholder, naming its line."""
    def walk(value, where):
        if isinstance(value, str) and value.startswith(PLACEHOLDER_MARK):
            raise InputError(f"still the placeholder {_show(value)} that profile init left: give a real value",
                             file=shown, line=_line(index, where), field=format_path(where))
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, where + (key,))
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                walk(inner, where + (i,))

    for form, ref in (data.get("tools") or {}).items():
        walk(ref.get("arguments") or {}, ("tools", form, "arguments"))


def load_profile(path: str | Path | None = None) -> Profile:
    """Load and check a profile; ``None`` loads the reference fixture's profile.

    A ``reference_file`` is read relative to the profile's folder, and every form's reference
    is turned into its body kind here, so that a file or value that cannot be is refused
    before any server is started."""
    target = Path(path) if path is not None else default_profile_path()
    data, index, shown = _load(target, "profile")
    _placeholders(data, index, shown)
    base = target.resolve().parent
    tools: dict[str, ToolRef] = {}
    expected: dict[str, Expected] = {}
    name_lines: dict[str, int | None] = {}
    shared = _source(data, (), index, shown, base)
    for form, ref in (data.get("tools") or {}).items():
        name_lines[form] = _line(index, ("tools", form, "name"))
        tools[form] = ToolRef(name=ref["name"], arguments=dict(ref.get("arguments") or {}),
                              body=ref.get("body", "json") if form not in ("structured", "large") else
                              ("json" if form == "structured" else "text"),
                              mime_type=ref.get("mime_type"))
        own = _source(ref, ("tools", form), index, shown, base)
        src = own if own is not None else shared
        if src is not None:
            found = _expected(src, tools[form].body, form, index, shown)
            if found is not None:
                expected[form] = found
    return Profile(
        name=data["profile"],
        tools=tools,
        reference=data.get("reference"),
        twin=data.get("twin", "json-equal"),
        assertions=_assertions(data, index, shown),
        unknown_uri=data.get("unknown_uri", DEFAULT_UNKNOWN_URI),
        guessed=tuple(data.get("guessed") or ()),
        path=target,
        reference_file=shared.file if shared is not None else None,
        expected=expected,
        name_lines=name_lines,
        same_document=bool(data.get("same_document", False)),
        rows_off={row: _line(index, ("rows", row)) for row, state in (data.get("rows") or {}).items()
                  if state == "off"},
    )


def rows_off_in_sheet(profile: Profile, sheet) -> None:
    """Refuse a row switched off (``rows: {X01: off}``) that the sheet does not have."""
    ids = [row.id for row in sheet.rows]
    for row, line in profile.rows_off.items():
        if row not in ids:
            raise InputError(f"the sheet has no row {_show(row)}; its rows are {', '.join(ids)}",
                             file=str(profile.path) if profile.path else None, line=line, field=f"rows.{row}")


# A profile's tool the server does not list is named with the server's names nearest to it;
# a server with few tools is shown them all instead.
CLOSE_NAMES = 3
LISTED_SHOWN = 8


def unlisted_tool(profile: Profile, listed: Iterable[str]) -> InputError | None:
    """The profile's first tool (in form order) that ``listed`` (the names the server's
    tools/list gave, every page) lacks, as the one-line error naming the profile's file, the
    line and the field, with the server's closest names; None when every tool is listed."""
    import difflib

    names = list(dict.fromkeys(listed))
    missing = [form for form in TOOL_FORMS if form in profile.tools and profile.tools[form].name not in names]
    if not missing:
        return None
    form, wanted = missing[0], profile.tools[missing[0]].name
    close = difflib.get_close_matches(wanted, names, n=CLOSE_NAMES, cutoff=0.6)
    if close:
        hint = f"did you mean {' or '.join(_show(n) for n in close)}?"
    elif not names:
        hint = "it lists no tool at all"
    else:
        shown = ", ".join(_show(n) for n in names[:LISTED_SHOWN])
        more = f" and {len(names) - LISTED_SHOWN} more" if len(names) > LISTED_SHOWN else ""
        hint = f"it lists {shown}{more}"
    also = "".join(f"; tools.{other}.name {_show(profile.tools[other].name)} is not listed either"
                   for other in missing[1:])
    return InputError(f"the server's tools/list has no tool {_show(wanted)}: {hint}{also}",
                      file=str(profile.path) if profile.path else None, line=profile.name_lines.get(form),
                      field=f"tools.{form}.name")
