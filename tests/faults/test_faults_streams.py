"""Compression and streams: a server that compresses although Accept-Encoding: identity was
sent (a gzip or deflate bomb that decodes to 4 GiB, a body marked br that is no brotli), and
one that floods a step with notifications (stdio lines, SSE events). --max-bytes counts the
decoded bytes and decoding stops there; the flood is capped per step, recorded as one
violation, and the run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultkit import assert_complete, events, hostile, measured, process_gone, read_pids, rows_by_id

HTTP = "Streamable HTTP"
MIB = 1024 * 1024


def http_run(tmp_path: Path, port: int, *server_args: str, max_bytes: int = 8 * MIB) -> tuple[dict, Path, list[int]]:
    folder, pidfile = tmp_path / "run", tmp_path / "pid"
    got = measured(["run", "--url", f"http://127.0.0.1:{port}/mcp",
                    "--server", hostile("--http", port, "--pidfile", pidfile, *server_args),
                    "--out", str(folder), "--timeout", "10", "--max-bytes", str(max_bytes)], tmp_path / "console")
    return got, folder, read_pids(pidfile)


@pytest.mark.parametrize("mode", ["gzip-bomb", "deflate-bomb"])
def test_compression_bomb_stops_at_max_bytes(mode: str, tmp_path: Path, held_port) -> None:
    got, folder, pids = http_run(tmp_path, held_port(), "--mode", mode, "--size", str(4 * 1024 * MIB))
    assert got["code"] == 1, got["stderr"][-2000:]
    results = assert_complete(folder, transport=HTTP)
    rows = rows_by_id(results)
    assert rows["T01"]["status"] == "FAIL", rows["T01"]
    details = [e.get("detail", "") for e in events(folder, "violation")]
    assert any("although the request said Accept-Encoding: identity" in d for d in details), details
    assert any(f"exceeds --max-bytes {8 * MIB}" in d for d in details), details
    assert rows["E01"]["status"] == "PASS", "the run went on after the bomb"
    for pid in pids:
        assert process_gone(pid)
    print(f"{mode} (4 GiB decoded): peak RSS {got['rss_mib']:.0f} MiB")  # its time: benchmarks/hostile.py
    assert got["rss_mib"] < 1024, got


def test_unasked_brotli_is_refused_not_decoded(tmp_path: Path, held_port) -> None:
    got, folder, pids = http_run(tmp_path, held_port(), "--mode", "br")
    assert got["code"] == 1, got["stderr"][-2000:]
    results = assert_complete(folder, transport=HTTP)
    assert rows_by_id(results)["T01"]["status"] == "FAIL"
    details = [e.get("detail", "") for e in events(folder, "violation")]
    assert any("compressed the answer with 'br'" in d and "not decoded" in d for d in details), details


@pytest.mark.parametrize("mode", ["flood", "stray-flood"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_flood_is_capped_per_step(transport: str, mode: str, tmp_path: Path, held_port) -> None:
    """50,000 notifications (or answers to ids never asked) before one answer: about 1000
    are recorded, one violation says the rest were dropped, and the answer still counts."""
    flood = ("--mode", mode, "--count", "50000")
    if transport == "http":
        got, folder, pids = http_run(tmp_path, held_port(), *flood, max_bytes=64 * MIB)
    else:
        folder, pidfile = tmp_path / "run", tmp_path / "pid"
        got = measured(["run", "--server", hostile("--pidfile", pidfile, *flood), "--out", str(folder),
                        "--timeout", "30"], tmp_path / "console")
        pids = read_pids(pidfile)
    assert got["code"] in (0, 1), got["stderr"][-2000:]
    results = assert_complete(folder, transport=HTTP if transport == "http" else "stdio")
    rows = rows_by_id(results)
    assert rows["T01"]["status"] == "PASS", rows["T01"]  # the answer after the flood was taken
    capped = [e for e in events(folder, "violation") if "dropped unrecorded" in e.get("detail", "")]
    assert len(capped) == 1 and capped[0]["step"] == "call:text", capped
    lines = (folder / "wire.jsonl").read_text().splitlines()
    needle = "notifications/message" if mode == "flood" else '"id":100'
    notes = [line for line in lines if needle in line and '"dir":"in"' in line]
    assert 400 <= len(notes) <= 1001, len(notes)
    assert (folder / "wire.jsonl").stat().st_size < 8 * MIB
    for pid in pids:
        assert process_gone(pid)
    print(f"{mode} over {transport}: peak RSS {got['rss_mib']:.0f} MiB")  # its time: benchmarks/hostile.py
    assert got["rss_mib"] < 1024, got
