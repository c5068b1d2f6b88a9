"""Work on what a server or a user handed over, with a hard limit on time and memory.

Checking a result against a server's ``outputSchema`` (or evaluating a profile's
expression) can cost any amount: ``uniqueItems`` over tens of thousands of items, a huge
``enum``, a megabyte ``pattern``, nested ``contains``. Clock checks between keywords
cannot stop one keyword that runs long, and a thread cannot be killed. So the work runs
in a forked child process: it sees the data without copying or pickling it, sends its
small answer back through a pipe, and is killed once its time is up. Past the limit the
caller gets :class:`TooCostly`, and the run goes on.

The judging of a run has a deadline too (``--run-timeout``): :func:`judging_deadline`
sets it for the current thread and :func:`seconds_left` shortens every budget to it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import threading
import time
from typing import Any, Callable

from mcp_accept.evidence.scoped import ThreadValue


def process_running(pid: int) -> bool:
    """Whether process ``pid`` still runs: a zombie has ended (only its parent's wait is
    missing), and so has one that is gone (Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[-1].split()[:1]
    except OSError:
        return False
    return state != [b"Z"]

MEMORY_HEADROOM = 1024 * 1024 * 1024  # bytes of address space the child may add to the parent's
_deadline = ThreadValue()


class TooCostly(Exception):
    """The work ran past its time (or memory) limit and was stopped."""

    def __init__(self, seconds: float, why: str = "time"):
        self.seconds = seconds
        self.why = why
        super().__init__(f"stopped after {seconds:g}s" if why == "time" else f"stopped: {why}")


def judging_deadline(deadline: float) -> contextlib.AbstractContextManager[None]:
    """Every budget taken in this thread, inside the block, ends by ``deadline`` (monotonic)."""
    return _deadline.scoped(deadline)


def seconds_left(budget: float) -> float:
    """``budget`` shortened to what is left of the judging deadline (at least 0.05 s)."""
    deadline = _deadline.get()
    if deadline is None:
        return budget
    return max(0.05, min(budget, deadline - time.monotonic()))


def call(fn: Callable[..., Any], *args: Any, seconds: float) -> Any:
    """``fn(*args)`` in a forked child, given at most ``seconds``; its result (which must
    pickle) comes back. Raises :class:`TooCostly` past the limit or when the child runs out
    of memory or dies; an exception inside ``fn`` comes back as ``RuntimeError``."""
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX: in-process, clock checks only
        return fn(*args)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, answer, leave without running any cleanup of the parent's
        code = 0
        try:
            os.close(read_end)
            _limit_memory()
            try:
                answer = ("ok", fn(*args))
            except MemoryError:
                answer = ("memory", None)
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                answer = ("error", f"{type(exc).__name__}: {str(exc)[:300]}")
            data = pickle.dumps(answer)
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TooCostly(seconds)
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        try:
            os.kill(pid, signal.SIGKILL)  # done or not, the child goes
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    if not chunks:
        raise TooCostly(seconds, "the checking process ended without an answer (out of memory?)")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "memory":
        raise TooCostly(seconds, f"it needed more than {MEMORY_HEADROOM >> 20} MiB of memory")
    if kind == "error":
        raise RuntimeError(value)
    return value


def _limit_memory() -> None:
    """Cap the child's address space at the parent's size plus MEMORY_HEADROOM."""
    try:
        import resource

        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[0])
        limit = pages * os.sysconf("SC_PAGE_SIZE") + MEMORY_HEADROOM
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError, ImportError):
        pass


class DeadlinePassed(Exception):
    """The run's deadline (--run-timeout) passed inside a :func:`hard_deadline` block."""


@contextlib.contextmanager
def hard_deadline(deadline: float):
    """Raise :class:`DeadlinePassed` inside the block once ``deadline`` (monotonic) passes,
    whatever the block is waiting on (SIGALRM; main thread only, elsewhere a no-op). For the
    stretches of a run that only the per-request --timeout bounds otherwise (negotiation:
    several requests, each with its own timeout)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum, frame):
        raise DeadlinePassed()

    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed()
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, left)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
