"""The signals that stop a host run (SIGINT, SIGTERM, SIGHUP), taken as a request to stop.

The handler only records the signal: it raises nothing and takes no lock. An exception raised
by a handler appears wherever the main thread happens to be, in the middle of library code
too: right after ``subprocess`` took a process's wait lock and before its ``try``, it left the
lock held, and the next wait on that process blocked for ever. So a host run looks at the
record where it waits or moves on (:func:`check`, :func:`communicate`, :func:`wait`) and
unwinds from there with ``HostInterrupted``; whatever it then writes, it writes with no lock of
the interrupted code held. Threads look at the same record: ``host matrix`` runs its hosts in
worker threads, and the handler, set by the main thread, stops them all.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time
from contextlib import contextmanager

# Each stops the host and everything the run started; the folder is written and marked
# interrupted, and the exit status is 128 + the signal's number, as a shell reports a process the
# signal ended (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

# How often a wait looks at the record: the longest a stop waits to be seen.
POLL = 0.05

_received: list[int] = []  # the stop signals received since the handlers were set, in order


class HostInterrupted(Exception):
    """A stop signal arrived during a host run."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.name = signal.Signals(signum).name


def _record(signum, _frame) -> None:
    _received.append(signum)  # one atomic append: no lock, no file, no exception


@contextmanager
def stopping_on_signals():
    """Within, a stop signal is recorded for :func:`check` (in the main thread the handlers are
    set; in another thread, or inside a block already open, the main thread's are used). The
    first process of a PID namespace gets no signal it has no handler for, so SIGTERM needs one
    there."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(STOP_SIGNALS[-1]) is _record:
        yield
        return
    _received.clear()
    old = {sig: signal.signal(sig, _record) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def requested() -> int | None:
    """The first stop signal received, if one was."""
    return _received[0] if _received else None


def check() -> None:
    """Raise ``HostInterrupted`` if a stop signal has been received."""
    if _received:
        raise HostInterrupted(_received[0])


def communicate(proc: subprocess.Popen, timeout: float) -> tuple:
    """``proc.communicate(timeout=timeout)``, looking at the record meanwhile: ``HostInterrupted``
    when a stop arrives (the process is left to the caller to stop), ``TimeoutExpired`` past
    ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        check()
        try:
            return proc.communicate(timeout=min(POLL, max(0.0, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(proc.args, timeout) from None


def read_stdout(proc: subprocess.Popen, timeout: float, limit: int) -> bytes | None:
    """What ``proc`` writes on its stdout until it closes it, looking at the record meanwhile as
    :func:`communicate`; None once it has written more than ``limit`` bytes (the process is left to
    the caller to stop): a host that floods is never read whole into memory."""
    deadline = time.monotonic() + timeout
    out = bytearray()
    fd = proc.stdout.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            check()
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            if not selector.select(min(POLL, left)):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            out += chunk
            if len(out) > limit:
                return None
    wait(proc, max(0.0, deadline - time.monotonic()))
    return bytes(out)


def wait(proc: subprocess.Popen, timeout: float) -> int:
    """``proc.wait(timeout)``, looking at the record meanwhile, as :func:`communicate`."""
    deadline = time.monotonic() + timeout
    while True:
        check()
        try:
            return proc.wait(min(POLL, max(0.0, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(proc.args, timeout) from None
