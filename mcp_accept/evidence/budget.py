"""How many bytes a run may write into its folder, all writers together (:class:`ByteBudget`).

A writer of this process asks before each write and is held to it exactly (a log line of
:class:`~mcp_accept.evidence.wirelog.WireLog`). What other processes write into the folder is
measured instead (:class:`FolderWatch`, a look every :data:`LOOK_EVERY` seconds): it counts
against the same total, and the first look that finds the total passed says so. Once the
total is reached it stays reached: nothing more is written through the budget, whoever
watches it stops the processes that write, and the plain output files they wrote past it
(a child's stdout and stderr) are cut back to it. A child's output goes straight into its
file, never through a pipe of ours: Node.js drops what it has not yet written into a full
pipe when its process exits, and a file takes every write whole.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Callable

LOOK_EVERY = 0.1  # seconds between two measures of what other processes wrote


class ByteBudget:
    """A total of bytes, shared by every writer of one run. ``reached`` is None until a write
    (or a measure) would pass it, then says by whom and at what size; it never clears."""

    def __init__(self, limit: int, option: str = "--max-run-bytes"):
        self.limit = limit
        self.option = option  # what sets the limit, as the record names it
        self.written: dict[str, int] = {}  # bytes each writer of this process wrote, counted exactly
        self.measured: dict[str, int] = {}  # bytes other processes wrote, by folder part, as last measured
        self.refused: dict[str, int] = {}  # bytes each writer could not write, once the total was reached
        self.cut: dict[str, int] = {}  # bytes cut from the end of each output file, past the total
        self.within: dict[str, int] = {}  # the parts as the last measure within the limit found them
        self.reached: dict | None = None
        self.event = threading.Event()  # set when reached
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        return sum(self.written.values()) + sum(self.measured.values())

    def take(self, size: int, by: str) -> bool:
        """Room for the ``size`` bytes ``by`` is about to write, or False: then the budget is
        reached, and they must not be written."""
        with self._lock:
            if not self.reached and self.total + size <= self.limit:
                self.written[by] = self.written.get(by, 0) + size
                return True
            self.refused[by] = self.refused.get(by, 0) + size
            self._reach(by)
            return False

    def give_back(self, size: int, by: str) -> None:
        """Bytes taken and then not kept (a log line taken back to its start)."""
        with self._lock:
            self.written[by] -= size

    def measure(self, parts: dict[str, int], reach: bool = True) -> None:
        """What other processes have written, by part of the folder: the budget is reached when it
        brings the total past the limit (by the largest part)."""
        with self._lock:
            self.measured = dict(parts)
            if reach and not self.reached and self.total > self.limit and parts:
                self._reach(max(parts, key=parts.get))
            if not self.reached:
                self.within = dict(parts)

    def _reach(self, by: str) -> None:
        if self.reached is None:
            self.reached = {"by": by, "bytes": self.total}
            self.event.set()

    def record(self) -> dict:
        """What host-run.json keeps of the budget."""
        with self._lock:
            out = {"option": self.option, "limit": self.limit, "reached": self.reached is not None,
                   "bytes": self.total, "parts": {**self.measured, **self.written},
                   "measured_every_seconds": LOOK_EVERY}
            if self.reached:
                out["reached_by"] = self.reached["by"]
                out["bytes_when_reached"] = self.reached["bytes"]
                out["not_written"] = dict(self.refused)
                out["cut_from_end"] = dict(self.cut)
                out["said"] = self._said()
            return out

    def said(self) -> str | None:
        """The reached budget in one line, for a row's reason and the console."""
        with self._lock:
            return self._said()

    def _said(self) -> str | None:
        if not self.reached:
            return None
        return (f"the run reached its byte bound ({self.option} {self.limit}) at "
                f"{self.reached['bytes']} bytes, written by {self.reached['by']}: its processes were "
                "stopped and nothing more was recorded")


def folder_parts(folder: Path, skip: set[Path]) -> dict[str, int]:
    """Bytes of the plain files under ``folder``, by its top-level entry, not following links;
    the files in ``skip`` are left out (their writer counts them)."""
    parts: dict[str, int] = {}
    stack = [(folder, None)]
    while stack:
        here, part = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:  # removed while it was being looked at
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            name = part or entry.name
            if stat.S_ISDIR(st.st_mode):
                stack.append((Path(entry.path), name))
            elif stat.S_ISREG(st.st_mode) and Path(entry.path) not in skip:
                parts[name] = parts.get(name, 0) + st.st_size
    return parts


class FolderWatch:
    """Measures what other processes write into ``folder`` every :data:`LOOK_EVERY` seconds, and
    calls ``on_reached`` once (in its own thread) when the budget is reached, by them or by a
    writer of this process."""

    def __init__(self, folder: Path, budget: ByteBudget, skip: set[Path], on_reached: Callable[[], None]):
        self.folder, self.budget, self.skip, self.on_reached = folder, budget, skip, on_reached
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="folder-watch", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.is_set():
            self.budget.measure(folder_parts(self.folder, self.skip))
            if self.budget.reached:
                self.on_reached()
                return
            self._done.wait(LOOK_EVERY)

    def stop(self, outputs: list[Path]) -> None:
        """Stop watching, once the processes are stopped, and measure once more what they left
        (the size the record gives; it no longer reaches the budget: nothing is left to stop).
        With the budget reached, the ``outputs`` (plain text at the folder's top: a child's
        stdout, stderr) are cut back from their ends, the one that grew most first, until the
        total is within the limit again; never below the size the last measure within the
        limit found (only what was written past the bound is cut)."""
        self._done.set()
        self._thread.join(30)
        self.budget.measure(folder_parts(self.folder, self.skip), reach=False)
        over = self.budget.total - self.budget.limit
        if not self.budget.reached or over <= 0:
            return
        grown = {path: (path.stat().st_size, path.stat().st_size - self.budget.within.get(path.name, 0))
                 for path in outputs if path.is_file() and not path.is_symlink()}
        for path in sorted(grown, key=lambda p: grown[p][1], reverse=True):
            size, past = grown[path]
            cut = min(over, past)
            if cut <= 0:
                break
            try:
                os.truncate(path, size - cut)
            except OSError:
                continue
            self.budget.cut[path.name] = cut
            over -= cut
        self.budget.measure(folder_parts(self.folder, self.skip), reach=False)
