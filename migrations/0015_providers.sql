-- LLM providers a person configured: where requests go, never a key.
-- API keys and secret header values are in the secret store (owner
-- `provider:<id>`, keys `api_key` and `header.<Name>`); `secret_headers`
-- names the headers whose values live there.
CREATE TABLE providers (
    id             TEXT PRIMARY KEY NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('openai', 'anthropic')),
    preset         TEXT,
    base_url       TEXT NOT NULL,
    default_model  TEXT,
    headers        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(headers) AND json_type(headers) = 'object'),
    secret_headers TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(secret_headers) AND json_type(secret_headers) = 'array'),
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
) STRICT;
