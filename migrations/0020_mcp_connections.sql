-- MCP servers connect: what a server offered the last time it was listed
-- (a run resolves its tools before any chat-scoped server is up), who it
-- said it was, and why it last failed to start.
ALTER TABLE mcp_servers ADD COLUMN tools TEXT CHECK (tools IS NULL OR (json_valid(tools) AND json_type(tools) = 'array'));
ALTER TABLE mcp_servers ADD COLUMN server_info TEXT CHECK (server_info IS NULL OR json_valid(server_info));
ALTER TABLE mcp_servers ADD COLUMN listed_at TEXT;
ALTER TABLE mcp_servers ADD COLUMN last_error TEXT;
