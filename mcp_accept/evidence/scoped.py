"""A value one thread sets for the length of a block (:class:`ThreadValue`): the judging
deadline of :mod:`.bounded`, the files :mod:`.files` fsyncs. Thread-local rather than a
``contextvars.ContextVar``, as each worker thread of a fleet sets its own and a thread
started inside the block must not inherit it."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator


class ThreadValue:
    """One value a thread may set for a block; ``None`` where no block set it."""

    def __init__(self) -> None:
        self._local = threading.local()

    def get(self) -> Any:
        return getattr(self._local, "value", None)

    @contextlib.contextmanager
    def scoped(self, value: Any) -> Iterator[None]:
        before = self.get()
        self._local.value = value
        try:
            yield
        finally:
            self._local.value = before
