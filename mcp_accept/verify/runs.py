"""One run of the fixture in a verify: what was sent, where its folder is, and what it left
there read back (results, rows' evidence, wire.jsonl, what the SDK did driving it live)."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from mcp_accept.checks.base import FAIL, PASS, UNOBTAINABLE
from mcp_accept.evidence.wirelog import read_entries
from mcp_accept.server_command import split_words

STDIO, HTTP = "stdio", "http"
LIVE_FILE = "sdk-live.json"  # what the SDK did when it drove the fixture itself
LAYER_NAMES = ("wire", "type", "meaning", "sdk")


@dataclass
class RunView:
    mode: str
    era: str
    folder: Path
    base: Path  # the verify folder, for relative paths
    args: list[str]
    transport: str = STDIO
    exit_status: int | None = None
    error: str | None = None
    results: dict = field(default_factory=dict)
    evidence: dict[str, dict] = field(default_factory=dict)
    wire: list[dict] = field(default_factory=list)
    live: dict[str, dict] | None = None  # step -> what the SDK did driving the fixture itself
    live_error: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.mode, self.era, self.transport)

    @property
    def rel(self) -> str:
        return self.folder.relative_to(self.base).as_posix()

    @property
    def sent(self) -> str:
        http = ["--http", "PORT"] if self.transport == HTTP else []
        return "fixture.py " + shlex.join(http + self.args) if self.args or http else "fixture.py"

    def row(self, row_id: str) -> dict:
        for row in self.results.get("rows", []):
            if row["id"] == row_id:
                return row
        return {"id": row_id, "status": None, "reason": self.error or "the row was not written", "layers": {}}

    def layers(self, row_ids) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for layer in LAYER_NAMES:
            seen = [(self.row(r).get("layers") or {}).get(layer) for r in row_ids]
            seen = [s for s in seen if s]
            out[layer] = next((s for s in (FAIL, UNOBTAINABLE, PASS) if s in seen), None)
        return out

    def checks(self, row_id: str, layer: str | None = None) -> list[dict]:
        found = (self.evidence.get(row_id) or {}).get("checks") or []
        return [c for c in found if layer is None or c.get("layer") == layer]

    def reason(self, row_id: str, limit: int = 160) -> str:
        row = self.row(row_id)
        text = " ".join(str(row.get("reason") or "").split())
        text = text if len(text) <= limit else text[:limit - 3] + "..."
        return f"{row_id} {row.get('status')}: {text}" if text else f"{row_id} {row.get('status')}"

    def failed_rule(self, row_id: str) -> str | None:
        return self.row(row_id).get("failed_rule")

    def check_verdicts(self, row_id: str, name: str) -> list[dict]:
        return [c for c in self.checks(row_id) if c.get("check") == name]

    def step_messages(self, step: str, direction: str) -> list[dict]:
        return [e["message"] for e in self.wire if e.get("step") == step and e.get("dir") == direction
                and isinstance(e.get("message"), dict)]

    def evidence_path(self, row_id: str | None = None) -> str:
        return f"{self.rel}/rows/{row_id}.json" if row_id else f"{self.rel}/results.json"

    def out_messages(self, method: str | None = None) -> list[dict]:
        return [e for e in self.wire if e.get("dir") == "out" and isinstance(e.get("message"), dict)
                and (method is None or e["message"].get("method") == method)]

    def answer_to(self, step: str) -> dict | None:
        for entry in self.wire:
            if entry.get("dir") == "in" and entry.get("step") == step and isinstance(entry.get("message"), dict):
                return entry["message"]
        return None


def load_run(view: RunView) -> None:
    path = view.folder / "results.json"
    if path.is_file():
        view.results = json.loads(path.read_text(encoding="utf-8"))
    for file in sorted((view.folder / "rows").glob("*.json")):
        view.evidence[file.stem] = json.loads(file.read_text(encoding="utf-8"))
    wire = view.folder / "wire.jsonl"
    if wire.is_file():
        view.wire.extend(read_entries(wire))


def load_views(folder: Path) -> dict[tuple[str, str, str], RunView]:
    """The runs of an earlier verify, read back from its folder (for judging them again)."""
    report = json.loads((folder / "verify.json").read_text(encoding="utf-8"))
    views = {}
    for entry in report["runs"]:
        transport = entry.get("transport", STDIO)
        args = split_words(entry["sent"])[0][1:]  # written by shlex.join (RunView.sent)
        if transport == HTTP:
            args = args[2:]  # --http PORT
        view = RunView(entry["mode"], entry["era"], folder / entry["folder"], folder, args, transport,
                       exit_status=entry["exit_status"], error=entry["error"])
        load_run(view)
        live = view.folder / LIVE_FILE
        if live.is_file():
            data = json.loads(live.read_text(encoding="utf-8"))
            view.live, view.live_error = data.get("live"), data.get("error")
        views[view.key] = view
    return views
