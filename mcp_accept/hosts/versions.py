"""A published version of a host, ``HOST@VERSION``: installed from the host's own registry into
a cache of mcp-accept's own, reused by every later run, and never into the user's project or
global packages.

The cache is ``--host-cache``, else ``$MCP_ACCEPT_HOST_CACHE``, else ``mcp-accept/hosts/`` in the
user's cache folder (platformdirs). Each version lives in ``CACHE/HOST/VERSION/``, with its
lock ``CACHE/HOST/.VERSION.lock`` and the mark of its last use ``CACHE/HOST/.VERSION.used``:

* an npm host is ``npm install --prefix DIR --no-audit --no-fund PACKAGE@VERSION``, made in a
  folder of its own beside it and renamed into place whole, so a run that finds the folder
  finds it complete, and two installs of the same version at once leave one of them;
* a PyPI host is a virtual environment with ``PACKAGE==VERSION``: its scripts name the
  environment's own path, so it cannot be renamed; it is made in place while a lock is held,
  and counts only once its ``installed`` mark is written;
* an agent framework is its package at VERSION and the packages its driver imports beside it
  (``HostAdapter.companions``): a Python one in a virtual environment, the companions unpinned so
  that pip's resolver, which backtracks, picks versions the framework's own declared ranges admit
  (:meth:`HostAdapter.requirements`); a JavaScript one in an npm folder, each companion pinned to
  the version the registry's manifests say goes with VERSION (:func:`npm_companions`: npm's
  resolver does not go back to an older version of a package whose peer range refuses another,
  it stops with ERESOLVE), npm then checking every peer range as it installs. A version older
  than the oldest its driver runs is refused before anything is installed
  (:meth:`HostAdapter.too_old`, :class:`HostTooOld`).

The cache is bounded (``--host-cache-max``, else ``$MCP_ACCEPT_HOST_CACHE_MAX``, else 5 GiB,
sizes counted by walking the folders): once an install is made, the versions least recently used
are removed until the cache is within it, never the version just installed and never one in
use, which a run holds a shared lock on for as long as it runs (:func:`in_use`). The registry
clients' own download caches are made per install and removed after it, so the cache holds only
installed versions.

An install that fails (no network, no such version) is :class:`HostInstallFailed`, one line; a
run with no network reaches only the versions already in the cache.

``--range A..B`` is read from the registry's own list of published versions
(:func:`versions_in_range`): npm's ``npm view PACKAGE versions --json``, already in semver order
(npm sorts them with its own ``semver.compareLoose``, lib/commands/view.js), or PyPI's JSON API
(``/pypi/NAME/json``), ordered by :mod:`packaging.version` (PEP 440).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mcp_accept.errors import InputError, ServerError
from mcp_accept.evidence.files import make_folder
from mcp_accept.hosts.adapters.base import HostAdapter

CACHE_ENV = "MCP_ACCEPT_HOST_CACHE"
CACHE_MAX_ENV = "MCP_ACCEPT_HOST_CACHE_MAX"
CACHE_MAX = 5 << 30  # 5 GiB: some fifty npm installs of an agent host
INSTALL_TIMEOUT = 600.0
MARK = "installed"  # a PyPI host's environment is complete once this file exists
# a version as registries spell it (semver, PEP 440): never a path or an option
VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}")


PYPI_JSON = "https://pypi.org/pypi/{name}/json"  # the JSON API: https://docs.pypi.org/api/json/
LIST_TIMEOUT = 60.0
MAX_VERSIONS = 12  # a --range over more than this is refused unless bisected


class HostInstallFailed(ServerError):
    """The version asked for could not be installed: the run did not happen (exit 3)."""


class RegistryUnreachable(ServerError):
    """The registry's list of published versions could not be read (exit 3)."""


class HostTooOld(InputError):
    """The version asked for is older than the oldest its adapter runs (exit 2): nothing was installed."""

    def __init__(self, message: str):
        super().__init__(message, field="HOST")


def split_host(text: str, field: str = "HOST") -> tuple[str, str | None]:
    """``HOST`` or ``HOST@VERSION`` as (host, version or None), the version checked."""
    name, at, version = text.partition("@")
    if not at:
        return text, None
    if not VERSION.fullmatch(version):
        raise InputError(f"the version after @ must be a published version such as 2.0.21 (found {text!r})",
                         field=field)
    return name, version


def cache_root(given: str | None = None) -> Path:
    if given:
        return Path(given).absolute()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).absolute()
    import platformdirs

    return Path(platformdirs.user_cache_dir("mcp-accept")) / "hosts"


def cached_binary(adapter: HostAdapter, version: str, cache: Path) -> Path | None:
    """The host's program in the cache, if that version is installed there whole."""
    place = cache / adapter.name / version
    if adapter.pypi_package and not (place / MARK).is_file():
        return None
    return adapter.installed_in(place)


@contextmanager
def in_use(adapter: HostAdapter, version: str, cache: Path, say=None, limit: int | None = None):
    """The program of ``adapter``'s host at ``version`` (installed unless there), with a shared
    lock on the version held until the block ends: a bound of the cache made meanwhile leaves
    it alone."""
    for _ in range(3):
        binary = installed(adapter, version, cache, say, limit)
        with open(cache / adapter.name / f".{version}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_SH)
            # removed between the install and the lock (another bound): installed again
            if cached_binary(adapter, version, cache) is not None:
                _mark_used(cache / adapter.name, version)
                yield binary
                return
    raise HostInstallFailed(f"{adapter.product} {version} was removed from the host cache {cache} as often as it "
                            "was installed: raise --host-cache-max")


def _mark_used(folder: Path, version: str) -> None:
    mark = folder / f".{version}.used"
    mark.touch()
    os.utime(mark)


def installed(adapter: HostAdapter, version: str, cache: Path, say=None, limit: int | None = None) -> str:
    """The program of ``adapter``'s host at ``version``, installed into ``cache`` unless there;
    a new install bounds the cache to ``limit`` bytes (None: :func:`cache_max`)."""
    found = cached_binary(adapter, version, cache)
    if found is not None:
        return str(found)
    if not adapter.npm_package and not adapter.pypi_package:
        raise InputError(f"{adapter.product} is not published in a registry: give --host-bin instead of "
                         f"@{version}", field="HOST")
    why = adapter.too_old(version)
    if why:
        raise HostTooOld(why)
    folder = cache / adapter.name
    make_folder(folder, "--host-cache", "make the host cache")
    if say:
        what = adapter.npm_package or adapter.pypi_package
        beside = f" (with {', '.join(adapter.companions)})" if adapter.companions else ""
        say(f"installing {what}@{version}{beside} from {'npm' if adapter.npm_package else 'PyPI'} into "
            f"{folder / version}")
    with open(folder / f".{version}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install of a version at a time; the next finds it made
        found = cached_binary(adapter, version, cache)
        if found is None:
            if adapter.npm_package:
                _npm_install(adapter, version, folder)
            else:
                _pypi_install(adapter, version, folder)
            found = cached_binary(adapter, version, cache)
            if found is not None:
                _mark_used(folder, version)
    if found is not None:
        bound_cache(cache, cache_max() if limit is None else limit, keep=folder / version, say=say)
    if found is None:
        raise HostInstallFailed(f"{adapter.product} {version} was installed into {folder / version} but "
                                f"has no program {adapter.installed_binary(folder / version).name}")
    return str(found)


def _failed(adapter: HostAdapter, version: str, registry: str, done: subprocess.CompletedProcess | None,
            why: str | None = None) -> HostInstallFailed:
    """One line: which version could not be installed, and the installer's own first error."""
    if why is None:
        lines = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
        # npm's first lines name an error code only; the line after says what was not found
        errors = [line for line in lines if re.match(r"(npm (error|ERR!)|ERROR:)", line)
                  and not re.match(r"npm (error|ERR!) (code|errno) ", line) and "complete log" not in line]
        why = (errors or lines or [f"exit {done.returncode}"])[0]
    return HostInstallFailed(f"{adapter.product} {version} could not be installed from {registry} "
                             f"(the host run did not happen): {why[:300]}")


@contextmanager
def _installer_env(cache: Path):
    """The environment of npm or pip: their download caches and logs in a folder of the host
    cache of this install's own, removed after it (not in the user's HOME, and not kept: the
    cache holds installed versions only, within its bound)."""
    cache.mkdir(parents=True, exist_ok=True)
    downloads = Path(tempfile.mkdtemp(prefix=".downloads-", dir=cache))
    # devdir: node-gyp, building a package's native addon (Gemini CLI's node-pty), else keeps
    # Node's headers in ~/.cache/node-gyp (node-gyp's README, "--devdir")
    env = dict(os.environ, npm_config_cache=str(downloads / "npm"), PIP_CACHE_DIR=str(downloads / "pip"),
               npm_config_devdir=str(downloads / "node-gyp"), npm_config_update_notifier="false")
    # pip asks `rustc --version` for its user agent (pip/_internal/network/session.py); where
    # rustc is rustup's shim and the user has no ~/.rustup, the shim makes one: pointed here, at
    # a folder removed after the install, it finds no toolchain, which was not there to find
    if "RUSTUP_HOME" not in env and not (Path.home() / ".rustup").exists():
        env["RUSTUP_HOME"] = str(downloads / "rustup")
    try:
        yield env
    finally:
        shutil.rmtree(downloads, ignore_errors=True)


def _run(argv: list[str], adapter: HostAdapter, version: str, registry: str, env: dict) -> str:
    """What ``argv`` printed on stdout; a failure is :class:`HostInstallFailed`, one line."""
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT, env=env)
    except FileNotFoundError:
        raise _failed(adapter, version, registry, None, f"{argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise _failed(adapter, version, registry, None, f"no answer in {INSTALL_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        raise _failed(adapter, version, registry, done)
    return done.stdout


def _npm_view(spec: str, fields: list[str], adapter: HostAdapter, version: str, env: dict) -> list[dict]:
    """``npm view SPEC FIELDS --json``, one object per version SPEC matches (none: an empty list)."""
    import json

    # a registry that does not answer is said at once rather than after npm's default retries
    out = _run(["npm", "view", spec, *fields, "--json", "--fetch-retries=1"], adapter, version, "npm", env)
    try:
        found = json.loads(out) if out.strip() else []
    except ValueError:
        raise _failed(adapter, version, "npm", None, f"npm view {spec} did not answer JSON") from None
    found = found if isinstance(found, list) else [found]
    # one field asked for is answered as its bare value, not an object of it
    return [item if isinstance(item, dict) else {fields[0]: item} for item in found]


def _semver_key(text: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def npm_companions(adapter: HostAdapter, version: str, env: dict) -> list[str]:
    """Each of ``adapter.companions`` pinned to the version that goes with the framework's package
    at ``version``, as the registry's manifests say:

    * by a dependency they share (``companions_by`` names it): a monorepo that releases its
      packages together pins in each release the same version of the package they are all built
      on (the Vercel AI SDK: ``@ai-sdk/provider-utils``, exact, in ``ai``, ``@ai-sdk/mcp`` and
      ``@ai-sdk/openai``); each companion is taken at its newest version built on the same major
      of it and on no later a version than the framework's own;
    * by peer dependency (``companions_by`` empty): each companion at its newest version whose
      peer range on the framework's package admits ``version``, the range read by npm itself
      (``npm view PACKAGE@RANGE version`` lists the versions it admits).

    Only stable companion versions are taken (``npm view "PACKAGE@>=0.0.0"``; ``@*`` names the latest alone), newest by semver."""
    main = adapter.npm_package
    manifest = _npm_view(f"{main}@{version}", ["version", "dependencies"], adapter, version, env)
    if not manifest:
        raise _failed(adapter, version, "npm", None, f"No matching version found for {main}@{version}")
    pins = []
    admitted: dict[str, bool] = {}
    for companion in adapter.companions:
        published = _npm_view(f"{companion}@>=0.0.0", ["version", "dependencies", "peerDependencies"], adapter, version,
                              env)
        published = sorted((e for e in published if _semver_key(str(e.get("version"))) is not None),
                           key=lambda e: _semver_key(e["version"]), reverse=True)
        chosen = None
        if adapter.companions_by:
            shared = adapter.companions_by
            ours = _semver_key(re.sub(r"^[\^~=v ]+", "", (manifest[0].get("dependencies") or {}).get(shared, "")))
            if ours is None:
                raise _failed(adapter, version, "npm", None, f"{main}@{version} names no exact {shared} to choose "
                              f"{companion} by")
            for entry in published:
                theirs = _semver_key(re.sub(r"^[\^~=v ]+", "", (entry.get("dependencies") or {}).get(shared, "")))
                if theirs is not None and theirs.major == ours.major and theirs <= ours:
                    chosen = entry["version"]
                    break
            how = f"built on {shared} {ours} or earlier of its major"
        else:
            for entry in published:
                peer = (entry.get("peerDependencies") or {}).get(main)
                if peer is None:
                    continue
                if peer not in admitted:
                    versions = _npm_view(f"{main}@{peer}", ["version"], adapter, version, env)
                    admitted[peer] = version in {str(v.get("version")) for v in versions}
                if admitted[peer]:
                    chosen = entry["version"]
                    break
            how = f"whose peer range on {main} admits {version}"
        if chosen is None:
            raise _failed(adapter, version, "npm", None, f"no published version of {companion} {how}")
        pins.append(f"{companion}@{chosen}")
    return pins


def _npm_install(adapter: HostAdapter, version: str, folder: Path) -> None:
    temp = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=folder))
    try:
        with _installer_env(folder.parent) as env:
            beside = npm_companions(adapter, version, env) if adapter.companions else []
            _run(["npm", "install", "--prefix", str(temp), "--no-audit", "--no-fund", "--fetch-retries=1",
                  f"{adapter.npm_package}@{version}", *beside], adapter, version, "npm", env)
        os.rename(temp, folder / version)  # whole or absent: a run never sees half an install
    except OSError as exc:
        if not (folder / version).exists():
            raise HostInstallFailed(f"cannot move the install into {folder / version}: {exc.strerror or exc}") \
                from None
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _pypi_install(adapter: HostAdapter, version: str, folder: Path) -> None:
    place = folder / version
    shutil.rmtree(place, ignore_errors=True)  # an install stopped halfway, without its mark
    wanted = adapter.requirements(version)
    with _installer_env(folder.parent) as env:
        _run([sys.executable, "-m", "venv", str(place)], adapter, version, "PyPI", env)
        _run([str(place / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
              # a wheel, even of an older version, rather than a build from source: a build runs
              # the user's compilers and toolchains, which write to their HOME
              "--prefer-binary",
              *wanted], adapter, version, "PyPI", env)
    (place / MARK).write_text("".join(f"{line}\n" for line in wanted), encoding="utf-8")


def published_versions(adapter: HostAdapter, cache: Path, timeout: float = LIST_TIMEOUT) -> list[str]:
    """Every version of ``adapter``'s host its registry has published, earliest first."""
    if adapter.npm_package:
        return _npm_versions(adapter, cache, timeout)
    if adapter.pypi_package:
        return _pypi_versions(adapter, timeout)
    raise InputError(f"{adapter.product} is not published in a registry: it has no versions to run", field="HOST")


def _npm_versions(adapter: HostAdapter, cache: Path, timeout: float) -> list[str]:
    import json

    argv = ["npm", "view", adapter.npm_package, "versions", "--json", "--fetch-retries=1"]
    try:
        with _installer_env(cache) as env:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
                                  env=env)
    except FileNotFoundError:
        raise RegistryUnreachable(f"cannot list {adapter.npm_package}'s versions: npm is not installed") from None
    except subprocess.TimeoutExpired:
        raise RegistryUnreachable(f"cannot list {adapter.npm_package}'s versions: npm had no answer from the "
                                  f"registry in {timeout:.0f} s") from None
    try:
        found = json.loads(done.stdout)
    except ValueError:
        found = None
    if done.returncode != 0 or found is None:
        # with --json npm says its error as JSON on stdout: {"error": {"code", "summary"}}
        error = found.get("error") if isinstance(found, dict) else None
        lines = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
        why = (f"{error.get('code')}: {error.get('summary')}" if isinstance(error, dict)
               else (lines or [f"exit {done.returncode}"])[0])
        raise RegistryUnreachable(f"cannot list {adapter.npm_package}'s versions from npm: {why[:300]}")
    return [found] if isinstance(found, str) else [v for v in found if isinstance(v, str)]


def _pypi_versions(adapter: HostAdapter, timeout: float) -> list[str]:
    import httpx
    from packaging.version import InvalidVersion, Version

    url = PYPI_JSON.format(name=adapter.pypi_package)
    try:
        answer = httpx.get(url, timeout=timeout, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise RegistryUnreachable(f"cannot list {adapter.pypi_package}'s versions from PyPI: {exc}") from None
    if answer.status_code != 200:
        raise RegistryUnreachable(f"cannot list {adapter.pypi_package}'s versions from PyPI: {url} answered "
                                  f"{answer.status_code}")
    try:
        releases = answer.json().get("releases") or {}
    except ValueError:
        raise RegistryUnreachable(f"{url} did not answer JSON") from None
    out = []
    for text, files in releases.items():
        # a release with no files, or whose every file is yanked, cannot be installed
        if not files or all(f.get("yanked") for f in files if isinstance(f, dict)):
            continue
        try:
            out.append((Version(text), text))
        except InvalidVersion:
            continue
    return [text for _, text in sorted(out)]


def _prerelease(adapter: HostAdapter, version: str) -> bool:
    if adapter.pypi_package and not adapter.npm_package:
        from packaging.version import Version

        return Version(version).is_prerelease
    return bool(re.match(r"v?\d+\.\d+\.\d+-", version))  # semver: a hyphen after x.y.z


def split_range(text: str) -> tuple[str, str]:
    """``A..B`` as (A, B), each checked as a version."""
    first, dots, last = text.partition("..")
    if not dots or not VERSION.fullmatch(first) or not VERSION.fullmatch(last) or first == last:
        raise InputError(f"must be two published versions A..B, the earlier first, such as 2.0.19..2.0.22 "
                         f"(found {text!r})", field="--range")
    return first, last


def versions_in_range(adapter: HostAdapter, text: str, cache: Path, limit: int | None = MAX_VERSIONS) -> list[str]:
    """The published versions from A to B of ``--range A..B``, both included, in the registry's
    order: stable releases only, unless a bound is itself a pre-release. More than ``limit`` is
    refused (None: any number, as bisection runs only a few)."""
    first, last = split_range(text)
    published = published_versions(adapter, cache)
    what = adapter.npm_package or adapter.pypi_package
    registry = "npm" if adapter.npm_package else "PyPI"
    for bound in (first, last):
        if bound not in published:
            raise InputError(f"{what} has no version {bound} published on {registry} (its versions run from "
                             f"{published[0] if published else '-'} to {published[-1] if published else '-'})",
                             field="--range")
    start, end = published.index(first), published.index(last)
    if start > end:
        raise InputError(f"{first} comes after {last} in {registry}'s order: give the earlier version first "
                         f"({last}..{first})", field="--range")
    pre = _prerelease(adapter, first) or _prerelease(adapter, last)
    chosen = [v for v in published[start:end + 1] if pre or v in (first, last) or not _prerelease(adapter, v)]
    if limit is not None and len(chosen) > limit:
        raise InputError(f"{text} holds {len(chosen)} published versions, more than --max-versions {limit}: "
                         f"narrow it, raise --max-versions, or find where one cell changed with --bisect CELL "
                         f"(about {max(1, (len(chosen) - 1).bit_length()) + 2} runs)", field="--range")
    return chosen


def parse_size(text: str, field: str) -> int:
    """A size in bytes, with an optional unit: ``5GiB`` (1024-based), ``500MB`` or ``500M`` (1000-based)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(i?)b?|b)?\s*", text.lower())
    if not found:
        raise InputError(f"must be a size in bytes, optionally with a unit such as 500MiB or 5GiB (found {text!r})",
                         field=field)
    letter, binary = found.group(2), found.group(3)
    factor = (1024 if binary else 1000) ** ("kmgt".index(letter) + 1) if letter else 1
    return int(float(found.group(1)) * factor)


def cache_max(given: str | None = None) -> int:
    """The cache's bound in bytes: ``--host-cache-max``, else ``$MCP_ACCEPT_HOST_CACHE_MAX``, else 5 GiB."""
    if given:
        return parse_size(given, "--host-cache-max")
    if os.environ.get(CACHE_MAX_ENV):
        return parse_size(os.environ[CACHE_MAX_ENV], CACHE_MAX_ENV)
    return CACHE_MAX


@dataclass
class CachedVersion:
    host: str
    version: str
    path: Path
    size: int  # bytes of its files, counted by walking the folder (links not followed)
    last_used: float  # seconds since the epoch: its last run, else its install
    in_use: bool  # a run holds it now

    def as_json(self) -> dict:
        return {"host": self.host, "version": self.version, "path": str(self.path), "bytes": self.size,
                "last_used": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.last_used)),
                "in_use": self.in_use}


def folder_size(path: Path) -> int:
    total = 0
    for root, dirs, files in os.walk(path):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def _busy(folder: Path, version: str) -> bool:
    """Whether a run or an install holds the version's lock (its lock is free to take now)."""
    try:
        with open(folder / f".{version}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def cache_entries(cache: Path) -> list[CachedVersion]:
    """Every HOST/VERSION the cache holds, by host and then by last use, the earliest first."""
    out = []
    if not cache.is_dir():
        return out
    for host in sorted(p for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for place in host.iterdir():
            # a name that starts with a dot is an install under way, a lock or a use mark
            if place.name.startswith(".") or not place.is_dir() or place.is_symlink():
                continue
            mark = host / f".{place.name}.used"
            last = (mark if mark.exists() else place).stat().st_mtime
            out.append(CachedVersion(host.name, place.name, place, folder_size(place), last,
                                     _busy(host, place.name)))
    return sorted(out, key=lambda e: (e.host, e.last_used))


def remove_version(entry: CachedVersion) -> bool:
    """Remove one version from the cache, unless a run or an install holds it (False then).
    It is moved aside first, so no run finds half of it."""
    folder = entry.path.parent
    with open(folder / f".{entry.version}.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        aside = Path(tempfile.mkdtemp(prefix=f".{entry.version}-removed-", dir=folder))
        os.rename(entry.path, aside / "version")
        (folder / f".{entry.version}.used").unlink(missing_ok=True)
    # the lock file stays: a run waiting on it would otherwise hold a lock no later run sees
    shutil.rmtree(aside, ignore_errors=True)
    return True


def clear_cache(cache: Path, host: str | None = None, version: str | None = None) -> tuple[list, list]:
    """``host cache clear [HOST[@VERSION]]``: (removed, left because in use)."""
    removed, busy = [], []
    for entry in cache_entries(cache):
        if (host and entry.host != host) or (version and entry.version != version):
            continue
        (removed if remove_version(entry) else busy).append(entry)
    return removed, busy


def bound_cache(cache: Path, limit: int, keep: Path | None = None, say=None) -> list[CachedVersion]:
    """The least recently used versions removed until the cache holds ``limit`` bytes or less,
    never ``keep`` nor one in use; what was removed."""
    with open(cache / ".bound.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one bound at a time: two would count the same versions
        entries = cache_entries(cache)
        total = sum(e.size for e in entries)
        removed = []
        for entry in sorted(entries, key=lambda e: e.last_used):
            if total <= limit:
                break
            if entry.path == keep or entry.in_use or not remove_version(entry):
                continue
            total -= entry.size
            removed.append(entry)
    if removed and say:
        say(f"the host cache passed {limit} bytes: removed the least recently used "
            + ", ".join(f"{e.host}@{e.version}" for e in removed))
    return removed
