-- How a model generates (temperature, max_tokens, context_window,
-- reasoning_effort): an agent's settings, and a chat's overrides of them,
-- field by field. Unset fields are absent.
ALTER TABLE agents ADD COLUMN model_settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(model_settings));
ALTER TABLE chats ADD COLUMN model_settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(model_settings));

-- A model turn while it streams: what has arrived so far, written every
-- second or so. Messages are immutable, so the turn becomes its assistant
-- message only when it ends; if the process dies first, start-up recovery
-- writes this as the message, marked `interrupted`. The run holds
-- `chats/<chat>/turns/<id>.lock` while the row lives, so recovery leaves a
-- live turn of another process alone.
CREATE TABLE streaming_turns (
    id TEXT PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    parent_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    content TEXT NOT NULL CHECK (json_valid(content)),
    meta TEXT NOT NULL CHECK (json_valid(meta)),
    started_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX streaming_turns_chat ON streaming_turns(chat_id);
