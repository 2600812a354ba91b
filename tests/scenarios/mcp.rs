//! MCP servers through the core against real servers.
