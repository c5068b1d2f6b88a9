"""The sdk layer's replay process, kept warm between runs.

Importing the SDK takes most of a second, more than a whole run of the other layers, and
a run cannot end before its replay has. So the replay process of one run, once it has
answered, stays: it detaches (a session of its own, its standard streams on /dev/null),
listens on a Unix socket in a folder only its user can enter, and for each later run
forks a child that already has the SDK imported, reads that run's job from the
connection, replays it and answers on the same connection. It leaves after
``MCP_ACCEPT_SDK_WARM`` seconds without a run, or at once when its socket file is removed
or taken over by a newer one.

Nothing is kept warm unless asked: a process that outlives the command that started it is a
surprise to whoever reads the process table, so by default every replay process ends with
its own run. ``MCP_ACCEPT_SDK_WARM=on`` (600 s) or a number of seconds opts in.

The socket's name carries what the replay depends on (the Python interpreter, the SDK's
and this package's files), so a run never reaches a process that would replay with
other code; a process whose code went stale is simply no longer asked, and leaves when
idle. Anything that goes wrong on the way (no process, a refused or dropped connection,
no answer) makes the run replay the way it would without a warm process.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import stat
import sys
import time
from typing import BinaryIO, Callable

from mcp_accept.evidence.bounded import process_running

WARM_ENV = "MCP_ACCEPT_SDK_WARM"
WARM_SECONDS = 600.0
CHECK_EVERY = 1.0  # how often an idle process looks at its socket file and the clock
SUN_PATH_MAX = 107  # sockaddr_un's path, less its final NUL, on Linux


def warm_seconds() -> float:
    """How long a replay process stays after its last run; 0 (the default) keeps each one to
    its own run. ``MCP_ACCEPT_SDK_WARM`` opts in: ``on`` for :data:`WARM_SECONDS`, or a number
    of seconds; anything else, unset included, keeps nothing warm."""
    raw = os.environ.get(WARM_ENV, "").strip().lower()
    if raw in ("on", "yes", "true"):
        return WARM_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        return 0.0
    return seconds if math.isfinite(seconds) and seconds > 0 else 0.0


def _folder() -> str | None:
    """A folder for the socket that only this user can enter, made if missing; None when
    there is no such place (then nothing is kept warm)."""
    if not hasattr(socket, "AF_UNIX") or not hasattr(os, "fork") or not hasattr(os, "getuid"):
        return None
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        base = os.path.join(runtime, "mcp-accept")
    else:  # no per-user runtime folder: one of our own in the temporary folder
        base = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"mcp-accept-{os.getuid()}")
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        info = os.lstat(base)
    except OSError:
        return None
    # Another user's folder, or one others may write in, could hand our jobs to a stranger.
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return base


def _code_key() -> str | None:
    """What a replay depends on, as a short name: the interpreter, the SDK's files and ours."""
    import importlib.util
    import zlib

    try:
        spec = importlib.util.find_spec("mcp")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    parts = [sys.executable, sys.version]
    for path in (spec.origin, os.path.join(os.path.dirname(spec.origin), "client", "client.py"),
                 os.path.join(os.path.dirname(spec.origin), "client", "session.py"),
                 os.path.join(here, "sdk.py"), os.path.join(here, "sdk_worker.py"),
                 os.path.join(here, "sdk_warm.py"), os.path.join(here, "types.py")):
        try:
            info = os.stat(path)
        except OSError:
            info = None
        parts.append(f"{path}:{info.st_size}:{info.st_mtime_ns}" if info else f"{path}:-")
    return "%08x" % zlib.crc32("\n".join(parts).encode("utf-8", "surrogateescape"))


def socket_path() -> str | None:
    """Where this code's warm replay process listens; None when nothing may be kept warm."""
    if warm_seconds() <= 0:
        return None
    folder = _folder()
    key = _code_key() if folder else None
    if folder is None or key is None:
        return None
    path = os.path.join(folder, f"sdk-replay-{key}.sock")
    return path if len(path.encode("utf-8", "surrogateescape")) <= SUN_PATH_MAX else None


def connect(path: str | None) -> socket.socket | None:
    """A connection to the warm process at ``path``, or None (none there, or it refused)."""
    if path is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(1.0)
        sock.connect(path)
        sock.settimeout(None)
    except OSError:
        sock.close()
        return None
    return sock


def peak_rss() -> int:
    """This process's peak resident set size in bytes (0 where it cannot be told)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def listener_pid(path: str) -> int | None:
    """The pid of the process listening on the socket ``path`` (Linux's SO_PEERCRED), or None."""
    import struct

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.settimeout(1.0)
            sock.connect(path)
            pid, _, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        except (OSError, AttributeError):
            return None
    return pid


def end_processes(folder: str, wait: float = 10.0) -> list[int]:
    """End the warm processes listening in ``folder``: deleting a socket is how its process is
    told to leave. Waits up to ``wait`` seconds; returns the pids still running then."""
    left = []
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".sock")]
    except OSError:
        return left
    for name in names:
        path = os.path.join(folder, name)
        pid = listener_pid(path)
        try:
            os.unlink(path)
        except OSError:
            pass
        deadline = time.monotonic() + wait
        while pid is not None and process_running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if pid is not None and process_running(pid):
            left.append(pid)
    return left


# -- the process that stays --------------------------------------------------------------------


def stay(path: str, seconds: float, replay: "Callable[[BinaryIO], bytes | None]") -> None:
    """Called by a replay process that has answered its run: leave that run (a child of a
    new session goes on, this process returns to exit) and serve later ones on ``path``,
    each answered by ``replay`` (a job's bytes in, its encoded Replay out, or None when no
    job came). Only a process with no other thread forks; anything that fails leaves nothing
    behind."""
    import threading

    if seconds <= 0 or threading.active_count() > 1:
        return
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        return  # the run's replay process: it exits, and the run goes on
    code = 0
    try:
        os.setsid()
        os.chdir("/")  # holds no folder of the run's busy
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        _serve(path, seconds, replay)
    except BaseException:  # noqa: BLE001 - a detached process has no one to tell
        code = 1
    finally:
        os._exit(code)


def _serve(path: str, seconds: float, replay) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # Bound beside, then renamed over the path: a run never finds a half-made socket, and a
    # dead process's socket is replaced at once.
    temp = os.path.join(os.path.dirname(path), f".{os.getpid()}.tmp")  # no longer than the path
    try:
        os.unlink(temp)
    except OSError:
        pass
    old_mask = os.umask(0o177)
    try:
        listener.bind(temp)
    finally:
        os.umask(old_mask)
    listener.listen(16)
    os.replace(temp, path)
    mine = os.stat(path).st_ino
    listener.settimeout(CHECK_EVERY)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the children that replay are reaped by the kernel
    last = time.monotonic()
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                if time.monotonic() - last > seconds or not _still_ours(path, mine):
                    return
                continue
            last = time.monotonic()
            try:
                child = os.fork()
            except OSError:
                conn.close()
                continue
            if child == 0:
                listener.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _answer(conn, replay)  # never returns
            conn.close()
    finally:
        listener.close()
        if _still_ours(path, mine):
            try:
                os.unlink(path)
            except OSError:
                pass


def _still_ours(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _answer(conn: socket.socket, replay) -> None:
    """In a child of the warm process: one run's job in, its Replay out, then exit."""
    code = 0
    try:
        conn.settimeout(None)
        with conn.makefile("rb") as reader:
            data = replay(reader)
        if data is not None:
            conn.sendall(data)
    except BaseException:  # noqa: BLE001 - the run reads no answer as a failed replay
        code = 1
    finally:
        try:
            conn.close()
        finally:
            os._exit(code)
