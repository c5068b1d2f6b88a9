"""What every reporter has: its name, its options, and one method that renders."""

from __future__ import annotations

import abc
from pathlib import Path


class Reporter(abc.ABC):
    """Renders loaded runs as one document. Subclasses import what they need inside
    :meth:`render`, so that choosing a format costs only that format's imports."""

    name: str = ""
    accepts_template = False  # only Jinja-rendered Markdown takes a template of the user's

    def __init_subclass__(cls, **kwargs) -> None:
        # Every format's text is written out as UTF-8: a lone surrogate from a server (JSON's
        # "\ud800") would stop that write, so it leaves as its escape, whatever the format.
        super().__init_subclass__(**kwargs)
        render = cls.__dict__.get("render")
        if render is not None and not getattr(render, "encodable", False):
            def encodable(self, runs: list, _render=render) -> str:
                from mcp_accept.evidence.finite import without_surrogates

                return without_surrogates(_render(self, runs))

            encodable.encodable = True
            encodable.__doc__ = render.__doc__
            cls.render = encodable

    def __init__(self, *, lang: str = "en", template: Path | None = None) -> None:
        self.lang = lang
        self.template = template

    @property
    def labels(self) -> dict:
        from mcp_accept.output.render import LABELS

        return LABELS[self.lang]

    @abc.abstractmethod
    def render(self, runs: list) -> str:
        """The whole document, as text."""


def failed_checks(row_file: dict | None) -> list[dict]:
    """The checks of a row's evidence (rows/<ID>.json) that failed. The file comes from the
    run folder as it was handed over: a ``checks`` that is no list of mappings holds none."""
    checks = (row_file or {}).get("checks")
    return [c for c in checks if isinstance(c, dict) and c.get("status") == "FAIL"] \
        if isinstance(checks, list) else []


def spec_sources(checks: list[dict]) -> list[str]:
    """The spec sections the checks rest on, each once, in order."""
    seen: list[str] = []
    for check in checks:
        source = check.get("source")
        if source and isinstance(source, str) and source not in seen:
            seen.append(source)
    return seen


def row_rule(row: dict) -> str:
    """The rule kind a FAIL row broke: its ``failed_rule``, or ``app`` for a row filled
    by hand (a person's judgement against the sheet, not a spec rule)."""
    return row.get("failed_rule") or "app"


def gates(row: dict) -> bool:
    """Whether a FAIL row made its run fail (results.json ``gates``, by the one rule of
    :mod:`mcp_accept.output.exit_status`); a file written before rows said so counts every FAIL."""
    return row.get("status") == "FAIL" and row.get("gates", True) is not False


def shown_level(row: dict) -> str:
    """How loud a FAIL row is in a report: an error where it failed the run, else a warning
    for a SHOULD and a notice for the rest (the sheet's advice, an expected failure)."""
    return "error" if gates(row) else "warning" if row_rule(row) == "should" else "notice"


def load_row_file(run, row: dict) -> dict | None:
    """The row's evidence file (rows/<ID>.json) of a run, when it is one and readable."""
    import json

    evidence = row.get("evidence") or ""
    if not evidence.startswith("rows/") or not evidence.endswith(".json"):
        return None
    from mcp_accept.evidence.files import read_bytes

    try:  # a link, FIFO or hard link planted there is refused by name (InputError), not followed
        data = json.loads(read_bytes(run.folder / evidence).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
