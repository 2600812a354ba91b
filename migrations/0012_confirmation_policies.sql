-- A person's confirmation policy for a tool, over its author's
-- `requires_confirmation`: 'ask' (always ask) or 'allow' (never ask). No
-- row: the default, the author's choice. Keyed by canonical tool id, not a
-- foreign key: a policy outlives an uninstall and applies again on reinstall.
CREATE TABLE tool_policies (
    tool_id    TEXT PRIMARY KEY NOT NULL,
    policy     TEXT NOT NULL CHECK (policy IN ('ask', 'allow')),
    updated_at TEXT NOT NULL
) STRICT;

-- "Allow for this chat": a confirmation answered once for a tool in a chat,
-- until the chat is deleted or the person revokes it.
CREATE TABLE chat_tool_allowances (
    chat_id    TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    tool_id    TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    PRIMARY KEY (chat_id, tool_id)
) STRICT;
