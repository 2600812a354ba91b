-- A toolset's settings (`user_config` in its toolset.yaml): the
-- definitions, as the manifest gave them (a JSON object, in order), and the
-- non-sensitive values a person gave. Sensitive values are in the secret
-- store (owner `toolset:<id>`, key `user_config.<KEY>`), never here.
ALTER TABLE toolsets ADD COLUMN user_config TEXT NOT NULL DEFAULT '{}';

-- No foreign key: an upgrade replaces the toolset's rows and keeps the
-- values whose keys still exist; uninstall removes them.
CREATE TABLE toolset_config_values (
    toolset_id TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (toolset_id, key)
) STRICT;

-- Process environment variables a person allowed a toolset to read (its
-- `${VAR}` references with no secret stored). Without a row, a toolset
-- never reads a plain environment variable.
CREATE TABLE toolset_env_allowances (
    toolset_id TEXT NOT NULL,
    var        TEXT NOT NULL,
    allowed_at TEXT NOT NULL,
    PRIMARY KEY (toolset_id, var)
) STRICT;
