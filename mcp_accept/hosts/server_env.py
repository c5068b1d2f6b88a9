"""``host test --env``: the variables a user's server needs (a key, a token), handed to it and to
nothing else that writes.

``host test`` keeps the values in memory and serves them here, on a Unix socket in a private
folder, to mcp-accept's own processes of the run alone: a process that asks must descend from the
run (the namespace's first process, or this one where there is no namespace) and run this very
interpreter. :mod:`.env_gate` hands them to the server as it starts it; the proxy and the harness
ask for them only to mask them. A host (Node, Go or Rust: another program) that finds the socket
is refused, and the refusal recorded. The host's configuration, ``job.json`` and every command
line name the socket, never a value.

What this guards against is a value written down: into the evidence, onto the console, into a
host's files. It does not hide a value from a host that reads the memory of the processes
beside it (as root of its namespace it may): no channel inside the run could.
"""

from __future__ import annotations

import json
import os
import sys

from mcp_accept.hosts.run_socket import RunSocket, peer_pid

GATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "env_gate.py")


def gated(socket_path: str, argv: list[str]) -> list[str]:
    """``argv`` started through the gate: the server gets the run's variables as it starts."""
    return [sys.executable, "-S", GATE, socket_path, "--", *argv]


def _exe(pid: int) -> str | None:
    """The program process ``pid`` runs (the kernel gives its resolved path), None where it cannot be read."""
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


class EnvServer(RunSocket):
    """The values, served to the run's processes that run this interpreter."""

    NAME = "env"

    def __init__(self, values: dict[str, str]):
        self._values = json.dumps(values).encode("utf-8")
        self.names = sorted(values)
        self._interpreter = os.path.realpath(sys.executable)
        self.served = 0
        super().__init__()

    def record(self) -> dict:
        return {"names": self.names, "served": self.served, "refused": self.refused}

    def serve(self, conn) -> None:
        pid = peer_pid(conn)
        exe = _exe(pid) if pid else None
        if not self.of_the_run(pid):
            why = "not a process of this run"
        elif exe != self._interpreter:
            why = "not mcp-accept's interpreter"
        else:
            with self._lock:
                self.served += 1
            try:
                conn.sendall(self._values)
            except OSError:
                pass
            return
        self.note(self.refused, {"pid": pid, "exe": os.path.basename(exe or "?"), "why": why})
