-- The tool-call lifecycle of the run flow (issue 4): pending →
-- [awaiting_approval] → running → success | error | cancelled | interrupted,
-- with a machine-readable error_kind and the captured output. SQLite cannot
-- change a CHECK constraint in place, so the table is rebuilt (rows kept).

CREATE TABLE tool_calls_v2 (
    id               TEXT PRIMARY KEY NOT NULL,
    chat_id          TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    message_id       TEXT REFERENCES messages (id) ON DELETE CASCADE,
    tool_id          TEXT NOT NULL,
    args             TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(args)),
    result           TEXT CHECK (result IS NULL OR json_valid(result)),
    render_plan      TEXT CHECK (render_plan IS NULL OR json_valid(render_plan)),
    status           TEXT NOT NULL CHECK (status IN
                         ('pending', 'awaiting_approval', 'running', 'success', 'error', 'cancelled', 'interrupted')),
    -- denied, timeout, crash, invalid_args, exception, not_found, …
    error_kind       TEXT,
    error            TEXT,
    -- Captured stdout / stderr of the call (may be truncated, with a note).
    stdout           TEXT,
    stderr           TEXT,
    started_at       TEXT NOT NULL,
    finished_at      TEXT,
    pre_manifest_id  TEXT REFERENCES workspace_manifests (id),
    post_manifest_id TEXT REFERENCES workspace_manifests (id)
) STRICT;

INSERT INTO tool_calls_v2 (id, chat_id, message_id, tool_id, args, result, render_plan, status, error,
                           started_at, finished_at, pre_manifest_id, post_manifest_id)
    SELECT id, chat_id, message_id, tool_id, args, result, render_plan, status, error,
           started_at, finished_at, pre_manifest_id, post_manifest_id
    FROM tool_calls;
DROP TABLE tool_calls;
ALTER TABLE tool_calls_v2 RENAME TO tool_calls;
CREATE INDEX tool_calls_by_chat ON tool_calls (chat_id, started_at);
CREATE INDEX tool_calls_by_message ON tool_calls (message_id);
CREATE INDEX tool_calls_by_tool ON tool_calls (tool_id);
CREATE INDEX tool_calls_unfinished ON tool_calls (status) WHERE status IN ('pending', 'awaiting_approval', 'running');
