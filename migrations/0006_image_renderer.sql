-- The `image` renderer type, an Atelier extension of seed 004 §5.1: a
-- workspace image (`file`, shown as the call left it) or a data / loopback
-- `url`, with an optional `alt`. SQLite cannot change a CHECK in place, so
-- the table is rebuilt with its rows (nothing references it).
CREATE TABLE tool_render_configs_new (
    tool_id  TEXT NOT NULL REFERENCES tools (tool_id) ON DELETE CASCADE,
    renderer TEXT NOT NULL CHECK (renderer IN ('code', 'document', 'html', 'frame', 'image')),
    config   TEXT NOT NULL CHECK (json_valid(config)),
    priority INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tool_id, priority)
) STRICT, WITHOUT ROWID;
INSERT INTO tool_render_configs_new (tool_id, renderer, config, priority)
    SELECT tool_id, renderer, config, priority FROM tool_render_configs;
DROP TABLE tool_render_configs;
ALTER TABLE tool_render_configs_new RENAME TO tool_render_configs;
