"""Exit statuses and the user-facing error type.

Every failure that is the user's to fix (a bad file, a bad option) is raised as
:class:`InputError`; the CLI prints its one line and exits with its status.
"""

from __future__ import annotations

import enum
import errno


class ExitStatus(enum.IntEnum):
    OK = 0  # no automated row failed
    FAILED = 1  # at least one automated row failed
    BAD_INPUT = 2  # a file, option or value given by the user is wrong
    SERVER = 3  # the server could not be started or spoken to
    FETCH = 4  # `schemas fetch` could not download or verify the official schemas
    NO_SPACE = 74  # the disk is full (or a file size limit was reached) while writing a run folder or a file (EX_IOERR)
    INTERNAL = 70  # a fault of mcp-accept itself (EX_SOFTWARE of sysexits.h); a crash report is kept
    INTERRUPTED = 130  # stopped by Ctrl-C (SIGINT); the run folder is written, marked interrupted (`host test` and `host matrix` exit 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP)
    TERMINATED = 143  # stopped by SIGTERM (128 + 15, as a shell reports it); the folder as for 130


class InputError(Exception):
    """A problem with something the user gave us, reported as one line.

    ``where`` names the file (and line) and ``field`` the offending key, so the
    message reads ``FILE:LINE: FIELD: what is wrong``.
    """

    status = ExitStatus.BAD_INPUT

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.one_line())

    def one_line(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}:{self.line}" if self.line else self.file)
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts).replace("\n", " ")


class DiskFull(InputError):
    """A write into the run folder found no room (``ENOSPC``, ``EDQUOT``) or hit the file size
    limit (``EFBIG``). Not a fault of the tool, nor of the server: one line, its own status."""

    status = ExitStatus.NO_SPACE

    def __init__(self, error: OSError, file: str | None = None, *, run_folder: bool = True):
        self.error = error
        reason = error.strerror or str(error)
        if run_folder:
            text = (f"no space left to write the run folder ({reason}); wire.jsonl keeps its complete "
                    "lines, results.json was not written: free some space and run again")
        else:  # any other file: written whole beside its name and renamed, so nothing half is left
            text = (f"no space left to write this file ({reason}); it was not written, any earlier "
                    "version is unchanged: free some space and run the command again")
        super().__init__(text, file=file or getattr(error, "filename", None))


NO_SPACE_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG")
                            if hasattr(errno, name))


def is_disk_full(exc: BaseException | None) -> bool:
    return isinstance(exc, OSError) and exc.errno in NO_SPACE_ERRNOS


def disk_full_within(*errors: BaseException | None) -> OSError | None:
    """The full-disk error behind any of ``errors``: itself, or what it was raised from or while
    handling (a command may have turned it into an input error naming its option); else None."""
    for error in errors:
        seen = 0
        while error is not None and seen < 8:  # chains are short; a cycle cannot hold us
            if is_disk_full(error):
                return error
            error = error.__cause__ or error.__context__
            seen += 1
    return None


class ServerError(Exception):
    """The server could not be started or spoken to at all."""

    status = ExitStatus.SERVER


class InternalError(Exception):
    """A fault of mcp-accept itself, not of the server or of the user's input.

    ``report`` is the crash report file holding the traceback (redacted), when one could
    be written."""

    status = ExitStatus.INTERNAL

    def __init__(self, message: str, report: str | None = None):
        self.report = report
        super().__init__(message)

    def one_line(self) -> str:
        where = f"; crash report: {self.report}" if self.report else ""
        return f"internal error of mcp-accept: {self}{where}".replace("\n", " ")
