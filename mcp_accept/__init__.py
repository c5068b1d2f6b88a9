"""mcp-accept: acceptance tests for the four forms of MCP tool results.

The facts of the protocol itself (the versions and their eras, ``_meta`` keys, HTTP header
names, error codes, what each version requires) live in :mod:`mcp_accept.protocol` alone; the
reference server :mod:`mcp_accept.fixture` keeps a copy, held equal to it by a test.
docs/architecture.md says which stage holds what.
"""

__version__ = "0.1.0"
