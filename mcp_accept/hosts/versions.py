"""A published version of a host, ``HOST@VERSION``: installed from the host's own registry into
a cache of mcp-accept's own, reused by every later run, and never into the user's project or
global packages.

The cache is ``--host-cache``, else ``$MCP_ACCEPT_HOST_CACHE``, else ``mcp-accept/hosts/`` in the
user's cache folder (platformdirs). Each version lives in ``CACHE/HOST/VERSION/``:

* an npm host is ``npm install --prefix DIR --no-audit --no-fund PACKAGE@VERSION``, made in a
  folder of its own beside it and renamed into place whole, so a run that finds the folder
  finds it complete, and two installs of the same version at once leave one of them;
* a PyPI host is a virtual environment with ``PACKAGE==VERSION``: its scripts name the
  environment's own path, so it cannot be renamed; it is made in place while a lock is held,
  and counts only once its ``installed`` mark is written.

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
from pathlib import Path

from mcp_accept.errors import InputError, ServerError
from mcp_accept.hosts.adapters.base import HostAdapter

CACHE_ENV = "MCP_ACCEPT_HOST_CACHE"
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
    binary = adapter.installed_binary(place)
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def installed(adapter: HostAdapter, version: str, cache: Path, say=None) -> str:
    """The program of ``adapter``'s host at ``version``, installed into ``cache`` unless there."""
    found = cached_binary(adapter, version, cache)
    if found is not None:
        return str(found)
    if not adapter.npm_package and not adapter.pypi_package:
        raise InputError(f"{adapter.product} is not published in a registry: give --host-bin instead of "
                         f"@{version}", field="HOST")
    folder = cache / adapter.name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the host cache: {exc.strerror or exc}", file=str(folder),
                         field="--host-cache") from None
    if say:
        what = adapter.npm_package or adapter.pypi_package
        say(f"installing {what}@{version} from {'npm' if adapter.npm_package else 'PyPI'} into {folder / version}")
    with open(folder / f".{version}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install of a version at a time; the next finds it made
        found = cached_binary(adapter, version, cache)
        if found is None:
            if adapter.npm_package:
                _npm_install(adapter, version, folder)
            else:
                _pypi_install(adapter, version, folder)
            found = cached_binary(adapter, version, cache)
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


def _run(argv: list[str], adapter: HostAdapter, version: str, registry: str, folder: Path) -> None:
    # the installers' download caches and logs are kept in the host cache too, not in the user's HOME
    downloads = folder.parent / ".downloads"
    env = dict(os.environ, npm_config_cache=str(downloads / "npm"), PIP_CACHE_DIR=str(downloads / "pip"),
               npm_config_update_notifier="false")
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT, env=env)
    except FileNotFoundError:
        raise _failed(adapter, version, registry, None, f"{argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise _failed(adapter, version, registry, None, f"no answer in {INSTALL_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        raise _failed(adapter, version, registry, done)


def _npm_install(adapter: HostAdapter, version: str, folder: Path) -> None:
    temp = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=folder))
    try:
        # a registry that does not answer is said at once rather than after npm's default retries
        _run(["npm", "install", "--prefix", str(temp), "--no-audit", "--no-fund", "--fetch-retries=1",
              f"{adapter.npm_package}@{version}"], adapter, version, "npm", folder)
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
    _run([sys.executable, "-m", "venv", str(place)], adapter, version, "PyPI", folder)
    _run([str(place / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
          f"{adapter.pypi_package}=={version}"], adapter, version, "PyPI", folder)
    (place / MARK).write_text(f"{adapter.pypi_package}=={version}\n", encoding="utf-8")


def published_versions(adapter: HostAdapter, cache: Path, timeout: float = LIST_TIMEOUT) -> list[str]:
    """Every version of ``adapter``'s host its registry has published, earliest first."""
    if adapter.npm_package:
        return _npm_versions(adapter, cache, timeout)
    if adapter.pypi_package:
        return _pypi_versions(adapter, timeout)
    raise InputError(f"{adapter.product} is not published in a registry: it has no versions to run", field="HOST")


def _npm_versions(adapter: HostAdapter, cache: Path, timeout: float) -> list[str]:
    import json

    env = dict(os.environ, npm_config_cache=str(cache / ".downloads" / "npm"), npm_config_update_notifier="false")
    argv = ["npm", "view", adapter.npm_package, "versions", "--json", "--fetch-retries=1"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, env=env)
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
