"""``mcp-accept rerun RUN_DIR``: the run a folder records, run again with the same inputs.

Everything comes from the folder's ``invocation`` record (mcp_accept.running.invocation): the
server command or URL, the options, and the profile, sheet and conditions file as they were
then, written to a temporary folder, so that a profile edited since does not change what is
repeated. A shipped sheet is the one this mcp-accept ships. Header values were never recorded:
each is read again from the environment variable it came from, or must be given again with
``--header``; a URL or command whose secret was masked must be given again the same way. The
server is given the environment it was (``--inherit-env``, each ``--env NAME`` read again), a
value set with ``--env NAME=VALUE`` given again.
A run recorded with the sdk layer on is repeated with it on; ``--sdk``/``--no-sdk`` decide
instead when given (else ``MCP_ACCEPT_SDK``, as for a run).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mcp_accept.data import data_path
from mcp_accept.errors import InputError
from mcp_accept.evidence.redaction import REDACTED
from mcp_accept.running.execute import RunOptions, RunOutcome, run
from mcp_accept.running.invocation import sha256


@dataclass
class RerunOutcome:
    outcome: RunOutcome
    warnings: list[str] = field(default_factory=list)


def read_invocation(run_dir: Path) -> tuple[dict, Path]:
    """The folder's invocation record and its results.json; InputError when there is none."""
    from mcp_accept.inputs.results import validate_results

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputError("no such run folder", file=str(run_dir), field="RUN_DIR")
    path = run_dir / "results.json"
    if not os.path.lexists(path):  # a link or FIFO there is named by validate_results
        hint = ""
        if (run_dir / "all.json").is_file() or (run_dir / "fleet.json").is_file():
            hint = " (a --protocol all or --targets folder: rerun one of the run folders inside it)"
        raise InputError(f"not a run folder written by mcp-accept: it holds no results.json{hint}",
                         file=str(run_dir), field="RUN_DIR")
    results = validate_results(path)
    invocation = results.get("invocation")
    if not isinstance(invocation, dict):
        raise InputError("the run records no invocation (written by an older mcp-accept, or by "
                         "proxy, observe or host test rather than run), so it cannot be repeated",
                         file=str(path), field="invocation")
    return invocation, path


def _check_content(text: str, record: dict, what: str, shown: str) -> bytes:
    data = text.encode("utf-8")
    if record.get("sha256") not in (sha256(data), sha256(b"\xef\xbb\xbf" + data)):
        raise InputError(f"the recorded {what} does not match its SHA-256 (edited by hand, or a secret "
                         "in it was masked): it cannot be repeated as it was", file=shown,
                         field=f"invocation.{what.replace(' ', '_')}.content")
    return data


def _levels_up(written: str) -> int:
    """How far above the profile's folder a relative ``reference_file`` reaches."""
    depth = lowest = 0
    for part in Path(written).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        lowest = min(lowest, depth)
    return -lowest


def _write_profile(record: dict, root: Path, shown: str) -> Path:
    """The recorded profile, and the reference files it names, at the same places relative to
    each other; a reference kept by hash only is read from where it was, if unchanged."""
    data = _check_content(record.get("content") or "", record, "profile", shown)
    references = record.get("references") or []
    relative = [ref for ref in references if not Path(ref["path"]).is_absolute()]
    ups = max([_levels_up(ref["path"]) for ref in relative] or [0])
    folder = root.joinpath("profile", *(["up"] * ups))
    folder.mkdir(parents=True)
    target = folder / (Path(record["path"]).name or "profile.yaml")
    target.write_bytes(data)
    original = None if record.get("shipped") else Path(record["path"]).parent
    for ref in references:
        where = f"invocation.profile.references ({ref['path']})"
        if "content" in ref:
            body = ref["content"].encode("utf-8")
        elif "base64" in ref:
            body = base64.b64decode(ref["base64"])
        else:  # too large to keep: the file where the run read it, if it is still the same
            source = Path(ref["path"]) if Path(ref["path"]).is_absolute() else (original or Path()) / ref["path"]
            try:
                body = source.read_bytes()
            except OSError as exc:
                raise InputError(f"the reference file was kept by hash only and cannot be read now: "
                                 f"{exc.strerror or exc}", file=str(source), field=where) from None
        if sha256(body) != ref.get("sha256"):
            raise InputError("the reference file differs from the one the run read (SHA-256)",
                             file=shown, field=where)
        if Path(ref["path"]).is_absolute():
            continue  # the profile names it where it is; the hash above says it is the same
        place = (folder / ref["path"]).resolve()
        place.parent.mkdir(parents=True, exist_ok=True)
        place.write_bytes(body)
    return target


def _write_file(record: dict, root: Path, kind: str, shown: str) -> Path:
    folder = root / kind
    folder.mkdir()
    target = folder / (Path(record["path"]).name or f"{kind}.yaml")
    target.write_bytes(_check_content(record.get("content") or "", record, kind, shown))
    return target


def _sheet(record: dict, root: Path, shown: str, warnings: list[str]) -> Path:
    if not record.get("shipped"):
        return _write_file(record, root, "sheet", shown)
    path = data_path("sheets", record["path"])
    try:
        now = sha256(path.read_bytes())
    except OSError:
        raise InputError(f"the run used the shipped sheet {record['path']}, which this mcp-accept "
                         "does not ship", file=shown, field="invocation.sheet.path") from None
    if now != record.get("sha256"):
        warnings.append(f"the shipped sheet {record['path']} has changed since the run (another "
                        "mcp-accept version): the rerun uses this version's")
    return path


def _target(recorded: dict, server: str | None, url: str | None, shown: str) -> tuple[str | None, str | None]:
    """The command and URL to use: as recorded, or given again where a secret was masked."""
    out = []
    for name, given in (("server", server), ("url", url)):
        value = recorded.get(name)
        if given is not None:
            if value is None:
                raise InputError(f"the run had no --{name}: a rerun repeats its target", field=f"--{name}")
            value = given
        elif value is not None and REDACTED in value:
            raise InputError(f"the recorded --{name} had a secret masked: give it again with --{name}",
                             file=shown, field=f"invocation.target.{name}")
        out.append(value)
    return out[0], out[1]


def _headers(recorded: list[dict], given: list[str]) -> list[str]:
    """``--header`` items for the rerun: each recorded name, from ``given`` or from the
    environment variable it was read from; a value nobody recorded must be given again."""
    by_name = {}
    for item in given:
        name = item.partition(":")[0].strip()
        by_name[name.lower()] = item
    names = {str(entry.get("name", "")).lower() for entry in recorded}
    for name in by_name:
        if name not in names:
            raise InputError(f"the run sent no header {name}: a rerun sends the headers it sent",
                             field="--header")
    out = []
    for entry in recorded:
        name = entry.get("name", "")
        if name.lower() in by_name:
            out.append(by_name[name.lower()])
        elif entry.get("env"):
            out.append(f"{name}: env:{entry['env']}")
        else:
            raise InputError(f"the run sent the header {name}, whose value is never recorded: give it "
                             f"again with --header \"{name}: VALUE\" (or \"{name}: env:VAR\")",
                             field="--header")
    return out


def _env(recorded: dict | None, given: list[str]) -> tuple[list[str], bool]:
    """``--env`` items and ``--inherit-env`` for the rerun: the server is given what it was, the
    variables passed by name read again from this environment, and each value set with
    ``--env NAME=VALUE`` (never recorded) given again."""
    recorded = recorded or {}
    passed, set_ = list(recorded.get("passed") or []), list(recorded.get("set") or [])
    by_name = {item.partition("=")[0]: item for item in given}
    for name, item in by_name.items():
        if name not in set_ and name not in passed:
            raise InputError(f"the run gave its server no variable {name}: a rerun gives it what it had",
                             field="--env")
        if name in set_ and "=" not in item:
            raise InputError(f"the run set {name} to a value: give it again as {name}=VALUE", field="--env")
    items = [by_name.get(name, name) for name in passed]
    for name in set_:
        if name not in by_name:
            raise InputError(f"the run set the server's variable {name}, whose value is never recorded: "
                             f"give it again with --env {name}=VALUE", field="--env")
        items.append(by_name[name])
    return items, bool(recorded.get("inherited"))


def _recorded_baseline(results_path: Path) -> dict | None:
    """The baseline a run was judged with: the file it was given as and its entries (row, check,
    reason), from its results.json; None when it had none."""
    try:
        recorded = json.loads(results_path.read_text(encoding="utf-8")).get("baseline")
    except (OSError, ValueError):
        return None
    if not isinstance(recorded, dict) or not isinstance(recorded.get("entries"), list):
        return None
    entries = [{key: e[key] for key in ("row", "check", "reason") if key in e}
               for e in recorded["entries"] if isinstance(e, dict)]
    return {"file": str(recorded.get("file") or "baseline"), "entries": entries}


def rerun(run_dir: Path, *, out: Path | None = None, headers: list[str] = (), url: str | None = None,
          server: str | None = None, sdk: bool | None = None, env: list[str] = ()) -> RerunOutcome:
    """Run again what ``run_dir`` records, into ``out`` (default: a new folder). Raises InputError."""
    from mcp_accept.inputs.results import invocation_differences

    invocation, results_path = read_invocation(Path(run_dir))
    shown = str(results_path)
    if out is not None and out.resolve() == Path(run_dir).resolve():
        raise InputError("a rerun writes a folder of its own: the one it repeats is kept as it was",
                         field="--out")
    target = invocation.get("target") or {}
    server, url = _target(target, server, url, shown)
    header_items = _headers(target.get("headers") or [], list(headers))
    env_items, inherit_env = _env(target.get("environment"), list(env))
    options = invocation.get("options") or {}
    warnings: list[str] = []
    cwd = None
    if server and target.get("working_dir"):
        cwd = Path(target["working_dir"])
        if not cwd.is_dir():
            warnings.append(f"the folder the server ran in, {cwd}, is gone: it starts in this one")
            cwd = None
    with tempfile.TemporaryDirectory(prefix="mcp-accept-rerun-") as scratch:
        root = Path(scratch)
        profile_record = invocation["profile"]
        recorded_as = {"rerun_of": str(Path(run_dir).resolve()),
                       "profile": profile_record, "sheet": invocation["sheet"]}
        conditions = None
        if invocation.get("conditions_file"):
            conditions = _write_file(invocation["conditions_file"], root, "conditions", shown)
            recorded_as["conditions"] = invocation["conditions_file"]
        # the expected failures the run was judged with, as the run recorded them
        baseline = None
        recorded_baseline = _recorded_baseline(results_path)
        if recorded_baseline is not None:
            baseline = root / "baseline.json"
            baseline.write_text(json.dumps({"expected_failures": recorded_baseline["entries"]}), encoding="utf-8")
            recorded_as["baseline"] = recorded_baseline["file"]
        opts = RunOptions(
            server=server, url=url, headers=header_items, out=out, cwd=cwd,
            env=env_items, inherit_env=inherit_env,
            profile=_write_profile(profile_record, root, shown),
            sheet=_sheet(invocation["sheet"], root, shown, warnings),
            conditions=conditions,
            protocol=options.get("protocol", "auto"), fail_on=options.get("fail_on", "profile"),
            timeout=options.get("timeout", 10.0), run_timeout=options.get("run_timeout", 300.0),
            max_bytes=options.get("max_bytes", RunOptions.max_bytes),
            max_rounds=options.get("max_rounds", 5), sets=list(options.get("sets") or []),
            offline=bool(options.get("offline")),
            schema_dir=Path(options["schema_dir"]) if options.get("schema_dir") else None,
            lang=options.get("lang", "en"), recorded_as=recorded_as, baseline=baseline,
            # a recorded off is the default, which MCP_ACCEPT_SDK may change as for any run
            sdk=sdk if sdk is not None else (True if options.get("sdk") is True else None))
        outcome = run(opts)
    differing = invocation_differences(invocation, outcome.results.get("invocation"))
    if differing:
        warnings.append(f"the rerun's inputs differ from the recorded ones: {', '.join(differing)}")
    return RerunOutcome(outcome, warnings)
