"""The host rows of a ``host test`` run, from what it recorded: H01-H03 judged from what the
model was handed (``model_view`` holds one judge a row), the wire facts the proxy saw, why a run
measured nothing, and the folder written through the one results writer.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_accept.evidence.files import atomic_write_json, utc_now
from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import read_entries
from mcp_accept.hosts.body_search import MEDIA_AS_PART, NO_TOKENS, media_routes, reach
from mcp_accept.hosts.server_bodies import WireExchange, server_bodies, wire_exchanges
from mcp_accept.hosts import model_view
from mcp_accept.hosts.adapters.base import HostAdapter
from mcp_accept.hosts.job import LARGE_SIZES, SERVER_NAME, HostJob
from mcp_accept.hosts.observe import REQUEST_LOG_CAPTURE
from mcp_accept.hosts.proxy.folder import SERVER_ENDED, SERVER_EXIT, UPSTREAM_UNREACHABLE
from mcp_accept.model.script import ToolOffer, name_scheme
from mcp_accept.protocol import LATEST_LEGACY, META_VERSION
from mcp_accept.reasons import Reason, reason


MEDIA_KINDS = {"application/pdf": "pdf", "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif",
               "image/webp": "webp"}
MAGIC = (("JVBER", "pdf"), ("iVBOR", "png"), ("/9j/", "jpeg"), ("R0lGOD", "gif"))


def media_kind(mime: object, data: str) -> str:
    """The kind of a base64 body: by its declared MIME type, else by its first bytes."""
    if isinstance(mime, str) and mime.split(";", 1)[0].strip().lower() in MEDIA_KINDS:
        return MEDIA_KINDS[mime.split(";", 1)[0].strip().lower()]
    return next((kind for magic, kind in MAGIC if data.startswith(magic)), "other")


def media_needles(exchanges: list[WireExchange]) -> dict[str, dict]:
    """Each image content item and embedded blob a tool result carried, found by its content
    type (any server's, whatever its tools are called): the tool that sent it and a stretch of
    its base64 past the header every file of its kind shares, so the stretch names this body
    only. ``{"image"|"blob": {"tool": NAME, "kinds": {KIND: STRETCH}}}``, the first of each."""
    found: dict[str, dict] = {}
    for exchange in exchanges:
        tool = exchange.params.get("name") if exchange.method == "tools/call" else None
        result = exchange.answer.get("result")
        if not isinstance(tool, str) or not isinstance(result, dict):
            continue
        for item in result.get("content") or []:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "image":
                key, data, mime = "image", item.get("data"), item.get("mimeType")
            elif item.get("type") == "resource" and isinstance(item.get("resource"), dict):
                key, data, mime = "blob", item["resource"].get("blob"), item["resource"].get("mimeType")
            else:
                continue
            if not isinstance(data, str) or len(data) <= 120:
                continue
            entry = found.setdefault(key, {"tool": tool, "kinds": {}})
            if entry["tool"] == tool:
                entry["kinds"].setdefault(media_kind(mime, data), data[60:120])
    return found


def protocol_attempts(exchanges: list[WireExchange]) -> list[dict]:
    """Each version the host tried (``server/discover`` and ``initialize``) and what the server
    answered: a host that probes a version and then speaks another shows here."""
    attempts = []
    for exchange in sorted(exchanges, key=lambda e: e.request_seq or 0):
        if exchange.method not in ("initialize", "server/discover"):
            continue
        params = exchange.params
        attempt = {"method": exchange.method, "seq": exchange.request_seq,
                   "version": params.get("protocolVersion") or (params.get("_meta") or {}).get(META_VERSION)}
        if "error" in exchange.answer:
            attempt["outcome"] = f"error {(exchange.answer.get('error') or {}).get('code')}"
        else:
            result = exchange.answer.get("result") or {}
            attempt["outcome"] = "result"
            agreed = result.get("protocolVersion") or result.get("supportedVersions")
            if agreed:
                attempt["server_answered"] = agreed
        attempts.append(attempt)
    return attempts


def server_shutdown(proxy_folder: Path | None, facts: dict, over_http: bool = False, bounded: bool = False) -> dict:
    """How the host ended its server's session, read from the end of the proxy's ``wire.jsonl``
    (its last events): closing the pipe, a signal, or a kill that left the proxy no time to
    record its end (the folder was then completed from ``wire.jsonl``, marked interrupted).
    ``facts`` are the proxy's derived facts of that folder (its ``tool_calls``). Over HTTP the
    host never owned the proxy's process: ``host test`` started it and stops it once the host
    has ended, so how it ended says nothing of the host (``ended_by``); nor when the run's byte
    bound was reached (``bounded``): ``host test`` stopped the host's process group, its proxy
    with it."""
    if proxy_folder is None or not (proxy_folder / "wire.jsonl").is_file():
        return {"how": "no server session recorded"}
    ended = None
    for entry in read_entries(proxy_folder / "wire.jsonl", direction="event", tail_bytes=8192):
        if entry.get("event") == "proxy-end":
            ended = entry
    results = _read_json(proxy_folder / "results.json") or {}
    calls = facts.get("tool_calls") or []
    # "interrupted" says the recording did not end by itself; whether the session was cut short
    # is what was still unanswered when it ended
    out = {"interrupted": bool(results.get("interrupted")),
           "calls_unanswered": sum(1 for c in calls if c.get("outcome") == "no answer recorded")}
    if ended is None:
        out["how"] = "killed: the proxy recorded no end (its folder was completed from wire.jsonl)"
    else:
        detail = str(ended.get("detail") or "")
        out["how"] = detail
        out["seq"] = ended.get("seq")
    if over_http:
        out["ended_by"] = "mcp-accept: host test stops the HTTP proxy it served the host from, after the host ended"
    elif bounded:
        out["ended_by"] = "mcp-accept: the run reached its byte bound, and host test stopped the host's process group"
    return out


def host_quirks(facts: dict, attempts: list[dict], shutdown: dict) -> list[dict]:
    """What the host did that the spec tolerates and the recording had to survive, with where it
    shows: a killed server, cancellations of finished calls, versions asked for and not spoken."""
    quirks = [q for q in facts.get("quirks") or [] if q.get("by") == "host"]
    how = shutdown.get("how", "")
    if how.startswith(("killed", "signal")) and not shutdown.get("ended_by"):
        # The proxy is the process the host launched: a signal or a kill it got came from the host
        # (recorded within a moment of the host's last model request), before any end of input.
        quirks.append({"by": "host", "quirk": "stopped its server without closing its input first",
                       "detail": how,
                       "source": f"docs/specification/{LATEST_LEGACY}/basic/lifecycle.mdx#stdio (the client SHOULD "
                                 "close the server's input and wait before SIGTERM, then SIGKILL)"})
    refused = [a for a in attempts if str(a.get("outcome", "")).startswith("error")]
    spoken = (facts.get("protocol_version_on_wire") or {}).get("value")
    for attempt in refused:
        quirks.append({"by": "host", "quirk": f"asked for {attempt.get('version')} with {attempt.get('method')}, "
                       f"was refused ({attempt.get('outcome')}) and spoke {spoken}", "seqs": [attempt.get("seq")]})
    return quirks


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _proxy_facts(folder: Path) -> tuple[dict, Path | None]:
    runs = sorted((folder / "proxy").glob("*/host.json"))
    if not runs:
        return {}, None
    data = json.loads(runs[-1].read_text(encoding="utf-8"))
    return data.get("facts") or {}, runs[-1].parent


def _link_reads(facts: dict, view: model_view.ModelView) -> list[dict]:
    """The host's ``resources/read`` of each link, and whether it came before the model asked."""
    first_ask = view.asked_at.get("link-read")
    reads = []
    for read in facts.get("resource_reads") or []:
        reads.append({"uri": read.get("uri"), "request_seq": read.get("request_seq"),
                      "before_model_asked": first_ask is None or str(read.get("t", "")) < first_ask})
    return reads


def write_host_results(folder: Path, adapter: HostAdapter, job: HostJob, profile, *,
                       connects: dict | None, host_exit, timed_out: bool, host_seconds: float,
                       redactor: Redactor, interrupted: str | None = None, bound: dict | None = None) -> dict:
    """host-run.json, rows/H0*.json, results.json and sheet.md of a host run, from what it recorded
    (``model.jsonl`` read as a stream). ``bound``: the run's byte budget (:meth:`ByteBudget.record`)."""
    from mcp_accept.inputs.sheet import load_sheet
    from mcp_accept.output.results_writer import assemble, write_results

    facts, proxy_folder = _proxy_facts(folder)
    markers_path = folder / "fixture-log" / "markers.json"
    markers = json.loads(markers_path.read_text(encoding="utf-8")) if markers_path.is_file() else None
    heads, tails = model_view.tokens(markers)
    log = folder / "model.jsonl"
    view = model_view.read_view(read_entries(log) if log.is_file() else [])
    # what the host offered, a namespace split off its tool's name again
    offers = [ToolOffer(o.rsplit("/", 1)[-1], o.rsplit("/", 1)[0] if "/" in o else None) for o in view.offers]
    exchanges: list[WireExchange] = []
    if proxy_folder is not None and (proxy_folder / "wire.jsonl").is_file():
        exchanges = wire_exchanges(read_entries(proxy_folder / "wire.jsonl"))
    search = threshold_asked(job)
    verdicts = host_verdicts(folder, adapter, profile, view, offers, exchanges, heads, tails,
                             _link_reads(facts, view), search)
    conditions = host_conditions(folder, adapter, job, facts, view)
    attempts = protocol_attempts(exchanges)
    stopped = (bound or {}).get("said")  # the run's byte bound was reached: the host was stopped
    shutdown = server_shutdown(proxy_folder, facts, over_http=conditions.get("transport") == "Streamable HTTP",
                               bounded=bool(stopped))
    client = (facts.get("client_info") or {}).get("value") or {}
    host_facts = {
        "host": adapter.name, "product": adapter.product, "kind": adapter.kind, "version": job.version,
        # HOST@VERSION: the published version asked for, run from the host cache (None: the one installed)
        "version_asked": job.options.host_version,
        "api": view.api, "tool_name_scheme": observed_scheme(adapter, profile, offers), "offered_tools": view.offers,
        "client_info": client or None,
        "client_capabilities": (facts.get("client_capabilities") or {}).get("value"),
        "protocol_version": conditions.get("protocol_version_on_wire"),
        "protocol_attempts": attempts,
        "server_shutdown": shutdown,
        "host_quirks": host_quirks(facts, attempts, shutdown),
        "proxy": job.options.proxy,
        "network_guard": job.guard, "connects": connects,
        "offline_settings": adapter.offline, "settings_sources": list(adapter.sources),
        "own_tools_off": adapter.tools_off(frozenset(job.host_flags) if job.host_flags else None), "refused_calls": view.refused,
        "server_isolation": job.server_isolation, "forged_requests": view.forged,
        # --env: the names the server was given, never a value (server-env.json: who asked for them)
        "server_env": [item.partition("=")[0] for item in job.options.server_env or []],
        "host_exit": host_exit, "timed_out": timed_out, "host_seconds": round(host_seconds, 2),
        "model_requests": view.requests, "side_calls": view.side_calls,
        "proxy_folder": str(proxy_folder.relative_to(folder)) if proxy_folder else None,
        "extra_forms": extra_forms(view, exchanges, profile, heads, tails),
        "threshold_search": verdicts["H03"].observed.get("threshold_search") if search else None,
        "model_declared": adapter.declared_model(job.options.model_kind),
    }
    naming = adapter.naming(SERVER_NAME)
    offered = any(any(naming.find(offers, ref.name)) for ref in profile.tools.values())
    why_not = not_measured(view, attempts, host_exit, timed_out, job.options.timeout,
                           _last_line(folder / "host-stderr.txt"), adapter.product, offered, bound=stopped,
                           refused=lambda: upstream_refused(proxy_folder, shutdown.get("how") == SERVER_ENDED))
    if why_not and job.options.client is not None:
        why_not = client_not_measured(job, adapter, view, host_exit,
                                      _last_line(folder / "host-stderr.txt")) or why_not
    host_facts["run_bytes"] = bound
    host_facts["outcome"] = {"not_measured": why_not, "interrupted": interrupted, "bound": stopped,
                             "forged_requests": len(view.forged)}
    atomic_write_json(folder / "host-run.json", host_facts, redactor)
    sheet = load_sheet()
    rows, row_files = [], []
    for row in sheet.rows:
        if row.id not in verdicts:
            continue
        verdict = verdicts[row.id]
        if interrupted:
            said = f"interrupted by {interrupted} before the host finished"
        elif stopped:
            said = stopped
        elif why_not and verdict.status == "UNOBTAINABLE":
            said = why_not
        elif timed_out:
            said = f"the host did not finish within {job.options.timeout} s"
        else:
            said = None
        entry, body = host_row(row, verdict, said, adapter, job, connects, host_facts)
        rows.append(entry)
        row_files.append((entry["evidence"], body))
    results = assemble(sheet=sheet, profile=profile, conditions=conditions, rows=rows, schemas=[],
                       started_at=conditions["executed_at_utc"], finished_at=utc_now(), interrupted=bool(interrupted))
    return write_results(folder, results, row_files=row_files, redactor=redactor)


def host_verdicts(folder: Path, adapter: HostAdapter, profile, view: model_view.ModelView, offers: list[ToolOffer],
                  exchanges: list, heads: dict, tails: dict, link_reads: list[dict], search: dict | None = None) -> dict:
    """H01, H02 and H03 judged from what the model was handed (model_view holds one judge a row);
    ``search``: what ``--find-threshold`` was asked (:func:`threshold_asked`)."""
    read_tool = None
    picked = adapter.resource_reader(SERVER_NAME)(offers, "x://y")
    if picked is not None:
        read_tool = picked[0].name
    bodies = server_bodies(exchanges, {form: ref.name for form, ref in profile.tools.items()})
    private = [folder / "home", folder / "work"]  # where a host may save what it does not hand
    verdicts = {
        "H01": model_view.h01(view, heads, tails, bodies, private),
        "H02": model_view.h02(view, heads, tails, link_reads, read_tool, bodies, private),
        "H03": model_view.h03(view, heads, tails, private,
                              model_view.large_bodies(exchanges, view, profile.tools["large"].name,
                                                       profile.tools["large"].arguments)
                              if "large" in profile.tools and not heads.get("large") else None,
                              search=search),
    }
    if verdicts["H03"].status == "FAIL":
        moved_by = adapter.large_result_setting or "no setting named in the host's documentation"
        verdicts["H03"].reason += f"; the threshold is moved by: {moved_by}"
        verdicts["H03"].observed["moved_by"] = adapter.large_result_setting
    return verdicts


def threshold_asked(job: HostJob) -> dict | None:
    """The sizes H03 asked for first and the bound of extra calls, with ``--find-threshold``."""
    if not job.options.threshold_calls:
        return None
    return {"fixed": list(job.options.large_sizes or LARGE_SIZES), "bound": job.options.threshold_calls}


def host_row(row, verdict, said: str | None, adapter: HostAdapter, job: HostJob, connects: dict | None,
             host_facts: dict) -> tuple[dict, dict]:
    """One host row of results.json and its rows/<ID>.json; ``said`` leads the reason where the
    run as a whole explains it (interrupted, timed out, nothing measured)."""
    reason = f"{said}; {verdict.reason}" if said else verdict.reason
    evidence = f"rows/{row.id}.json"
    body = {"id": row.id, "status": verdict.status, "reason": reason, "source": "host test",
            "observed": verdict.observed, "model_log": "model.jsonl", "host": host_facts}
    entry = {"id": row.id, "kind": row.kind, "title": row.title, "status": verdict.status,
             "reason": reason, "evidence": evidence, "filled_by": "runner",
             "observed": {"mode": "host test", "host": adapter.name, "facts": "host-run.json",
                          "network_guard": job.guard,
                          "non_loopback_connects": sorted((connects or {}).get("other") or {})
                          if connects is not None else "not traced (no strace)",
                          **verdict.observed}}
    return entry, body


def observed_scheme(adapter: HostAdapter, profile, offers: list[ToolOffer]) -> str | None:
    """The tool-name scheme as observed: the text tool under the adapter's naming, among what
    was offered."""
    text_tool = profile.tools.get("text")
    if text_tool is None:
        return None
    naming = adapter.naming(SERVER_NAME)
    found, _refused = naming.find(offers, text_tool.name)
    if found is None and naming.sandbox is not None:
        # offered only inside a code tool of the host's: its name there, and that tool's
        called = naming.sandbox(offers, text_tool.name, {})
        return f"{naming.shown('{tool}')} in {called[0].name}" if called else None
    return name_scheme(found, text_tool.name) if found is not None else None


def extra_forms(view: model_view.ModelView, exchanges: list, profile, heads: dict, tails: dict) -> dict:
    """What became of an image item and of an embedded blob: the fixture's own media tools, else
    whichever step's tool returned that content type."""
    extra = {}
    media = media_needles(exchanges)
    step_of_tool = {ref.name: form for form, ref in profile.tools.items()}
    for key in ("image", "blob"):
        carrier = media.get(key) or {}
        step = key if key in view.steps else step_of_tool.get(carrier.get("tool"))
        handed = view.steps.get(step) if step else None
        if handed is not None and handed.answered:
            # the bytes themselves (a stretch of the base64 the server sent, unique to this body)
            # or only the text about them
            extra[key] = {"handed": model_view.quote(handed), "step": step, "tool": carrier.get("tool"),
                          "token": reach(handed.text, heads.get(key, set()), tails.get(key, set()))}
            request = None
            for kind, needle in carrier.get("kinds", {}).items():
                extra[key][f"{kind}_data_handed"] = needle in handed.text
                # some hosts attach a result's media in a message of their own after it
                extra[key][f"{kind}_data_in_request"] = needle in view.last_request
                # as a media part the API reads as an image or file, or as base64 characters
                # inside the text the model reads
                if extra[key][f"{kind}_data_handed"]:
                    extra[key][f"{kind}_routes"] = media_routes(handed.block, needle)
                elif extra[key][f"{kind}_data_in_request"]:
                    request = request if request is not None else json.loads(view.last_request)
                    extra[key][f"{kind}_beside_routes"] = media_routes(request, needle)
                said = media_outcome(extra[key], key, kind)
                if said is not None:
                    extra[key].setdefault("outcome", {})[kind] = said.as_json()
        else:
            extra[key] = {"handed": None}
    return extra


def media_outcome(found: dict, key: str, kind: str) -> Reason | None:
    """What became of the ``kind`` bytes of an image item or embedded blob (``key``), from
    :func:`extra_forms`' facts: a media part in the result or beside it, base64 read as text,
    only the text about it, or nothing."""
    what = reason(f"host.media.{key}")
    for routes, part in ((found.get(f"{kind}_routes"), "host.media.part"),
                         (found.get(f"{kind}_beside_routes"), "host.media.beside")):
        if routes:
            parts = [r["at"] for r in routes if r["as"] == MEDIA_AS_PART]
            if parts:
                return reason(part, what=what, at=parts[0])
            return reason("host.media.as-text", what=what, at=routes[0]["at"])
    if found.get("token") == "whole":
        return reason("host.media.text-only", what=what)
    if found.get("token") == NO_TOKENS:  # not the fixture: no text of its own to look for
        return reason("host.media.no-bytes", what=what)
    return reason("host.media.not-handed", what=what)


def model_and_settings(adapter: HostAdapter, job: HostJob, view: model_view.ModelView) -> str:
    """The stand-in as the host knew it: the model name its configuration gives, what that
    declares (images, PDFs, context size), and the names the host asked for."""
    declared = adapter.declared_model(job.options.model_kind)
    said = [f"{what} {'yes' if declared[key] else 'no'}" for key, what in (("images", "images"), ("pdfs", "PDFs"))
            if declared[key] is not None]
    if declared["context_tokens"]:
        said.append(f"context {declared['context_tokens']} tokens")
    kind = f" ({declared['kind']})" if declared.get("kind") else ""
    return (f"mcp-accept stand-in model ({view.api or adapter.api}) configured as {declared['model'] or 'no name'}"
            f"{kind}, declaring {', '.join(said) if said else declared['declared_in']}; asked for as "
            f"{', '.join(view.models) or 'no model name'}; scripted tool calls")


def host_conditions(folder: Path, adapter: HostAdapter, job: HostJob, facts: dict,
                    view: model_view.ModelView) -> dict:
    """The run's execution conditions: the host's, and what the proxy saw on the wire."""
    from mcp_accept.running.execute import merge_conditions

    client = (facts.get("client_info") or {}).get("value") or {}
    conditions = {
        "host_product": adapter.product,
        # a program of the user's is not asked for a version: it has none mcp-accept knows of
        "host_version": job.version or ("n/a" if job.options.client else "unknown"),
        "client_sdk_and_version": f"{client.get('name')} {client.get('version')}".strip() if client else None,
        "transport": (facts.get("transport") or {}).get("value") or "stdio",
        "protocol_version_on_wire": (facts.get("protocol_version_on_wire") or {}).get("value"),
        "model_and_settings": model_and_settings(adapter, job, view),
        "model_visible_capture_method": REQUEST_LOG_CAPTURE,
        "executed_at_utc": utc_now(),
        "evidence_path_or_id": folder.name,
    }
    server = (facts.get("server_info") or {}).get("value") or {}
    if isinstance(server.get("name"), str):
        conditions["server_name"] = server["name"]
    return merge_conditions({k: v for k, v in conditions.items() if v}, {}, None)


def _last_line(path: Path, limit: int = 8192) -> str | None:
    """The last line a host wrote that says something (its own words on why it stopped)."""
    if not path.is_file():
        return None
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - limit))
        lines = [line.strip() for line in handle.read().decode("utf-8", "replace").splitlines()]
    said = [line for line in lines if line]
    if not said:
        return None
    from mcp_accept.untrusted import console_text

    return console_text(said[-1])[:300]


def client_not_measured(job: HostJob, adapter: HostAdapter, view: model_view.ModelView, host_exit,
                        stderr_line: str | None) -> str | None:
    """Why a run of the user's own program (``--client``) measured nothing, where it is the
    program's doing: it was not found, called another model API than ``--api`` named, called the
    stand-in where no model API is, or never called it."""
    if not job.binary:
        first = (getattr(adapter, "words", None) or [job.options.client])[0]
        return f"the --client command {first!r} was not found (on PATH, or as an executable file): nothing was run"
    if view.wrong_api:
        first = view.wrong_api[0]
        return (f"{adapter.product} called the {first.get('called')} API ({first.get('path')}), not the "
                f"{job.options.api} API that --api named: the stand-in answers that one only")
    if view.unanswered and not view.steps:
        first = view.unanswered[0]
        return (f"{adapter.product} called the stand-in model where no model API is ({first.get('path')}, "
                f"answered {first.get('status')})")
    if view.requests == 0:
        said = f" (its last words: {stderr_line!r})" if stderr_line else ""
        return (f"{adapter.product} never called the model: it exited with status {host_exit} before any "
                "request reached the stand-in, whose URL is in MCP_ACCEPT_MODEL_URL and the SDKs' own "
                f"variables (docs/hosts.md){said}")
    return None


def upstream_refused(proxy_folder: Path | None, ended_itself: bool) -> str | None:
    """Why the server never answered the host, where the proxy's record says (a stdio server that
    exited by itself, an HTTP upstream it could not reach, or one that asked for credentials),
    in one line; None where it does not say. ``ended_itself``: the server, not the proxy at the
    session's end, ended it (:func:`server_shutdown` read that). Read only where no session was
    made: the wire is short then."""
    if proxy_folder is None or not (proxy_folder / "wire.jsonl").is_file():
        return None
    unreached, denied, exits = [], [], []
    for entry in read_entries(proxy_folder / "wire.jsonl", direction="event"):
        detail = str(entry.get("detail", ""))
        if entry.get("event") == "upstream-error" and detail.startswith(UPSTREAM_UNREACHABLE):
            unreached.append(detail)
        elif entry.get("event") == "http-response" and (entry.get("http") or {}).get("status") in (401, 403):
            denied.append((entry.get("http") or {}).get("status"))
        elif entry.get("event") == "exit" and detail.startswith(SERVER_EXIT):
            exits.append(detail.removeprefix(SERVER_EXIT))
    if exits and ended_itself:
        said = _last_line(proxy_folder / "stderr.log")
        return (f"the server exited with code {exits[-1]} before it answered the host"
                + (f" (its last words: {said!r})" if said else ""))
    if unreached:
        return (f"the recording proxy could not reach the server: {unreached[-1]} "
                f"({len(unreached)} request(s) of the host not forwarded)")
    if denied:
        return (f"the server answered HTTP {denied[0]} to {len(denied)} request(s) of the host: it asks for "
                "credentials (give them with --header)")
    return None


def not_measured(view: model_view.ModelView, attempts: list[dict], host_exit, timed_out: bool, timeout,
                 stderr_line: str | None, product: str, offered: bool, bound: str | None = None,
                 refused=lambda: None) -> str | None:
    """Why a host run measured nothing, from its evidence, or None when a step was handed back:
    the run reached its byte bound (``bound`` says so), the host hung, exited before asking its
    model anything, dropped the server (often over its protocol version), or the stand-in could
    call none of the server's tools, or the server was not reached or refused the host (``refused``,
    asked only then). ``offered``: some tool the profile names was offered under the host's naming."""
    if any(h.answered for h in view.steps.values()):
        return None
    if bound:
        return bound
    said = f" (its last words: {stderr_line!r})" if stderr_line else ""
    if timed_out:
        return f"{product} did not finish within {timeout:g} s and handed its model no result{said}"
    if view.requests == 0:
        return f"{product} exited with status {host_exit} before asking its model anything{said}"
    if view.steps:
        return f"{product} handed its model no result of the tools it called{said}"
    if offered:
        refused = "; ".join(r.get("reason", "") for r in view.refused.values()) or "none was offered"
        return f"the stand-in called none of the server's tools: {refused}"
    if not any(a.get("outcome") == "result" for a in attempts):
        why = refused()
        if why:
            return why
    other = [a for a in attempts if a.get("outcome") == "result" and isinstance(a.get("server_answered"), str)
             and a.get("version") and a["server_answered"] != a["version"]]
    if other:
        last = other[-1]
        return (f"{product} dropped the server: it asked for {last['version']} and the server answered "
                f"{last['server_answered']}{said}")
    if attempts and all(a.get("outcome") != "result" for a in attempts):
        asked = ", ".join(f"{a['method']} {a.get('version')} ({a.get('outcome')})" for a in attempts)
        return f"{product} never agreed a protocol version with the server: {asked}{said}"
    if not attempts:
        return f"{product} never started a session with the server{said}"
    return f"{product} offered its model none of the server's tools{said}"
