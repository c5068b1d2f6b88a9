"""How the stdio transport reads a server's stdout into lines: exactly as
``BufferedReader.readline(most)`` would (the same lines, cut at the same place), but a long
line is gathered in one growing buffer, so reading it costs about its size once, not twice."""

from __future__ import annotations

import io
import subprocess
import sys
import tracemalloc

import pytest

from mcp_accept.transport.stdio import PIECE, _read_line

# Writes the lines it is given as sizes: N is N-1 bytes of "x" and a newline, -N is N bytes and
# no newline (only last). Written in odd-sized chunks, so lines arrive split across reads.
WRITER = r"""
import os, sys
out = b""
for arg in sys.argv[1:]:
    n = int(arg)
    out += b"x" * (n - 1) + b"\n" if n > 0 else b"y" * -n
for start in range(0, len(out), 7919):
    os.write(1, out[start:start + 7919])
"""


def lines_of(sizes: list[int], most: int, read, keep=bytes) -> list:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, *map(str, sizes)], stdout=subprocess.PIPE, bufsize=0)
    try:
        stream = io.BufferedReader(proc.stdout, buffer_size=1 << 16)
        got = []
        while True:
            line = read(stream, most)
            if not line:
                break
            got.append(keep(line))
        return got
    finally:
        proc.stdout.close()
        proc.wait(timeout=30)


@pytest.mark.parametrize("sizes, most", [
    ([1, 2, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 17, 5, -10], 1 << 22),
    ([PIECE, PIECE, PIECE + 2], PIECE),  # every line at or over the cut
    ([5 * PIECE, 10], 2 * PIECE + 3),  # a long line cut mid-way; the rest reads as more lines
    ([100, 1000, -3 * PIECE], 1 << 22),  # the last line has no newline
    ([40, 40, 40], 16),  # a cut below one piece
])
def test_lines_are_those_readline_gives(sizes, most):
    assert lines_of(sizes, most, _read_line) == lines_of(sizes, most, lambda s, n: s.readline(n))


def test_a_long_line_costs_its_size_about_once():
    size = 8 << 20

    def peak_of(read) -> int:
        tracemalloc.start()
        try:
            assert lines_of([size], size + 1, read, keep=len) == [size]
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    # room for the buffer's growth and one piece in flight
    assert peak_of(_read_line) < 1.25 * size
    # readline holds its pieces and their join at once: the measure tells the two apart
    assert peak_of(lambda stream, most: stream.readline(most)) > 1.9 * size
