"""stdio: a server subprocess speaking newline-delimited JSON-RPC.

The server runs in its own process group so that it and anything it spawned can be
stopped together. A reader thread turns stdout into messages as they arrive and
records each in the wire log at once; stderr is pumped into ``stderr.log``.
Anything on stdout that is not a JSON-RPC message is a recorded violation.
"""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

from mcp_accept.errors import ServerError
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.evidence.files import open_nofollow
from mcp_accept.protocol import META_VERSION, METHOD_NOT_FOUND, is_modern
from mcp_accept.reasons import Reason, reason
from mcp_accept.server_command import ServerEnv, split_words
from mcp_accept.transport.base import DEFAULT_MAX_BYTES, Reply, Transport
from mcp_accept.transport.base import wire_text
from mcp_accept.transport.messages import OWN_LIMIT, STDOUT_NOISE, UNREADABLE, Inbox, decode_message, timed_out

STDERR_CAP = 16 * 1024 * 1024
WRITE_WAIT = 10.0  # seconds a message sent outside a request (a cancel, an answer) may wait for room


def split_command(command: str) -> list[str]:
    argv, problem = split_words(command)
    if problem:
        raise ServerError(f"--server: {problem}")
    return argv


class ServerProcess:
    """A started server process: its pipes, its stderr pump, and how to stop it."""

    def __init__(self, command: str, *, stderr_path: Path | None, redactor: Redactor,
                 env: dict | None = None, cwd: str | None = None, stdout=subprocess.PIPE,
                 stdout_path: Path | None = None, prefix: list[str] | None = None):
        # stdout_path: the server does not speak on stdout (HTTP); pump it to a file like stderr.
        # env None: this process's own environment (the proxy's server: what its host gave it).
        self.command = command
        # prefix: words the command runs under (the namespaces a proxy keeps its server in)
        argv = [*(prefix or []), *split_command(command)]
        if stdout_path is not None:
            stdout = subprocess.PIPE
        talks = stdout is subprocess.PIPE and stdout_path is None
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE if talks else subprocess.DEVNULL,
                stdout=stdout, stderr=subprocess.PIPE, start_new_session=True, bufsize=0,
                env=env, cwd=cwd)
        except OSError as exc:
            raise ServerError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self._stderr_thread = threading.Thread(
            target=_pump, args=(self.proc.stderr, stderr_path, redactor), daemon=True)
        self._stderr_thread.start()
        self._stdout_thread = None
        if stdout_path is not None:
            self._stdout_thread = threading.Thread(
                target=_pump, args=(self.proc.stdout, stdout_path, redactor), daemon=True)
            self._stdout_thread.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def exit_code(self, wait: float = 0.0) -> int | None:
        if wait and _until_exit(self.proc, wait):
            return self.proc.poll()
        try:
            return self.proc.wait(timeout=wait) if wait else self.proc.poll()
        except subprocess.TimeoutExpired:
            return None

    def stop(self, grace: float = 2.0) -> int | None:
        """Close stdin, then TERM and KILL the whole process group if it lingers."""
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        code = self.exit_code(wait=grace)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if code is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            code = self.exit_code(wait=grace)
        # children left behind in the group go too
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._stderr_thread.join(timeout=2)
        if self._stdout_thread is not None:
            self._stdout_thread.join(timeout=2)
        return code


def _until_exit(proc: subprocess.Popen, wait: float) -> bool:
    """Block until ``proc`` ends or ``wait`` seconds pass, woken by the exit itself (a pidfd,
    Linux 5.3+): ``Popen.wait(timeout)`` polls with sleeps growing to 50 ms, which a server
    that exits at once pays in full at the end of every run. False when it could not wait
    that way (then ``Popen.wait`` does)."""
    if proc.returncode is not None or not hasattr(os, "pidfd_open"):
        return False
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:  # gone already, or not allowed
        return False
    try:
        select.select([fd], [], [], wait)
    except (OSError, ValueError):
        return False
    finally:
        os.close(fd)
    return True


def _pump(stream, path: Path | None, redactor: Redactor) -> None:
    """Copy a server's output stream into ``path``, redacted, up to STDERR_CAP bytes. The
    stream is redacted as one text, so a secret split across two reads is masked too."""
    written = 0
    handle = open_nofollow(path, "ab") if path is not None else None
    masking = redactor.stream()
    try:
        for line in iter(lambda: stream.readline(65536), b""):
            if handle is None or written >= STDERR_CAP:
                continue
            data = masking.feed(line.decode("utf-8", "replace")).encode("utf-8", "backslashreplace")
            written += len(data)
            handle.write(data)
            if written >= STDERR_CAP:
                handle.write(b"\n[stderr cut here: more than 16 MiB]\n")
    except (OSError, ValueError):
        pass
    finally:
        if handle is not None:
            try:
                if written < STDERR_CAP:
                    handle.write(masking.flush().encode("utf-8", "backslashreplace"))
            except (OSError, ValueError):
                pass
            handle.close()


class StdioTransport(Transport):
    name = "stdio"

    def __init__(self, command: str, log: WireLog, *, stderr_path: Path | None = None,
                 redactor: Redactor | None = None, max_bytes: int = DEFAULT_MAX_BYTES):
        super().__init__(log, max_bytes=max_bytes)
        self.command = command
        self.stderr_path = stderr_path
        self.redactor = redactor or Redactor()
        self.process: ServerProcess | None = None
        # what the server is given of the environment (factory.started_env): by default the
        # MCP SDKs' default variables, never the user's whole environment
        self.env: dict = ServerEnv().build()
        self.inbox: Inbox | None = None
        self._reader: threading.Thread | None = None
        self.starts = 0
        self._sent = 0
        self._stalled: str | None = None  # why nothing more can be written to the server
        self._write_wait: float | None = None  # seconds a write may wait outside a request
        # messages dropped for --max-bytes, and what was said of the last one
        self.oversize: tuple[int, Reason | None] = (0, None)

    def open(self) -> None:
        self.process = ServerProcess(self.command, stderr_path=self.stderr_path, redactor=self.redactor,
                                     cwd=getattr(self, "cwd", None), env=self.env)
        self.starts += 1
        self._sent = 0  # bytes written to this process's stdin
        self._stalled = None
        os.set_blocking(self.process.proc.stdin.fileno(), False)  # writes wait in write_until, bounded
        self.log.record("event", event="spawn", detail=f"pid {self.process.pid}, start {self.starts}")
        self.inbox = Inbox(self.log)
        stdout = io.BufferedReader(self.process.proc.stdout, buffer_size=1 << 16)
        self._reader = threading.Thread(target=self._read, args=(stdout, self.inbox), daemon=True)
        self._reader.start()

    def _read(self, stdout, inbox: Inbox) -> None:
        limit = self.max_bytes
        try:
            while True:
                line = _read_line(stdout, limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith(b"\n"):
                    size = len(line) + _discard_line(stdout)
                    self.oversize = (self.oversize[0] + 1,
                                     reason("transport.message-too-large", size=size, limit=limit))
                    inbox.violation(self.oversize[1], kind=OWN_LIMIT, raw=line[:4096].decode("utf-8", "replace"))
                    continue
                if line.isspace():  # not strip(): that copies a large line once more
                    continue
                size = len(line)
                try:
                    data = line.decode("utf-8")
                except UnicodeDecodeError:
                    data = line  # decode_message says what is wrong with the bytes
                del line  # a large message's bytes are let go before it is parsed, logged and judged
                decoded = decode_message(data)
                del data
                if decoded.noise:  # a banner or a log line: what belongs on stderr
                    if decoded.kind == UNREADABLE:
                        decoded.kind = STDOUT_NOISE
                    if self.noise is None:
                        self.noise = decoded.raw or ""
                inbox.put_decoded(decoded, size=size)
        except (OSError, ValueError) as exc:
            inbox.violation(f"reading stdout failed: {exc}", kind=OWN_LIMIT)
        inbox.close(reason("transport.stdout-closed"))

    def _send(self, message: dict, deadline: float | None = None) -> str | Reason | None:
        """Write one message, waiting for the server to read it no later than ``deadline``
        (the request's timeout, itself within --run-timeout): a server that stopped reading
        its stdin fills the pipe, and a blocking write would wait on it for ever."""
        assert self.process is not None
        if self._stalled:
            return self._stalled
        data = (wire_text(message) + "\n").encode("utf-8")
        self.log.record("out", message=message, era=self.era)
        if deadline is None:
            deadline = time.monotonic() + (self._write_wait or WRITE_WAIT)
        try:
            written = write_until(self.process.proc.stdin.fileno(), data, deadline)
        except (BrokenPipeError, OSError, ValueError):
            return self._gone(reason("transport.stdin-closed"))
        self._sent += written
        if written < len(data):
            # half a message is in the pipe: whatever is written after it would be read as its rest
            self._stalled = (f"the server stopped reading its stdin: {written} of {len(data)} bytes of a "
                             f"message were written before the time limit ran out")
            self.log.record("event", event="timeout", detail=self._stalled)
            return self._stalled
        return None

    def exited_unread(self) -> bool:
        """Whether the server has exited without reading a byte of what it was sent: it ended
        on its own, not because of a request, so a new start would end the same way. Told from
        the bytes still waiting in its stdin pipe (FIONREAD); where that cannot be asked, False,
        and a caller starts it again as before."""
        if self.process is None or self.process.exit_code(wait=0.2) is None:
            return False
        stdin = self.process.proc.stdin
        if stdin is None:
            return False
        try:
            import fcntl
            import struct
            import termios

            raw = fcntl.ioctl(stdin.fileno(), termios.FIONREAD, struct.pack("i", 0))
            unread = struct.unpack("i", raw)[0]
        except (ImportError, OSError, ValueError, AttributeError):
            return False
        return unread >= self._sent

    def _gone(self, what: str | Reason) -> str | Reason:
        code = self.process.exit_code(wait=0.2) if self.process else None
        return reason("transport.exited", what=what, code=code) if code is not None else what

    def request(self, message: dict, *, timeout: float) -> Reply:
        reply = Reply(request=message, meta={"timeout": timeout})
        if self.inbox is None or self.inbox.closed_reason and self.inbox.empty():
            reply.failure = self._gone(self.inbox.closed_reason if self.inbox else "not started")
            return reply
        dropped_before = self.oversize[0]
        deadline = time.monotonic() + timeout
        self._write_wait = timeout
        failure = self._send(message, deadline)
        if failure:
            reply.failure = failure
            return reply
        self.inbox.wait_for(message.get("id"), reply, deadline=deadline,
                            era=self.era, answer=self._answer_server_request)
        if reply.failure and self.oversize[0] > dropped_before:  # the answer may be what was dropped
            reply.failure = reason("transport.dropped-unread", why=reply.failure, **self.oversize[1].params)
        if reply.failure and self.inbox.closed_reason and reply.failure == self.inbox.closed_reason:
            reply.failure = self._gone(reply.failure)
        if timed_out(reply):
            self.log.record("event", event="timeout", detail=reply.failure)
            self._cancel(message)
        return reply

    def _cancel(self, message: dict) -> None:
        params: dict = {"requestId": message.get("id"), "reason": "timed out"}
        if is_modern(self.era):
            params["_meta"] = {META_VERSION: self.era}
        # a courtesy after a timeout: it waits a second for room, not another whole timeout
        self._send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params},
                   time.monotonic() + 1.0)

    def _answer_server_request(self, message: dict) -> None:
        # Legacy servers may ping; everything else is declined since we declare no capabilities.
        if message.get("method") == "ping":
            self._send({"jsonrpc": "2.0", "id": message.get("id"), "result": {}})
        else:
            self._send({"jsonrpc": "2.0", "id": message.get("id"),
                        "error": {"code": METHOD_NOT_FOUND, "message": "mcp-accept declares no client capabilities"}})

    def notify(self, message: dict, *, timeout: float) -> Reply:
        reply = Reply(request=message)
        failure = self._send(message, time.monotonic() + timeout) if self.process else "not started"
        if failure:
            reply.failure = failure
        return reply

    def close(self) -> None:
        if self.process is None:
            return
        code = self.process.stop()
        if self._reader is not None:
            self._reader.join(timeout=2)
        self.log.record("event", event="exit", detail=f"exit code {code}")
        self.process = None

    def describe(self) -> dict:
        return {"transport": self.name, "command": self.command}


def write_until(fd: int, data: bytes, deadline: float) -> int:
    """Write ``data`` to the non-blocking ``fd``, waiting (select) for room in the pipe until
    ``deadline``; give how many bytes were written (fewer than ``len(data)`` once it passed)."""
    view = memoryview(data)
    done = 0
    while done < len(data):
        try:
            done += os.write(fd, view[done:done + (1 << 16)])
            continue
        except BlockingIOError:
            pass
        left = deadline - time.monotonic()
        if left <= 0:
            break
        select.select([], [fd], [], min(left, 1.0))
    return done


PIECE = 1 << 16  # bytes of a line read at once; a longer line is gathered piece by piece


def _read_line(stream, most: int) -> bytes | bytearray:
    """The next line of ``stream`` with its newline, cut at ``most`` bytes (like
    ``readline(most)``), or b"" at the end.

    ``BufferedReader.readline`` gathers a long line as a list of buffer-sized pieces and joins
    them: a 16 MiB line briefly takes 32 MiB, and the freed pieces stay in the allocator's
    heap, under the objects parsed from the line next. Here a long line grows one buffer in
    place (realloc), with a single piece in flight."""
    line = stream.readline(min(most, PIECE))
    if len(line) < PIECE or line.endswith(b"\n"):
        return line
    whole = bytearray(line)
    del line
    while len(whole) < most and not whole.endswith(b"\n"):
        piece = stream.readline(min(most - len(whole), PIECE))
        if not piece:
            break
        whole += piece
    return whole


def _discard_line(stream) -> int:
    """Read and drop the rest of an over-long line; return how many bytes of the message
    were dropped (its closing newline is not part of it)."""
    dropped = 0
    while True:
        chunk = stream.readline(1 << 20)
        if chunk.endswith(b"\n"):
            return dropped + len(chunk) - 1
        if not chunk:
            return dropped
        dropped += len(chunk)
