"""Where the files shipped beside the code live: sheets, schemas and templates.

In a source checkout (and an editable install) they sit at the top of the project, where
users find and copy them; a built wheel maps them into the package (see pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

KINDS = ("sheets", "schemas", "templates")
_HERE = Path(__file__).resolve().parent


def data_dir(kind: str) -> Path:
    """The folder of one kind of shipped file."""
    if kind not in KINDS:
        raise ValueError(f"no shipped folder {kind!r}")
    inside = _HERE / kind  # an installed wheel
    if inside.is_dir():
        return inside
    return _HERE.parent / kind  # a source checkout or an editable install


def data_path(kind: str, *parts: str) -> Path:
    """A shipped file, e.g. ``data_path("sheets", "default.yaml")``."""
    return data_dir(kind).joinpath(*parts)
