"""Facts of the MCP protocol versions mcp-accept knows, in one place.

The versions (newest first) and the era each belongs to, the ``_meta`` keys of the
2026-07-28 envelope, the HTTP header names of Streamable HTTP, the JSON-RPC error codes
and the ranges the specification reserves, and what each version requires of a result.
Every other module takes these from here; only the reference server
(:mod:`mcp_accept.fixture`), which must run as one standard-library file, keeps a copy
of those it needs (``tests/test_protocol_facts.py`` holds the copy equal to this).

Nothing here is read from the official schemas (:mod:`mcp_accept.schemas`): these are
the facts the code decides by, each one named once.
"""

from __future__ import annotations

# -- versions and eras ------------------------------------------------------------------------
# The era of 2026-07-28 has no handshake: a client probes server/discover and every request
# carries the version in its _meta envelope. The earlier versions open with initialize.
MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18")  # newest first
VERSIONS = (MODERN, *LEGACY)  # newest first
VERSIONS_IN_WORDS = ", ".join(VERSIONS[:-1]) + " or " + VERSIONS[-1]  # for help texts
LATEST_LEGACY = LEGACY[0]  # the legacy version a client offers in initialize
OLDEST = VERSIONS[-1]

MODERN_ERA, LEGACY_ERA = "modern", "legacy"
ERA_OF = {MODERN: MODERN_ERA, **{version: LEGACY_ERA for version in LEGACY}}


def is_modern(version: str | None) -> bool:
    """Whether ``version`` is of the discover-based era (2026-07-28)."""
    return version == MODERN


def is_legacy(version: str | None) -> bool:
    """Whether ``version`` is of the initialize-based era."""
    return version in LEGACY


# basic/index.mdx#json-schema-usage: the versions that say how JSON Schema is used (the oldest
# has no such section).
SCHEMA_USAGE_VERSIONS = (MODERN, LATEST_LEGACY)

# -- the 2026-07-28 _meta envelope ------------------------------------------------------------
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"

# -- Streamable HTTP headers ------------------------------------------------------------------
HEADER_VERSION = "MCP-Protocol-Version"  # both eras (legacy: after initialize)
HEADER_SESSION = "Mcp-Session-Id"  # legacy only
HEADER_METHOD = "Mcp-Method"  # 2026-07-28
HEADER_NAME = "Mcp-Name"  # 2026-07-28, for the methods of NAMED_METHODS
HEADER_PARAM_PREFIX = "Mcp-Param-"  # 2026-07-28, an argument a tool's x-mcp-header mirrors
# The headers a client sets itself: a user's header of the same name is not sent.
PROTOCOL_HEADERS = (HEADER_VERSION, HEADER_METHOD, HEADER_NAME, HEADER_SESSION)
# The parameter whose value Mcp-Name carries, by method.
NAMED_METHODS = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}

# -- JSON-RPC error codes ---------------------------------------------------------------------
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Legacy versions: the code servers SHOULD use for a resource that does not exist.
RESOURCE_NOT_FOUND = -32002
# 2026-07-28 basic/index.mdx#error-codes: -32020 to -32099 are kept for the specification,
# which defines the first three (HEADER_MISMATCH, -32021, UNSUPPORTED_VERSION); a code of the
# range it does not define, or a code of an earlier version (RETIRED_CODES), MUST NOT be
# emitted. The earlier versions reserve no range.
RESERVED_RANGE = (-32099, -32020)  # lowest, highest
HEADER_MISMATCH = -32020
UNSUPPORTED_VERSION = -32022
DEFINED_RESERVED = (-32020, -32021, -32022)
RETIRED_CODES = (-32002, -32042)


def reserves_error_codes(version: str | None) -> bool:
    """Whether ``version`` keeps a range of error codes for the specification."""
    return is_modern(version)


def unknown_resource_code(version: str | None) -> int:
    """The code a version asks for when a resource does not exist: -32602 in 2026-07-28
    (MUST), -32002 in the legacy versions (SHOULD)."""
    return INVALID_PARAMS if is_modern(version) else RESOURCE_NOT_FOUND


def unknown_resource_codes_accepted(version: str | None) -> tuple[int, ...]:
    """The codes for a resource that does not exist that a version does not forbid: 2026-07-28
    forbids -32002; the legacy versions also take the standard -32602."""
    return (INVALID_PARAMS,) if is_modern(version) else (INVALID_PARAMS, RESOURCE_NOT_FOUND)


# -- what 2026-07-28 requires of results ------------------------------------------------------
# basic/index.mdx#result-responses: every result carries resultType, complete or input_required.
RESULT_TYPE_FIELD = "resultType"
COMPLETE, INPUT_REQUIRED = "complete", "input_required"
# mrtr.mdx#supported-requests: the methods that may answer input_required.
INPUT_REQUIRED_METHODS = ("tools/call", "resources/read", "prompts/get")
# server/utilities/caching.mdx: complete results of these methods carry ttlMs (an integer >= 0)
# and cacheScope (one of CACHE_SCOPES).
CACHEABLE_METHODS = ("server/discover", "tools/list", "resources/list", "resources/templates/list",
                     "resources/read")
CACHE_SCOPES = ("public", "private")


# -- methods --------------------------------------------------------------------------------------
# The requests mcp-accept sends or judges: the schema's definitions of the request and of its result
# (schema.ts; None: judged as a bare Result), and the server capability whose feature the method
# serves (server/tools.mdx and server/resources.mdx, "Capabilities"; None: the lifecycle's own).
METHODS: dict[str, tuple[str, str | None, str | None]] = {
    "server/discover": ("DiscoverRequest", "DiscoverResult", None),
    "initialize": ("InitializeRequest", "InitializeResult", None),
    "ping": ("PingRequest", None, None),
    "tools/list": ("ListToolsRequest", "ListToolsResult", "tools"),
    "tools/call": ("CallToolRequest", "CallToolResult", "tools"),
    "resources/list": ("ListResourcesRequest", "ListResourcesResult", "resources"),
    "resources/read": ("ReadResourceRequest", "ReadResourceResult", "resources"),
    "resources/templates/list": ("ListResourceTemplatesRequest", "ListResourceTemplatesResult", "resources"),
}
NOTIFICATIONS = {
    "notifications/initialized": "InitializedNotification",
    "notifications/cancelled": "CancelledNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
}
# The client capability each server-to-client request of the legacy versions needs
# (basic/lifecycle.mdx#capability-negotiation); ping needs none.
CLIENT_CAPABILITY_OF = {
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
    "elicitation/create": "elicitation",
}
