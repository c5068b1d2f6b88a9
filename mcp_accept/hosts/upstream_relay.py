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

import selectors
import socket
import time
from urllib.parse import urlsplit

from mcp_accept.hosts.run_socket import RunSocket, peer_pid

# What one read moves at a time; nothing is held beyond it.
CHUNK = 65536
# Connections relayed at once: the proxy keeps a small pool (its host makes a few requests at a time).
MAX_CONNECTIONS = 64
CONNECT_TIMEOUT = 30.0
REGISTERED = b"\n"  # the relay's answer to the proxy's first connection: from now on it serves that process


def upstream_address(url: str) -> tuple[str, int]:
    """The host and port a URL's connections go to (its port, else the scheme's)."""
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


class UpstreamRelay(RunSocket):
    """A socket whose connections go on to ``url``'s host and port, for the proxy alone: the first
    process of the run to connect is taken as the proxy (it does so before its host is started)."""

    NAME = "relay"

    def __init__(self, url: str, *, connect_timeout: float = CONNECT_TIMEOUT):
        self.host, self.port = upstream_address(url)
        self.connect_timeout = connect_timeout
        self.proxy_pid: int | None = None
        self._open = 0
        self.connections = 0
        self.bytes_up = self.bytes_down = 0
        self.failed: list[dict] = []
        super().__init__()

    def record(self) -> dict:
        return {"upstream": f"{self.host}:{self.port}", "proxy_pid": self.proxy_pid,
                "connections": self.connections, "bytes_to_server": self.bytes_up,
                "bytes_from_server": self.bytes_down, "refused": self.refused, "failed": self.failed}

    def serve(self, conn: socket.socket) -> None:
        pid = peer_pid(conn)
        ours = self.of_the_run(pid)
        with self._lock:
            first = self.proxy_pid is None
            if first and ours:
                self.proxy_pid = pid
            busy = self._open >= MAX_CONNECTIONS
        if first:
            if not ours:
                self.note(self.refused, {"pid": pid, "why": "it said it was the proxy, but is not of this run"})
                return
            try:  # the proxy's word that it is the one, answered once it is taken: nothing to relay
                conn.sendall(REGISTERED)
            except OSError:
                pass
            return
        if pid != self.proxy_pid:
            self.note(self.refused, {"pid": pid, "why": "not the recording proxy"})
            return
        if busy:
            self.note(self.refused, {"pid": pid, "why": f"{MAX_CONNECTIONS} connections open already"})
            return
        try:
            upstream = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        except OSError as exc:
            self.note(self.failed, {"error": f"{type(exc).__name__}: {exc.strerror or exc}"[:300],
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
    """The proxy's first connection to the relay, before its host is started: once the relay has
    answered, it serves this process alone (an OSError where it does not answer so)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        if sock.recv(1) != REGISTERED:
            raise ConnectionRefusedError("the relay did not take this process as the proxy")


def reachable(url: str, seconds: float = 10.0) -> str | None:
    """Why the server at ``url`` cannot be reached from here (a TCP connection to its host and
    port), or None when it can."""
    host, port = upstream_address(url)
    try:
        socket.create_connection((host, port), timeout=seconds).close()
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror or exc}"
    return None
