-- Toolset bundles (issue 3): the optional manifest fields, what export needs
-- to regenerate toolset.yaml exactly (unknown keys, order), and who
-- declares each MCP server.

ALTER TABLE toolsets ADD COLUMN author TEXT;
ALTER TABLE toolsets ADD COLUMN homepage TEXT;
-- A path inside the bundle.
ALTER TABLE toolsets ADD COLUMN icon TEXT;
-- pip requirement strings, installed into a venv by the Python runtime.
ALTER TABLE toolsets ADD COLUMN python_requirements TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(python_requirements) AND json_type(python_requirements) = 'array');
-- Manifest keys this version does not know, written back on export.
ALTER TABLE toolsets ADD COLUMN extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra));
ALTER TABLE toolsets ADD COLUMN updated_at TEXT;

ALTER TABLE tools ADD COLUMN tags TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array');
ALTER TABLE tools ADD COLUMN timeout_s REAL CHECK (timeout_s IS NULL OR timeout_s > 0);
ALTER TABLE tools ADD COLUMN extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra));
-- Order in the manifest (listings sort by tool_id; export keeps this order).
ALTER TABLE tools ADD COLUMN position INTEGER NOT NULL DEFAULT 0;

ALTER TABLE toolset_mcp_servers ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
-- A server the user added in settings; toolsets that declare the same id
-- with the same config share it, and uninstalling them never removes it.
ALTER TABLE mcp_servers ADD COLUMN user_declared INTEGER NOT NULL DEFAULT 0 CHECK (user_declared IN (0, 1));
