"""The one way out of a host run's network namespace: to the server at ``host test --url`` that
the run did not start (a server of the user's on this machine's loopback, or a published one).

Inside the namespace only loopback exists, so the recording proxy cannot reach such a server
itself. ``host test`` (outside the namespace) listens on a Unix socket in a private folder and
relays each connection made to it, byte for byte, to the URL's host and port; the proxy (inside)
sends its upstream requests through that socket (``mcp-accept proxy --upstream-socket``). TLS
still runs end to end between the proxy and the server: the relay sees only ciphertext for
``https``.

A Unix socket is reached by its path whatever the network namespace, so the host could find it
too and reach the server around the proxy. The relay therefore serves one process only: the
proxy, which connects once as it starts (before the host is started) to say it is the one;
every later connection from another process is refused and recorded. Whatever it relays, it
relays to that one host and port.
"""

from __future__ import annotations

import os
import selectors
import shutil
import socket
import socketserver
import struct
import tempfile
import threading
import time
from urllib.parse import urlsplit

# What one read moves at a time; nothing is held beyond it.
CHUNK = 65536
# Connections relayed at once: the proxy keeps a small pool (its host makes a few requests at a time).
MAX_CONNECTIONS = 64
CONNECT_TIMEOUT = 30.0
RECORDED = 20  # refusals and failures kept in the record, each


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


def upstream_address(url: str) -> tuple[str, int]:
    """The host and port a URL's connections go to (its port, else the scheme's)."""
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = True


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.server.relay._serve(self.request)


class UpstreamRelay:
    """A Unix socket, in a private folder of its own, whose connections go on to ``url``'s host and
    port. ``within``: the process whose descendants alone may say they are the proxy (the
    namespace's ``unshare``), set once it is started."""

    def __init__(self, url: str, *, connect_timeout: float = CONNECT_TIMEOUT):
        self.host, self.port = upstream_address(url)
        self.connect_timeout = connect_timeout
        # a short path of its own: a Unix socket's path has room for 107 bytes, a run folder may be deeper
        self._folder = tempfile.mkdtemp(prefix="mcp-accept-relay-")
        self.path = os.path.join(self._folder, "upstream.sock")
        self.within: int | None = None
        self._within_known = threading.Event()
        self.proxy_pid: int | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._open = 0
        self.connections = 0
        self.bytes_up = self.bytes_down = 0
        self.refused: list[dict] = []
        self.failed: list[dict] = []
        self._server = _Server(self.path, _Handler)
        self._server.relay = self
        self._thread: threading.Thread | None = None

    def expect_from(self, pid: int) -> None:
        """Only ``pid`` and its descendants may say they are the proxy."""
        self.within = pid
        self._within_known.set()

    def start(self) -> "UpstreamRelay":
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="upstream-relay", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> dict:
        """Stop listening, end every connection, remove the socket's folder; the record."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()  # joins the connections' threads: each ends within a look
        shutil.rmtree(self._folder, ignore_errors=True)
        return self.record()

    def record(self) -> dict:
        return {"upstream": f"{self.host}:{self.port}", "proxy_pid": self.proxy_pid,
                "connections": self.connections, "bytes_to_server": self.bytes_up,
                "bytes_from_server": self.bytes_down, "refused": self.refused, "failed": self.failed}

    def _note(self, kept: list[dict], entry: dict) -> None:
        with self._lock:
            if len(kept) < RECORDED:
                kept.append(entry)

    def _serve(self, conn: socket.socket) -> None:
        pid = peer_pid(conn)
        self._within_known.wait(5)  # set as soon as the namespace's process exists
        with self._lock:
            first = self.proxy_pid is None
            if first:
                ours = pid is not None and self.within is not None and descends_from(pid, self.within)
                if ours:
                    self.proxy_pid = pid
            busy = self._open >= MAX_CONNECTIONS
        if first:
            if not ours:
                self._note(self.refused, {"pid": pid, "why": "it said it was the proxy, but is not of this run"})
            return  # the proxy's word that it is the one: nothing to relay
        if pid != self.proxy_pid:
            self._note(self.refused, {"pid": pid, "why": "not the recording proxy"})
            return
        if busy:
            self._note(self.refused, {"pid": pid, "why": f"{MAX_CONNECTIONS} connections open already"})
            return
        try:
            upstream = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        except OSError as exc:
            self._note(self.failed, {"error": f"{type(exc).__name__}: {exc.strerror or exc}"[:300],
                                     "t": round(time.time(), 3)})
            return
        with self._lock:
            self._open += 1
            self.connections += 1
        try:
            with upstream:
                self._pipe(conn, upstream)
        finally:
            with self._lock:
                self._open -= 1

    def _pipe(self, conn: socket.socket, upstream: socket.socket) -> None:
        """Bytes both ways until both have ended (or the relay stops). A side that will not take
        what it is sent within the connect timeout ends the connection."""
        ends = {conn: upstream, upstream: conn}
        for sock in ends:
            sock.settimeout(self.connect_timeout)  # for sendall: a read only follows the selector's word
        open_ = set(ends)
        with selectors.DefaultSelector() as selector:
            for sock in ends:
                selector.register(sock, selectors.EVENT_READ)
            while open_ and not self._stopping.is_set():
                for key, _ in selector.select(timeout=0.1):
                    source = key.fileobj
                    target = ends[source]
                    try:
                        data = source.recv(CHUNK)
                    except OSError:
                        return
                    if not data:
                        selector.unregister(source)
                        open_.discard(source)
                        try:
                            target.shutdown(socket.SHUT_WR)
                        except OSError:
                            pass
                        continue
                    try:
                        target.sendall(data)
                    except OSError:
                        return
                    with self._lock:
                        if source is conn:
                            self.bytes_up += len(data)
                        else:
                            self.bytes_down += len(data)


def say_i_am_the_proxy(path: str) -> None:
    """The proxy's first connection to the relay, before its host is started: from now on the relay
    serves this process alone."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)


def reachable(url: str, seconds: float = 10.0) -> str | None:
    """Why the server at ``url`` cannot be reached from here (a TCP connection to its host and
    port), or None when it can."""
    host, port = upstream_address(url)
    try:
        socket.create_connection((host, port), timeout=seconds).close()
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return None
