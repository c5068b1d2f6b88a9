"""``mcp-accept observe``: filling the host observation rows of a run folder.

Two ways in:

* by hand (:func:`fill_manual`): one row, a status, an evidence file and a note;
* from markers (:func:`fill_from_markers`): the fixture ran in marker mode inside a
  host (``fixture.py --markers --log DIR``), so every form of the tool result carried
  its own token and every request the host made is in ``DIR/requests.jsonl``. The
  model's answer (a pasted reply or a host's debug trace) then tells which tokens
  reached the model, and the log tells which tools the host called and whether it
  read the link.

The mapping from what was seen to a status, per row with marker forms (H01 and H02
in the default sheet):

* per form: ``reached`` (its head and tail tokens are in the answer), ``reached, cut``
  (one of the two only: the head without the tail is a body cut short), ``not seen in
  the answer`` (the host called the form's tool, yet no token of it is in the answer:
  not proof that it did not reach the model, which may simply not have repeated it) or
  ``unobtainable`` (the tool was never called, so the absence of the token says
  nothing; for the link: its token is in the answer but no ``resources/read`` of it was
  logged, so the log does not belong to what the model saw);
* the row: PASS when every form reached the model (whole or cut; the reason says
  which), else UNOBTAINABLE. Markers never make a row FAIL: an absent token does not
  show that the host withheld the body.

The structured tool's result has two carriers, ``structuredContent`` and its text twin
(a text item holding the same document), and in marker mode each has its own token. The
structured form is ``reached`` only when structuredContent's token is in the answer: a
host that hands its model the twin alone has not shown structuredContent, so the
form is ``not seen in the answer`` and the reason says that only the twin was. The twin's own
result is kept beside the forms (``observed.twin``, and ``forms.structured.twin`` in the
row's evidence). The tokens of every start of the fixture are read from
``markers.json`` (its ``history``), never rebuilt from their shape.

Both ways check ``results.json`` first (a bad hand edit stops everything, with file,
line and field), refuse credential-like values, copy evidence kept outside the run
folder into ``RUN_DIR/evidence/``, and write ``results.json`` atomically before
re-rendering ``sheet.md``. Nothing is written when anything is wrong.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mcp_accept.checks.base import FAIL, PASS, PENDING, UNOBTAINABLE
from mcp_accept.errors import InputError
from mcp_accept.evidence.files import atomic_copy, atomic_write_json, atomic_write_text, open_read, utc_now

MANUAL_STATUSES = (PASS, FAIL, UNOBTAINABLE)
# A token absent from the answer is not proof that the body did not reach the model (the
# model may simply not have repeated it), so absence is recorded as "not seen", never as
# "did not reach".
REACHED, CUT, NOT_SEEN, UNKNOWN = "reached", "reached, cut", "not seen in the answer", "unobtainable"
MARKER_CAPTURE = "observable answer with marker"
TRACE_CAPTURE = "debug trace"
# host test: every request the host sent its model, as the stand-in received it (model.jsonl)
REQUEST_LOG_CAPTURE = "stand-in model request log"
DEFAULT_LOG_NAME = "fixture-log"  # RUN_DIR/fixture-log is used when --fixture-log is not given
# The structured tool's text twin carries a token of its own (form name "twin" in
# markers.json). It is no form of the sheet: the structured form is judged on
# structuredContent's token alone, and the twin's result is recorded beside it.
TWIN = "twin"
FORM_WORDS = {"text": "text", "structured": "structuredContent",
              "embedded": "the embedded resource", "link": "the linked body"}


@dataclass
class Filled:
    """What one call of observe did, for the command line to print."""

    folder: Path
    rows: list[dict]
    changed: list[str] = field(default_factory=list)  # conditions whose value changed


# --------------------------------------------------------------------------- the run folder


def open_run(folder: Path) -> dict:
    """The run's results, validated before anything else happens."""
    from mcp_accept.inputs.results import validate_results

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("no such run folder", file=str(folder), field="RUN_DIR")
    path = folder / "results.json"
    if not os.path.lexists(path):  # a link or FIFO there is named by validate_results
        raise InputError("no results.json in this folder: make the run first with "
                         "`mcp-accept run --out RUN_DIR`", file=str(folder), field="RUN_DIR")
    return validate_results(path)


HOST_TEST = "host test"  # observed.mode of a row `host test` filled from what the model was handed


def observable(row: dict) -> bool:
    """A row a person may fill or add to: still PENDING, filled by an earlier observe, or an
    observation of a host that `host test` made (it is evidence about a host, like a person's,
    and a person may have seen more than the stand-in model could)."""
    return (row["status"] == PENDING or row.get("filled_by") == "observe"
            or (row.get("observed") or {}).get("mode") == HOST_TEST)


def fillable_row(results: dict, row_id: str, folder: Path) -> dict:
    """The row ``row_id`` if it is filled by hand (still PENDING, filled by an earlier observe
    or by `host test`); automated rows and unknown ids are refused."""
    for row in results["rows"]:
        if row["id"] != row_id:
            continue
        if observable(row):
            return row
        raise InputError(f"{row_id} is an automated row ({row['status']} by the runner); only "
                         "manual rows (" + ", ".join(manual_ids(results)) + ") can be observed",
                         file=str(Path(folder) / "results.json"), field="ROW")
    known = ", ".join(manual_ids(results)) or "none"
    raise InputError(f"no row {row_id} in this run (manual rows: {known})",
                     file=str(Path(folder) / "results.json"), field="ROW")


def manual_ids(results: dict) -> list[str]:
    return [r["id"] for r in results["rows"] if observable(r)]


def given_conditions(host: str | None, host_version: str | None, sets: list[str]) -> dict:
    """Conditions from --set, --host and --host-version (these two win), all checked:
    a credential-like value is refused here, before anything is written."""
    from mcp_accept.evidence.credentials import check_condition_value
    from mcp_accept.inputs.conditions import CONDITION_KEYS, parse_set
    from mcp_accept.inputs.sheet import load_sheet

    for item in sets:
        key = item.partition("=")[0].strip()
        if "=" in item and key and key not in CONDITION_KEYS:
            raise InputError("observe takes condition keys only (" + ", ".join(CONDITION_KEYS)
                             + ")", file="--set", field=key)
    for option, key, value in (("--host", "host_product", host),
                               ("--host-version", "host_version", host_version)):
        if value is not None:
            check_condition_value(key, value, source=option)
            if not value.strip():
                raise InputError("must not be empty", field=option)
    items = list(sets)
    if host is not None:
        items.append(f"host_product={host}")
    if host_version is not None:
        items.append(f"host_version={host_version}")
    conditions, _options = parse_set(items, load_sheet())
    return conditions


def check_note(note: str | None) -> None:
    from mcp_accept.evidence.credentials import check_condition_value

    if note is not None:
        check_condition_value("--note", note)  # an option, not a file: named once


def apply_conditions(results: dict, conditions: dict) -> list[str]:
    changed = []
    current = results["conditions"]
    for key, value in conditions.items():
        if current.get(key) is not None and current.get(key) != value:
            changed.append(f"{key}: {current[key]!r} -> {value!r}")
        current[key] = value
    return changed


def save(folder: Path, results: dict) -> None:
    from mcp_accept.output.results_writer import write_results

    write_results(Path(folder), results)


def keep_wire(row: dict, observed: dict) -> dict:
    """The person's part joins what a recording proxy established on the wire (``wire``,
    ``seqs``) and what `host test` found (``host_test``): filling a row by hand never drops
    either."""
    before = row.get("observed") or {}
    for key in ("wire", "seqs"):
        if key in before and key not in observed:
            observed[key] = before[key]
    if before.get("mode") == HOST_TEST:  # what the stand-in model was handed stays beside the person's word
        observed["host_test"] = {**before, "status": row.get("status"), "reason": row.get("reason"),
                                 "evidence": row.get("evidence")}
    elif "host_test" in before and "host_test" not in observed:
        observed["host_test"] = before["host_test"]
    return observed


SHEET_TEXTS = ("establishes", "procedure")


def replace_row(results: dict, entry: dict) -> None:
    """Put the filled row in place of the old one; the sheet's texts on the row stay."""
    def merged(old: dict) -> dict:
        return {**{k: old[k] for k in SHEET_TEXTS if k in old}, **entry}

    results["rows"] = [merged(r) if r["id"] == entry["id"] else r for r in results["rows"]]


# --------------------------------------------------------------------------- evidence files


def _inside(path: Path, folder: Path) -> str | None:
    """``path`` relative to ``folder`` (POSIX form) when it lies inside it, else None."""
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return None


EVIDENCE_MAX_BYTES = 256 * 1024 * 1024  # an evidence file larger than this is refused
SCAN_CHUNK = 1 << 20
LONG_LINE = 64 * 1024  # a line longer than this is scanned in overlapping windows


# A piece of text every match of a credential pattern of looks_like_credential holds, once
# case-folded (the high-entropy guess aside: evidence may hold long random ids). A line with
# none of them cannot be refused, so only lines holding one are looked at.
CREDENTIAL_HINTS = (
    "-----begin", "://", "bearer", "basic", "eyj", "sk-", "_live_", "_test_", "ghp_", "gho_",
    "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "akia", "asia", "aiza", "glpat-", "npm_",
    "hf_", "passw", "passphrase", "pwd", "api", "access", "secret", "token", "private",
    "authorization", "cookie", "session")


def _lines_with_hints(lines: list[str]) -> list[int]:
    """Indices of the lines holding one of CREDENTIAL_HINTS, found with plain substring
    search over the block (a regex per line costs 0.1 ms: 17 minutes for 100 MiB)."""
    folded = "\n".join(lines).casefold()  # casefold keeps each line on its own line
    ends, hits = None, set()
    for hint in CREDENTIAL_HINTS:
        pos = folded.find(hint)
        while pos >= 0:
            if ends is None:
                ends = [m.start() for m in re.finditer("\n", folded)]
            index = bisect.bisect_left(ends, pos)
            hits.add(index)
            if index >= len(ends):
                break
            pos = folded.find(hint, ends[index] + 1)
    return sorted(hits)


def scan_for_credentials(path: Path, shown: str) -> None:
    """Refuse a text evidence file that holds something shaped like a credential.

    The file is streamed (a megabyte at a time, lines scanned as they complete, an
    endless line in overlapping windows), never read whole; one larger than
    EVIDENCE_MAX_BYTES is refused."""
    import codecs

    from mcp_accept.evidence.credentials import looks_like_credential

    def check(line: str, number: int) -> None:
        kind = looks_like_credential(line)
        if kind and kind != "high-entropy token":
            raise InputError(f"holds what looks like a {kind}; remove it first (credentials "
                             "are never recorded)", file=shown, line=number)

    def check_block(lines: list[str], number: int) -> None:
        for offset in _lines_with_hints(lines) if lines else ():
            check(lines[offset], number + offset)

    try:
        size = path.stat().st_size
        if size > EVIDENCE_MAX_BYTES:
            raise InputError(f"is {size} bytes; evidence files are kept up to {EVIDENCE_MAX_BYTES} bytes",
                             file=shown)
        decoder = codecs.getincrementaldecoder("utf-8")()
        number, pending = 1, ""
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(SCAN_CHUNK), b""):
                try:
                    pending += decoder.decode(chunk)
                except UnicodeDecodeError:
                    return  # not text (a screenshot, an archive): kept as it is
                *lines, pending = re.split(r"\r\n|\r|\n", pending) if "\r" in pending else pending.split("\n")
                check_block(lines, number)
                number += len(lines)
                if len(pending) > LONG_LINE:
                    check(pending, number)
                    pending = pending[-4096:]  # a credential across the window's edge is seen next time
            check(pending + decoder.decode(b"", final=True), number)
    except UnicodeDecodeError:
        return
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", file=shown) from None


def scan_text(text: str, shown: str) -> None:
    """Refuse text that holds something shaped like a credential (bearer token, JWT,
    API key, password assignment, private key...), naming the line, never the value.
    Long random identifiers alone are not refused: traces are full of them."""
    from mcp_accept.evidence.credentials import looks_like_credential

    for number, line in enumerate(text.splitlines(), 1):
        kind = looks_like_credential(line)
        if kind and kind != "high-entropy token":
            raise InputError(f"holds what looks like a {kind}; remove it first (credentials "
                             "are never recorded)", file=shown, line=number)


def check_evidence_file(path: Path, option: str) -> Path:
    path = Path(path)
    if not path.exists():
        raise InputError("no such file", file=str(path), field=option)
    if not path.is_file():
        raise InputError("is not a file", file=str(path), field=option)
    scan_for_credentials(path, str(path))
    return path


def _same_bytes(a: Path, b: Path) -> bool:
    """Whether two files hold the same bytes, compared a chunk at a time."""
    try:
        if a.stat().st_size != b.stat().st_size:
            return False
        with open(a, "rb") as one, open_read(b) as two:  # b is in the run folder: no FIFO, no link
            while True:
                left, right = one.read(SCAN_CHUNK), two.read(SCAN_CHUNK)
                if left != right:
                    return False
                if not left:
                    return True
    except (OSError, InputError):
        return False


def keep_file(folder: Path, source: Path, name: str) -> str:
    """Make ``source`` part of the run's evidence; return its path relative to the run
    folder. A file already inside the run folder is used where it is; any other is
    copied (atomically) to ``evidence/NAME`` (``NAME-2``... when that name is taken
    by a different file)."""
    inside = _inside(source, folder)
    if inside is not None:
        return inside
    target_dir = Path(folder) / "evidence"
    target_dir.mkdir(parents=True, exist_ok=True)
    stem, suffix = os.path.splitext(name)
    target, n = target_dir / name, 1
    while target.exists() and not _same_bytes(source, target):
        n += 1
        target = target_dir / f"{stem}-{n}{suffix}"
    if not target.exists():
        atomic_copy(source, target)
    return target.relative_to(folder).as_posix()


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "evidence"


# --------------------------------------------------------------------------- by hand


def fill_manual(folder: Path, row_id: str, status: str, evidence: Path, *, note: str | None = None,
                host: str | None = None, host_version: str | None = None,
                sets: list[str] = ()) -> Filled:
    folder = Path(folder)
    results = open_run(folder)
    status = (status or "").strip().upper()
    if status not in MANUAL_STATUSES:
        raise InputError(f"must be one of {', '.join(MANUAL_STATUSES)} (found {status or 'nothing'})",
                         field="--status")
    row = fillable_row(results, row_id, folder)
    if evidence is None:
        raise InputError("a filled row needs its evidence: give --evidence FILE", field="--evidence")
    source = check_evidence_file(evidence, "--evidence")
    check_note(note)
    conditions = given_conditions(host, host_version, list(sets))

    kept = keep_file(folder, source, f"{row_id}-{_safe_name(source.name)}")
    entry = {
        "id": row["id"], "kind": row["kind"], "title": row["title"], "status": status,
        "reason": note or f"{status} recorded by hand",
        "evidence": kept, "filled_by": "observe",
        "observed": keep_wire(row, {"mode": "manual", "at": utc_now(), "source": source.name}),
    }
    if note:
        entry["note"] = note
    replace_row(results, entry)
    changed = apply_conditions(results, conditions)
    save(folder, results)
    return Filled(folder, [entry], changed)


# --------------------------------------------------------------------------- marker mode


@dataclass
class FixtureLog:
    """What the fixture wrote under ``--log DIR``: the tokens of every start of the
    fixture (``markers.json`` and its ``history``) and every request (``requests.jsonl``)."""

    folder: Path
    run: str  # the start that wrote markers.json last
    starts: list[dict]  # every start that had marker tokens, oldest first: run, markers, pid, started_at
    requests: list[dict]  # the request log, in order
    skipped_lines: int = 0

    def runs(self) -> list[str]:
        """Every start of the fixture whose tokens are known (a host may start it more
        than once; each start has tokens of its own)."""
        return [start["run"] for start in self.starts]

    def unknown_runs(self) -> list[str]:
        """Starts seen in the request log whose tokens markers.json does not hold; their
        requests are left out, since nothing can be said of their tokens."""
        known, out = set(self.runs()), []
        for entry in self.requests:
            run = entry.get("run")
            if isinstance(run, str) and run not in known and run not in out:
                out.append(run)
        return out

    def tokens(self, form: str | None = None, key: str = "markers"):
        """run -> form -> token; with ``form``: run -> that form's token (runs without one left out).
        ``key``: ``markers`` (the head tokens) or ``tails`` (the tail tokens)."""
        table = {start["run"]: dict(start.get(key) or {}) for start in self.starts}
        if form is None:
            return table
        return {run: tokens[form] for run, tokens in table.items() if tokens.get(form)}

    def has_form(self, form: str) -> bool:
        return bool(self.tokens(form))

    def _requests(self, method: str, known: bool = True) -> list[dict]:
        runs = set(self.runs())
        return [e for e in self.requests if e.get("method") == method
                and (e.get("run") in runs) == known]

    def calls(self, tool: str, known: bool = True) -> list[dict]:
        return [e for e in self._requests("tools/call", known) if e.get("name") == tool]

    def reads(self, uri: str) -> list[dict]:
        return [e for e in self._requests("resources/read") if isinstance(e.get("uri"), str)
                and (e["uri"] == uri or e["uri"].startswith(uri + "?"))]

    def transports(self) -> list[str]:
        return sorted({e["transport"] for e in self.requests if isinstance(e.get("transport"), str)})


def _start_of(value, where: str, shown: str) -> dict | None:
    """One start of the fixture as recorded in markers.json; None when it ran without
    markers. A malformed entry is refused, naming the field."""
    if not isinstance(value, dict) or not isinstance(value.get("run"), str) or not value["run"]:
        raise InputError("missing the fixture's run id", file=shown, field=f"{where}run")
    markers = value.get("markers")
    if markers is None:
        return None
    if not isinstance(markers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in markers.items()):
        raise InputError("must map each form to a non-empty token", file=shown,
                         field=f"{where}markers")
    tails = value.get("tails")
    if tails is not None and (not isinstance(tails, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in tails.items())):
        raise InputError("must map each form to a non-empty token", file=shown,
                         field=f"{where}tails")
    return {"run": value["run"], "markers": dict(markers), "tails": dict(tails or {}),
            "pid": value.get("pid"), "started_at": value.get("started_at")}


def read_fixture_log(folder: Path) -> FixtureLog:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("no such folder (give the folder passed to fixture.py --log)",
                         file=str(folder), field="--fixture-log")
    markers_path = folder / "markers.json"
    if not markers_path.is_file():
        raise InputError("no markers.json here: start the fixture with --markers --log "
                         "THIS_FOLDER", file=str(folder), field="--fixture-log")
    shown = str(markers_path)
    try:
        info = json.loads(markers_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot be read as JSON: {exc}", file=shown) from None
    if not isinstance(info, dict):
        raise InputError("must be a JSON object", file=shown)
    current = _start_of(info, "", shown)
    history = info.get("history")
    if history is None:  # written by a fixture that kept no history: one start
        history = [info]
    if not isinstance(history, list):
        raise InputError("must be a list of the fixture's starts", file=shown, field="history")
    starts, seen = [], set()
    for n, entry in enumerate(history):
        start = _start_of(entry, f"history[{n}].", shown)
        if start is not None and start["run"] not in seen:
            seen.add(start["run"])
            starts.append(start)
    if current is not None and current["run"] not in seen:
        starts.append(current)
    if not starts:
        raise InputError("no marker tokens: the fixture ran without --markers",
                         file=shown, field="markers")
    requests, skipped = [], 0
    log_path = folder / "requests.jsonl"
    if log_path.is_file():
        with open(log_path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                except ValueError:
                    skipped += 1  # a line cut short when the fixture was stopped
                    continue
                if isinstance(entry, dict):
                    requests.append(entry)
    return FixtureLog(folder, info["run"], starts, requests, skipped)


def read_answer(answer: Path | str, stdin_text: str | None = None,
                option: str = "--answer") -> tuple[str, Path | None]:
    """The answer's text, and its file (None when it came on standard input); ``option``
    names the option it came from in errors (``--answer`` or ``--transcript``)."""
    what = "transcript" if option == "--transcript" else "answer"
    if str(answer) == "-":
        text = stdin_text if stdin_text is not None else sys.stdin.read()
        source = None
        scan_text(text, f"{option} -")
    else:
        from mcp_accept.hosts.streamed import StreamedText

        source = check_evidence_file(Path(answer), option)
        text = StreamedText(lambda: open(source, "rb"), str(source))  # searched in chunks, never held
    if text.blank() if not isinstance(text, str) else not text.strip():
        raise InputError(f"the {what} is empty", file=str(answer), field=option)
    return text, source


def token_lines(text, token: str) -> list[int]:
    """1-based numbers of the lines of ``text`` (a str or a StreamedText) holding ``token``
    (case ignored)."""
    if not isinstance(text, str):
        return text.lines(token)
    wanted = token.lower()
    return [n for n, line in enumerate(text.splitlines(), 1) if wanted in line.lower()]


def foreign_tokens(text: str, log: FixtureLog) -> list[str]:
    """Tokens in the answer shaped like the log's tokens (same prefix up to the last "-",
    same length) that no start of the fixture in the log gave out: a token of another
    log, or one the model made up."""
    known = {t.lower() for key in ("markers", "tails") for tokens in log.tokens(key=key).values()
             for t in tokens.values()}
    shapes = set()
    for token in known:
        prefix, dash, tail = token.rpartition("-")
        if dash and prefix and tail:
            shapes.add((prefix + dash, len(tail)))
    if not isinstance(text, str):  # one pass finds the known tokens' lines and the strangers
        return [t for t in text.search(known, sorted(shapes)) if t.lower() not in known]
    from mcp_accept.hosts.streamed import shape_pattern

    found = []
    for pattern in (shape_pattern(prefix, length) for prefix, length in sorted(shapes)):
        for match in pattern.finditer(text):
            if match.group(0).lower() not in known and match.group(0) not in found:
                found.append(match.group(0))
    return found


def _seen(form: str, text: str, log: FixtureLog, key: str = "markers") -> tuple[dict, dict]:
    """The form's token of every start, and those found in the answer (with their lines);
    ``key="tails"``: its tail tokens."""
    tokens = log.tokens(form, key=key)
    hits = {}
    for run, token in tokens.items():
        lines = token_lines(text, token)
        if lines:
            hits[token] = {"run": run, "lines": lines}
    return tokens, hits


def _never_called(tool: str | None, log: FixtureLog) -> str:
    name = tool or "its tool"
    if tool and log.calls(tool, known=False):
        return (f"{name} was called only by fixture starts whose tokens markers.json does not "
                "hold, so the absence of its token says nothing")
    return f"{name} was never called, so the absence of its token says nothing"


def judge_form(form: str, text: str, log: FixtureLog, tool: str | None, link_uri: str) -> dict:
    """What was seen of one form: called? in the answer? read (link)? and the verdict.

    The structured form is judged on structuredContent's own token; its text twin's
    token (when the fixture gave it one) is judged beside it, under ``twin``, so the
    verdict can say which carrier reached the model."""
    tokens, hits = _seen(form, text, log)
    tails, tail_hits = _seen(form, text, log, key="tails")
    calls = log.calls(tool) if tool else []
    out: dict = {"tool": tool, "tokens": tokens, "called": len(calls), "in_answer": hits,
                 "tail_tokens": tails, "tail_in_answer": tail_hits,
                 "calls": [{k: e.get(k) for k in ("t", "transport", "run")} for e in calls]}
    reached = bool(hits) or bool(tail_hits)
    # Head and tail both seen: the whole body reached the model. One of them only: the
    # body reached it cut short (a fixture without tail tokens: the head alone decides).
    whole = bool(hits) and (bool(tail_hits) or not tails)
    if form == "link":
        reads = log.reads(link_uri)
        out["uri"] = link_uri
        out["read"] = len(reads)
        out["reads"] = [{k: e.get(k) for k in ("t", "transport", "uri", "run")} for e in reads]
        if reached and not reads:
            out["result"] = UNKNOWN
            out["why"] = ("its token is in the answer but the log holds no resources/read of "
                          f"{link_uri}: the log does not match what the model saw")
            return out
    if reached:
        out["result"] = REACHED if whole else CUT
        if not whole:
            out["cut"] = "its tail token is not in the answer" if hits else \
                "its head token is not in the answer, its tail token is"
    elif calls:
        out["result"] = NOT_SEEN
    else:
        out["result"] = UNKNOWN
        out["why"] = _never_called(tool, log)
    if form == "structured":
        out["twin"] = judge_twin(text, log, tool)
    return out


def judge_twin(text: str, log: FixtureLog, tool: str | None) -> dict:
    """The structured tool's text twin: did its own token reach the model?"""
    tokens, hits = _seen(TWIN, text, log)
    if not tokens:
        return {"tokens": {}, "in_answer": {}, "result": UNKNOWN,
                "why": "the fixture gave the text twin no token of its own (a fixture older "
                       "than the twin token): structuredContent's token stands for both"}
    called = bool(log.calls(tool)) if tool else False
    _tails, tail_hits = _seen(TWIN, text, log, key="tails")
    out = {"tokens": tokens, "in_answer": hits, "tail_in_answer": tail_hits,
           "result": REACHED if hits or tail_hits else NOT_SEEN if called else UNKNOWN}
    if out["result"] == UNKNOWN:
        out["why"] = _never_called(tool, log)
    return out


def _cut(seen: dict) -> str:
    return f" but cut short ({seen['cut']})" if seen["result"] == CUT else ""


def _structured_words(seen: dict) -> str:
    """The structured form's part of the reason: which carrier reached the model."""
    twin = seen.get("twin") or {}
    own_twin_token = bool(twin.get("tokens"))
    result, twin_result = seen["result"], twin.get("result")
    tool = seen["tool"]
    reached = result in (REACHED, CUT)
    if not own_twin_token:
        word = "the structured result (structuredContent or its text twin, one token for both)"
        if reached:
            return f"{word} reached the model{_cut(seen)}"
        if result == NOT_SEEN:
            return f"{word}: not seen in the answer ({tool} was called; its token is not in the answer)"
        return f"{word}: cannot tell ({seen['why']})"
    if reached:
        if twin_result == REACHED:
            return f"structuredContent reached the model{_cut(seen)} (its text twin too)"
        if twin_result == NOT_SEEN:
            return f"structuredContent reached the model{_cut(seen)} (its text twin was not seen in the answer)"
        return f"structuredContent reached the model{_cut(seen)}"
    if result == NOT_SEEN:
        if twin_result == REACHED:
            return ("structuredContent not seen in the answer, only its text twin was "
                    f"({tool} was called; the structuredContent token is not in the answer, "
                    "the twin's is)")
        return ("neither structuredContent nor its text twin was seen in the answer "
                f"({tool} was called; neither token is in the answer)")
    return f"structuredContent: cannot tell ({seen['why']})"


def row_verdict(forms: dict[str, dict]) -> tuple[str, str]:
    """The row's status and reason from its forms (see the module's docstring)."""
    parts = []
    for form, seen in forms.items():
        word = FORM_WORDS.get(form, form)
        if form == "structured":
            parts.append(_structured_words(seen))
        elif form == "link":
            read = f"the host read the link ({seen['read']} resources/read)" if seen["read"] \
                else "the host never read the link"
            if seen["result"] in (REACHED, CUT):
                parts.append(f"{read}; the body reached the model{_cut(seen)}")
            elif seen["result"] == NOT_SEEN:
                parts.append(f"{read}; the body was not seen in the answer")
            else:
                parts.append(f"{read}; cannot tell: {seen['why']}")
        elif seen["result"] in (REACHED, CUT):
            parts.append(f"{word} reached the model{_cut(seen)}")
        elif seen["result"] == NOT_SEEN:
            parts.append(f"{word} not seen in the answer ({seen['tool']} was called; its token "
                         "is not in the answer)")
        else:
            parts.append(f"{word}: cannot tell ({seen['why']})")
    results = [seen["result"] for seen in forms.values()]
    # An absent token proves nothing: the row never FAILs on markers, it stays
    # UNOBTAINABLE until every form is seen to reach the model.
    status = PASS if all(r in (REACHED, CUT) for r in results) else UNOBTAINABLE
    return status, "; ".join(parts)


def fill_from_markers(folder: Path, answer: Path | str, *, fixture_log: Path | None = None,
                      row_id: str | None = None, note: str | None = None, host: str | None = None,
                      host_version: str | None = None, sets: list[str] = (),
                      sheet_path: Path | None = None, stdin_text: str | None = None,
                      transcript_format: str | None = None) -> Filled:
    """Fill the marker rows from ``answer``: the model's answer, or with
    ``transcript_format`` a host's debug transcript (see :mod:`mcp_accept.hosts.transcripts`),
    whose tool results are what the host handed its model."""
    from mcp_accept.fixture import LINK_URI
    from mcp_accept.inputs.profile import load_profile
    from mcp_accept.inputs.sheet import load_sheet

    folder = Path(folder)
    results = open_run(folder)
    sheet = load_sheet(sheet_path)
    if results["sheet"]["name"] != sheet.name:
        raise InputError(f"the run used sheet {results['sheet']['name']!r}, not {sheet.name!r}: "
                         "give that sheet with --sheet", file=str(folder / "results.json"),
                         field="sheet.name")
    marker_rows = [row for row in sheet.rows if not row.automated and row.forms]
    if row_id is not None:
        if row_id not in [r.id for r in marker_rows]:
            fillable_row(results, row_id, folder)  # an unknown or automated row says so first
            raise InputError(f"{row_id} has no marker forms; fill it with ROW --status --evidence "
                             "(marker rows: " + ", ".join(r.id for r in marker_rows) + ")",
                             field="ROW")
        marker_rows = [r for r in marker_rows if r.id == row_id]
    targets = [(row, fillable_row(results, row.id, folder)) for row in marker_rows]
    check_note(note)
    conditions = given_conditions(host, host_version, list(sets))
    log_folder = Path(fixture_log) if fixture_log is not None else folder / DEFAULT_LOG_NAME
    if fixture_log is None and not log_folder.is_dir():
        raise InputError("give the fixture's log folder with --fixture-log DIR (the folder "
                         "passed to fixture.py --log)", field="--fixture-log")
    log = read_fixture_log(log_folder)
    text, answer_file = read_answer(answer, stdin_text,
                                     "--transcript" if transcript_format is not None else "--answer")
    transcript = None
    if transcript_format is not None:
        from mcp_accept.hosts.transcripts import read_transcript

        transcript = read_transcript(text, transcript_format, str(answer))
        text = transcript.text
    strangers = foreign_tokens(text, log)
    if strangers:
        raise InputError(f"the answer holds marker token {strangers[0]} of a fixture process this "
                         "log does not know: is it the log of the same host session, or did the "
                         "model make the token up?", file=str(log_folder), field="--fixture-log")
    profile = load_profile()
    tools = {form: ref.name for form, ref in profile.tools.items()}

    # Everything is checked: from here on, files are written.
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    kept_answer = _keep_answer(folder, answer_file, text, stamp)
    kept_log = [keep_file(folder, log_folder / name, f"observe-{stamp}-{name}")
                for name in ("markers.json", "requests.jsonl") if (log_folder / name).is_file()]
    filled = []
    for row, current in targets:
        forms = {form: judge_form(form, text, log, tools.get(form), LINK_URI) for form in row.forms}
        status, reason = row_verdict(forms)
        evidence_path = f"rows/{row.id}.json"
        record = {
            "id": row.id, "kind": current["kind"], "title": current["title"], "status": status,
            "reason": reason, "mode": "markers", "at": utc_now(), "answer": kept_answer,
            "fixture_log": kept_log, "fixture_runs": log.runs(), "forms": forms,
            "host_transports": log.transports(), "skipped_log_lines": log.skipped_lines,
            "unknown_fixture_runs": log.unknown_runs(),
        }
        if transcript is not None:
            record["transcript"] = {"format": transcript_format, "tool_results": transcript.tool_results,
                                    "mcp_servers": transcript.mcp_servers}
        atomic_write_json(folder / evidence_path, record)
        observed = {"mode": "transcript" if transcript is not None else "markers", "at": record["at"],
                    "forms": {form: seen["result"] for form, seen in forms.items()},
                    "answer": kept_answer, "fixture_log": kept_log,
                    "fixture_runs": log.runs(), "host_transports": log.transports()}
        if "structured" in forms:
            observed["twin"] = forms["structured"]["twin"]["result"]
        if "link" in forms:
            observed["link_read"] = forms["link"]["read"] > 0
            observed["link_body_reached"] = forms["link"]["result"] in (REACHED, CUT)
        entry = {"id": row.id, "kind": current["kind"], "title": current["title"],
                 "status": status, "reason": reason, "evidence": evidence_path,
                 "filled_by": "observe", "observed": keep_wire(current, observed)}
        if note:
            entry["note"] = note
        replace_row(results, entry)
        filled.append(entry)
    if transcript is not None:  # the trace shows what the model was handed
        conditions.setdefault("model_visible_capture_method", TRACE_CAPTURE)
    elif results["conditions"].get("model_visible_capture_method") is None:
        conditions.setdefault("model_visible_capture_method", MARKER_CAPTURE)
    changed = apply_conditions(results, conditions)
    save(folder, results)
    return Filled(folder, filled, changed)


def _keep_answer(folder: Path, answer_file: Path | None, text: str, stamp: str) -> str:
    if answer_file is not None:
        return keep_file(folder, answer_file, f"observe-{stamp}-answer{answer_file.suffix or '.txt'}")
    name = Path("evidence") / f"observe-{stamp}-answer.txt"
    target, n = Path(folder) / name, 1
    while target.exists():
        n += 1
        target = Path(folder) / "evidence" / f"observe-{stamp}-answer-{n}.txt"
    atomic_write_text(target, text)
    return target.relative_to(folder).as_posix()
