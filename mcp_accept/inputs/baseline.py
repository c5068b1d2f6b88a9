"""A baseline of expected failures (``run --baseline FILE``): rows, or checks of a row, that
are known to fail, each with the reason, so that CI accepts them and fails on new ones.

The file is YAML or JSON (JSON is YAML), checked against ``schemas/baseline.schema.json``;
a row the sheet does not have is refused with the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

from mcp_accept.errors import InputError
from mcp_accept.inputs.files import _line, _load, _show


def load_baseline(path: str | Path, sheet) -> list[dict]:
    """The entries, each ``{row, reason}`` and maybe ``check``, in the file's order."""
    data, index, shown = _load(Path(path), "baseline")
    rows = {row.id for row in sheet.rows}
    entries = []
    for i, item in enumerate(data.get("expected_failures") or ()):
        if item["row"] not in rows:
            where = ("expected_failures", i, "row")
            raise InputError(f"the sheet has no row {_show(item['row'])}", file=shown,
                             line=_line(index, where), field=f"expected_failures[{i}].row")
        entries.append({key: item[key] for key in ("row", "check", "reason") if key in item})
    return entries
