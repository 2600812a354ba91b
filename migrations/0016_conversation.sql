-- The chat engine: which provider and model a chat talks to (none: its
-- agent's, else the provider's default), how each model turn went, and
-- which call of a model turn a tool call answers.
ALTER TABLE chats ADD COLUMN provider_id TEXT;
ALTER TABLE chats ADD COLUMN model TEXT;

-- An assistant turn's model, provider, usage and status
-- (`complete`, `stopped`, `failed`, `interrupted`, `step_limit`) and error.
ALTER TABLE messages ADD COLUMN meta TEXT CHECK (meta IS NULL OR json_valid(meta));

-- The provider's id of the call this row answers (`call_…`, `toolu_…`);
-- none for a call a person ran by hand.
ALTER TABLE tool_calls ADD COLUMN model_call_id TEXT;
