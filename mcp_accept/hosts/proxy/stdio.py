"""The stdio recording proxy: a host launches it as its MCP server.

It starts the real server (its own process group, stderr to ``stderr.log``), then one
thread per direction copies each line as received (bytes untouched, in order) and hands
a copy to the recorder; nothing is parsed or re-serialised on the forwarding path.
Standard output carries protocol bytes only: anything else the process might print goes
to standard error. The session ends when the host closes its stdin, when the server
exits, or on SIGINT/SIGTERM; in every case the server is stopped and the run folder
completed.

stdio framing: newline-delimited JSON-RPC, messages contain no raw newline
(docs/specification/2025-11-25/basic/transports.mdx#stdio). A line is held until its end
is read (its record is queued before it is written, so its answer can never be recorded
ahead of it), at most ``--max-bytes``: a longer line, or one that never ends, is read on
in 64 KiB pieces and dropped, and the host gets a JSON-RPC error for its id instead
(:mod:`.bounds`), recorded as a ``too-large`` event. Memory stays bounded however long a
line or a session is.

Every write waits for its reader at most ``--write-timeout`` seconds without progress
(both pipes are written without blocking, :func:`.bounds.write_bounded`). A server that
stops reading its stdin: the request being written gets a JSON-RPC error, and so does
every later request (part of a line is in the server's pipe, so nothing more can be
written to it), each recorded as a ``write-timeout`` event; the server's own messages
still reach the host. A host that stops reading: nothing more can reach it, so the session
ends as if it had closed its stdin (``write-timeout`` event, server stopped, folder
completed).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from mcp_accept.errors import ServerError
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.hosts.proxy import early
from mcp_accept.hosts.proxy.bounds import CHUNK, WRITE_TIMEOUT, JsonHead, describe, error_answer, write_bounded
from mcp_accept.hosts.proxy.folder import SERVER_ENDED, SERVER_EXIT, ProxyRecord, new_run_folder
from mcp_accept.transport.base import DEFAULT_MAX_BYTES
from mcp_accept.transport.stdio import ServerProcess, _pump


def read_lines(reader, limit: int):
    """Each line of ``reader`` with its newline, as ``(line, None)``; a line longer than
    ``limit`` bytes as ``(None, head)``, read to its end in pieces and never held."""
    while True:
        line = reader.readline(limit + 1)
        if not line:
            return
        if line.endswith(b"\n") or len(line) <= limit:
            yield line, None
            continue
        head = JsonHead()
        head.feed(line)
        del line
        while True:
            piece = reader.readline(CHUNK)
            head.feed(piece)
            if not piece or piece.endswith(b"\n"):
                break
        head.finish()
        yield None, head


class StartedServer(ServerProcess):
    """A server process that was started already (:mod:`.early`), from now on pumped and
    stopped as :class:`ServerProcess` does."""

    def __init__(self, command: str, proc: subprocess.Popen, *, stderr_path: Path | None,
                 redactor: Redactor):
        self.command = command
        self.proc = proc
        self._stderr_thread = threading.Thread(target=_pump, args=(proc.stderr, stderr_path, redactor),
                                               daemon=True)
        self._stderr_thread.start()
        self._stdout_thread = None


class StdioProxy:
    def __init__(self, command: str, folder: Path, *, host_in=None, host_out=None,
                 given: dict | None = None, redactor: Redactor | None = None,
                 why: list | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES, write_timeout: float = WRITE_TIMEOUT,
                 started: subprocess.Popen | None = None, isolation: list[str] | None = None):
        self.command = command
        self.isolation = isolation  # the namespaces prefix the server runs under (--isolate)
        self.started = started  # the server's process when it was started before the proxy
        self.max_bytes = max_bytes
        self.write_timeout = write_timeout
        self._server_stalled: str | None = None  # why nothing more is written to the server
        self._host_stalled = False
        self._host_lock = threading.Lock()  # two threads may write to the host: whole lines only
        self.folder = folder
        self.redactor = redactor or Redactor()
        self.host_in = host_in
        self.host_out = host_out
        self.record = ProxyRecord(folder, "stdio", self.redactor, given)
        self.ended = threading.Event()
        self.ended_by: str | None = why[0] if why else None
        self._why = why if why is not None else []  # the signals received, appended by the handler
        self.process: ServerProcess | None = None

    def _end(self, why: str) -> None:
        if self.ended_by is None:
            self.ended_by = self._why[0] if self._why else why
        self.ended.set()

    def _to_host(self, data: bytes) -> None:
        """Write whole lines to the host, or none once it has stopped reading: then the
        session ends (nothing can reach the host any more; half a line may be in its pipe)."""
        with self._host_lock:
            if self._host_stalled:
                return
            written = write_bounded(self.host_out.fileno(), data, self.write_timeout)
            if written == len(data):
                return
            self._host_stalled = True
        self.record.event("write-timeout", f"the host stopped reading the proxy's stdout: {written} of "
                          f"{len(data)} bytes of a line were taken in --write-timeout {self.write_timeout:g} s; "
                          "the session is ended")
        self._end(f"the host stopped reading for --write-timeout {self.write_timeout:g} s")

    def _not_written(self, line: bytes, written: int | None) -> None:
        """A line the server's stdin could not take (it stopped reading): recorded, and a
        request answered with a JSON-RPC error so the host does not wait for ever."""
        head = JsonHead()
        head.feed(line)
        head.finish()
        request = head.found_id and head.kind == "request"
        if written is not None:
            self._server_stalled = (f"the server stopped reading its stdin: {written} of {len(line)} bytes "
                                    f"of a line were taken in --write-timeout {self.write_timeout:g} s")
            detail = f"{self._server_stalled}; nothing more is written to it"
        else:
            detail = f"not forwarded, {self._server_stalled}"
        detail += f" ({describe(head)}{', answered with a JSON-RPC error' if request else ''})"
        self.record.event("write-timeout", detail)
        if request:
            self._to_host(error_answer(head.id, f"{self._server_stalled}; the request was not delivered",
                                       write_timeout=self.write_timeout) + b"\n")

    def _too_large(self, direction: str, head: JsonHead) -> None:
        """A line over --max-bytes was dropped: say so in the record, and answer the host
        where it waits for an answer (its request, or the server's answer to it)."""
        limit = self.max_bytes
        if direction == "out":
            answer = head.found_id and head.kind == "request"
            text = f"the request ({head.size} bytes) is larger than --max-bytes {limit}; it was not forwarded"
        else:
            answer = head.found_id and head.kind != "request"
            text = (f"the server's message ({head.size} bytes) is larger than --max-bytes {limit}; "
                    "it was not forwarded")
        who = "host" if direction == "out" else "server"
        detail = f"the {who} sent a line of {head.size} bytes, over --max-bytes {limit}: not forwarded; "
        detail += (f"the host was answered with a JSON-RPC error ({describe(head)})" if answer
                   else f"nothing to answer ({describe(head)})")
        self.record.event("too-large", detail)
        if answer:
            self._to_host(error_answer(head.id, text, size=head.size, limit=limit) + b"\n")

    def _host_to_server(self) -> None:
        stdin = self.process.proc.stdin
        try:
            for line, head in read_lines(self.host_in, self.max_bytes):
                if line is None:
                    self._too_large("out", head)
                    continue
                if self._server_stalled:
                    self._not_written(line, None)
                    continue
                # Queued before it is written: its answer can never be recorded ahead of it.
                self.record.put("out", line)
                try:
                    written = write_bounded(stdin.fileno(), line, self.write_timeout)
                except (BrokenPipeError, OSError, ValueError):
                    self.record.event("forward-failed", "the server's stdin is closed")
                    break
                if written < len(line):
                    self._not_written(line, written)
        except (OSError, ValueError):
            pass
        self._end("the host closed the proxy's stdin")

    def _server_to_host(self, stdout) -> None:
        try:
            for line, head in read_lines(stdout, self.max_bytes):
                try:
                    if line is None:
                        self._too_large("in", head)
                        continue
                    self.record.put("in", line)
                    self._to_host(line)
                except (BrokenPipeError, OSError, ValueError):
                    self.record.event("forward-failed", "the host's end of stdout is closed")
                    break
        except (OSError, ValueError):
            pass
        self._end(SERVER_ENDED)

    def run(self) -> int:
        try:
            if self.started is not None:
                self.process = StartedServer(self.command, self.started, stderr_path=self.folder / "stderr.log",
                                             redactor=self.redactor)
            else:
                self.process = ServerProcess(self.command, stderr_path=self.folder / "stderr.log",
                                             redactor=self.redactor, prefix=self.isolation)
        except ServerError as exc:
            self.record.event("spawn-failed", str(exc))
            self.record.finish(ended_by=str(exc))
            raise
        self.record.event("spawn", f"pid {self.process.pid}: {self.command}")
        if self.isolation:
            self.record.event("isolated", "the server runs in network and PID namespaces of its own")
        os.set_blocking(self.process.proc.stdin.fileno(), False)  # writes wait in write_bounded
        stdout = io.BufferedReader(self.process.proc.stdout, buffer_size=1 << 16)
        down = threading.Thread(target=self._server_to_host, args=(stdout,), daemon=True)
        up = threading.Thread(target=self._host_to_server, daemon=True)
        down.start()
        up.start()
        try:
            # a signal handler appends to the list and nothing more: setting the event there
            # could wait for ever on its lock, held by this very thread in ended.wait()
            while not self._why and not self.ended.wait(0.05):
                pass
        finally:
            if self.ended_by is None and self._why:
                self.ended_by = self._why[0]
            self.ended.set()
            # Whatever ended the session: the server's answers still in its pipe reach the
            # host (it closed stdin first), then the server is stopped with its group.
            code = self.process.stop()
            down.join(timeout=5)
            self.record.event("exit", f"{SERVER_EXIT}{code}")
            self.record.finish(ended_by=self.ended_by or "interrupted",
                               interrupted=(self.ended_by or "").startswith("signal"))
        return 0


def run_stdio_proxy(command: str, out: Path, name: str | None = None, given: dict | None = None,
                    max_bytes: int = DEFAULT_MAX_BYTES, write_timeout: float = WRITE_TIMEOUT,
                    isolate: bool = False, secrets: list[str] = ()) -> Path:
    """The ``proxy --server`` command: this process's stdin/stdout are the host's pipe.

    The real standard output is kept for protocol bytes and ``sys.stdout`` pointed at
    standard error, so no stray print can corrupt the stream. SIGINT and SIGTERM are
    caught before the folder exists, so a signal at any moment leaves it complete; those
    that came while a server started early (:mod:`.early`) waited are taken as received.
    ``isolate``: the server runs in network and PID namespaces of its own
    (:func:`mcp_accept.hosts.netguard.isolation_argv`); a ServerError where none can be made.
    ``secrets``: values masked wherever the proxy writes (``--mask-socket``)."""
    why = []

    def on_signal(signum, frame):
        why.append(f"signal {signal.Signals(signum).name}")  # no lock, no I/O: the session looks at it

    started = early.claim(command, isolate)
    isolation = None
    if isolate:
        from mcp_accept.hosts.netguard import isolation_argv

        isolation = isolation_argv(network=True)
        if isolation is None:
            if started is not None:
                early.kill(started.proc)
            raise ServerError("--isolate: no network namespace can be made here (unshare is missing or refused)")
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    if started is not None:
        previous = started.handlers
        why.extend(started.signals)
    try:
        return _run(command, out, name, given, why, max_bytes, write_timeout,
                    started.proc if started else None, isolation, Redactor(secrets))
    except BaseException:
        if started is not None:  # it never reached the session (which stops its server itself)
            early.kill(started.proc)
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(command: str, out: Path, name: str | None, given: dict | None, why: list,
         max_bytes: int, write_timeout: float, started: subprocess.Popen | None,
         isolation: list[str] | None, redactor: Redactor) -> Path:
    folder = new_run_folder(out, name)
    host_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    sys.stdout.flush()
    sys.stdout = sys.stderr
    host_in = io.BufferedReader(os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0), 1 << 16)
    # The flag belongs to the open pipe (shared with whoever else holds it, a terminal's
    # shell included): it is set back as it was when the session ends.
    blocking = os.get_blocking(host_out.fileno())
    os.set_blocking(host_out.fileno(), False)
    proxy = StdioProxy(command, folder, host_in=host_in, host_out=host_out, given=given,
                       why=why, max_bytes=max_bytes, write_timeout=write_timeout,
                       started=started, isolation=isolation, redactor=redactor)
    try:
        proxy.run()
    finally:
        try:
            os.set_blocking(host_out.fileno(), blocking)
            host_out.close()
        except OSError:
            pass
    return folder
