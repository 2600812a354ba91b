-- Sub-agent threads: each task a `spawn_agents` call hands to an agent runs
-- as a thread of the chat, linked to that call. A thread's messages are a
-- tree of their own (one root per thread: a system message whose manifest
-- is the workspace when the task began), kept out of the chat's main tree,
-- its branches and its context. Main-tree messages have no thread.
CREATE TABLE threads (
    id             TEXT PRIMARY KEY NOT NULL,
    chat_id        TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    parent_call_id TEXT NOT NULL REFERENCES tool_calls (id) ON DELETE CASCADE,
    agent_id       TEXT NOT NULL,
    depth          INTEGER NOT NULL CHECK (depth >= 1),
    task           TEXT NOT NULL,
    created_at     TEXT NOT NULL
) STRICT;
CREATE INDEX threads_by_call ON threads (parent_call_id);

ALTER TABLE messages ADD COLUMN thread_id TEXT REFERENCES threads (id) ON DELETE CASCADE;
CREATE INDEX messages_by_thread ON messages (thread_id) WHERE thread_id IS NOT NULL;

-- One root per chat now means one root per chat's main tree, and one per thread.
DROP INDEX messages_one_root;
CREATE UNIQUE INDEX messages_one_root ON messages (chat_id) WHERE parent_id IS NULL AND thread_id IS NULL;
CREATE UNIQUE INDEX messages_one_thread_root ON messages (thread_id) WHERE parent_id IS NULL AND thread_id IS NOT NULL;
