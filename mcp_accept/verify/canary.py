"""A listener that proves nothing was fetched: the $ref modes point at it, and a verify
counts the connections it saw."""

from __future__ import annotations

import socket
import threading
import time


class Canary:
    """A TCP listener on 127.0.0.1 that counts every connection made to it."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="mcp-accept-canary", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp-accept-canary.json"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
            conn.close()

    def count(self) -> int:
        with self._lock:
            return self.connections

    def probe(self, wait: float = 2.0) -> bool:
        """Connect once ourselves: the listener must see it (so a zero count means something)."""
        before = self.count()
        with socket.create_connection(("127.0.0.1", self.port), timeout=wait):
            pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.count() > before:
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()
