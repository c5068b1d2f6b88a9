"""mcp-accept: acceptance tests for the four forms of MCP tool results."""

__version__ = "0.1.0"
