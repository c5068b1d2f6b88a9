"""A Unix socket ``host test`` serves to the processes of one host run, from outside its network
namespace: a socket is reached by its path whatever the namespace. Each lives in a private
folder of its own (a socket's path has room for 107 bytes, a run folder may be deeper), removed
when it stops, and tells who asks by the credentials the kernel gives (``SO_PEERCRED``): which
process, and whether it descends from the run's first process. What it serves is a subclass's:
the way out to a ``--url`` server (:mod:`.upstream_relay`), the ``--env`` values
(:mod:`.server_env`).
"""

from __future__ import annotations

import os
import shutil
import socket
import socketserver
import struct
import tempfile
import threading

RECORDED = 20  # refusals and failures kept in a record, each


def peer_pid(sock: socket.socket) -> int | None:
    """The process at the other end of a Unix socket, as this PID namespace numbers it."""
    try:
        pid, _uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                             struct.calcsize("3i")))
    except OSError:
        return None
    return pid or None


def descends_from(pid: int, ancestor: int) -> bool:
    """Whether process ``pid`` is ``ancestor`` or one of its descendants (``/proc``'s PPid chain)."""
    for _ in range(64):
        if pid == ancestor:
            return True
        try:
            status = open(f"/proc/{pid}/status", encoding="ascii", errors="replace").read()
        except OSError:
            return False
        parent = next((line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), "0")
        pid = int(parent)
        if pid <= 1:
            return False
    return False


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = True  # stop() waits for each connection's thread


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.server.owner.serve(self.request)


class RunSocket:
    """The socket, served from a thread of its own once started. ``within``: the process whose
    descendants are the run's (the namespace's ``unshare``), told by :meth:`expect_from` once it
    exists; a connection that comes first waits for it."""

    NAME = "run"

    def __init__(self):
        self._folder = tempfile.mkdtemp(prefix=f"mcp-accept-{self.NAME}-")
        self.path = os.path.join(self._folder, f"{self.NAME}.sock")
        self.within: int | None = None
        self._within_known = threading.Event()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self.refused: list[dict] = []
        self._server = _Server(self.path, _Handler)
        self._server.owner = self
        self._thread: threading.Thread | None = None

    def expect_from(self, pid: int) -> None:
        self.within = pid
        self._within_known.set()

    def start(self):
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"{self.NAME}-socket", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> dict:
        """Stop listening, end every connection, remove the socket's folder; the record."""
        self._stopping.set()
        self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)  # shutdown() returns as its loop ends, before the thread has
        self._server.server_close()
        shutil.rmtree(self._folder, ignore_errors=True)
        return self.record()

    def record(self) -> dict:
        raise NotImplementedError

    def of_the_run(self, pid: int | None) -> bool:
        """Whether process ``pid`` is one of the run's (it waits, a few seconds at most, to be told
        which process the run's are descendants of)."""
        self._within_known.wait(5)
        return pid is not None and self.within is not None and descends_from(pid, self.within)

    def note(self, kept: list[dict], entry: dict) -> None:
        """``entry`` kept in the record's list ``kept``, up to RECORDED of them."""
        with self._lock:
            if len(kept) < RECORDED:
                kept.append(entry)

    def serve(self, conn: socket.socket) -> None:
        raise NotImplementedError
