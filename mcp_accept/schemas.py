"""The official MCP schemas: pins, the bundled copies, the cache, and compiled validators.

Each protocol version's ``schema.json`` is pinned by URL and SHA-256
(``schemas/pins.json``). A schema comes from one place, in this order:

1. ``--schema-dir`` / ``MCP_ACCEPT_SCHEMA_DIR`` (``<version>/schema.json``): when set it
   is the only source;
2. the copy bundled with mcp-accept (``schemas/mcp/<version>/schema.json``, provenance
   and licence in ``schemas/mcp/SOURCES.md``), so a fresh install checks the wire offline;
3. the user cache folder (``platformdirs``), where a fetched copy is kept;
4. a single HTTPS fetch of the pinned URL (or of ``MCP_ACCEPT_SCHEMA_MIRROR``, a mirror
   laid out as ``BASE/<version>/schema.json``), unless fetching is switched off
   (``--offline`` / ``MCP_ACCEPT_OFFLINE=1``). Only a pin newer than the bundle needs it.

A file whose SHA-256 differs from its pin is refused wherever it came from.
Validators are compiled once per (version, definition) and reused.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# jsonschema and referencing are imported where they are used: they take about 80 ms to
# import, and a run whose messages all pass the jsonschema-rs check never needs them.

from mcp_accept.data import data_path
from mcp_accept.evidence.files import atomic_write_text

ENV_SCHEMA_DIR = "MCP_ACCEPT_SCHEMA_DIR"
ENV_OFFLINE = "MCP_ACCEPT_OFFLINE"
ENV_MIRROR = "MCP_ACCEPT_SCHEMA_MIRROR"


@dataclass(frozen=True)
class Pin:
    version: str
    url: str
    sha256: str


@functools.cache
def pins() -> dict[str, Pin]:
    path = data_path("schemas", "pins.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {v: Pin(v, p["url"], p["sha256"]) for v, p in data["versions"].items()}


class SchemaUnavailable(Exception):
    """No trustworthy copy of a version's schema could be had; the message says why."""


@dataclass
class LoadedSchema:
    pin: Pin
    source: str  # dir | bundled | cache | fetched
    document: dict

    def describe(self) -> dict:
        return {"version": self.pin.version, "url": self.pin.url, "sha256": self.pin.sha256,
                "source": self.source}


def require_dir(schema_dir: Path | None) -> None:
    """A folder named with ``--schema-dir`` must exist: a typo is bad input, not a missing schema."""
    if schema_dir is not None and not Path(schema_dir).is_dir():
        from mcp_accept.errors import InputError

        raise InputError("not a folder (expected <version>/schema.json inside)", file=str(schema_dir),
                         field="--schema-dir")


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("mcp-accept")) / "schemas"


def sha256_hex(data: bytes) -> str:
    # The interpreter's own SHA-256 first: importing hashlib maps OpenSSL's libcrypto, 3.6 MiB
    # of every run's memory (a 180 KB schema hashes in about a millisecond either way).
    try:
        from _sha256 import sha256  # CPython 3.10, 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython 3.12 and later
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


class SchemaStore:
    def __init__(self, schema_dir: Path | None = None, *, cache_dir: Path | None = None,
                 allow_fetch: bool | None = None, fetch_timeout: float = 30.0,
                 bundled_dir: Path | None = None):
        env_dir = os.environ.get(ENV_SCHEMA_DIR)
        self.schema_dir = Path(schema_dir) if schema_dir else (Path(env_dir) if env_dir else None)
        self.cache_dir = cache_dir
        self.bundled_dir = Path(bundled_dir) if bundled_dir else data_path("schemas", "mcp")
        if allow_fetch is None:
            allow_fetch = os.environ.get(ENV_OFFLINE, "") in ("", "0", "false", "no")
        self.allow_fetch = allow_fetch and self.schema_dir is None
        self.fetch_timeout = fetch_timeout
        self.mirror = os.environ.get(ENV_MIRROR) or None
        self._loaded: dict[str, LoadedSchema | SchemaUnavailable] = {}
        self._validators: dict[tuple[str, str], Any] = {}

    # -- loading ---------------------------------------------------------------------------
    def get(self, version: str) -> LoadedSchema:
        if version not in self._loaded:
            try:
                self._loaded[version] = self._load(version)
            except SchemaUnavailable as exc:
                self._loaded[version] = exc
        found = self._loaded[version]
        if isinstance(found, SchemaUnavailable):
            raise found
        return found

    def _load(self, version: str) -> LoadedSchema:
        pin = pins().get(version)
        if pin is None:
            raise SchemaUnavailable(f"no pinned official schema for protocol version {version!r}")
        if self.schema_dir is not None:
            path = self.schema_dir / version / "schema.json"
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise SchemaUnavailable(f"cannot read {path}: {exc.strerror or exc}") from None
            return self._accept(pin, data, "dir", path)
        bundled = self.bundled_dir / version / "schema.json"
        if bundled.is_file():
            try:
                return self._accept(pin, bundled.read_bytes(), "bundled", bundled)
            except SchemaUnavailable:
                pass  # a pin newer than the bundle: the cache or a fetch below
        cache = (self.cache_dir or default_cache_dir()) / version / "schema.json"
        if cache.is_file():
            try:
                return self._accept(pin, cache.read_bytes(), "cache", cache)
            except SchemaUnavailable:
                pass  # a damaged cache entry is fetched again below
        if not self.allow_fetch:
            raise SchemaUnavailable(
                f"schema {version} is neither bundled nor cached, and fetching is off (give "
                f"--schema-dir or {ENV_SCHEMA_DIR}, or run `mcp-accept schemas fetch`)")
        url = self._url(pin, self.mirror)
        data = self._fetch(Pin(version, url, pin.sha256))
        loaded = self._accept(pin, data, "fetched", url)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(cache, data.decode("utf-8"))
        except OSError:
            pass  # a cache we cannot write only costs a fetch next time
        return loaded

    @staticmethod
    def _url(pin: Pin, base_url: str | None) -> str:
        return f"{base_url.rstrip('/')}/{pin.version}/schema.json" if base_url else pin.url

    def _fetch(self, pin: Pin) -> bytes:
        import httpx

        try:
            response = httpx.get(pin.url, timeout=self.fetch_timeout, follow_redirects=True)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise SchemaUnavailable(f"fetching {pin.url} failed: {exc}") from None
        return response.content

    @staticmethod
    def _accept(pin: Pin, data: bytes, source: str, where: object) -> LoadedSchema:
        digest = sha256_hex(data)
        if digest != pin.sha256:
            raise SchemaUnavailable(
                f"{where}: SHA-256 {digest} does not match the pin {pin.sha256} for {pin.version}; refused")
        try:
            document = json.loads(data)
        except ValueError as exc:
            raise SchemaUnavailable(f"{where}: not JSON: {exc}") from None
        return LoadedSchema(pin, source, document)

    def fetch_all(self, into: Path, *, base_url: str | None = None) -> list[dict]:
        """Fetch every pinned schema, check its hash, and write ``into/<version>/schema.json``.

        ``base_url`` replaces the pinned location with a mirror laid out as
        ``BASE/<version>/schema.json``; the pinned hash is checked all the same.
        """
        done = []
        for version, pin in pins().items():
            url = self._url(pin, base_url or self.mirror)
            data = self._fetch(Pin(version, url, pin.sha256))
            self._accept(pin, data, "fetched", url)
            target = Path(into) / version / "schema.json"
            atomic_write_text(target, data.decode("utf-8"))
            done.append({"version": version, "path": str(target), "sha256": pin.sha256})
        return done

    def status(self) -> list[dict]:
        """For each pinned version: where its schema would come from, or why it cannot."""
        out = []
        for version, pin in pins().items():
            try:
                loaded = self.get(version)
                out.append({"version": version, "sha256": pin.sha256, "source": loaded.source, "problem": None})
            except SchemaUnavailable as exc:
                out.append({"version": version, "sha256": pin.sha256, "source": None, "problem": str(exc)})
        return out

    def used(self) -> list[dict]:
        return [s.describe() for s in self._loaded.values() if isinstance(s, LoadedSchema)]

    # -- validation ------------------------------------------------------------------------
    def validator(self, version: str, definition: str):
        key = (version, definition)
        if key not in self._validators:
            self._validators[key] = _compile(self.get(version).document, version, definition)
        return self._validators[key]

    def has_definition(self, version: str, definition: str) -> bool:
        doc = self.get(version).document
        return definition in (doc.get("$defs") or doc.get("definitions") or {})

    def errors(self, version: str, definition: str, instance: Any, limit: int = 3) -> list[str]:
        """Why ``instance`` is not a valid ``definition`` (empty when it is)."""
        fast = _fast_validator(self.get(version), definition)
        if fast is not None:
            try:
                if fast.is_valid(instance):
                    return []
            except Exception:  # a value it cannot take: the Python validator decides
                pass
        from jsonschema.exceptions import best_match

        validator = self.validator(version, definition)
        errors = list(_first(validator.iter_errors(instance), 50))
        if not errors:
            return []
        ordered = [best_match(errors)] + [e for e in errors if e is not best_match(errors)]
        return [_describe(e) for e in ordered[:limit]]


def _first(iterable, n):
    for i, item in enumerate(iterable):
        if i >= n:
            return
        yield item


def _describe(error) -> str:
    where = error.json_path
    message = error.message
    if len(message) > 300:
        message = message[:297] + "..."
    return f"{where}: {message}"


# The fast path: a compiled jsonschema-rs validator per (pinned schema, definition), shared
# by every store of the process. It only ever says "valid"; for anything else the Python
# validator (referencing, best_match) finds and words the errors as before.
_FAST: dict[tuple[str, str], Any] = {}


# One registry per pinned schema: handing the whole document to jsonschema-rs costs more
# than compiling one definition against it, and a run checks a dozen definitions.
_REGISTRIES: dict[str, Any] = {}


def _fast_validator(loaded: "LoadedSchema", definition: str):
    key = (loaded.pin.sha256, definition)
    if key not in _FAST:
        _FAST[key] = _build_fast(loaded, definition)
    return _FAST[key]


def _build_fast(loaded: "LoadedSchema", definition: str):
    try:
        import jsonschema_rs
    except ImportError:
        return None
    document, version = loaded.document, loaded.pin.version
    dialect = document.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    defs_key = "$defs" if "$defs" in document else "definitions"
    uri = f"urn:mcp-accept:official:{version}"
    root = {"$schema": dialect, "$ref": f"{uri}#/{defs_key}/{definition}"}
    try:
        registry = _REGISTRIES.get(loaded.pin.sha256)
        if registry is None:
            registry = _REGISTRIES[loaded.pin.sha256] = jsonschema_rs.Registry([(uri, document)])
        return jsonschema_rs.validator_for(root, registry=registry, validate_formats=False)
    except Exception:  # whatever it cannot compile is left to the Python validator
        return None


def _compile(document: dict, version: str, definition: str):
    import referencing
    import referencing.jsonschema
    from jsonschema import validators as _validators

    dialect = document.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    defs_key = "$defs" if "$defs" in document else "definitions"
    if definition not in document.get(defs_key, {}):
        raise SchemaUnavailable(f"schema {version} has no definition {definition!r}")
    uri = f"urn:mcp-accept:official:{version}"
    spec = referencing.jsonschema.specification_with(dialect)
    registry = referencing.Registry().with_resource(uri, spec.create_resource(document))
    root = {"$schema": dialect, "$ref": f"{uri}#/{defs_key}/{definition}"}
    cls = _validators.validator_for(root)
    return cls(root, registry=registry)
