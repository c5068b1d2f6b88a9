"""Rendering filled sheets for people, through Jinja templates in ``templates/``."""

from __future__ import annotations

import functools
from pathlib import Path

LABELS = {
    "en": {"PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "UNOBTAINABLE", "PENDING": "PENDING",
           "conditions": "Execution conditions", "rows": "Rows", "id": "ID", "kind": "Kind",
           "title": "Title", "status": "Status", "reason": "Reason", "evidence": "Evidence",
           "normative": "normative", "additional": "additional", "observation": "observation",
           "condition": "Condition", "value": "Value", "schemas": "Official schemas used",
           "summary": "Summary", "unset": "(not recorded)"},
    "ja": {"PASS": "PASS", "FAIL": "FAIL", "UNOBTAINABLE": "取得不可", "PENDING": "未記入",
           "conditions": "実行条件", "rows": "試験", "id": "ID", "kind": "種別", "title": "項目",
           "status": "結果", "reason": "理由", "evidence": "証拠", "normative": "規範",
           "additional": "追加", "observation": "観測", "condition": "条件", "value": "値",
           "schemas": "使用した公式スキーマ", "summary": "集計", "unset": "（未記録）"},
}


def templates_dir() -> Path:
    return Path(__file__).with_name("templates")


@functools.cache
def _environment(folder: str):
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), autoescape=False,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["cell"] = cell
    return env


def cell(value) -> str:
    """Text safe inside a Markdown table cell."""
    if value is None:
        return ""
    text = str(value).replace("\r", " ").replace("\n", " ").replace("|", "\\|")
    return text


def render_run(results: dict, *, lang: str = "en", template: Path | None = None) -> str:
    if template is not None:
        env = _environment(str(Path(template).resolve().parent))
        tpl = env.get_template(Path(template).name)
    else:
        tpl = _environment(str(templates_dir())).get_template("sheet.md.j2")
    return tpl.render(results=results, lang=lang, L=LABELS[lang])
