"""How the server of ``host test --server CMD --env ...`` gets its variables without them being
written anywhere: not in the host's configuration (which the run keeps as evidence), not in
``job.json``, not on a command line.

``host test`` holds the values in memory and serves them on a Unix socket in a private folder
(:mod:`.server_env`). The host launches the recording proxy, and the proxy the server, through
this small program, run as a file with ``python -S`` (the standard library only, nothing of the
package): it asks the socket for the values, adds them to the environment it was given, and
executes the server's command in its place. The proxy asks too, for its masking alone
(``proxy --mask-socket``), as does the harness for ``model.jsonl``.

    python -S env_gate.py SOCKET -- COMMAND [ARG...]

A gate that cannot get the values says so in one line on its standard error and exits 127, as a
shell does for a command it cannot run: the proxy records the server's exit and its words.
"""

from __future__ import annotations

import json
import os
import socket
import sys

# The values are a few variables: an answer larger than this is not the run's.
MOST = 1 << 20


def fetch_values(path: str, seconds: float = 10.0) -> dict[str, str]:
    """The variables served on ``path``: ``{name: value}``. OSError or ValueError when there is
    no answer, or one that is not a JSON object of strings."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(seconds)
        sock.connect(path)
        data = b""
        while len(data) <= MOST:
            part = sock.recv(65536)
            if not part:
                break
            data += part
    values = json.loads(data.decode("utf-8")) if len(data) <= MOST else None
    if not isinstance(values, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise ValueError("the answer is not the run's variables")
    return values


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("env_gate: usage: env_gate.py SOCKET -- COMMAND [ARG...]\n")
        return 127
    try:
        values = fetch_values(argv[0])
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"env_gate: the run's variables could not be had from {argv[0]}: {exc}\n")
        return 127
    env = dict(os.environ)
    env.update(values)
    try:
        os.execvpe(argv[2], argv[2:], env)
    except OSError as exc:
        sys.stderr.write(f"env_gate: cannot run {argv[2]!r}: {exc.strerror or exc}\n")
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
