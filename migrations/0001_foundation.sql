-- Foundation schema: the tables of seed 004 §1 plus chats, messages, agents,
-- mcp_servers and the content-addressed workspace trees.
--
-- Conventions (see ARCHITECTURE.md):
-- * ids are UUIDv7 text (time-ordered), except toolset / tool / server ids,
--   which are the human-chosen identifiers of the spec;
-- * timestamps are ISO-8601 UTC text (`2026-11-22T23:57:10.123Z`);
-- * JSON lives in TEXT columns and is always valid JSON (CHECK json_valid);
-- * paths are relative to the data directory, so a data dir can be moved;
-- * an applied migration is never edited: later changes are new files.

-- ---------------------------------------------------------------- toolsets
CREATE TABLE toolsets (
    id               TEXT PRIMARY KEY NOT NULL,
    name             TEXT NOT NULL,
    version          TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    enabled          INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    installed_at     TEXT NOT NULL,
    source_type      TEXT NOT NULL CHECK (source_type IN ('zip', 'local', 'url')),
    source_ref       TEXT,
    manifest_version TEXT NOT NULL
) STRICT;

CREATE TABLE toolset_files (
    toolset_id  TEXT NOT NULL REFERENCES toolsets (id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('python', 'artifact', 'asset', 'config')),
    sha256      TEXT NOT NULL,
    size        INTEGER NOT NULL CHECK (size >= 0),
    -- Relative to the data dir (e.g. `toolsets/<id>/tools/a.py`), not absolute
    -- as the seed says, so the data dir can be moved.
    stored_path TEXT NOT NULL,
    PRIMARY KEY (toolset_id, path)
) STRICT, WITHOUT ROWID;

-- Builtin tools have toolset_id NULL and a bare id; toolset tools are
-- `<toolset_id>:<tool_id>`. Deleting a toolset removes its tools, but never
-- the tool_calls that used them (tool_calls.tool_id has no foreign key).
CREATE TABLE tools (
    tool_id               TEXT PRIMARY KEY NOT NULL,
    toolset_id            TEXT REFERENCES toolsets (id) ON DELETE CASCADE,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    category              TEXT,
    input_schema          TEXT NOT NULL DEFAULT '{"type":"object"}' CHECK (json_valid(input_schema)),
    requires_confirmation INTEGER NOT NULL DEFAULT 0 CHECK (requires_confirmation IN (0, 1)),
    enabled               INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    entrypoint            TEXT
) STRICT;
CREATE INDEX tools_by_toolset ON tools (toolset_id, tool_id);

CREATE TABLE tool_render_configs (
    tool_id  TEXT NOT NULL REFERENCES tools (tool_id) ON DELETE CASCADE,
    renderer TEXT NOT NULL CHECK (renderer IN ('code', 'document', 'html', 'frame')),
    config   TEXT NOT NULL CHECK (json_valid(config)),
    priority INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tool_id, priority)
) STRICT, WITHOUT ROWID;

-- ---------------------------------------------------------------- MCP
-- App-level MCP servers; toolset-declared servers are synced in here.
-- Server ids share one namespace with toolset ids (canonical tool ids).
CREATE TABLE mcp_servers (
    id         TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    config     TEXT NOT NULL CHECK (json_valid(config)),
    enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE toolset_mcp_servers (
    toolset_id   TEXT NOT NULL REFERENCES toolsets (id) ON DELETE CASCADE,
    server_id    TEXT NOT NULL,
    config       TEXT NOT NULL CHECK (json_valid(config)),
    auto_enabled INTEGER NOT NULL DEFAULT 1 CHECK (auto_enabled IN (0, 1)),
    PRIMARY KEY (toolset_id, server_id)
) STRICT, WITHOUT ROWID;

-- ---------------------------------------------------------------- agents
-- A new agent has no tools: `toolsets` and `tools` default to empty lists.
CREATE TABLE agents (
    id            TEXT PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL,
    system_prompt TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(model)),
    toolsets      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(toolsets) AND json_type(toolsets) = 'array'),
    tools         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tools) AND json_type(tools) = 'array'),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

-- ---------------------------------------------------------------- chats
-- active_leaf_message_id / active_manifest_id point into rows this chat owns;
-- they are deferred so a chat, its empty manifest and its root message can
-- be created in one transaction.
CREATE TABLE chats (
    id                     TEXT PRIMARY KEY NOT NULL,
    title                  TEXT NOT NULL,
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    active_leaf_message_id TEXT REFERENCES messages (id) DEFERRABLE INITIALLY DEFERRED,
    active_manifest_id     TEXT REFERENCES workspace_manifests (id) DEFERRABLE INITIALLY DEFERRED,
    agent_id               TEXT REFERENCES agents (id) ON DELETE SET NULL
) STRICT;
CREATE INDEX chats_by_updated ON chats (updated_at DESC);

-- Workspace directory trees, content-addressed (git-like): `hash` is the
-- SHA-256 of `data`, a canonical encoding of one directory's entries (see
-- crates/atelier-core/src/store/tree.rs). A manifest names its root tree;
-- unchanged directories are shared between manifests, so a manifest costs
-- storage in proportion to what changed, not to the workspace size.
CREATE TABLE workspace_trees (
    chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    hash    TEXT NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (chat_id, hash)
) STRICT, WITHOUT ROWID;

-- `files` keeps the seed's `{path: sha256}` shape, but holds the change set
-- against `parent_id` (a removed path maps to null); a manifest without a
-- parent lists all its files. The full map is read through `root_tree`.
-- Rows are immutable, so the change set can never go stale.
CREATE TABLE workspace_manifests (
    id          TEXT PRIMARY KEY NOT NULL,
    chat_id     TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    parent_id   TEXT REFERENCES workspace_manifests (id),
    files       TEXT NOT NULL CHECK (json_valid(files)),
    created_at  TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('user_upload', 'tool_run', 'branch', 'edit', 'empty')),
    source_ref  TEXT,
    root_tree   TEXT NOT NULL,
    file_count  INTEGER NOT NULL CHECK (file_count >= 0),
    total_size  INTEGER NOT NULL CHECK (total_size >= 0),
    FOREIGN KEY (chat_id, root_tree) REFERENCES workspace_trees (chat_id, hash)
) STRICT;
CREATE INDEX workspace_manifests_by_chat ON workspace_manifests (chat_id, created_at);

-- The conversation tree. Messages are immutable once written.
CREATE TABLE messages (
    id          TEXT PRIMARY KEY NOT NULL,
    chat_id     TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    parent_id   TEXT REFERENCES messages (id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool', 'edit')),
    content     TEXT NOT NULL CHECK (json_valid(content) AND json_type(content) = 'array'),
    -- The workspace state after this message.
    manifest_id TEXT NOT NULL REFERENCES workspace_manifests (id),
    created_at  TEXT NOT NULL,
    -- Only the root (a system message) has no parent.
    CHECK (parent_id IS NOT NULL OR role = 'system')
) STRICT;
-- Children of a message in creation order: rowid is the insertion order
-- (UUIDv7 ids made by two processes in one millisecond need not be).
CREATE INDEX messages_by_parent ON messages (parent_id);
CREATE INDEX messages_by_chat ON messages (chat_id);
-- Exactly one root per chat.
CREATE UNIQUE INDEX messages_one_root ON messages (chat_id) WHERE parent_id IS NULL;

-- ---------------------------------------------------------------- tool calls
-- History: tool_id deliberately has no foreign key, so upgrading or
-- uninstalling a toolset never removes the record of what ran.
CREATE TABLE tool_calls (
    id               TEXT PRIMARY KEY NOT NULL,
    chat_id          TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    message_id       TEXT REFERENCES messages (id) ON DELETE CASCADE,
    tool_id          TEXT NOT NULL,
    args             TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(args)),
    result           TEXT CHECK (result IS NULL OR json_valid(result)),
    render_plan      TEXT CHECK (render_plan IS NULL OR json_valid(render_plan)),
    status           TEXT NOT NULL CHECK (status IN ('pending', 'running', 'success', 'error')),
    error            TEXT,
    started_at       TEXT NOT NULL,
    finished_at      TEXT,
    pre_manifest_id  TEXT REFERENCES workspace_manifests (id),
    post_manifest_id TEXT REFERENCES workspace_manifests (id)
) STRICT;
CREATE INDEX tool_calls_by_chat ON tool_calls (chat_id, started_at);
CREATE INDEX tool_calls_by_message ON tool_calls (message_id);
CREATE INDEX tool_calls_by_tool ON tool_calls (tool_id);
