"""What each condition of a verify asserts, judged from the runs' folders: the layers of its
rows, the rule kind its failing checks enforce, and what the layers do not show (what was
sent on the wire, the exit status, what the SDK did)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from mcp_accept.checks.base import APP, FAIL, MUST, PASS, PROFILE, SHOULD, UNOBTAINABLE, breaks_threshold
from mcp_accept.errors import ExitStatus
from mcp_accept.output.console import counted
from mcp_accept.protocol import (COMPLETE, INPUT_REQUIRED, MODERN, OLDEST, VERSIONS,
                                 unknown_resource_codes_accepted)
from mcp_accept.verify.plan import (ALONE, BASELINE, COMBOS, ERA_MODES, FALSY, MAX_ROUNDS, NO_LIVE_SDK,
                                    break_modes)
from mcp_accept.verify.runs import HTTP, STDIO, RunView

# Rows whose sdk verdict tells what the SDK did with one replayed request.
SDK_ROW_STEPS = {"T01": "call:text", "S01": "call:structured", "E01": "call:embedded",
                 "L01": "call:link", "L02": "read:link", "L03": "read:unknown"}
# Modes whose runs leave an answer to replay for every call (crash and hang do not).
# initialize and speaks a legacy version, while the run (and its replay) stayed in 2026-07-28.
NOT_COMPARABLE_LIVE = {
    ("no-discover", MODERN): "the SDK's client falls back to initialize (a legacy version) when server/discover "
                             f"fails; the run stayed in {MODERN}",
    ("mrtr-endless", MODERN): "the recording stops at --max-rounds, so the replay has no final answer "
                              "(UNOBTAINABLE); the SDK's client goes on to a round limit of its own",
}
SDK_QUESTIONS = {
    "total-string": 'Does the SDK reject total: "2"?',
    "total-999": "Does the SDK reject total: 999 with two hits?",
    "twin-differs": "Does the SDK reject a text twin that differs from structuredContent?",
    "structured-missing": "Does the SDK reject a missing structuredContent where an outputSchema is declared?",
}


@dataclass
class Condition:
    id: str
    title: str
    era: str | None
    sent: str
    rows: list[str]
    layers: dict[str, str | None]
    expected: str
    observed: str
    status: str  # PASS when the condition holds
    evidence: str | None = None
    transport: str = STDIO


def _expect_layers(view: RunView, rows: list[str], expected: dict[str, str]) -> tuple[dict, bool, str]:
    layers = view.layers(rows)
    ok = all(layers.get(layer) == status for layer, status in expected.items())
    text = ", ".join(f"{layer} {status}" for layer, status in expected.items())
    return layers, ok, text


def _cond(cid: str, title: str, view: RunView, rows: list[str], expected: dict[str, str],
          extra: tuple[bool, str, str] | None = None, evidence_row: str | None = None,
          rules: dict[str, str | None] | None = None) -> Condition:
    """A condition on one run: the listed layers over ``rows`` must say ``expected``, and each
    row of ``rules`` must have that ``failed_rule`` (the rule kind its failing checks enforce).

    ``extra`` is (holds, expected text, observed text) for what the layers do not show.
    """
    layers, ok, want = _expect_layers(view, rows, expected)
    observed = "; ".join(view.reason(r) for r in rows)
    if view.error:
        ok, observed = False, f"{view.error}; {observed}"
    if rules:
        held, rule_want, rule_seen = _rules_hold(view, rules)
        ok = ok and held
        want = "; ".join(t for t in (want, rule_want) if t)
        observed = "; ".join(t for t in (rule_seen, observed) if t)
    if extra is not None:
        ok = ok and extra[0]
        want = "; ".join(t for t in (want, extra[1]) if t)
        observed = "; ".join(t for t in (extra[2], observed) if t)
    return Condition(cid, title, view.era, view.sent, rows, layers, want, observed, PASS if ok else FAIL,
                     view.evidence_path(evidence_row or (rows[-1] if rows else None)), view.transport)


def _reads(view: RunView, step: str | None = None, uri: str | None = None) -> int:
    return sum(1 for e in view.out_messages("resources/read")
               if (step is None or e.get("step") == step)
               and (uri is None or (e["message"].get("params") or {}).get("uri") == uri))


def build_conditions(runs: dict[tuple[str, str, str], RunView], info, store, *, fetched: int,
                     canary_alive: bool) -> list[Condition]:
    out: list[Condition] = []
    for era in VERSIONS:
        def run(mode: str) -> RunView:
            return runs[(mode, era, STDIO)]

        legacy = era != MODERN
        out.append(_passes_right(run(BASELINE)))
        out.append(_same_document(run(BASELINE)))
        out.append(_reading_links(run(BASELINE)))
        # 2026-07-28 server/resources.mdx#error-handling: empty contents MUST NOT be the
        # answer; the earlier versions only ask for -32002 (SHOULD).
        out.append(_cond("unknown-uri-empty", "Empty contents for an unknown URI is caught", run("unknown-uri-empty"),
                         ["L03"], {"wire": FAIL}, rules={"L03": SHOULD if legacy else MUST}))
        out.append(_cond("total-string", 'total as a string ("2") passes wire and fails type',
                         run("total-string"), ["W01", "S01"], {"wire": PASS, "type": FAIL},
                         rules={"S01": MUST}, evidence_row="S01"))
        out.append(_cond("total-999", "total 999 with two hits passes wire and type, fails meaning",
                         run("total-999"), ["W01", "S01", "S03"], {"wire": PASS, "type": PASS, "meaning": FAIL},
                         rules={"S03": PROFILE}))
        out.append(_twin_differs(run("twin-differs")))
        out.append(_cond("content-missing", "A missing content fails wire", run("content-missing"), ["W01"],
                         {"wire": FAIL}, rules={"W01": MUST}))
        out.append(_cond("content-empty", "content: [] passes wire", run("content-empty"), ["W01", "S01"],
                         {"wire": PASS}, evidence_row="W01"))
        for mode, shown in FALSY.items():
            if era == MODERN:
                out.append(_cond(mode, f"structuredContent {shown} passes the {era} wire (and type)", run(mode),
                                 ["W01", "S01"], {"wire": PASS, "type": PASS}, evidence_row="W01"))
            else:
                out.append(_cond(mode, f"structuredContent {shown}, with an outputSchema to match, fails the "
                                 f"{era} wire", run(mode), ["W01"], {"wire": FAIL}, rules={"W01": MUST}))
            out.append(_falsy_alone(run(f"{mode}+{ALONE}"), mode, shown))
        out.append(_cond("structured-missing", "A missing structuredContent where an outputSchema is declared "
                         "fails type (a MUST), not wire (the schema makes it optional)", run("structured-missing"),
                         ["W01", "S01"], {"wire": PASS, "type": FAIL}, rules={"S01": MUST}, evidence_row="S01"))
        out.append(_external_ref(run("external-ref"), fetched, canary_alive))
        out.append(_cond("size-wrong", "A resource_link size that is not the body's length fails meaning",
                         run("size-wrong"), ["L01"], {"meaning": FAIL}, rules={"L01": APP}))
        out.append(_cond("embedded-differs", "An embedded body that differs fails meaning (E01 and X01)",
                         run("embedded-differs"), ["E01", "X01"], {"meaning": FAIL},
                         rules={"E01": PROFILE, "X01": PROFILE}))
        out.append(_crash(run("crash")))
        out.append(_hang(run("hang")))
        out.append(_cond("junk", "Non-JSON lines on stdout fail wire, with evidence", run("junk"), ["W01"],
                         {"wire": FAIL}, rules={"W01": MUST}))
        out += _rule_kind_conditions(run, era, fetched, canary_alive)
        out += _session_conditions(run, era)
        for mode, eras in ERA_MODES.items():
            if era not in eras:
                out.append(_inert(run(mode), run(BASELINE), eras))
        for (mode, e, transport), view in runs.items():
            if e == era and transport == HTTP:
                out += _over_http(view, fetched, canary_alive)
        era_runs = [v for (mode, e, _), v in runs.items() if e == era]
        out.append(_requests_valid(era, era_runs, store))
        out.append(_sdk_advisory(era, era_runs, info.available))
        stdio_runs = {(m, e): v for (m, e, t), v in runs.items() if t == STDIO}
        out += _sdk_conditions(era, [v for v in era_runs if v.transport == STDIO], stdio_runs, info)
    out.append(_every_mode(out))
    return out


def _every_mode(out: list[Condition]) -> Condition:
    """Every break mode of the fixture is sent in some condition (alone or with another)."""
    sent = {c.id for c in out}
    for c in out:
        sent.update(re.findall(r"--break (\S+)", c.sent))
    missing = sorted(set(break_modes()) - sent)
    return Condition("every-mode", "Every break mode has a condition", None, "every break mode", [], {},
                     "a condition for every break mode", "no condition for: " + ", ".join(missing) if missing
                     else f"{len(break_modes())} break modes, each sent in a condition", FAIL if missing else PASS)


# -- rule kinds: which rule a FAIL breaks ------------------------------------------------------

def _rules_hold(view: RunView, rules: dict[str, str | None]) -> tuple[bool, str, str]:
    """Each row's failed_rule (the strongest rule among its FAIL checks) is the one expected."""
    seen = {row: view.failed_rule(row) for row in rules}
    ok = all(seen[row] == rule for row, rule in rules.items())
    return (ok, ", ".join(f"{row} failed_rule {rule}" for row, rule in rules.items()),
            ", ".join(f"{row} failed_rule {seen[row]}" for row in rules))


def _check_is(view: RunView, row: str, name: str, status: str, rule: str | None = None,
              says: str | None = None) -> tuple[bool, str, str]:
    """Row ``row`` holds check ``name`` with ``status`` (and ``rule``, and ``says`` in its detail)."""
    found = view.check_verdicts(row, name)
    ok = any(c.get("status") == status and (rule is None or c.get("rule") == rule)
             and (says is None or says in (c.get("detail") or "")) for c in found)
    want = f"{row} {name} {status}" + (f" [{rule}]" if rule else "") + (f" saying {says!r}" if says else "")
    seen = "; ".join(f"{row} {name} {c.get('status')} [{c.get('rule')}]" for c in found) or f"{row} has no {name}"
    return ok, want, seen


def _all(*parts: tuple[bool, str, str]) -> tuple[bool, str, str]:
    return (all(p[0] for p in parts), "; ".join(p[1] for p in parts if p[1]),
            "; ".join(p[2] for p in parts if p[2]))


def _others_pass(view: RunView, failing: list[str]) -> tuple[bool, str, str]:
    """Every automated row but ``failing`` is as in the baseline (W02 UNOBTAINABLE in legacy)."""
    wrong = [f"{r['id']} {r['status']}" for r in _automated(view)
             if r["id"] not in failing and r["status"] != _baseline_status(view, r["id"])]
    return (not wrong, "every other row as in the baseline",
            "other rows not as in the baseline: " + ", ".join(wrong) if wrong else "every other row as in the baseline")


def _automated(view: RunView) -> list[dict]:
    return [r for r in view.results.get("rows", []) if r.get("filled_by") == "runner"
            and r.get("status") != "PENDING"]


def _baseline_status(view: RunView, row_id: str) -> str:
    return UNOBTAINABLE if row_id == "W02" and view.era != MODERN else PASS


def _would_pass(view: RunView, fail_on: str) -> tuple[bool, str, str]:
    """Whether ``run --fail-on fail_on`` would exit 0 on this run's rows."""
    breaking = [r["id"] for r in view.results.get("rows", [])
                if r.get("status") == FAIL and breaks_threshold(r.get("failed_rule") or APP, fail_on)]
    return (not breaking, f"--fail-on {fail_on} would exit 0",
            f"--fail-on {fail_on} " +
            ("would exit 0" if not breaking else "would exit 1 for " + ", ".join(breaking)))


def _rule_kind_conditions(run: Callable[[str], RunView], era: str, fetched: int,
                          canary_alive: bool) -> list[Condition]:
    legacy = era != MODERN
    out = []
    view = run("preface-item")
    out.append(_cond("preface-item", "A prose text item before the JSON one passes T01 (any text item may carry "
                     "the document)", view, ["T01", "X01"], {"wire": PASS, "meaning": PASS},
                     _all(_others_pass(view, []), _exit(view, 0))))
    view = run("no-output-schema")
    out.append(_cond("no-output-schema", "A tool without outputSchema fails S01 on the sheet's rule only (app)",
                     view, ["S01"], {"type": FAIL}, _all(
                         _check_is(view, "S01", "output_schema_declared", FAIL, APP),
                         (True, "", f"failures_by_rule {view.results.get('failures_by_rule')}"),
                         _would_pass(view, MUST), _would_pass(view, SHOULD), _others_pass(view, ["S01"])),
                     rules={"S01": APP}))
    view = run("is-error")
    out.append(_cond("is-error", "A result with isError: true fails T01 on the profile's rule (app), quoting the tool",
                     view, ["T01"], {"wire": UNOBTAINABLE, "meaning": FAIL}, _all(
                         (("the tool reported an error" in view.reason("T01", 400)),
                          "T01's reason says \"the tool reported an error\"", view.reason("T01", 200)),
                         _would_pass(view, MUST)),
                     rules={"T01": PROFILE}))
    view = run("nan")
    out.append(_cond("nan", "NaN in an answer fails W01: not JSON (RFC 8259 section 6), so not JSON-RPC (must)",
                     view, ["W01"], {"wire": FAIL}, _all(
                         _check_is(view, "W01", "no_protocol_violations", FAIL, MUST, "NaN"),
                         _others_pass(view, ["W01"])), rules={"W01": MUST}))
    view = run("duplicate-key")
    out.append(_cond("duplicate-key", "A key named twice fails W01 on RFC 8259's SHOULD (names should be unique)",
                     view, ["W01"], {"wire": FAIL}, _all(
                         _check_is(view, "W01", "no_protocol_violations", FAIL, SHOULD, "duplicate object key"),
                         _others_pass(view, ["W01"])), rules={"W01": SHOULD}))
    view = run("bad-uri")
    out.append(_cond("bad-uri", "A custom-scheme link URI that is not RFC 3986 fails L01 and W01 (must)", view,
                     ["W01", "L01"], {"wire": FAIL}, _all(
                         _check_is(view, "L01", "link_item", FAIL, MUST, "RFC 3986"),
                         _check_is(view, "W01", "uri_and_blob_formats", FAIL, MUST, "RFC 3986")),
                     rules={"W01": MUST, "L01": MUST}))
    view = run("bad-blob")
    out.append(_cond("bad-blob", "A blob that is not base64 fails E01 and W01 (must: binary data properly encoded)",
                     view, ["W01", "E01"], {"wire": FAIL}, _all(
                         _check_is(view, "E01", "embedded_item", FAIL, MUST, "base64"),
                         _check_is(view, "W01", "uri_and_blob_formats", FAIL, MUST, "base64")),
                     rules={"W01": MUST, "E01": MUST}))
    # basic/index.mdx#schema-dialect (2025-11-25 on): 2020-12 is RECOMMENDED; 2025-06-18 says nothing
    dialect_rule = APP if era == OLDEST else SHOULD
    view = run("dialect-unknown")
    out.append(_cond("dialect-unknown", f"An outputSchema in an unsupported dialect (draft-04) fails S01 "
                     f"({dialect_rule} in {era})", view, ["S01"], {"type": FAIL},
                     _check_is(view, "S01", "structured_valid", FAIL, dialect_rule, "dialect not supported"),
                     rules={"S01": dialect_rule}))
    out.append(_ref_in_enum(run("ref-in-enum"), fetched, canary_alive))
    view = run("unknown-method-result")
    out.append(_cond("unknown-method-result", "An unknown method answered with a result fails W03 (must: "
                     "JSON-RPC's -32601)", view, ["W03"], {"wire": FAIL}, _all(
                         _check_is(view, "W03", "unknown_method_error", FAIL, MUST),
                         _check_is(view, "W03", "invalid_cursor_error", PASS),
                         _check_is(view, "W03", "still_answers", PASS)), rules={"W03": MUST}))
    view = run("bad-cursor-accepted")
    out.append(_cond("bad-cursor-accepted", "An invalid cursor answered with a result fails W03 (should: "
                     "pagination's -32602)", view, ["W03"], {"wire": FAIL}, _all(
                         _check_is(view, "W03", "invalid_cursor_error", FAIL, SHOULD),
                         _check_is(view, "W03", "unknown_method_error", PASS),
                         _others_pass(view, ["W03"])), rules={"W03": SHOULD}))
    out.append(_paged_resources(run("paged-resources")))
    if legacy:
        view = run("legacy-32602")
        out.append(_cond("legacy-32602", f"-32602 for an unknown URI fails L03 in {era} on its SHOULD (-32002), "
                         "never a must", view, ["L03"], {"wire": FAIL}, _all(
                             _check_is(view, "L03", "unknown_uri_error", FAIL, SHOULD),
                             _would_pass(view, MUST)), rules={"L03": SHOULD}))
    else:
        out.append(_no_discover(run("no-discover")))
        out.append(_mrtr(run("mrtr")))
        out.append(_mrtr_endless(run("mrtr-endless")))
    return out


def _exit(view: RunView, status: int) -> tuple[bool, str, str]:
    return view.exit_status == status, f"exit {status}", f"exit {view.exit_status}"


def _falsy_alone(view: RunView, mode: str, shown: str) -> Condition:
    """A falsy structuredContent with an outputSchema that stays an object in the legacy versions:
    there W01 fails for the CallToolResult's structuredContent alone; 2026-07-28 allows any value."""
    cid = f"{mode}-alone"
    if view.era == MODERN:
        return _cond(cid, f"structuredContent {shown} passes the {view.era} wire (any JSON value is allowed)",
                     view, ["W01", "S01"], {"wire": PASS, "type": PASS}, evidence_row="W01")
    failed = view.check_verdicts("W01", "wire_messages_valid")
    detail = " ".join(c.get("detail", "") for c in (view.evidence.get("W01") or {}).get("checks") or []
                      if c.get("check") == "wire_messages_valid")
    problems = re.findall(r"#\d+ (?:sent|received) ", detail)
    answer = [e.get("seq") for e in view.wire if e.get("step") == "call:structured" and e.get("dir") == "in"]
    seqs = [s for c in (view.evidence.get("W01") or {}).get("checks") or []
            if c.get("check") == "wire_messages_valid" for s in c.get("wire_seqs") or []]
    alone = (len(problems) == 1 and "(+" not in detail and "received CallToolResult" in detail
             and "$.structuredContent" in detail and bool(seqs) and set(seqs) <= set(answer))
    others = [c for c in (view.evidence.get("W01") or {}).get("checks") or []
              if c.get("status") == FAIL and c.get("check") != "wire_messages_valid"]
    ok = alone and not others and any(c.get("status") == FAIL for c in failed)
    return _cond(cid, f"structuredContent {shown} alone (the outputSchema an object) fails the {view.era} wire: "
                 "only the CallToolResult's structuredContent", view, ["W01"], {"wire": FAIL},
                 (ok, "W01 wire_messages_valid FAIL naming one message only, the CallToolResult answering "
                  "call:structured, at $.structuredContent; no other W01 check FAILs",
                  f"W01 problems: {len(problems)}; their messages #{seqs} (call:structured answered in #{answer}); "
                  f"other W01 FAIL checks: {[c.get('check') for c in others]}"),
                 rules={"W01": MUST})


def _ref_in_enum(view: RunView, fetched: int, canary_alive: bool) -> Condition:
    """basic/index.mdx#ref-resolution: references are resolved in schema positions; enum holds
    data. The $ref's URL is the listener's, which counts connections over every run."""
    url = next((a for a in view.args if a.startswith("http://")), None)
    listened = (fetched == 0 and canary_alive and url is not None,
                "no connection reached the listener at the $ref's address",
                f"connections to the listener {url} during the runs: {fetched}"
                f"{'' if canary_alive else ' (the listener did not see a probe afterwards: the count proves nothing)'}")
    return _cond("ref-in-enum", "A {\"$ref\": URL} inside enum data is a value, not a reference: S01 passes "
                 "and nothing is fetched", view, ["S01"], {"type": PASS},
                 _all(listened, _others_pass(view, []), _exit(view, 0)))


def _paged_resources(view: RunView) -> Condition:
    from mcp_accept.fixture import LINK_URI

    pages = view.out_messages("resources/list")
    cursors = [(m["message"].get("params") or {}).get("cursor") for m in pages]
    return _cond("paged-resources", "A link listed on page 2 of resources/list counts as listed (L02)", view,
                 ["L02"], {"meaning": PASS}, _all(
                     _check_is(view, "L02", "link_read_once", PASS, says=f"{LINK_URI} once; it is listed"),
                     (len(pages) == 2 and cursors[0] is None and isinstance(cursors[1], str),
                      "two resources/list requests, the second with the cursor handed out",
                      f"resources/list sent {len(pages)} times, cursors {cursors}"),
                     _exit(view, 0)))


def _no_discover(view: RunView) -> Condition:
    # server/discover.mdx#discovery: servers MUST support it.
    return _cond("no-discover", f"A {MODERN} server without server/discover fails W02 (must)", view, ["W02"],
                 {"wire": FAIL}, _all(_check_is(view, "W02", "discover_implemented", FAIL, MUST),
                                      _check_is(view, "W02", "modern_result_fields", PASS),
                                      _others_pass(view, ["W02"])), rules={"W02": MUST})


def _rounds(view: RunView, step: str) -> tuple[list[dict], list[dict]]:
    return view.step_messages(step, "out"), view.step_messages(step, "in")


def _mrtr(view: RunView) -> Condition:
    """basic/patterns/mrtr.mdx, client requirements: retry with a new id and the exact requestState."""
    sent, got = _rounds(view, "call:structured")
    results = [m.get("result") if isinstance(m.get("result"), dict) else {} for m in got]
    kinds = [r.get("resultType") for r in results]
    state = results[0].get("requestState") if results else None
    ok = (len(sent) == 2 and kinds == [INPUT_REQUIRED, COMPLETE] and "inputRequests" not in results[0]
          and sent[0].get("id") != sent[1].get("id")
          and "requestState" not in (sent[0].get("params") or {})
          and (sent[1].get("params") or {}).get("requestState") == state
          and (sent[1].get("params") or {}).get("arguments") == (sent[0].get("params") or {}).get("arguments"))
    return _cond("mrtr", "input_required with requestState only is followed: one retry, new id, the exact state; "
                 "the rows judge the complete result", view, ["W01", "W02", "S01", "S02", "S03"],
                 {"wire": PASS, "type": PASS, "meaning": PASS}, _all(
                     (ok, "call:structured in wire.jsonl: 2 requests (the retry with a new id and the requestState "
                      "received) and 2 answers: input_required, then complete",
                      f"call:structured: {len(sent)} sent, answers {kinds}, requestState {state!r} "
                      f"echoed {[(m.get('params') or {}).get('requestState') for m in sent]}"),
                     _others_pass(view, []), _exit(view, 0)))


def _mrtr_endless(view: RunView) -> Condition:
    """mrtr.mdx: a server MAY keep answering with InputRequiredResult, attempt after attempt: no
    violation; --max-rounds bounds the step and its rows are UNOBTAINABLE."""
    sent, got = _rounds(view, "call:structured")
    kinds = [(m.get("result") or {}).get("resultType") if isinstance(m.get("result"), dict) else None for m in got]
    bound = f"after {MAX_ROUNDS} rounds (--max-rounds {MAX_ROUNDS})"
    statuses = {r: view.row(r).get("status") for r in ("S01", "S02", "S03")}
    ok = (len(sent) == MAX_ROUNDS and kinds == [INPUT_REQUIRED] * MAX_ROUNDS
          and set(statuses.values()) == {UNOBTAINABLE} and bound in view.reason("S01", 400))
    return _cond("mrtr-endless", f"A server that always answers input_required is stopped at --max-rounds "
                 f"{MAX_ROUNDS}: its rows are UNOBTAINABLE, no FAIL", view, ["W01", "S01", "S02", "S03"],
                 # W01 PASS, the wire layer of S01-S03 UNOBTAINABLE: no FAIL anywhere
                 {"wire": UNOBTAINABLE}, _all(
                     (ok, f"exactly {MAX_ROUNDS} requests in call:structured, each answered input_required; "
                      f"S01-S03 UNOBTAINABLE saying \"{bound}\"",
                      f"{counted(len(sent), 'request')}, answers {kinds}; {statuses}"),
                     _exit(view, 0)))


def _inert(view: RunView, baseline: RunView, eras: tuple[str, ...]) -> Condition:
    """A mode for some versions changes nothing in the others."""
    wrong = [f"{r['id']} {r['status']}" for r in _automated(view) if r["status"] != _baseline_status(view, r["id"])]
    ok = bool(_automated(view)) and not wrong and view.exit_status == baseline.exit_status == 0
    return _cond(view.mode, f"{view.mode} is for {' and '.join(eras)}: in {view.era} the server is as the baseline",
                 view, [], {}, (ok, "every automated row as in the baseline; exit 0",
                                f"exit {view.exit_status}" + ("; not as in the baseline: " + ", ".join(wrong)
                                                              if wrong else "")), evidence_row=None)


def _over_http(view: RunView, fetched: int, canary_alive: bool) -> list[Condition]:
    """The conditions of the modes in HTTP_MODES, on their runs over Streamable HTTP."""
    if view.mode == BASELINE:
        return [_passes_right(view), _same_document(view), _reading_links(view)]
    if view.mode == "crash":
        return [_crash(view)]
    if view.mode == "hang":
        return [_hang(view)]
    if view.mode == "nan":
        return [_cond("nan", "NaN in an HTTP answer fails W01 (must)", view, ["W01"], {"wire": FAIL},
                      _check_is(view, "W01", "no_protocol_violations", FAIL, MUST, "NaN"), rules={"W01": MUST})]
    if view.mode == "duplicate-key":
        return [_cond("duplicate-key", "A key named twice in an HTTP answer fails W01 (should)", view, ["W01"],
                      {"wire": FAIL}, _check_is(view, "W01", "no_protocol_violations", FAIL, SHOULD,
                                                "duplicate object key"), rules={"W01": SHOULD})]
    if view.mode == "mrtr":
        return [_mrtr(view)]
    if view.mode == "no-discover":
        return [_no_discover(view)]
    if view.mode in SESSION_CONDITIONS:
        return [SESSION_CONDITIONS[view.mode](view)]
    return []


def _passes_right(view: RunView) -> Condition:
    automated = [r for r in view.results.get("rows", []) if r.get("filled_by") == "runner"
                 and r.get("status") != "PENDING"]
    allowed = {"W02": UNOBTAINABLE} if view.era != MODERN else {}
    wrong = [f"{r['id']} {r['status']}" for r in automated if r["status"] != allowed.get(r["id"], PASS)]
    ok = bool(automated) and not wrong and view.exit_status == int(ExitStatus.OK)
    rows = [r["id"] for r in automated]
    expected = "every automated row PASS" + (" (W02 UNOBTAINABLE: a legacy version)" if allowed else "") + \
        "; exit 0"
    observed = (f"{len(automated) - len(wrong)}/{len(automated)} rows as expected; exit {view.exit_status}"
                + (f"; not as expected: {', '.join(wrong)}" if wrong else ""))
    if view.error:
        ok, observed = False, f"{view.error}; {observed}"
    return Condition("passes-right", "The fixture without a break passes every row", view.era, view.sent, rows,
                     view.layers(rows), expected, observed, PASS if ok else FAIL, view.evidence_path(),
                     view.transport)


def _same_document(view: RunView) -> Condition:
    from mcp_accept.fixture import LINK_URI

    reads = {step: _reads(view, step) for step in ("call:text", "call:structured", "call:embedded")}
    link_reads = _reads(view, uri=LINK_URI)
    ok = all(n == 0 for n in reads.values()) and link_reads == 1
    counts = ", ".join(f"{step} {n}" for step, n in reads.items())
    return _cond("same-document", "The four forms carry the same document, and the reads it took", view,
                 ["T01", "S01", "E01", "L02", "X01"], {"meaning": PASS},
                 (ok, "no resources/read for text, structured, embedded; exactly one for the link",
                  f"resources/read sent during {counts}; of {LINK_URI}: {link_reads}"), evidence_row="X01")


def _reading_links(view: RunView) -> Condition:
    listing = view.answer_to("resources/list") or {}
    listed = (listing.get("result") or {}).get("resources") if isinstance(listing.get("result"), dict) else None
    unknown = view.answer_to("read:unknown") or {}
    code = (unknown.get("error") or {}).get("code") if isinstance(unknown.get("error"), dict) else None
    accepted = unknown_resource_codes_accepted(view.era)
    ok = listed == [] and code in accepted
    want = ("resources/list is empty yet the link reads; the unknown URI gets "
            + " or ".join(str(c) for c in accepted))
    seen = f"resources/list held {len(listed) if isinstance(listed, list) else 'no list'}; unknown URI: " + \
        (f"error {code}" if code is not None else "no error")
    return _cond("reading-links", "Reading links: an empty resources/list does not stop a read; an unknown "
                 "URI is an error", view, ["L02", "L03"], {"meaning": PASS, "wire": PASS}, (ok, want, seen))


def _twin_differs(view: RunView) -> Condition:
    others = [f"{r['id']} {layer}" for r in view.results.get("rows", [])
              for layer in ("wire", "type") if (r.get("layers") or {}).get(layer) == FAIL]
    return _cond("twin-differs", "A text twin that differs from structuredContent is caught by meaning alone",
                 view, ["W01", "S01", "S02"], {"wire": PASS, "type": PASS, "meaning": FAIL},
                 (not others, "no wire or type FAIL in any row",
                  "wire/type FAIL in: " + ", ".join(others) if others else "no wire or type FAIL in any row"),
                 evidence_row="S02")


def _external_ref(view: RunView, fetched: int, canary_alive: bool) -> Condition:
    detail = " ".join(c.get("detail", "") for c in view.checks("S01", "type"))
    refused = "refers outside itself" in detail
    ok = refused and fetched == 0 and canary_alive
    want = "type FAIL: the reference is refused; no connection reached the listener at the $ref's address"
    seen = (f"connections to the listener during the runs: {fetched}"
            f"{'' if canary_alive else ' (the listener did not see a probe afterwards: the count proves nothing)'}"
            f"; S01 says {'it refused the reference' if refused else 'nothing of a refused reference'}")
    # basic/index.mdx#ref-resolution (2026-07-28): such schemas SHOULD be refused; earlier
    # versions say nothing of it, so refusing is the sheet's rule there.
    return _cond("external-ref", "An outputSchema with an external $ref is refused, with no network access",
                 view, ["S01"], {"type": FAIL}, (ok, want, seen),
                 rules={"S01": SHOULD if view.era == MODERN else APP})


def _crash(view: RunView) -> Condition:
    judged = [r for r in view.results.get("rows", []) if r.get("status") in (PASS, FAIL, UNOBTAINABLE)]
    ok = view.exit_status == int(ExitStatus.FAILED) and bool(judged) and (view.folder / "stderr.log").is_file()
    return _cond("crash", "A server that dies mid-run is a FAIL with evidence, not a crash of the runner", view,
                 ["E01"], {"wire": FAIL},
                 (ok, "exit 1, results.json and stderr.log written",
                  f"exit {view.exit_status}; {counted(len(judged), 'row')} judged"),
                 # no answer at all: JSON-RPC 2.0 answers every request (basic/index.mdx#messages)
                 rules={"E01": MUST})


def _hang(view: RunView) -> Condition:
    after = [view.row(r).get("status") for r in ("L01", "L02")]
    ok = view.exit_status == int(ExitStatus.FAILED) and after == [PASS, PASS]
    return _cond("hang", "An unanswered call times out as a FAIL, and the run goes on", view, ["E01"],
                 {"wire": FAIL}, (ok, "exit 1; L01 and L02 still PASS",
                                  f"exit {view.exit_status}; L01 {after[0]}, L02 {after[1]}"),
                 # the timeout is the run's own limit: no version bounds a server's time
                 rules={"E01": PROFILE})


def _requests_valid(era: str, views: list[RunView], store) -> Condition:
    from mcp_accept.checks.wire import message_targets
    from mcp_accept.schemas import SchemaUnavailable

    checked, problems, missing = 0, [], set()
    for view in views:
        for entry in view.out_messages():
            if "id" not in entry["message"] or "method" not in entry["message"]:
                # notifications are not requests; the runner's answers to the server's own
                # requests are judged as messages by W01 (wire_messages_valid)
                continue
            for version, definition, instance in message_targets(entry, {}):
                try:
                    if not version or not store.has_definition(version, definition):
                        missing.add(f"{definition} ({version})")
                        continue
                    errors = store.errors(version, definition, instance)
                except SchemaUnavailable as exc:
                    missing.add(str(exc))
                    continue
                checked += 1
                if errors:
                    problems.append(f"{view.mode} #{entry.get('seq')} {definition}: {errors[0]}")
    ok = checked > 0 and not problems and not missing
    observed = f"{counted(checked, 'request')} over {counted(len(views), 'run')} validated"
    if problems:
        observed += f"; {len(problems)} invalid: " + "; ".join(problems[:3])
    if missing:
        observed += "; not checkable: " + "; ".join(sorted(missing)[:3])
    return Condition("requests", "Every request the runner sent validates", era,
                     "every run of this era", ["W01"], {"wire": PASS if ok else FAIL},
                     "every request valid against the official schema of its version", observed,
                     PASS if ok else FAIL, views[0].evidence_path("W01") if views else None)


def _sdk_advisory(era: str, views: list[RunView], sdk_available: bool) -> Condition:
    """The sdk layer reports; a row's status comes from wire, type and meaning alone."""
    from mcp_accept.checks.base import Verdict, row_status

    wrong, shown = [], []
    for view in views:
        for row_id, evidence in view.evidence.items():
            verdicts = [Verdict(c["check"], c["layer"], c["status"], c.get("detail", ""))
                        for c in evidence.get("checks") or []]
            if not verdicts:
                continue
            if view.row(row_id).get("status") != row_status(verdicts)[0]:
                wrong.append(f"{view.mode} {row_id}")
            if any(v.layer == "sdk" and v.status == FAIL for v in verdicts) and \
                    view.row(row_id).get("status") == PASS:
                shown.append(f"{view.mode} {row_id}")
    # With the SDK here, some row must show it: the SDK raised and the row still passed.
    ok = not wrong and (bool(shown) or not sdk_available)
    observed = ("every row's status is its wire, type and meaning verdicts combined"
                if ok else "status differs from wire/type/meaning in: " + ", ".join(wrong[:5]))
    if shown:
        observed += f"; rows that PASS although the SDK raised: {', '.join(shown[:4])}" + \
            (f" (+{len(shown) - 4} more)" if len(shown) > 4 else "")
    return Condition("sdk-advisory", "The sdk column never changes a row's status", era, "every run of this era",
                     [], {}, "status = wire, type and meaning combined; sdk reported beside it", observed,
                     PASS if ok else FAIL, None)


def _sdk_outcomes(view: RunView) -> dict[str, dict]:
    """What the sdk column says the SDK did with each replayed step."""
    out = {}
    for row_id, step in SDK_ROW_STEPS.items():
        for c in view.checks(row_id, "sdk"):
            if c["status"] == UNOBTAINABLE:
                out[step] = {"accepted": None, "detail": c.get("detail", "")}
            else:
                passed = c["status"] == PASS
                accepted = (not passed) if step == "read:unknown" else passed
                out[step] = {"accepted": accepted, "detail": c.get("detail", "")}
    return out


def _word(accepted: bool | None) -> str:
    return {True: "accepts", False: "rejects", None: "unobtainable"}[accepted]


def _sdk_conditions(era: str, views: list[RunView], runs, info) -> list[Condition]:
    out = []
    if not info.available:
        wrong = []
        for view in views:
            for step, seen in _sdk_outcomes(view).items():
                if seen["accepted"] is not None or not seen["detail"]:
                    wrong.append(f"{view.mode} {step}")
        ok = not wrong and any(_sdk_outcomes(v) for v in views)
        out.append(Condition("sdk-unobtainable", "Without the SDK, the sdk column says UNOBTAINABLE with the reason",
                             era, "every run of this era", list(SDK_ROW_STEPS), {"sdk": UNOBTAINABLE if ok else FAIL},
                             "sdk UNOBTAINABLE, with the reason", info.reason if ok else
                             "not UNOBTAINABLE in: " + ", ".join(wrong[:5]), PASS if ok else FAIL, None))
        for mode, question in SDK_QUESTIONS.items():
            view = runs[(mode, era)]
            seen = _sdk_outcomes(view).get("call:structured", {})
            ok = seen.get("accepted", False) is None
            out.append(Condition(f"sdk-{mode}", question, era, view.sent, ["S01"], view.layers(["S01"]),
                                 "UNOBTAINABLE, with the reason", seen.get("detail", "no sdk verdict"),
                                 PASS if ok else FAIL, view.evidence_path("S01")))
        return out
    # The SDK is here: the column must say what the SDK does when it drives the fixture itself.
    disagree, compared = [], 0
    for view in views:
        if view.mode in NO_LIVE_SDK or (view.mode, view.era) in NOT_COMPARABLE_LIVE:
            continue
        if view.live is None:
            disagree.append(f"{view.mode}: the SDK could not drive the fixture ({view.live_error})")
            continue
        column = _sdk_outcomes(view)
        for step, live in view.live.items():
            compared += 1
            said = column.get(step, {}).get("accepted")
            if said != live["accepted"]:
                disagree.append(f"{view.mode} {step}: column {_word(said)}, live {_word(live['accepted'])} "
                                f"({live['detail'][:80]})")
    ok = compared > 0 and not disagree
    out.append(Condition("sdk-column", f"The sdk column says what {info.label} does, in every break mode", era,
                         "every run of this era, and the SDK's own client against the fixture",
                         list(SDK_ROW_STEPS), {"sdk": PASS if ok else FAIL},
                         "the replayed verdict of every call equals the SDK's live outcome",
                         f"{compared} calls compared; " + ("all agree" if ok else
                                                           "; ".join(disagree[:3])),
                         PASS if ok else FAIL, None))
    for mode, question in SDK_QUESTIONS.items():
        view = runs[(mode, era)]
        said = _sdk_outcomes(view).get("call:structured", {})
        live = (view.live or {}).get("call:structured")
        if live is None:
            out.append(Condition(f"sdk-{mode}", question, era, view.sent, ["S01"], view.layers(["S01"]),
                                 "the SDK's live outcome", f"the SDK could not drive the fixture ({view.live_error})",
                                 FAIL, view.evidence_path("S01")))
            continue
        ok = said.get("accepted") == live["accepted"]
        answer = {True: "no: it accepts the result", False: "yes: it raises"}.get(said.get("accepted"), "unknown")
        out.append(Condition(f"sdk-{mode}", question, era, view.sent, ["S01"], view.layers(["S01"]),
                             f"as the SDK does live: {_word(live['accepted'])} ({live['detail'][:120]})",
                             f"{answer} ({said.get('detail', 'no sdk verdict')[:200]})",
                             PASS if ok else FAIL, view.evidence_path("S01")))
    return out


# -- rules across the session, and the fields the schema leaves open ------------------------------

def _w01_must(view: RunView, cid: str, title: str, check: str, *says: str | None) -> Condition:
    """A mode that breaks one MUST judged on W01: ``check`` FAILs it (its detail saying each of
    ``says``), and every other row is as in the baseline."""
    parts = [_check_is(view, "W01", check, FAIL, MUST, said) for said in says or (None,)]
    return _cond(cid, title, view, ["W01"], {"wire": FAIL}, _all(*parts, _others_pass(view, ["W01"])),
                 rules={"W01": MUST})


def _stray_progress(view: RunView) -> Condition:
    # basic/utilities/progress.mdx (basic/patterns/ in 2026-07-28), behavior requirements
    return _w01_must(view, "stray-progress", "A progress notification for a token the client never sent fails W01 "
                     "(must)", "progress_tokens_known", "no request in flight")


def _stray_log(view: RunView) -> Condition:
    # server/utilities/logging.mdx#capabilities; 2026-07-28 also #per-request-log-level
    says = ["declares no logging capability"] + (["logLevel"] if view.era == MODERN else [])
    return _w01_must(view, "stray-log", "A log message from a server without the logging capability fails W01 "
                     "(must)", "log_messages_allowed", *says)


def _log_declared(view: RunView) -> Condition:
    if view.era == MODERN:
        return _cond("log-declared", f"{MODERN}: a log message for a request that set no log level fails W01 "
                     "(must), though logging is declared", view, ["W01"], {"wire": FAIL}, _all(
                         _check_is(view, "W01", "log_messages_allowed", FAIL, MUST, "logLevel"),
                         _others_pass(view, ["W01"])), rules={"W01": MUST})
    return _cond("log-declared", f"{view.era}: a log message from a server that declares logging passes W01 "
                 "(the version allows it)", view, ["W01"], {"wire": PASS}, _all(
                     _check_is(view, "W01", "log_messages_allowed", PASS, says="1 log message"),
                     _others_pass(view, []), _exit(view, 0)))


def _stray_request(view: RunView) -> Condition:
    # basic/lifecycle.mdx#operation: only capabilities both sides negotiated may be used
    return _w01_must(view, "stray-request", "A roots/list request to a client that declared no roots fails W01 "
                     "(must)", "server_requests_declared", "'roots'")


def _stray_cancel(view: RunView) -> Condition:
    # legacy: only requests issued in the same direction and in flight; 2026-07-28: only a
    # subscriptions/listen request
    return _w01_must(view, "stray-cancel", "A server cancelling the client's own request fails W01 (must)",
                     "cancellations_in_flight")


def _undeclared_resources(view: RunView) -> Condition:
    # server/resources.mdx#capabilities (MUST), server/tools.mdx#embedded-resources (SHOULD)
    return _cond("undeclared-resources", "Resources served without the resources capability fail W01 (must), "
                 "embedded ones its should too; L03 has no missing resource to judge", view, ["W01", "L03"],
                 {"wire": FAIL}, _all(
                     _check_is(view, "W01", "features_declared", FAIL, MUST, "no resources capability"),
                     _check_is(view, "W01", "features_declared", FAIL, SHOULD, "embed resources"),
                     _check_is(view, "L03", "unknown_uri_error", UNOBTAINABLE),
                     _others_pass(view, ["W01", "L03"])), rules={"W01": MUST}, evidence_row="W01")


def _undeclared_tools(view: RunView) -> Condition:
    return _w01_must(view, "undeclared-tools", "Tools served without the tools capability fail W01 (must)",
                     "features_declared", "no tools capability")


def _undeclared_read(view: RunView) -> Condition:
    return _cond(view.mode, "A result for an unknown URI from a server that declares no resources fails L03 on "
                 "the capability's MUST, the same in every version", view, ["L03"], {"wire": FAIL},
                 _check_is(view, "L03", "unknown_uri_error", FAIL, MUST, "declares no resources capability"),
                 rules={"L03": MUST})


def _bad_image_data(view: RunView) -> Condition:
    return _w01_must(view, "bad-image-data", "Image data that is not base64 fails W01 (must)",
                     "uri_and_blob_formats", "image data")


def _bad_meta_key(view: RunView) -> Condition:
    # basic/index.mdx#meta: the key name format
    return _w01_must(view, "bad-meta-key", "A _meta key whose name opens with a hyphen fails W01 (must)",
                     "meta_keys_valid", "-note")


def _reserved_error_code(view: RunView) -> Condition:
    if view.era == MODERN:
        # 2026-07-28 basic/index.mdx#error-codes: a reserved code it does not define MUST NOT be emitted
        return _cond("reserved-error-code", f"{MODERN}: error -32050 (reserved, undefined) fails W01 and the W03 "
                     "probe that got it on the version's MUST", view, ["W01", "W03"], {"wire": FAIL}, _all(
                         _check_is(view, "W01", "error_codes_allowed", FAIL, MUST, "-32050"),
                         _check_is(view, "W03", "invalid_cursor_error", FAIL, MUST, "-32050"),
                         _others_pass(view, ["W01", "W03"])), rules={"W01": MUST, "W03": MUST})
    return _cond("reserved-error-code", f"{view.era} reserves no range: -32050 for an invalid cursor fails only "
                 "W03's should (-32602)", view, ["W01", "W03"], {"wire": FAIL}, _all(
                     _check_is(view, "W01", "error_codes_allowed", PASS),
                     _check_is(view, "W03", "invalid_cursor_error", FAIL, SHOULD),
                     _others_pass(view, ["W03"])), rules={"W03": SHOULD})


def _ttl_float(view: RunView) -> Condition:
    answers = [e["message"].get("result") for e in view.wire if e.get("dir") == "in"
               and isinstance(e.get("message"), dict) and isinstance(e["message"].get("result"), dict)]
    floats = [r["ttlMs"] for r in answers if isinstance(r.get("ttlMs"), float)]
    return _cond("ttl-float", "ttlMs written 0.0 is an integer by JSON's rules: W02 passes", view, ["W02"],
                 {"wire": PASS}, _all(_check_is(view, "W02", "modern_result_fields", PASS),
                                      (bool(floats), "ttlMs arrived as 0.0", f"{len(floats)} ttlMs read as a float"),
                                      _others_pass(view, []), _exit(view, 0)))


def _text_prose(view: RunView) -> Condition:
    return _cond("text-prose", "A text body that is not the declared kind (JSON) fails T01 and X01 alike: the form "
                 "was had and differs", view, ["T01", "X01"], {"meaning": FAIL}, _all(
                     _check_is(view, "X01", "forms_agree", FAIL, PROFILE, "the forms differ"),
                     _others_pass(view, ["T01", "X01"])), rules={"T01": PROFILE, "X01": PROFILE})


def _empty_cursor(view: RunView) -> Condition:
    pages = view.out_messages("tools/list")
    cursors = [(m["message"].get("params") or {}).get("cursor", None) for m in pages
               if not str(m.get("step") or "").startswith("probe:")]
    return _cond("empty-cursor", "An empty-string nextCursor is followed: the second page of tools/list is read",
                 view, ["T01", "S01", "E01", "L01"], {"wire": PASS}, _all(
                     ("" in cursors, "a tools/list request with cursor \"\"", f"tools/list cursors sent: {cursors}"),
                     _others_pass(view, []), _exit(view, 0)), evidence_row="L01")


SESSION_CONDITIONS: dict[str, Callable[[RunView], Condition]] = {
    "stray-progress": _stray_progress, "stray-log": _stray_log, "log-declared": _log_declared,
    "stray-request": _stray_request, "stray-cancel": _stray_cancel,
    "undeclared-resources": _undeclared_resources, "undeclared-tools": _undeclared_tools,
    "bad-image-data": _bad_image_data, "bad-meta-key": _bad_meta_key,
    "reserved-error-code": _reserved_error_code, "ttl-float": _ttl_float, "text-prose": _text_prose,
    "empty-cursor": _empty_cursor, COMBOS[0]: _undeclared_read,
}


def _session_conditions(run: Callable[[str], RunView], era: str) -> list[Condition]:
    """The conditions of SESSION_CONDITIONS on the stdio runs of ``era`` (a mode for some
    versions only is checked as inert in the others, by ERA_MODES)."""
    return [judge(run(mode)) for mode, judge in SESSION_CONDITIONS.items()
            if mode not in ERA_MODES or era in ERA_MODES[mode]]
