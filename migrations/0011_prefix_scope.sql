-- A toolset's prefix: the namespace its tools have in the names a model
-- sees (`<prefix>.<tool>`). NULL means its id. Unique across toolsets and
-- MCP servers, which the import checks (a NULL prefix counts as the id).
ALTER TABLE toolsets ADD COLUMN prefix TEXT;
-- Whether a toolset's Python worker belongs to one chat (`chat`: stops with
-- it) or serves every chat (`shared`: one instance, never stopped by a chat).
ALTER TABLE toolsets ADD COLUMN scope TEXT NOT NULL DEFAULT 'chat' CHECK (scope IN ('chat', 'shared'));
