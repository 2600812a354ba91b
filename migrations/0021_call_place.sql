-- Where a call goes, written when it is placed (under the chat lock, before
-- it runs): its parent message and sub-agent thread, and where the chat
-- stood then (the database's active leaf and manifest). A call a crash cut
-- off is ended later, by another process or a retry, when the chat may be
-- elsewhere — a person checked out an earlier message while the model
-- answered, a thread's call never moves the main leaf, a new message came
-- after a failed end write. Its node must go where the call began, and the
-- folder counts as the call's work only while the chat still stands where
-- it stood. Cleared when the call ends (a fork copies finished rows, and
-- these name the source chat's messages). NULL on an unfinished row: one
-- from before this, ended at the chat's place as it was then.
ALTER TABLE tool_calls ADD COLUMN parent_id TEXT;
ALTER TABLE tool_calls ADD COLUMN thread_id TEXT;
ALTER TABLE tool_calls ADD COLUMN chat_leaf_id TEXT;
ALTER TABLE tool_calls ADD COLUMN chat_manifest_id TEXT;
