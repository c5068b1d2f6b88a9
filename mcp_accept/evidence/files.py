"""Files of a run folder: a file is either whole or absent (temporary file, then rename),
never written through a link planted in the folder, and one run at a time holds the folder."""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_accept.errors import InputError
from mcp_accept.evidence.scoped import ThreadValue

if TYPE_CHECKING:
    from mcp_accept.evidence.redaction import Redactor

def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class UnsafeFolder(InputError):
    """Something in a run folder is not a plain file of the tool's own: a symbolic link, a
    FIFO or device, or a file with a second name elsewhere (a hard link). Reading or writing
    it could hang, or reach outside the folder, so it is refused by name."""

    def __init__(self, shown: str, what: str):
        super().__init__(f"{shown} is {what}; refused (mcp-accept reads and writes only plain "
                         "files of its own in a run folder)")


# What a run writes into its folder, and the folders under it: none may be a link.
RUN_FILES = ("wire.jsonl", "stderr.log", "server-stdout.log", "results.json", "sheet.md",
             "crash-report.txt", "runner-error.log", ".mcp-accept.lock")
RUN_DIRS = ("rows", "evidence")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _kind(st: os.stat_result, *, links_ok: bool = False) -> str | None:
    """What makes a file unsafe to open: None for a plain file with one name."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if stat.S_ISFIFO(st.st_mode):
        return "a FIFO"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return "a device"
    if stat.S_ISSOCK(st.st_mode):
        return "a socket"
    if stat.S_ISDIR(st.st_mode):
        return "a directory"
    if not stat.S_ISREG(st.st_mode):
        return "not a plain file"
    if st.st_nlink > 1 and not links_ok:
        return f"a hard link ({st.st_nlink} names)"
    return None


def _open_at(name: str, flags: int, dir_fd: int, shown: str, *, folder: bool = False) -> int:
    """``os.open(name, flags, dir_fd=dir_fd)``; when it fails on a link, FIFO, device (or, for a
    file, a folder), :class:`UnsafeFolder` names what stands there."""
    try:
        return os.open(name, flags, 0o666, dir_fd=dir_fd)
    except OSError as exc:
        try:
            st = os.lstat(name, dir_fd=dir_fd)
        except OSError:
            raise exc from None
        what = None if folder and stat.S_ISDIR(st.st_mode) else _kind(st)
        if what:
            raise UnsafeFolder(shown, what) from None
        raise


def _parent_fd(path: Path) -> int:
    """An open descriptor of ``path``'s folder. A ``rows/`` or ``evidence/`` folder is opened
    from its run folder without following a link (``O_NOFOLLOW``): a planted link there
    would carry every file written into it outside."""
    parent = path.parent
    if parent.name in RUN_DIRS:
        top = os.open(parent.parent, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        try:
            return _open_at(parent.name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, top, str(parent),
                            folder=True)
        finally:
            os.close(top)
    return os.open(parent, os.O_RDONLY | _DIRECTORY | _CLOEXEC)


def open_checked(path: Path, flags: int = os.O_RDONLY, *, dir_fd: int | None = None) -> int:
    """A descriptor of ``path``, opened only if it is a plain file with one name: never
    through a symbolic link (``O_NOFOLLOW``), never blocking on a FIFO (``O_NONBLOCK``, then
    ``fstat``; the flag is cleared again for the reads and writes that follow)."""
    path = Path(path)
    own = dir_fd is None
    if own:
        dir_fd = _parent_fd(path)
    try:
        fd = _open_at(path.name, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd, str(path))
    finally:
        if own:
            os.close(dir_fd)
    try:
        what = _kind(os.fstat(fd))
        if what:
            raise UnsafeFolder(str(path), what)
        if _NONBLOCK:
            import fcntl

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_plain(path: Path) -> None:
    """Refuse ``path`` (a file of a run folder about to be read) unless it is a plain file
    with one name; a missing file passes (the reader says it is missing)."""
    try:
        os.close(open_checked(Path(path)))
    except FileNotFoundError:
        pass


def open_read(path: Path, mode: str = "rb", **kwargs):
    """A file of a run folder opened for reading, under :func:`open_checked`'s rules."""
    return os.fdopen(open_checked(Path(path)), mode, **kwargs)


def read_bytes(path: Path) -> bytes:
    with open_read(path) as handle:
        return handle.read()


def open_nofollow(path: Path, mode: str = "wb"):
    """Open a file of the run folder for writing. ``w`` makes a new file (created exclusively
    under a temporary name, then renamed over ``path``): a link or FIFO planted at ``path`` is
    replaced, never written through. ``a`` appends to the file there only if it is a plain
    file with one name."""
    path = Path(path)
    if mode.startswith("a"):
        fd = open_checked(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        return os.fdopen(fd, mode, buffering=0 if "b" in mode else -1)
    dir_fd = _parent_fd(path)
    try:
        fd, tmp = _new_file(path, dir_fd)
        try:
            os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.close(fd)
            _unlink(tmp, dir_fd)
            raise
    finally:
        os.close(dir_fd)
    return os.fdopen(fd, mode, buffering=-1)


def new_empty(path: Path) -> None:
    """``path`` made a new empty file (whatever stood there, a link included, is replaced)."""
    open_nofollow(path, "wb").close()


def unsafe_entries(folder: Path) -> list[tuple[str, str]]:
    """(name, what it is) of the entries of a run folder that mcp-accept would open and that
    are not plain files with one name (``rows``/``evidence``: not real folders)."""
    found = []
    for name in RUN_FILES + RUN_DIRS:
        try:
            st = os.lstat(folder / name)
        except OSError:
            continue
        if name in RUN_DIRS:
            if not stat.S_ISDIR(st.st_mode):
                found.append((name, _kind(st) or "not a folder"))
            continue
        what = _kind(st)
        if what:
            found.append((name, what))
    for sub in RUN_DIRS:
        if (folder / sub).is_dir() and not (folder / sub).is_symlink():
            for p in (folder / sub).iterdir():
                try:
                    what = _kind(os.lstat(p))
                except OSError:
                    continue
                if what:
                    found.append((f"{sub}/{p.name}", what))
    return found


class FolderLock:
    """An exclusive lock on a run folder for the length of one run.

    ``fcntl.flock`` on a lock file inside the folder: the kernel drops it when the process
    ends, however it ends, so a crashed or killed run never leaves the folder locked (a
    lock by file existence would). The file is removed when the run lets go, so a finished
    folder holds only the run's evidence. POSIX only; elsewhere no lock is taken."""

    NAME = ".mcp-accept.lock"
    TRIES = 100  # a file removed under a run that was about to lock it, again and again

    def __init__(self, folder: Path):
        self.path = Path(folder) / self.NAME
        self._fd: int | None = None

    def acquire(self) -> bool:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return True
        for _ in range(self.TRIES):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC,
                         0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            # The run that held it may have removed the file while this one waited to lock it: a
            # lock on a removed file keeps no later run out, so only the file at the path counts.
            try:
                current = os.stat(self.path, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            if current is not None and os.path.samestat(os.fstat(fd), current):
                break
            os.close(fd)
        else:
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            # removed while still held: a run that opened it meanwhile then finds, once it has
            # the lock, that the file is gone, and takes a new one (acquire)
            try:
                os.unlink(self.path)
            except OSError:
                pass
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def make_folder(folder: Path, field: str = "--out", what: str = "write the output folder") -> Path:
    """``folder`` made with its parents, or a one-line InputError naming the option it came from."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot {what}: {exc.strerror or exc}", file=str(folder), field=field) from None
    return folder


def prepare_folder(folder: Path) -> Path:
    """``folder`` made, and found writable (an InputError naming --out if not)."""
    make_folder(folder)
    try:
        probe = folder / ".mcp-accept-write-test"
        new_empty(probe)  # created new: a link planted under that name is replaced, not written through
        probe.unlink()
    except OSError as exc:
        raise InputError(f"cannot write the output folder: {exc.strerror or exc}", file=str(folder),
                         field="--out") from None
    return folder


def open_run_folder(folder: Path) -> FolderLock:
    """Make ``folder`` this run's own: made and writable (:func:`prepare_folder`), no link or
    FIFO planted where the run writes, and its lock held, so that a second run into it at once
    is refused. The caller releases the lock when the run ends."""
    prepare_folder(folder)
    unsafe = unsafe_entries(folder)
    if unsafe:
        name, what = unsafe[0]
        more = f" (and {len(unsafe) - 1} more)" if len(unsafe) > 1 else ""
        raise InputError(f"{name} is {what}{more}; mcp-accept opens no such file, for reading or "
                         "writing (remove it or choose another folder)", file=str(folder), field="--out")
    lock = FolderLock(folder)
    try:
        held = lock.acquire()
    except OSError as exc:
        raise InputError(f"cannot lock the output folder: {exc.strerror or exc}", file=str(folder),
                         field="--out") from None
    if not held:
        raise InputError("another mcp-accept run is writing this folder; wait for it or choose "
                         "another --out", file=str(folder), field="--out")
    return lock


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def _new_file(path: Path, dir_fd: int) -> tuple[int, str]:
    """A new file beside ``path``, created exclusively under a temporary name in ``dir_fd``."""
    # os.urandom, not secrets: secrets imports hmac, and so hashlib, which maps OpenSSL's
    # libcrypto (3.6 MiB that a run would hold up to its largest answer)
    for _ in range(100):
        tmp = f".{path.name}.{os.urandom(4).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            continue
        os.fchmod(fd, FILE_MODE)
        return fd, tmp
    raise FileExistsError(f"no free temporary name beside {path}")


def _unlink(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _replace(path: Path, fill) -> None:
    """Build a new file beside ``path`` with ``fill(fd)``, then rename it into place, so
    readers see the old file or the new one, never half; on any failure nothing is left. The
    folder is held open (``rows/`` and ``evidence/`` never through a link) and the file is
    created exclusively, so nothing planted there is written through."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        pass  # a link or a file stands there: _parent_fd names it
    dir_fd = _parent_fd(path)
    try:
        fd, tmp = _new_file(path, dir_fd)
        try:
            fill(fd)
            os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException as exc:
            _unlink(tmp, dir_fd)
            if isinstance(exc, OSError) and exc.filename is None:
                exc.filename = str(path)  # a failed write names no file: say which one it was
            raise
    finally:
        os.close(dir_fd)


_durability = ThreadValue()


def durable_only(*names: str) -> contextlib.AbstractContextManager[None]:
    """Within the block, only files with one of ``names`` are fsynced before their rename.

    A run writes a dozen files at its end; an fsync each cost a sixth of a run. The rename
    alone already gives readers the old file or the new one; the fsync adds that the file
    survives a power cut. ``results.json``, written after the row files, is the one that
    says a run is complete: its fsync commits the file system's journal, and with it (on
    ext4's default ``data=ordered``, and wherever renames are ordered) the files renamed
    into place before it."""
    return _durability.scoped(frozenset(names))


def _wants_fsync(path: Path) -> bool:
    names = _durability.get()
    return names is None or Path(path).name in names


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    sync = _wants_fsync(path)

    def fill(fd: int) -> None:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as handle:
            handle.write(text)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())

    _replace(path, fill)


def atomic_copy(source: Path, target: Path) -> None:
    """Copy a file so that ``target`` is whole or absent."""

    def fill(fd: int) -> None:
        with open(source, "rb") as src, os.fdopen(fd, "wb") as dst:
            import shutil

            shutil.copyfileobj(src, dst, 1 << 20)

    _replace(target, fill)


def atomic_write_json(path: Path, data: Any, redactor: "Redactor | None" = None) -> None:
    from mcp_accept.evidence.finite import strict_dumps

    text = strict_dumps(data, ensure_ascii=False, indent=2) + "\n"  # a server's NaN: "NaN", a string
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
