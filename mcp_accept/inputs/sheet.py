"""The acceptance sheet: its rows and their checks, loaded from YAML and checked.

The other files a user hands over have modules of their own beside this one, all read through
:mod:`mcp_accept.inputs.files` (one-line errors with file, line and field).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mcp_accept.data import data_path
from mcp_accept.errors import InputError
from mcp_accept.inputs.files import _line, _load, _read_text, format_path

ROW_ID_RE = re.compile(r"^[A-Z][0-9]{2}$")


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Check:
    layer: str
    check: str


@dataclass(frozen=True)
class Row:
    id: str
    kind: str
    title: dict
    establishes: dict
    steps: tuple[str, ...] = ()
    checks: tuple[Check, ...] = ()
    options: dict = field(default_factory=dict)
    procedure: dict | None = None
    forms: tuple[str, ...] = ()

    @property
    def automated(self) -> bool:
        return self.procedure is None


@dataclass(frozen=True)
class Sheet:
    name: str
    version: int
    title: dict
    rows: tuple[Row, ...]
    path: Path

    def row(self, row_id: str) -> Row:
        for row in self.rows:
            if row.id == row_id:
                return row
        raise KeyError(row_id)

    def ids(self) -> list[str]:
        return [row.id for row in self.rows]


# --------------------------------------------------------------------------- package data


def default_sheet_path() -> Path:
    return data_path("sheets", "default.yaml")


# --------------------------------------------------------------------------- sheets


def _row(raw: dict) -> Row:
    return Row(
        id=raw["id"],
        kind=raw["kind"],
        title=dict(raw["title"]),
        establishes=dict(raw["establishes"]),
        steps=tuple(raw.get("steps", ())),
        checks=tuple(Check(c["layer"], c["check"]) for c in raw.get("checks", ())),
        options=dict(raw.get("options") or {}),
        procedure=dict(raw["procedure"]) if "procedure" in raw else None,
        forms=tuple(raw.get("forms", ())),
    )


# Sheets loaded by this process, by file and text: a fleet's runs share one parse (its workers
# inherit the one its parent made to check the targets).
_LOADED: dict[tuple, Sheet] = {}


def load_sheet(path: str | Path | None = None) -> Sheet:
    """Load and check a sheet; ``None`` loads the default sheet shipped with the package."""
    target = Path(path) if path is not None else default_sheet_path()
    text = _read_text(target, str(target))  # read once: the memo's key and the parse's input
    sheet = _LOADED.get((str(target), text))
    if sheet is None:
        sheet = _load_sheet(target, text)
        if len(_LOADED) < 64:
            _LOADED[(str(target), text)] = sheet
    return sheet


def _load_sheet(target: Path, text: str) -> Sheet:
    data, index, shown = _load(target, "sheet", text)
    first: dict[str, int] = {}
    for i, raw in enumerate(data["rows"]):
        where = ("rows", i, "id")
        if raw["id"] in first:
            raise InputError(f"duplicate row id {raw['id']} (first at rows[{first[raw['id']]}])",
                             file=shown, line=_line(index, where), field=format_path(where))
        first[raw["id"]] = i
    return Sheet(name=data["sheet"], version=data["version"], title=dict(data["title"]),
                 rows=tuple(_row(raw) for raw in data["rows"]), path=target)
