"""``run --protocol all``: the sheet once per protocol version the server speaks, and what differs.

First one look at the server (its own evidence folder, ``versions/``): ``server/discover``
tells whether 2026-07-28 is supported (listed in ``supportedVersions``); each legacy
version counts when ``initialize`` with it is answered with that same version (the server
may answer another one: basic/lifecycle.mdx#version-negotiation, and then that version is
not one it speaks). Then one ordinary run per supported version, each in ``--out/<version>``,
and one combined summary, ``all.json``, with one exit status: the worst of the runs.

The summary names the differences between eras: a row that passes in one version and
fails in another, and what 2026-07-28 allows that breaks clients of 2025-11-25 on the same
server: ``structuredContent`` that is not an object (an array, null, a scalar) and an
``outputSchema`` whose root is not an object (server/tools.mdx#structured-content and
#output-schema of each version).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from mcp_accept.checks.base import FAIL, PASS
from mcp_accept.errors import ExitStatus, ServerError
from mcp_accept.evidence.files import atomic_write_json
from mcp_accept.protocol import LATEST_LEGACY, LEGACY, MODERN

ALL = "all"
SUMMARY_FILE = "all.json"
VERSIONS_FOLDER = "versions"  # the evidence of the look at which versions the server speaks


@dataclass
class AllOutcome:
    folder: Path
    summary: dict
    status: ExitStatus
    runs: list = field(default_factory=list)  # RunOutcome per version run


def supported_versions(opts, folder: Path) -> tuple[list[str], dict[str, str]]:
    """The versions the server speaks, and for each other version why not."""
    from mcp_accept.running.execute import builtin_server_command, check_target
    from mcp_accept.transport.session import CLIENT_INFO, Session, listed_versions
    from mcp_accept.transport.factory import make_transport
    from mcp_accept.transport.messages import noise_reason, timed_out

    headers, redactor = check_target(opts)
    folder.mkdir(parents=True, exist_ok=True)
    transport = make_transport(opts, folder=folder, redactor=redactor, builtin=builtin_server_command(),
                               headers=headers)
    found: list[str] = []
    why: dict[str, str] = {}
    try:
        transport.open()
        session = Session(transport, timeout=opts.timeout)
        reply = session.send("server/discover", {}, version=MODERN)
        listed = listed_versions(reply)
        if listed is not None and MODERN in listed:
            found.append(MODERN)
        else:
            why[MODERN] = (f"server/discover lists {listed}" if listed is not None
                           else f"server/discover: {reply.describe_failure()}")
        for version in LEGACY:
            if transport.exited_unread():
                # it ended without reading the probe: a new start would only end the same way
                for left in LEGACY:
                    if left not in found and left not in why:
                        why[left] = (f"not tried: the server exited without reading a request "
                                     f"({why.get(MODERN) or 'no answer'})")
                break
            if transport.noise is not None and timed_out(reply):
                # it wrote what is no message to its stdout and left the last request unanswered:
                # every further handshake would cost one more timeout to end the same way
                for left in LEGACY:
                    if left not in found and left not in why:
                        why[left] = f"not tried: {noise_reason(transport.noise).english()}"
                break
            transport.restart()  # each handshake on a fresh connection (a new process on stdio)
            reply = session.send("initialize", {"protocolVersion": version, "capabilities": {},
                                                "clientInfo": CLIENT_INFO}, version=version)
            chosen = reply.result.get("protocolVersion") if isinstance(reply.result, dict) else None
            if chosen == version:
                found.append(version)
                transport.legacy_version = version
                session.notify("notifications/initialized")
                try:
                    transport.end_session(timeout=opts.timeout)
                except Exception:  # ending a session is a courtesy; its failure is in the log
                    pass
            else:
                why[version] = (f"initialize {version}: the server chose {chosen!r}" if chosen is not None
                                else f"initialize {version}: {reply.describe_failure()}")
    except ServerError as exc:
        transport.log.record("event", event="start-failed", detail=str(exc))
        why = {v: f"the server could not be started: {exc}" for v in (MODERN, *LEGACY) if v not in found}
    finally:
        transport.close()
        transport.log.close()
    return found, why


def run_all(opts) -> AllOutcome:
    """One run per supported version under ``opts.out``; the combined summary and worst status."""
    from mcp_accept.evidence.files import prepare_folder
    from mcp_accept.running.execute import default_out, run
    from mcp_accept.schemas import require_dir
    from mcp_accept.inputs.conditions import load_conditions, parse_set
    from mcp_accept.inputs.profile import load_profile
    from mcp_accept.inputs.sheet import load_sheet

    # Bad input is reported before the server is touched.
    require_dir(opts.schema_dir)
    sheet = load_sheet(opts.sheet)
    load_profile(opts.profile)
    load_conditions(opts.conditions)
    parse_set(opts.sets, sheet)
    folder = prepare_folder(opts.out or default_out("all-"))
    try:
        versions, not_spoken = supported_versions(opts, folder / VERSIONS_FOLDER)
    except KeyboardInterrupt:  # interrupted before any run: say so, as a run would
        summary = combine([], {}, folder)
        summary.update(exit=int(ExitStatus.INTERRUPTED), interrupted=True)
        atomic_write_json(folder / SUMMARY_FILE, summary)
        return AllOutcome(folder, summary, ExitStatus.INTERRUPTED)
    runs = []
    for version in versions:
        outcome = run(dataclasses.replace(opts, protocol=version, out=folder / version))
        runs.append(outcome)
        if outcome.results.get("interrupted"):
            break
    summary = combine(runs, not_spoken, folder)
    status = ExitStatus(summary["exit"])
    atomic_write_json(folder / SUMMARY_FILE, summary)
    return AllOutcome(folder, summary, status, runs)


def combine(runs, not_spoken: dict[str, str], folder: Path) -> dict:
    """The summary of the per-version runs: statuses side by side, differences, warnings."""
    entries = []
    for outcome in runs:
        results = outcome.results
        entries.append({
            "version": results["conditions"].get("protocol_version_on_wire") or outcome.folder.name,
            "folder": outcome.folder.name,
            "exit": int(outcome.status),
            "summary": results.get("summary"),
            "rows": {row["id"]: row["status"] for row in results["rows"]},
        })
    statuses = [e["exit"] for e in entries]
    # Worst wins: stopped by SIGTERM (143) or Ctrl-C (130) > server (3) > bad input (2) > failed
    # rows (1) > ok (0).
    worst = max(statuses) if statuses else int(ExitStatus.SERVER)
    modern = next((o.recording for o in runs if o.recording is not None and o.recording.version == MODERN),
                  None)
    return {
        "versions": [e["version"] for e in entries],
        "not_spoken": not_spoken,
        "runs": entries,
        "differences": row_differences(runs, entries),
        "warnings": legacy_breaking(modern) if modern is not None else [],
        "exit": worst,
        "evidence": str(folder),
    }


def row_differences(runs, entries: list[dict]) -> list[dict]:
    """Rows that pass in one version and fail in another, with the failing reasons."""
    reasons = {}
    for outcome, entry in zip(runs, entries):
        for row in outcome.results["rows"]:
            reasons[(entry["version"], row["id"])] = row.get("reason")
    ids: list[str] = []
    for entry in entries:
        ids += [rid for rid in entry["rows"] if rid not in ids]
    out = []
    for rid in ids:
        by = {e["version"]: e["rows"].get(rid) for e in entries}
        passed = [v for v, s in by.items() if s == PASS]
        failed = [v for v, s in by.items() if s == FAIL]
        if passed and failed:
            out.append({"row": rid, "PASS": passed, "FAIL": failed,
                        "reasons": {v: reasons.get((v, rid)) for v in failed},
                        "text": f"{rid} passes in {', '.join(passed)} and fails in {', '.join(failed)}"})
    return out


def legacy_breaking(recording) -> list[dict]:
    """What the 2026-07-28 run saw that is valid there and breaks 2025-11-25 clients.

    2026-07-28 lets ``structuredContent`` be any JSON value and ``outputSchema`` any JSON
    Schema; 2025-11-25 (and 2025-06-18) require an object for both, so a client of the older
    version talking to the same server refuses those results or tools.
    """
    out = []
    for name, tool in sorted(recording.tools.items()):
        schema = tool.get("outputSchema")
        if "outputSchema" in tool and not (isinstance(schema, dict) and schema.get("type") == "object"):
            shown = schema.get("type") if isinstance(schema, dict) and "type" in schema else "no type"
            out.append({"kind": "outputSchema", "tool": name,
                        "text": f"tool {name}: outputSchema's root is not an object ({shown}); valid in "
                                f"{MODERN}, but {LATEST_LEGACY} requires type \"object\", so clients of "
                                f"{LATEST_LEGACY} on the same server refuse the tool"})
    for step_name, step in recording.steps.items():
        reply = step.reply
        result = reply.result if reply is not None and reply.has_result else None
        if reply is None or reply.request.get("method") != "tools/call" or not isinstance(result, dict):
            continue
        if "structuredContent" in result and not isinstance(result["structuredContent"], dict):
            value = result["structuredContent"]
            kind = "null" if value is None else "an array" if isinstance(value, list) else type(value).__name__
            tool = (reply.request.get("params") or {}).get("name")
            out.append({"kind": "structuredContent", "step": step_name, "tool": tool,
                        "text": f"{step_name} ({tool}): structuredContent is {kind}; valid in {MODERN}, "
                                f"but {LATEST_LEGACY} requires an object, so clients of {LATEST_LEGACY} on the same "
                                "server refuse the result"})
    return out


def print_all(outcome: AllOutcome, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    from rich.markup import escape

    from mcp_accept.output.console import STYLES, counted
    from mcp_accept.untrusted import plain_line

    console = console or Console()
    summary = outcome.summary
    from rich import box

    table = Table(title=f"mcp-accept: every protocol version ({len(summary['runs'])} spoken)",
                  box=box.HEAVY_HEAD if console.is_terminal else None)  # no box drawing when piped
    for name in ("version", "PASS", "FAIL", "UNOBTAINABLE", "PENDING", "exit", "folder"):
        table.add_column(name, no_wrap=name in ("version", "exit"))
    for run in summary["runs"]:
        counts = run.get("summary") or {}
        cells = [str(counts.get(s, 0)) for s in ("PASS", "FAIL", "UNOBTAINABLE", "PENDING")]
        if counts.get("FAIL"):
            cells[1] = f"[{STYLES['FAIL']}]{cells[1]}[/]"
        table.add_row(escape(plain_line(run["version"])), *cells, str(run["exit"]), escape(plain_line(run["folder"])))
    console.print(table)
    for version, why in summary["not_spoken"].items():
        console.print(plain_line(f"not spoken: {version}: {why}"), markup=False, highlight=False, soft_wrap=True)
    for diff in summary["differences"]:
        console.print(plain_line(f"differs: {diff['text']}"), markup=False, highlight=False, soft_wrap=True)
    for warning in summary["warnings"]:
        console.print(plain_line(f"warning: {warning['text']}"), markup=False, highlight=False, soft_wrap=True)
    differ = len(summary["differences"])
    console.print(f"{counted(len(summary['runs']), 'version')} run, {counted(differ, 'row')} "
                  f"{'differs' if differ == 1 else 'differ'}, {counted(len(summary['warnings']), 'warning')}; "
                  f"exit {summary['exit']}. "
                  f"Evidence: {plain_line(outcome.folder)} (summary: {SUMMARY_FILE})", markup=False,
                  highlight=False, soft_wrap=True)

