"""An answer of the stand-in model, in an API's own shape: one JSON document, or the events of
an SSE stream (each with its ``event:`` name, or None where the API names none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Answer:
    json: Any = None
    events: list[tuple[str | None, Any]] | None = None
    status: int = 200

    def record(self) -> Any:
        """What ``model.jsonl`` keeps of it."""
        if self.events is not None:
            return {"events": [{"event": name, "data": data} for name, data in self.events]}
        return self.json
