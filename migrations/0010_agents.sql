-- Agents as the tool-routing layer uses them: a description (how other
-- agents and people tell them apart), filters and policies over the tool
-- pool (JSON lists, checked by the core), and run limits. A data dir gets
-- one agent, Assistant, allowed the builtin workspace tools; an agent made
-- later starts with no tools at all.
ALTER TABLE agents ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN filters TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(filters) AND json_type(filters) = 'array');
ALTER TABLE agents ADD COLUMN policies TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(policies) AND json_type(policies) = 'array');
ALTER TABLE agents ADD COLUMN max_depth INTEGER NOT NULL DEFAULT 2 CHECK (max_depth >= 0);
ALTER TABLE agents ADD COLUMN max_steps INTEGER NOT NULL DEFAULT 25 CHECK (max_steps >= 1);

INSERT INTO agents (id, name, description, system_prompt, tools, created_at, updated_at)
SELECT 'assistant', 'Assistant', 'A helpful assistant that works in the chat''s workspace.',
       'You are a helpful assistant. The files of this chat are in its workspace; use the tools to read and change them.',
       '["read_file","write_file","list_files","delete_file"]',
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE NOT EXISTS (SELECT 1 FROM agents);
