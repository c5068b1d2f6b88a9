"""Files of a run folder: a file is either whole or absent (temporary file, then rename),
never written through a link planted in the folder, and one run at a time holds the folder."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_accept.evidence.redaction import Redactor

def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class UnsafeFolder(Exception):
    """Something planted in the run folder would make us write outside it."""


def open_nofollow(path: Path, mode: str = "wb"):
    """Open a file of the run folder for writing, never through a symlink planted there
    (``O_NOFOLLOW``: a symlink at ``path`` fails the open instead of being followed)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_APPEND if mode.startswith("a") else os.O_TRUNC
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeFolder(f"{path} is a symbolic link; mcp-accept writes no file through one") from None
        raise exc
    return os.fdopen(fd, mode, buffering=0 if "b" in mode and mode.startswith("a") else -1)


# What a run writes into its folder: none of these may be a symbolic link.
RUN_FILES = ("wire.jsonl", "stderr.log", "server-stdout.log", "results.json", "sheet.md",
             "crash-report.txt", "runner-error.log", ".mcp-accept.lock")
RUN_DIRS = ("rows", "evidence")


def planted_links(folder: Path) -> list[str]:
    """The names in a run folder that are symbolic links where mcp-accept writes."""
    found = [name for name in RUN_FILES + RUN_DIRS if (folder / name).is_symlink()]
    for sub in RUN_DIRS:
        if (folder / sub).is_dir() and not (folder / sub).is_symlink():
            found += [f"{sub}/{p.name}" for p in (folder / sub).iterdir() if p.is_symlink()]
    return found


class FolderLock:
    """An exclusive lock on a run folder for the length of one run.

    ``fcntl.flock`` on a lock file inside the folder: the kernel drops it when the process
    ends, however it ends, so a crashed or killed run never leaves the folder locked (a
    lock by file existence would). POSIX only; elsewhere no lock is taken."""

    NAME = ".mcp-accept.lock"

    def __init__(self, folder: Path):
        self.path = Path(folder) / self.NAME
        self._fd: int | None = None

    def acquire(self) -> bool:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC,
                     0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def _replace(path: Path, fill) -> None:
    """Build a temporary file beside ``path`` with ``fill(fd, tmp)``, then rename it into place,
    so readers see the old file or the new one, never half; on any failure nothing is left."""
    path = Path(path)
    import tempfile  # here, not above: 1.4 MiB a run carries through its largest answer otherwise

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        fill(fd, tmp)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_durability = threading.local()


@contextlib.contextmanager
def durable_only(*names: str):
    """Within the block, only files with one of ``names`` are fsynced before their rename.

    A run writes a dozen files at its end; an fsync each cost a sixth of a run. The rename
    alone already gives readers the old file or the new one; the fsync adds that the file
    survives a power cut. ``results.json``, written after the row files, is the one that
    says a run is complete: its fsync commits the file system's journal, and with it (on
    ext4's default ``data=ordered``, and wherever renames are ordered) the files renamed
    into place before it."""
    before = getattr(_durability, "names", None)
    _durability.names = frozenset(names)
    try:
        yield
    finally:
        _durability.names = before


def _wants_fsync(path: Path) -> bool:
    names = getattr(_durability, "names", None)
    return names is None or Path(path).name in names


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    sync = _wants_fsync(path)

    def fill(fd: int, tmp: str) -> None:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            handle.write(text)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())

    _replace(path, fill)


def atomic_copy(source: Path, target: Path) -> None:
    """Copy a file so that ``target`` is whole or absent."""

    def fill(fd: int, tmp: str) -> None:
        os.close(fd)
        shutil.copyfile(source, tmp)

    _replace(target, fill)


def atomic_write_json(path: Path, data: Any, redactor: "Redactor | None" = None) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if redactor is not None:
        text = redactor.text(text)
    atomic_write_text(path, text)





def write_crash_report(folder, exc: BaseException, redactor=None) -> str | None:
    """Write the traceback of ``exc`` into ``folder``/crash-report.txt (secrets masked);
    give its path, or None when it could not be written."""
    import traceback
    from pathlib import Path

    from mcp_accept import __version__

    text = (f"mcp-accept {__version__} stopped on an internal error.\n"
            "Please report it with this file.\n\n" + "".join(traceback.format_exception(exc)))
    if redactor is not None:
        text = redactor.text(text)
    path = Path(folder) / "crash-report.txt"
    try:
        atomic_write_text(path, text)
    except OSError:
        return None
    return str(path)
