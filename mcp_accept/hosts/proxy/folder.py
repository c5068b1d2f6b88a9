"""The run folder a proxy writes, and how it is completed.

Forwarding threads hand each message's bytes to :meth:`ProxyRecord.put` and go back to
forwarding; one recorder thread parses and appends them to ``wire.jsonl`` (flushed per
message, redacted), in the order they were forwarded, and feeds each entry to a
:class:`~mcp_accept.hosts.proxy.derive.Deriver`. Nothing else of an entry stays in
memory, and what waits for the recorder is bounded in bytes (:data:`QUEUE_BYTES`): a
forwarding thread that gets ahead of it waits, so a session of any length runs in
bounded memory. :meth:`ProxyRecord.finish` writes ``host.json``, ``rows/H0x.json``,
``results.json`` and ``sheet.md`` (atomically) from the facts, once, whatever ended the
session.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import threading
from pathlib import Path

from mcp_accept.evidence.redaction import Redactor
from mcp_accept.evidence.wirelog import WireLog
from mcp_accept.evidence.files import atomic_write_json, utc_now
from mcp_accept.hosts.proxy import derive
from mcp_accept.protocol import META_VERSION
from mcp_accept.transport.messages import decode_message

DEFAULT_OUT = Path("mcp-accept-runs") / "proxy"
_STOP = object()

# The words of the events that say why a server never answered, written by the stdio and HTTP
# proxies and read back by the host rows (hosts/host_results.py).
SERVER_ENDED = "the server closed its stdout"  # a proxy-end: the server ended the session itself
SERVER_EXIT = "server exit code "  # an exit event: the code follows
UPSTREAM_UNREACHABLE = "upstream unreachable"  # an upstream-error: the request was not forwarded


def new_run_folder(base: Path, name: str | None = None) -> Path:
    """A folder of its own under ``base`` for this start: a host may start the proxy
    several times, even at once, and no two starts share a folder."""
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", name or "proxy").strip("._") or "proxy"
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = Path(base)
    base.mkdir(parents=True, exist_ok=True)
    # Named by time and process id (two starts at once differ in pid); a number is added
    # when even that is taken. No random part: a folder name must not look like a token.
    first = base.resolve() / f"{label}-{stamp}-{os.getpid()}"
    folder, n = first, 1
    while True:
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            n += 1
            folder = Path(f"{first}-{n}")


QUEUE_BYTES = 64 * 1024 * 1024  # message bytes waiting for the recorder before forwarding waits
QUEUE_ITEMS = 1024  # and messages: 64 MiB of small ones would be half a million Python objects


class _ByteQueue:
    """A FIFO bounded by the bytes and the messages it holds: :meth:`put` of a message
    waits while the queue holds :data:`QUEUE_BYTES` bytes or :data:`QUEUE_ITEMS`
    items, except that one message of any size enters an empty queue; the end (weight
    None) never waits."""

    def __init__(self, limit: int = QUEUE_BYTES, items: int = QUEUE_ITEMS):
        import collections

        self._items: collections.deque = collections.deque()
        self._bytes = 0
        self._limit = limit
        self._max_items = items
        self._ready = threading.Condition()

    def put(self, item, weight: int | None = None) -> None:
        with self._ready:
            while weight is not None and self._items and (
                    self._bytes + weight > self._limit or len(self._items) >= self._max_items):
                self._ready.wait()
            weight = weight or 0
            self._items.append((item, weight))
            self._bytes += weight
            self._ready.notify_all()

    def get(self):
        with self._ready:
            while not self._items:
                self._ready.wait()
            item, weight = self._items.popleft()
            self._bytes -= weight
            self._ready.notify_all()
            return item


class ProxyRecord:
    def __init__(self, folder: Path, transport: str, redactor: Redactor | None = None,
                 given: dict | None = None):
        self.folder = Path(folder)
        self.transport = transport
        self.redactor = redactor or Redactor()
        self.given = dict(given or {})
        self.started = utc_now()
        self.log = WireLog(self.folder / "wire.jsonl", self.redactor, transport=transport)
        self.deriver = derive.Deriver(transport)
        self._queue = _ByteQueue()
        self._thread = threading.Thread(target=self._drain, name="proxy-recorder", daemon=True)
        self._thread.start()
        self._finished = threading.Lock()
        self._done = False
        self.results: dict | None = None
        self._prepared: threading.Thread | None = None  # prepare_end, once the server has spoken

    # ----- recording ---------------------------------------------------------------

    def put(self, direction: str, data: bytes, http: dict | None = None) -> None:
        """One message as forwarded: ``out`` host -> server, ``in`` server -> host."""
        self._queue.put((direction, data, http), len(data))

    def event(self, event: str, detail: str | None = None, http: dict | None = None) -> None:
        self._queue.put(("event", event, detail, http), 0)

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            try:
                if item[0] == "event":
                    self.log.record("event", event=item[1], detail=item[2], http=item[3])
                    self._derive()
                else:
                    self._record(*item)
                    if item[0] == "in" and self._prepared is None:
                        # after the server's first answer, not before: the proxy's and the
                        # server's start-up come first, the host waits on them
                        self._prepared = threading.Thread(target=prepare_end, args=(self.transport,),
                                                          name="proxy-prepare-end", daemon=True)
                        self._prepared.start()
            except Exception as exc:  # the record must never stop the forwarding
                try:
                    self.log.entries.clear()
                    self.log.result_sizes.clear()
                    self.log.record("event", event="record-error", detail=f"{type(exc).__name__}: {exc}")
                    self._derive()
                except Exception:
                    pass

    def _derive(self, size: int | None = None) -> None:
        """Hand what the log just wrote to the deriver, and keep none of it in the log: the
        log's own list would hold every message of the session."""
        for entry in self.log.entries:
            message = entry.get("message")
            result = message.get("result") if isinstance(message, dict) else None
            known = self.log.result_sizes.get(id(result)) if result is not None else None
            self.deriver.add(entry, size=size if "message" in entry else None,
                             result_size=known[1] if known and known[0] is result else None)
        self.log.entries.clear()
        self.log.result_sizes.clear()

    def _record(self, direction: str, data: bytes, http: dict | None) -> None:
        text = data.rstrip(b"\r\n")
        if not text.strip():
            return
        decoded = decode_message(text)
        who = "the host" if direction == "out" else "the server"
        if decoded.message is None:
            self.log.record("event", event="violation", detail=f"{who} sent {decoded.reason}",
                            raw=decoded.raw, http=http)
            self._derive()
            return
        message = decoded.message
        era = None
        meta = (message.get("params") or {}).get("_meta") if isinstance(message.get("params"), dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(META_VERSION), str):
            era = meta[META_VERSION]
        seq = self.log.record(direction, message=message, http=http, era=era)
        self._derive(len(text))
        for flaw in decoded.flaws or ():  # read, but not proper JSON (NaN, a key twice)
            self.log.record("event", event="violation", detail=f"message #{seq} from {who}: {flaw}", http=http)
            self._derive()
        result = message.get("result")
        if direction == "in" and isinstance(result, dict) and isinstance(result.get("protocolVersion"), str) \
                and "serverInfo" in result:  # an initialize result: later legacy messages speak this
            self.log.era = result["protocolVersion"]

    # ----- completion --------------------------------------------------------------

    def finish(self, *, ended_by: str, interrupted: bool = False) -> dict:
        """Stop recording and write the completed run folder (once)."""
        with self._finished:
            if self._done:
                return self.results or {}
            self._done = True
            self._queue.put(_STOP)
            self._thread.join(timeout=30)
            if self._prepared is not None:
                self._prepared.join(timeout=30)  # the same imports: done once
            self.log.record("event", event="peak-rss", detail=f"{_peak_rss_kib()} KiB: the proxy's own "
                            "largest resident memory (the server's is not counted)")
            self.log.record("event", event="proxy-end", detail=ended_by)
            self._derive()
            self.log.close()
            self.results = write_results(self.folder, self.deriver, transport=self.transport,
                                         started=self.started, redactor=self.redactor,
                                         given=self.given, interrupted=interrupted)
            return self.results


def write_results(folder: Path, recorded: "derive.Deriver | list[dict]", *, transport: str, started: str,
                  redactor: Redactor, given: dict | None = None, interrupted: bool = False) -> dict:
    """``host.json``, the host rows' evidence, ``results.json`` and ``sheet.md``, from a
    deriver fed the whole recording (or the list of its wire entries)."""
    from mcp_accept.output.results_writer import write_results as write_run_results

    host, evidence, results = compose(folder, recorded, transport=transport, started=started, given=given,
                                      interrupted=interrupted)
    atomic_write_json(folder / "host.json", host, redactor)
    return write_run_results(folder, results, row_files=evidence.items(), redactor=redactor)


def compose(folder: Path, recorded: "derive.Deriver | list[dict]", *, transport: str, started: str,
            given: dict | None = None, interrupted: bool = False) -> tuple[dict, dict[str, dict], dict]:
    """What :func:`write_results` writes: ``host.json``'s body, each row's evidence file by
    its path in the folder, and the results."""
    from mcp_accept.checks.base import PENDING
    from mcp_accept.running.execute import merge_conditions
    from mcp_accept.output.results_writer import assemble
    from mcp_accept.inputs.profile import load_profile
    from mcp_accept.inputs.sheet import load_sheet

    if not isinstance(recorded, derive.Deriver):
        deriver = derive.Deriver(transport)
        for entry in recorded:
            deriver.add(entry)
        recorded = deriver
    facts = recorded.facts()
    observed = derive.conditions(facts)
    refused = _credential_like(observed)
    observed.update({"executed_at_utc": started, "evidence_path_or_id": Path(folder).resolve().name})  # as a run: the folder, not where it lay
    conditions = merge_conditions(observed, given or {}, None)
    seqs = derive.condition_seqs(facts)
    host = {"wire_log": "wire.jsonl",
            "conditions": {k: {"value": v, "seqs": seqs.get(k, [])} for k, v in observed.items()},
            "refused_conditions": refused, "facts": facts}

    rows_facts = derive.host_rows(facts)
    sheet = load_sheet()
    rows = []
    evidence_files: dict[str, dict] = {}
    for row in sheet.rows:
        if row.automated:
            continue  # a proxy drives nothing: only the observation rows belong to it
        entry = {"id": row.id, "kind": row.kind, "title": row.title, "status": PENDING,
                 "reason": None, "evidence": None, "filled_by": "runner"}
        found = rows_facts.get(row.id)
        if found is not None:
            evidence = f"rows/{row.id}.json"
            messages = [recorded.kept[seq] for seq in found["seqs"] if seq in recorded.kept]
            evidence_files[evidence] = {
                "id": row.id, "status": PENDING, "reason": found["reason"], "source": "proxy",
                "observed": found["observed"], "seqs": found["seqs"], "wire_log": "wire.jsonl",
                "messages": messages}
            entry.update(reason=found["reason"], evidence=evidence,
                         observed={"mode": "proxy", **found["observed"], "seqs": found["seqs"]})
        rows.append(entry)
    results = assemble(sheet=sheet, profile=load_profile(), conditions=conditions, rows=rows,
                       schemas=[], started_at=started, finished_at=utc_now(), interrupted=interrupted)
    return host, evidence_files, results


def prepare_end(transport: str) -> None:
    """Do the end's work once on an empty recording, writing nothing: its modules imported,
    the sheet read, the template compiled. A host waits for the proxy to end (Claude Code
    sends SIGINT and polls for the process to go), and these would otherwise take about
    0.2 s of that wait; during the session the proxy mostly waits for its peers."""
    from mcp_accept.output.render import render_run

    try:
        _host, _evidence, results = compose(Path("proxy"), derive.Deriver(transport), transport=transport,
                                            started=utc_now())
        render_run(results, lang=(results.get("sheet") or {}).get("lang") or "en")
    except Exception:  # the end does the same work again, and reports what fails there
        pass


def _credential_like(observed: dict) -> dict:
    """Drop (and name) any value from the wire that looks like a credential: no condition
    may hold one (results.json would be refused), whoever sent it."""
    from mcp_accept.evidence.credentials import looks_like_credential

    refused = {}
    for key, value in list(observed.items()):
        kind = looks_like_credential(value) if isinstance(value, str) else None
        if kind:
            del observed[key]
            refused[key] = f"looks like {kind}: not recorded"
    return refused


def _peak_rss_kib() -> int:
    """This process's largest resident set so far, in KiB. Linux's VmHWM belongs to the process's
    own memory map; ``ru_maxrss`` is kept across ``execve`` and so would count whatever process
    forked this one (a large test runner, a host), and is the fallback elsewhere only."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak
