"""`mcp-accept observe`: rows filled by hand, and H01/H02 from marker answers.

The host is played by the test: it starts the fixture in marker mode (stdio or HTTP),
calls its tools, maybe reads the link, and hands some of what it got to the "model",
whose answer is the text observe reads.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from conftest import FIXTURE, host_session_stdio, load_results, run_cli, start_http_server, statuses, stop_http_server

from mcp_accept.inputs.results import validate_results

ALL_TOOLS = ("search_text", "search_structured", "search_embedded", "search_link")


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("base") / "run"
    done = run_cli("run", "--out", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture
def run_dir(base_run, tmp_path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(base_run, folder)
    return folder


def visible(answers: dict, *, text=True, structured=False, embedded=True, links=True) -> str:
    """What a host that forwards these parts hands its model, as the model would quote it.
    ``text`` covers every text item, the structured tool's text twin included."""
    parts = []
    for result in answers.values():
        if "contents" in result:  # the body of a link the host read
            if links:
                parts += [c.get("text", "") for c in result["contents"]]
            continue
        for item in result.get("content", []):
            if item["type"] == "text" and text:
                parts.append(item["text"])
            elif item["type"] == "resource" and embedded:
                parts.append(item["resource"].get("text", ""))
            elif item["type"] == "resource_link":
                parts.append(f"(a link to {item['uri']})")
        if structured and "structuredContent" in result:
            parts.append(json.dumps(result["structuredContent"]))
    return "Here is everything I can see:\n" + "\n".join(parts) + "\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def row(results: dict, row_id: str) -> dict:
    return next(r for r in results["rows"] if r["id"] == row_id)


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-accept: error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


# --------------------------------------------------------------------------- by hand


def test_manual_row_copies_outside_evidence_and_survives_a_new_run(run_dir, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    shot = notes / "host screen.txt"
    shot.write_text("the host showed a 'result too large' banner at 100 KB\n", encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H03", "--status", "unobtainable", "--evidence", str(shot),
                   "--note", "the host exposes no model input", "--host", "Claude Code",
                   "--host-version", "2.1.0", "--set", "model_and_settings=sonnet, default")
    assert done.returncode == 0, done.stderr

    results = validate_results(run_dir / "results.json")
    h03 = row(results, "H03")
    assert (h03["status"], h03["filled_by"]) == ("UNOBTAINABLE", "observe")
    assert h03["reason"] == "the host exposes no model input"
    assert h03["evidence"].startswith("evidence/") and not Path(h03["evidence"]).is_absolute()
    assert (run_dir / h03["evidence"]).read_bytes() == shot.read_bytes()
    assert results["summary"]["UNOBTAINABLE"] == sum(r["status"] == "UNOBTAINABLE" for r in results["rows"])
    c = results["conditions"]
    assert (c["host_product"], c["host_version"], c["model_and_settings"]) == \
        ("Claude Code", "2.1.0", "sonnet, default")
    sheet = (run_dir / "sheet.md").read_text(encoding="utf-8")
    line = next(l for l in sheet.splitlines() if l.startswith("| H03 |"))
    assert "**UNOBTAINABLE**" in line and f"({h03['evidence'].replace(' ', '%20')})" in line

    again = run_cli("run", "--out", str(run_dir))
    assert again.returncode == 0, again.stderr
    after = load_results(run_dir)
    assert row(after, "H03") == h03
    assert after["conditions"]["host_product"] == "Claude Code"
    assert statuses(after)["H01"] == "PENDING"


def test_evidence_already_in_the_run_folder_is_used_in_place(run_dir):
    (run_dir / "notes").mkdir()
    (run_dir / "notes" / "trace.log").write_text("model input: ...\n", encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H01", "--status", "PASS",
                   "--evidence", str(run_dir / "notes" / "trace.log"))
    assert done.returncode == 0, done.stderr
    h01 = row(load_results(run_dir), "H01")
    assert h01["evidence"] == "notes/trace.log"
    assert h01["reason"] == "PASS recorded by hand"
    assert not (run_dir / "evidence").exists()


@pytest.mark.parametrize("args, says", [
    (["W01", "--status", "PASS"], "W01 is an automated row"),
    (["Z99", "--status", "PASS"], "no row Z99"),
    (["H03", "--status", "MAYBE"], "--status: must be one of PASS, FAIL, UNOBTAINABLE"),
    (["H03", "--status", "PASS", "--set", "auth_context=Authorization: Bearer abcdefgh12345678ijkl"],
     "auth_context: the value looks like"),
    (["H03", "--status", "PASS", "--host", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
     "--host: host_product: the value looks like"),
    (["H03", "--status", "PASS", "--note", "password=hunter2hunter2"], "error: --note: the value looks like"),
    (["H03", "--status", "PASS", "--set", "S02.mode=exact"], "condition keys only"),
    (["H03", "--status", "PASS", "--set", "transport=carrier pigeon"], "transport"),
])
def test_bad_input_is_one_line_and_writes_nothing(run_dir, tmp_path, args, says):
    evidence = tmp_path / "shot.txt"
    evidence.write_text("seen\n", encoding="utf-8")
    before = snapshot(run_dir)
    done = run_cli("observe", str(run_dir), *args, "--evidence", str(evidence))
    assert says in one_line_error(done)
    assert snapshot(run_dir) == before
    for secret in ("abcdefgh12345678ijkl", "ghp_abcdef", "hunter2"):
        assert secret not in done.stderr + done.stdout


def test_evidence_holding_a_credential_is_refused(run_dir, tmp_path):
    trace = tmp_path / "trace.txt"
    trace.write_text("GET /mcp\nAuthorization: Bearer abcdefghijklmnop1234567890\n", encoding="utf-8")
    before = snapshot(run_dir)
    message = one_line_error(run_cli("observe", str(run_dir), "H01", "--status", "PASS",
                                     "--evidence", str(trace)))
    assert f"{trace}:2:" in message and "bearer token" in message
    assert "abcdefghijklmnop" not in message
    assert snapshot(run_dir) == before


def test_a_hand_edited_results_file_is_checked_first(run_dir, tmp_path):
    path = run_dir / "results.json"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    # The second row's status: a typo made by hand.
    status_lines = [i for i, l in enumerate(lines) if l.startswith('      "status": ')]  # rows, not checks
    target = status_lines[1]
    lines[target] = lines[target].replace('"PASS"', '"PASSED"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    evidence = tmp_path / "shot.txt"
    evidence.write_text("seen\n", encoding="utf-8")
    before = snapshot(run_dir)
    message = one_line_error(run_cli("observe", str(run_dir), "H03", "--status", "PASS",
                                     "--evidence", str(evidence)))
    assert f"results.json:{target + 1}: rows[1].status:" in message
    assert snapshot(run_dir) == before


def test_a_folder_without_a_run_is_refused(tmp_path):
    message = one_line_error(run_cli("observe", str(tmp_path), "H01", "--status", "PASS",
                                     "--evidence", str(tmp_path)))
    assert "no results.json" in message


# --------------------------------------------------------------------------- marker mode


def test_marker_answer_over_stdio_fills_h01_per_form_and_h02(run_dir, tmp_path):
    log = tmp_path / "fixture-log"
    answers = host_session_stdio(log, ALL_TOOLS, read_links=False)
    # This host hands the model the text items only: structuredContent is replaced by its
    # text twin, the embedded resource is dropped and the link is shown, never read.
    answer = tmp_path / "answer.md"
    answer.write_text(visible(answers, embedded=False), encoding="utf-8")
    done = run_cli("observe", str(run_dir), "--answer", str(answer), "--fixture-log", str(log),
                   "--host", "Host A", "--host-version", "1.0")
    assert done.returncode == 0, done.stderr
    results = validate_results(run_dir / "results.json")
    h01, h02 = row(results, "H01"), row(results, "H02")
    # An absent token is "not seen in the answer", never proof of "did not reach": no FAIL.
    assert h01["observed"]["forms"] == {"text": "reached", "structured": "not seen in the answer",
                                        "embedded": "not seen in the answer"}
    assert h01["observed"]["twin"] == "reached"
    assert h01["status"] == "UNOBTAINABLE"
    assert "embedded resource not seen in the answer" in h01["reason"]
    assert "did not reach" not in h01["reason"]
    assert "structuredContent not seen in the answer, only its text twin was" in h01["reason"]
    assert h02["observed"]["forms"] == {"link": "not seen in the answer"}
    assert (h02["observed"]["link_read"], h02["observed"]["link_body_reached"]) == (False, False)
    assert h02["status"] == "UNOBTAINABLE" and "never read the link" in h02["reason"]
    assert results["conditions"]["model_visible_capture_method"] == "observable answer with marker"
    assert results["conditions"]["host_product"] == "Host A"
    # Evidence: the row files, the copied answer and the fixture's log.
    assert h01["evidence"] == "rows/H01.json"
    detail = json.loads((run_dir / "rows" / "H01.json").read_text(encoding="utf-8"))
    assert (run_dir / detail["answer"]).read_text(encoding="utf-8") == answer.read_text(encoding="utf-8")
    markers = json.loads((log / "markers.json").read_text(encoding="utf-8"))
    assert detail["forms"]["embedded"]["tokens"] == {markers["run"]: markers["markers"]["embedded"]}
    assert detail["forms"]["text"]["called"] == 1
    structured = detail["forms"]["structured"]
    assert structured["in_answer"] == {}
    assert list(structured["twin"]["in_answer"]) == [markers["markers"]["twin"]]
    assert structured["twin"]["in_answer"][markers["markers"]["twin"]]["lines"] == [
        n for n, line in enumerate(answer.read_text(encoding="utf-8").splitlines(), 1)
        if markers["markers"]["twin"] in line]
    copied = [p for p in detail["fixture_log"] if p.endswith("requests.jsonl")]
    assert (run_dir / copied[0]).read_bytes() == (log / "requests.jsonl").read_bytes()
    assert "| H01 | observation |" in (run_dir / "sheet.md").read_text(encoding="utf-8")


class HttpHost:
    """A host speaking Streamable HTTP (legacy session) to the fixture."""

    def __init__(self, url: str):
        self.url, self.session, self.n = url, None, 0
        self.client = httpx.Client(trust_env=False, timeout=10)

    def ask(self, method: str, params: dict) -> dict:
        self.n += 1
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        if self.session:
            headers.update({"Mcp-Session-Id": self.session, "MCP-Protocol-Version": "2025-11-25"})
        body = json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        response = self.client.post(self.url, content=body.encode("utf-8"), headers=headers)
        response.raise_for_status()
        self.session = response.headers.get("Mcp-Session-Id") or self.session
        return response.json()


def test_marker_answer_over_http_with_the_link_read(run_dir, tmp_path):
    log = tmp_path / "http-log"
    proc, url = start_http_server(str(FIXTURE), "--http", "0", "--markers", "--log", str(log))
    try:
        host = HttpHost(url)
        host.ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "http-host", "version": "1"}})
        answers = {name: host.ask("tools/call", {"name": name, "arguments": {"q": "MCP"}})["result"]
                   for name in ALL_TOOLS}
        uri = answers["search_link"]["content"][0]["uri"]
        answers[uri] = host.ask("resources/read", {"uri": uri})["result"]
    finally:
        stop_http_server(proc)
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers, text=False, structured=True), encoding="utf-8")
    done = run_cli("observe", str(run_dir), "--answer", str(answer), "--fixture-log", str(log),
                   "--host", "Host B", "--set", "model_visible_capture_method=debug trace")
    assert done.returncode == 0, done.stderr
    results = load_results(run_dir)
    h01, h02 = row(results, "H01"), row(results, "H02")
    # No text item was forwarded, so the text tool's token never reached the model.
    assert h01["observed"]["forms"] == {"text": "not seen in the answer", "structured": "reached",
                                        "embedded": "reached"}
    assert h01["observed"]["twin"] == "not seen in the answer"
    assert h01["status"] == "UNOBTAINABLE"
    assert "structuredContent reached the model (its text twin was not seen in the answer)" in h01["reason"]
    assert h02["status"] == "PASS" and h02["observed"]["link_read"] is True
    assert h01["observed"]["host_transports"] == ["http"]
    assert results["conditions"]["model_visible_capture_method"] == "debug trace"


def test_every_form_reaching_the_model_is_a_pass_and_a_restarted_fixture_counts(run_dir, tmp_path):
    log = tmp_path / "log"
    first = host_session_stdio(log, ("search_text", "search_structured"))
    second = host_session_stdio(log, ("search_embedded", "search_link"), read_links=True)
    answer = visible(first, structured=True) + visible(second)
    done = run_cli("observe", str(run_dir), "--answer", "-", "--fixture-log", str(log), input=answer)
    assert done.returncode == 0, done.stderr
    results = load_results(run_dir)
    assert statuses(results)["H01"] == "PASS" and statuses(results)["H02"] == "PASS"
    h01 = row(results, "H01")
    assert h01["observed"]["twin"] == "reached"
    assert "structuredContent reached the model (its text twin too)" in h01["reason"]
    # Both starts' tokens come from markers.json's history, not from their shape.
    history = json.loads((log / "markers.json").read_text(encoding="utf-8"))["history"]
    assert h01["observed"]["fixture_runs"] == [start["run"] for start in history]
    detail = json.loads((run_dir / "rows" / "H01.json").read_text(encoding="utf-8"))
    assert detail["forms"]["structured"]["tokens"] == {
        start["run"]: start["markers"]["structured"] for start in history}
    assert [hit["run"] for hit in detail["forms"]["embedded"]["in_answer"].values()] == \
        [history[1]["run"]]
    kept = row(results, "H01")["observed"]["answer"]
    assert (run_dir / kept).read_text(encoding="utf-8") == answer


def test_a_tool_never_called_leaves_the_form_unobtainable(run_dir, tmp_path):
    log = tmp_path / "log"
    answers = host_session_stdio(log, ("search_text", "search_structured"))
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers, structured=True), encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H01", "--answer", str(answer), "--fixture-log", str(log))
    assert done.returncode == 0, done.stderr
    results = load_results(run_dir)
    h01 = row(results, "H01")
    assert h01["status"] == "UNOBTAINABLE"
    assert h01["observed"]["forms"]["embedded"] == "unobtainable"
    assert "search_embedded was never called" in h01["reason"]
    assert statuses(results)["H02"] == "PENDING"  # only the row asked for was filled


def test_a_link_read_whose_body_never_reached_the_model(run_dir, tmp_path):
    log = tmp_path / "log"
    answers = host_session_stdio(log, ("search_link",), read_links=True)
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers, links=False), encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H02", "--answer", str(answer), "--fixture-log", str(log))
    assert done.returncode == 0, done.stderr
    h02 = row(load_results(run_dir), "H02")
    assert h02["status"] == "UNOBTAINABLE" and "the body was not seen in the answer" in h02["reason"]
    assert (h02["observed"]["link_read"], h02["observed"]["link_body_reached"]) == (True, False)
    assert "the host read the link" in h02["reason"]


def test_a_body_shown_without_its_tail_is_reached_cut(run_dir, tmp_path):
    log = tmp_path / "log"
    answers = host_session_stdio(log, ("search_text", "search_structured", "search_embedded"))
    tails = json.loads((log / "markers.json").read_text(encoding="utf-8"))["tails"]
    whole = visible(answers, structured=True)
    # The host cut the text tool's body short: its head token is shown, its tail is not.
    answer = whole.replace(tails["text"], "...")
    assert tails["text"] not in answer
    done = run_cli("observe", str(run_dir), "H01", "--answer", "-", "--fixture-log", str(log), input=answer)
    assert done.returncode == 0, done.stderr
    h01 = row(load_results(run_dir), "H01")
    assert h01["observed"]["forms"] == {"text": "reached, cut", "structured": "reached",
                                        "embedded": "reached"}
    assert h01["status"] == "PASS"
    assert "text reached the model but cut short (its tail token is not in the answer)" in h01["reason"]
    detail = json.loads((run_dir / "rows" / "H01.json").read_text(encoding="utf-8"))
    assert detail["forms"]["text"]["tail_in_answer"] == {}
    assert list(detail["forms"]["embedded"]["tail_in_answer"]) == [tails["embedded"]]


def test_tokens_of_another_fixture_log_are_refused(run_dir, tmp_path):
    ours, other = tmp_path / "ours", tmp_path / "other"
    host_session_stdio(ours, ALL_TOOLS)
    answers = host_session_stdio(other, ALL_TOOLS)
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers), encoding="utf-8")
    before = snapshot(run_dir)
    message = one_line_error(run_cli("observe", str(run_dir), "--answer", str(answer),
                                     "--fixture-log", str(ours)))
    assert "--fixture-log" in message and "does not know" in message
    assert snapshot(run_dir) == before


def test_a_token_made_up_from_a_seen_one_is_refused(run_dir, tmp_path):
    # A model that saw the text token and "completes" the structured one by changing
    # its letter: every token has its own random part, so the guess is no known token.
    log = tmp_path / "log"
    answers = host_session_stdio(log, ("search_text", "search_structured"))
    markers = json.loads((log / "markers.json").read_text(encoding="utf-8"))["markers"]
    guess = "MKS-" + markers["text"].split("-", 1)[1]
    assert guess != markers["structured"]
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers) + f"Structured result: {guess}\n", encoding="utf-8")
    before = snapshot(run_dir)
    message = one_line_error(run_cli("observe", str(run_dir), "--answer", str(answer),
                                     "--fixture-log", str(log)))
    assert guess in message and "does not know" in message
    assert snapshot(run_dir) == before


def test_requests_of_a_start_with_unknown_tokens_are_left_out(run_dir, tmp_path):
    log = tmp_path / "log"
    host_session_stdio(log, ("search_embedded",))
    lost = json.loads((log / "markers.json").read_text(encoding="utf-8"))["run"]
    (log / "markers.json").unlink()  # the first start's tokens are gone
    answers = host_session_stdio(log, ("search_text", "search_structured"))
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers, structured=True), encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H01", "--answer", str(answer), "--fixture-log", str(log))
    assert done.returncode == 0, done.stderr
    h01 = row(load_results(run_dir), "H01")
    assert h01["observed"]["forms"] == {"text": "reached", "structured": "reached",
                                        "embedded": "unobtainable"}
    assert h01["status"] == "UNOBTAINABLE"
    assert "search_embedded was called only by fixture starts whose tokens" in h01["reason"]
    detail = json.loads((run_dir / "rows" / "H01.json").read_text(encoding="utf-8"))
    assert detail["unknown_fixture_runs"] == [lost] and lost not in detail["fixture_runs"]


def test_a_log_of_an_older_fixture_without_twin_token_is_read(run_dir, tmp_path):
    # An older fixture wrote one start, no history, and one token for structuredContent
    # and its text twin.
    log = tmp_path / "log"
    log.mkdir()
    run = "0a1b2c3d"
    markers = {form: f"MK{letter}-{run}" for form, letter in
               (("text", "T"), ("structured", "S"), ("embedded", "E"), ("link", "L"))}
    (log / "markers.json").write_text(json.dumps({"run": run, "markers": markers, "pid": 1,
                                                  "started_at": "2026-01-01T00:00:00.000Z"}),
                                      encoding="utf-8")
    (log / "requests.jsonl").write_text("".join(
        json.dumps({"t": "2026-01-01T00:00:01.000Z", "transport": "stdio", "method": "tools/call",
                    "id": n, "name": name, "uri": None, "run": run}) + "\n"
        for n, name in enumerate(ALL_TOOLS[:3], 1)), encoding="utf-8")
    answer = tmp_path / "answer.txt"
    answer.write_text(f"I see {markers['text']} and {markers['structured']}; "
                      "MKE-ffffffff came later\n", encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H01", "--answer", str(answer), "--fixture-log", str(log))
    # MKE-ffffffff has the shape of this log's tokens but is none of them.
    assert "MKE-ffffffff" in one_line_error(done)
    answer.write_text(f"I see {markers['text']} and {markers['structured']}\n", encoding="utf-8")
    done = run_cli("observe", str(run_dir), "H01", "--answer", str(answer), "--fixture-log", str(log))
    assert done.returncode == 0, done.stderr
    h01 = row(load_results(run_dir), "H01")
    assert h01["observed"]["forms"] == {"text": "reached", "structured": "reached",
                                        "embedded": "not seen in the answer"}
    assert h01["observed"]["twin"] == "unobtainable"
    assert "structuredContent or its text twin, one token for both) reached the model" in h01["reason"]


@pytest.mark.parametrize("rows, options, says", [
    (["H03"], [], "H03 has no marker forms"),
    (["W01"], [], "W01 is an automated row"),
    ([], ["--status", "PASS"], "--status and --evidence are for one row"),
])
def test_marker_mode_refusals(run_dir, tmp_path, rows, options, says):
    log = tmp_path / "log"
    answers = host_session_stdio(log, ("search_text",))
    answer = tmp_path / "answer.txt"
    answer.write_text(visible(answers), encoding="utf-8")
    before = snapshot(run_dir)
    done = run_cli("observe", str(run_dir), *rows, "--answer", str(answer),
                   "--fixture-log", str(log), *options)
    assert says in one_line_error(done)
    assert snapshot(run_dir) == before


def test_a_fixture_log_without_markers_is_refused(run_dir, tmp_path):
    log = tmp_path / "log"
    proc = subprocess.run([sys.executable, str(FIXTURE), "--log", str(log)], input="",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0
    answer = tmp_path / "answer.txt"
    answer.write_text("nothing\n", encoding="utf-8")
    message = one_line_error(run_cli("observe", str(run_dir), "--answer", str(answer),
                                     "--fixture-log", str(log)))
    assert "markers.json: markers: no marker tokens" in message
